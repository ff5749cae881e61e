/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of the semaphore's wait entries: down_entry() entries and
 * down_async() requests queued, granted, cancelled and failed by
 * sem_shutdown().  Sleepers of the down() family have
 * lock:contention_begin/end; the functions of down_async() requests have
 * workqueue:workqueue_execute_start/end.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM semaphore

#if !defined(_TRACE_SEMAPHORE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SEMAPHORE_H

#include <linux/tracepoint.h>

struct semaphore;
struct sem_waiter;

DECLARE_EVENT_CLASS(sem_entry,
		    TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter),
		    TP_ARGS(sem, waiter),
		    TP_STRUCT__entry(__field(void *, sem)
				     __field(void *, waiter)),
		    TP_fast_assign(__entry->sem = sem;
				   __entry->waiter = waiter;),
		    TP_printk("sem=%p waiter=%p", __entry->sem, __entry->waiter)
);

/* A wait entry was queued behind every earlier waiter. */
DEFINE_EVENT(sem_entry, sem_entry_queue,
	     TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter),
	     TP_ARGS(sem, waiter)
);

/* up() granted a unit to a queued wait entry. */
DEFINE_EVENT(sem_entry, sem_entry_grant,
	     TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter),
	     TP_ARGS(sem, waiter)
);

/* sem_shutdown() failed a queued wait entry, or down_entry() a new one. */
DEFINE_EVENT(sem_entry, sem_entry_shutdown,
	     TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter),
	     TP_ARGS(sem, waiter)
);

/* A cancel took a queued wait entry off its semaphore. */
DEFINE_EVENT(sem_entry, sem_entry_cancel,
	     TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter),
	     TP_ARGS(sem, waiter)
);

#endif /* _TRACE_SEMAPHORE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>

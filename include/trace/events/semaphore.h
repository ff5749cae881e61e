/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of the semaphore's wait entries: down_entry() and
 * down_async() requests queued, granted, cancelled and failed by
 * sem_shutdown(), and the work items of down_async() requests.  Sleepers
 * of the down() family have lock:contention_begin/end instead.  See
 * Documentation/locking/semaphore.rst, "Tracing".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM semaphore

#if !defined(_TRACE_SEMAPHORE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SEMAPHORE_H

#include <linux/tracepoint.h>
#include <linux/types.h>

struct semaphore;
struct sem_waiter;
struct sem_async;

/* A wait entry was queued behind @qlen - 1 earlier waiters. */
TRACE_EVENT(sem_entry_queue,
	    TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter,
		     unsigned int qlen, bool async),
	    TP_ARGS(sem, waiter, qlen, async),
	    TP_STRUCT__entry(__field(void *, sem)
			     __field(void *, waiter)
			     __field(unsigned int, qlen)
			     __field(bool, async)),
	    TP_fast_assign(__entry->sem = sem;
			   __entry->waiter = waiter;
			   __entry->qlen = qlen;
			   __entry->async = async;),
	    TP_printk("sem=%p waiter=%p qlen=%u %s", __entry->sem,
		      __entry->waiter, __entry->qlen,
		      __entry->async ? "down_async" : "down_entry")
);

/* A queued wait entry was granted a unit after waiting @wait_ns. */
TRACE_EVENT(sem_entry_grant,
	    TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter,
		     u64 wait_ns),
	    TP_ARGS(sem, waiter, wait_ns),
	    TP_STRUCT__entry(__field(void *, sem)
			     __field(void *, waiter)
			     __field(u64, wait_ns)),
	    TP_fast_assign(__entry->sem = sem;
			   __entry->waiter = waiter;
			   __entry->wait_ns = wait_ns;),
	    TP_printk("sem=%p waiter=%p wait_ns=%llu", __entry->sem,
		      __entry->waiter, __entry->wait_ns)
);

/* A cancel call returned @ret for a wait entry. */
TRACE_EVENT(sem_entry_cancel,
	    TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter, int ret),
	    TP_ARGS(sem, waiter, ret),
	    TP_STRUCT__entry(__field(void *, sem)
			     __field(void *, waiter)
			     __field(int, ret)),
	    TP_fast_assign(__entry->sem = sem;
			   __entry->waiter = waiter;
			   __entry->ret = ret;),
	    TP_printk("sem=%p waiter=%p ret=%d", __entry->sem, __entry->waiter,
		      __entry->ret)
);

/* sem_shutdown() (or the debug fixup) failed a queued wait entry. */
TRACE_EVENT(sem_entry_shutdown,
	    TP_PROTO(struct semaphore *sem, struct sem_waiter *waiter),
	    TP_ARGS(sem, waiter),
	    TP_STRUCT__entry(__field(void *, sem)
			     __field(void *, waiter)),
	    TP_fast_assign(__entry->sem = sem;
			   __entry->waiter = waiter;),
	    TP_printk("sem=%p waiter=%p", __entry->sem, __entry->waiter)
);

/* The work function of a down_async() request is about to run. */
TRACE_EVENT(sem_async_work_start,
	    TP_PROTO(struct semaphore *sem, struct sem_async *req, int status),
	    TP_ARGS(sem, req, status),
	    TP_STRUCT__entry(__field(void *, sem)
			     __field(void *, req)
			     __field(int, status)),
	    TP_fast_assign(__entry->sem = sem;
			   __entry->req = req;
			   __entry->status = status;),
	    TP_printk("sem=%p req=%p status=%d", __entry->sem, __entry->req,
		      __entry->status)
);

/*
 * The work function of a down_async() request returned.  @req may have
 * been freed by it: only its address is passed (untyped, so that a typed
 * BPF program cannot dereference it) and recorded.
 */
TRACE_EVENT(sem_async_work_end,
	    TP_PROTO(struct semaphore *sem, const void *req),
	    TP_ARGS(sem, req),
	    TP_STRUCT__entry(__field(void *, sem)
			     __field(const void *, req)),
	    TP_fast_assign(__entry->sem = sem;
			   __entry->req = req;),
	    TP_printk("sem=%p req=%p", __entry->sem, __entry->req)
);

#endif /* _TRACE_SEMAPHORE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>

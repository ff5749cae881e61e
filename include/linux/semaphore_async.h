/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wait entries of the generic semaphore, and down_async() built on them:
 * see Documentation/locking/semaphore.rst.
 */
#ifndef __LINUX_SEMAPHORE_ASYNC_H
#define __LINUX_SEMAPHORE_ASYNC_H

#include <linux/list.h>
#include <linux/semaphore.h>
#include <linux/types.h>
#include <linux/workqueue_types.h>

/**
 * typedef sem_grant_fn - called when a queued wait entry is settled
 * @waiter: the entry queued with down_entry()
 * @status: 0 if the entry now holds one unit, to release with up(); or
 *	-ESHUTDOWN (no unit) if sem_shutdown() failed it
 *
 * Called once per queueing, by the up(), sem_shutdown() or down_entry()
 * that settled @waiter (maybe in hard interrupt context), under the
 * semaphore's raw spinlock with interrupts disabled, as a wait queue calls
 * its entries' functions.  @waiter is off the queue and the semaphore does
 * not touch it again, but the settling call unlocks the semaphore after
 * the function returns: whoever frees the semaphore after a grant first
 * takes its lock, e.g. with sem_waiter_cancel() (false) of the entry.
 * Must not sleep, take a spinlock_t (PREEMPT_RT) or a lock held around a
 * call of this semaphore's API, nor call a semaphore's API.
 */
typedef void (*sem_grant_fn)(struct sem_waiter *waiter, int status);

/**
 * struct sem_waiter - a waiter of a semaphore (private members)
 * @list: link in the semaphore's circular FIFO list of waiters
 * @task: a sleeper of the down() family; %NULL for a wait entry
 * @grant: a wait entry's grant function
 * @sem: the semaphore a wait entry is queued on, %NULL when not queued
 * @granted: a sleeper was handed a unit
 */
struct sem_waiter {
	struct list_head	list;
	struct task_struct	*task;
	sem_grant_fn		grant;
	struct semaphore	*sem;
	bool			granted;
};

void sem_waiter_init(struct sem_waiter *waiter, sem_grant_fn grant);
bool __must_check down_entry(struct semaphore *sem, struct sem_waiter *waiter);
bool sem_waiter_cancel(struct semaphore *sem, struct sem_waiter *waiter);
void sem_shutdown(struct semaphore *sem);

struct sem_async;

/**
 * typedef sem_async_fn - the function of a down_async() request
 * @req: the request
 * @status: this run's: 0 if it holds one unit, to release with up();
 *	-ESHUTDOWN (no unit) if sem_shutdown() failed the request
 *
 * Runs on the request's workqueue once per submission that was not
 * cancelled.  It may submit @req again, or free it.
 */
typedef void (*sem_async_fn)(struct sem_async *req, int status);

/**
 * struct sem_async - a down_async() request (private members)
 * @waiter: its wait entry, whose grant function queues @work
 * @work: runs @func on @wq
 * @sem: the semaphore it acquires
 * @wq: the workqueue @func runs on
 * @func: the function
 * @status: the status of the grant whose run is pending
 * @pending: submitted, and @func not started for that submission
 * @cancelling: sem_async_cancel_sync() calls running for the request
 */
struct sem_async {
	struct sem_waiter	waiter;
	struct work_struct	work;
	struct semaphore	*sem;
	struct workqueue_struct	*wq;
	sem_async_fn		func;
	int			status;
	bool			pending;
	atomic_t		cancelling;
};

void __sem_async_init(struct sem_async *req, struct semaphore *sem,
		      struct workqueue_struct *wq, sem_async_fn func,
		      const char *name, struct lock_class_key *key);

/**
 * sem_async_init - initialise a down_async() request
 * @req: the request, idle: never submitted, or sem_async_cancel_sync() done
 * @sem: the semaphore it acquires
 * @wq: the workqueue its function runs on
 * @func: the function
 *
 * Binds @req for its life; to change a binding, make @req idle and
 * initialise it again.  As INIT_WORK(), each call site gets its own
 * lockdep class, named after @req.  @req must not live on the stack, and
 * @wq must not be a BH workqueue (WQ_BH).
 */
#define sem_async_init(req, sem, wq, func)				\
	do {								\
		static struct lock_class_key __key;			\
									\
		__sem_async_init(req, sem, wq, func,			\
				 "(work_completion)"#req, &__key);	\
	} while (0)

bool down_async(struct sem_async *req);
bool sem_async_cancel(struct sem_async *req);
bool sem_async_cancel_sync(struct sem_async *req);

#endif /* __LINUX_SEMAPHORE_ASYNC_H */

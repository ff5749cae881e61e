// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic counting semaphores, with wait entries and asynchronous
 * acquisition: see Documentation/locking/semaphore.rst.
 *
 * Copyright (c) 2008 Intel Corporation
 * Author: Matthew Wilcox <willy@linux.intel.com>
 */

/*
 * Invariant: if anyone waits, no unit is free (->count is laid out in
 * <linux/semaphore.h>).  up() hands its unit to the oldest waiter, nothing
 * overtakes a queued waiter, and a waiter that leaves without a grant
 * never holds a unit that must be passed on.
 *
 * While nobody waits, down and up are one compare-and-exchange that guesses
 * a free binary semaphore, without the lock.  The raw spinlock protects the
 * waiters (a sleeper has ->task set, a wait entry ->grant) and every change
 * of SEM_WAITERS, which the compare-and-exchange that finds no free unit
 * sets: from then on the fast up() fails and a released unit goes through the
 * lock to the oldest waiter.  All changes of ->count are atomic on the whole
 * word, so a fast and a slow change never both succeed on one old value.  A
 * down acquires, up() releases; a unit handed to a waiter is ordered by the
 * lock.  The lock is raw, with interrupts disabled: up() and down_trylock()
 * may run in hard interrupt context, also on PREEMPT_RT.
 *
 * The grant is decided under the lock: the waiter is dequeued and holds the
 * unit from then on.  A woken sleeper checks ->granted under the lock, so a
 * racing signal or timeout loses.  A wait entry's grant function is called
 * in the same locked step, as a wait queue calls its entries' functions: a
 * cancel under the lock finds the entry queued, or its function returned.
 * A down_async() request is a wait entry whose grant function queues the
 * request's work; that nests the pool lock and the scheduler's locks inside
 * sem->lock, an order lockdep checks on every grant.
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/wake_q.h>
#include <linux/semaphore_async.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/ftrace.h>
#include <trace/events/lock.h>

#include "semaphore-debug.h"

#define CREATE_TRACE_POINTS
#include <trace/events/semaphore.h>

#define SEM_SHUTDOWN		__SEM_SHUTDOWN
#define SEM_WAITERS		__SEM_WAITERS
#define SEM_COUNT_MAX		__SEM_COUNT_MAX

/*
 * Take a free unit without the lock: a free unit means nobody waits, so
 * this never overtakes a waiter.  Acquire: pairs with the up() that freed it.
 */
static __always_inline bool sem_take_fast(struct semaphore *sem)
{
	int c = 1;	/* the guess: a free binary semaphore */

	/* The guess in constants costs what mutex_lock() costs. */
	if (likely(atomic_try_cmpxchg_acquire(&sem->count, &c, 0)))
		return true;
	do {
		if (!(c & SEM_COUNT_MAX))
			return false;
	} while (!atomic_try_cmpxchg_acquire(&sem->count, &c, c - 1));
	return true;
}

/*
 * sem->lock held, before queueing a waiter: take a free unit (acquire), or
 * else set SEM_WAITERS, in one compare-and-exchange with the fast paths.
 */
static bool sem_take_or_wait(struct semaphore *sem)
{
	int c = atomic_read(&sem->count);

	lockdep_assert_held(&sem->lock);
	for (;;) {
		if (c & SEM_COUNT_MAX) {
			if (atomic_try_cmpxchg_acquire(&sem->count, &c, c - 1))
				return true;
		} else if (c & SEM_WAITERS) {
			return false;
		} else if (atomic_try_cmpxchg_relaxed(&sem->count, &c,
						      c | SEM_WAITERS)) {
			/* Ordered against up() by sem->lock from here on. */
			sem_debug_waiters(sem, true);
			return false;
		}
	}
}

/* Queue @waiter behind every waiter of @sem; sem->lock held. */
static void sem_enqueue(struct semaphore *sem, struct sem_waiter *waiter)
{
	lockdep_assert_held(&sem->lock);
	if (sem->first_waiter) {
		list_add_tail(&waiter->list, &sem->first_waiter->list);
	} else {
		INIT_LIST_HEAD(&waiter->list);
		sem->first_waiter = waiter;
	}
}

/* Clear SEM_WAITERS once the last waiter left; sem->lock held. */
static void sem_waiter_gone(struct semaphore *sem)
{
	lockdep_assert_held(&sem->lock);
	if (!sem->first_waiter && (atomic_read(&sem->count) & SEM_WAITERS)) {
		atomic_andnot(SEM_WAITERS, &sem->count);
		sem_debug_waiters(sem, false);
	}
}

/* Take @waiter, from any position, off @sem's waiters; sem->lock held. */
static void sem_dequeue(struct semaphore *sem, struct sem_waiter *waiter)
{
	lockdep_assert_held(&sem->lock);
	if (sem->first_waiter == waiter)
		sem->first_waiter = list_empty(&waiter->list) ? NULL :
				    list_next_entry(waiter, list);
	list_del_init(&waiter->list);
	sem_waiter_gone(sem);
}

static noinline int __down_common(struct semaphore *sem, long state,
				  long timeout);
static noinline void __up_slow(struct semaphore *sem);

/**
 * down - acquire the semaphore
 * @sem: the semaphore to be acquired
 *
 * Acquires the semaphore, sleeping until a unit is free.  Use of this
 * function is deprecated, please use down_interruptible() or
 * down_killable() instead.
 *
 * Context: Process context; may sleep.
 */
void __sched down(struct semaphore *sem)
{
	might_sleep();
	if (likely(sem_take_fast(sem)))
		return;
	__down_common(sem, TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
}
EXPORT_SYMBOL(down);

/**
 * down_interruptible - acquire the semaphore unless interrupted
 * @sem: the semaphore to be acquired
 *
 * As down(), but a signal ends the sleep; a waiter granted the semaphore
 * keeps it even if a signal arrives at the same time.
 *
 * Context: Process context; may sleep.
 * Return: 0 if the semaphore was acquired, -EINTR if the sleep was
 * interrupted by a signal.
 */
int __sched down_interruptible(struct semaphore *sem)
{
	might_sleep();
	if (likely(sem_take_fast(sem)))
		return 0;
	return __down_common(sem, TASK_INTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
}
EXPORT_SYMBOL(down_interruptible);

/**
 * down_killable - acquire the semaphore unless killed
 * @sem: the semaphore to be acquired
 *
 * As down(), but a fatal signal ends the sleep.
 *
 * Context: Process context; may sleep.
 * Return: 0 if the semaphore was acquired, -EINTR if the sleep was
 * interrupted by a fatal signal.
 */
int __sched down_killable(struct semaphore *sem)
{
	might_sleep();
	if (likely(sem_take_fast(sem)))
		return 0;
	return __down_common(sem, TASK_KILLABLE, MAX_SCHEDULE_TIMEOUT);
}
EXPORT_SYMBOL(down_killable);

/**
 * down_trylock - try to acquire the semaphore, without waiting
 * @sem: the semaphore to be acquired
 *
 * Try to acquire the semaphore atomically.  It fails while other callers
 * are queued: a unit released by up() belongs to the oldest waiter.
 * Unlike mutex_trylock, it can be used from interrupt context, and the
 * semaphore can be released by any task or interrupt.  NOTE: the return
 * value is inverted from both spin_trylock and mutex_trylock!
 *
 * Context: Any context.
 * Return: 0 if the semaphore has been acquired successfully or 1 if it
 * cannot be acquired.
 */
int __sched down_trylock(struct semaphore *sem)
{
	return !sem_take_fast(sem);
}
EXPORT_SYMBOL(down_trylock);

/**
 * down_timeout - acquire the semaphore within a specified time
 * @sem: the semaphore to be acquired
 * @timeout: how long to wait before failing, in jiffies
 *
 * As down(), but gives up after @timeout; a waiter granted the semaphore
 * as its timeout expires keeps it.
 *
 * Context: Process context; may sleep.
 * Return: 0 if the semaphore was acquired, -ETIME if it was not released
 * to this caller within @timeout jiffies.
 */
int __sched down_timeout(struct semaphore *sem, long timeout)
{
	might_sleep();
	if (likely(sem_take_fast(sem)))
		return 0;
	return __down_common(sem, TASK_UNINTERRUPTIBLE, timeout);
}
EXPORT_SYMBOL(down_timeout);

/**
 * up - release the semaphore
 * @sem: the semaphore to release
 *
 * Release the semaphore.  Unlike mutexes, up() may be called from any
 * context and even by tasks which have never called down().  If callers
 * are queued, the unit goes directly to the oldest: a sleeper is woken, a
 * wait entry has its grant function called (see &typedef sem_grant_fn).
 * Whoever is granted the unit sees the stores made before up().  An up()
 * that would overflow the count (2^30 - 1) warns and is ignored.
 *
 * Context: Any context.
 */
void __sched up(struct semaphore *sem)
{
	int c = 0;	/* the guess: a binary semaphore, nobody waits */

	/* Release: pairs with the acquire of the next down. */
	if (likely(atomic_try_cmpxchg_release(&sem->count, &c, 1)))
		return;
	/*
	 * One test for both reasons to take the lock: SEM_WAITERS is set
	 * (then no unit is free, and it stays set in c + 1), or the count is
	 * at its maximum and c + 1 would carry into it.
	 */
	while (!((c + 1U) & SEM_WAITERS)) {
		if (atomic_try_cmpxchg_release(&sem->count, &c, c + 1))
			return;
	}
	__up_slow(sem);
}
EXPORT_SYMBOL(up);

/*
 * Queue on the stack and sleep until up() hands a unit over, a signal
 * allowed by @state arrives, or @timeout expires; sem->lock held.
 */
static inline int __sched ___down_common(struct semaphore *sem, long state,
					 long timeout)
	__must_hold(&sem->lock)
{
	struct sem_waiter waiter = {
		.task	= current,
	};

	sem_enqueue(sem, &waiter);

	for (;;) {
		if (signal_pending_state(state, current))
			goto interrupted;
		if (unlikely(timeout <= 0))
			goto timed_out;
		__set_current_state(state);
		raw_spin_unlock_irq(&sem->lock);
		timeout = schedule_timeout(timeout);
		raw_spin_lock_irq(&sem->lock);
		if (waiter.granted)
			return 0;
	}

 timed_out:
	sem_dequeue(sem, &waiter);
	return -ETIME;

 interrupted:
	sem_dequeue(sem, &waiter);
	return -EINTR;
}

/* The slow path of the down() family: the fast path found no free unit. */
static noinline int __sched __down_common(struct semaphore *sem, long state,
					  long timeout)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (sem_take_or_wait(sem)) {
		/* A unit was freed since the fast path looked. */
		raw_spin_unlock_irqrestore(&sem->lock, flags);
		return 0;
	}
	trace_contention_begin(sem, 0);
	ret = ___down_common(sem, state, timeout);
	trace_contention_end(sem, ret);
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	return ret;
}

/* Take a wait entry off @sem and call its grant function; sem->lock held. */
static void sem_grant(struct semaphore *sem, struct sem_waiter *waiter,
		      int status)
{
	sem_dequeue(sem, waiter);
	sem_debug_entry(waiter, false);
	WRITE_ONCE(waiter->sem, NULL);
	waiter->grant(waiter, status);
}

/*
 * Grant the unit being released to the oldest waiter: a sleeper is put on
 * @wake_q, an entry's grant function called; sem->lock held.
 */
static void __up(struct semaphore *sem, struct wake_q_head *wake_q)
{
	struct sem_waiter *waiter = sem->first_waiter;

	lockdep_assert_held(&sem->lock);
	if (waiter->task) {
		sem_dequeue(sem, waiter);
		wake_q_add(wake_q, waiter->task);
		waiter->granted = true;
	} else {
		trace_sem_entry_grant(sem, waiter);
		sem_grant(sem, waiter, 0);
	}
}

/*
 * Someone waits, or the count would overflow.  With nobody queued, the
 * unit is freed after the unlock, as the fast path frees it: a down() that
 * takes it may free the semaphore at once (one used as a completion), so
 * up() must be done with it by then.
 */
static noinline void __sched __up_slow(struct semaphore *sem)
{
	unsigned long flags;
	DEFINE_WAKE_Q(wake_q);
	bool granted;
	int c;

	for (;;) {
		raw_spin_lock_irqsave(&sem->lock, flags);
		granted = !!sem->first_waiter;
		if (granted)
			__up(sem, &wake_q);
		raw_spin_unlock_irqrestore(&sem->lock, flags);
		if (granted) {
			wake_up_q(&wake_q);
			return;
		}
		/* Back to the lock if a waiter queued meanwhile. */
		c = atomic_read(&sem->count);
		while (!(c & SEM_WAITERS)) {
			if (WARN_ONCE((c & SEM_COUNT_MAX) == SEM_COUNT_MAX,
				      "semaphore %p: up() would overflow the count\n",
				      sem))
				return;
			if (atomic_try_cmpxchg_release(&sem->count, &c, c + 1))
				return;
		}
	}
}

/**
 * sem_waiter_init - initialise a wait entry for down_entry()
 * @waiter: the entry
 * @grant: the function to call when up() or sem_shutdown() settles @waiter
 *
 * Once is enough: the entry may be queued again once it was granted,
 * removed, or not queued by down_entry().  Not for a queued entry (as
 * INIT_WORK() is not for a pending work item): CONFIG_DEBUG_SEMAPHORE
 * takes such an entry off its semaphore and reports it.
 *
 * Context: Any context.
 */
void sem_waiter_init(struct sem_waiter *waiter, sem_grant_fn grant)
{
	sem_debug_entry_init(waiter);
	*waiter = (struct sem_waiter){ .grant = grant };
	INIT_LIST_HEAD(&waiter->list);
}
EXPORT_SYMBOL_GPL(sem_waiter_init);

/*
 * down_entry() with sem->lock held: take a free unit (true), or queue
 * @waiter; on a shut-down @sem, call its grant function with -ESHUTDOWN.
 */
static bool __down_entry(struct semaphore *sem, struct sem_waiter *waiter)
{
	lockdep_assert_held(&sem->lock);
	if (atomic_read(&sem->count) & SEM_SHUTDOWN) {
		trace_sem_entry_shutdown(sem, waiter);
		waiter->grant(waiter, -ESHUTDOWN);
		return false;
	}
	if (sem_take_or_wait(sem))
		return true;
	WRITE_ONCE(waiter->sem, sem);
	sem_enqueue(sem, waiter);
	sem_debug_entry(waiter, true);
	trace_sem_entry_queue(sem, waiter);
	return false;
}

/**
 * down_entry - acquire the semaphore, or queue a wait entry
 * @sem: the semaphore to be acquired
 * @waiter: an entry initialised with sem_waiter_init()
 *
 * If a unit is free and nobody is queued, take it: the grant function is
 * not called.  Otherwise queue @waiter behind every earlier waiter: unless
 * sem_waiter_cancel() removes it first, its grant function is called once,
 * with 0 when up() hands it a unit, or -ESHUTDOWN from sem_shutdown().  On
 * a semaphore already shut down it is called with -ESHUTDOWN before
 * down_entry() returns.  Until the call the entry is the semaphore's: keep
 * it alive and leave it alone.  As for down(), an acquisition sees every
 * store made before the up() that released the unit.
 *
 * Context: Any context; does not sleep.  Not under a lock that the grant
 * function takes.
 * Return: %true if the semaphore was acquired; %false if @waiter's grant
 * function is or was called instead.  An entry already queued is left as
 * it is: a warning and %false.
 */
bool down_entry(struct semaphore *sem, struct sem_waiter *waiter)
{
	unsigned long flags;
	bool ret = false;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (!WARN_ONCE(READ_ONCE(waiter->sem),
		       "semaphore %p: wait entry %p is queued\n", sem, waiter))
		ret = __down_entry(sem, waiter);
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(down_entry);

/* sem_waiter_cancel() with sem->lock held. */
static bool __sem_waiter_cancel(struct semaphore *sem,
				struct sem_waiter *waiter)
{
	struct semaphore *queued_on = READ_ONCE(waiter->sem);

	lockdep_assert_held(&sem->lock);
	/* Set and cleared under the lock of the semaphore it names. */
	if (queued_on != sem) {
		WARN_ONCE(queued_on, "semaphore %p: wait entry %p is queued on %p\n",
			  sem, waiter, queued_on);
		return false;
	}
	sem_dequeue(sem, waiter);
	sem_debug_entry(waiter, false);
	WRITE_ONCE(waiter->sem, NULL);
	trace_sem_entry_cancel(sem, waiter);
	return true;
}

/**
 * sem_waiter_cancel - remove a wait entry from a semaphore's queue
 * @sem: the semaphore @waiter was queued on
 * @waiter: an entry queued with down_entry()
 *
 * Settles under the semaphore's lock whether @waiter is removed or was
 * already granted.  Grant functions run under that lock too, so there is
 * nothing to wait for: on return @waiter
 * is not queued and its grant function has returned or will not be called
 * (for this queueing).  Removing an entry never strands a unit: a waiter
 * behind it is granted by the next up().
 *
 * Context: Any context; does not sleep.  Not under a lock that a grant
 * function takes.
 * Return: %true if @waiter was removed before it was granted: its grant
 * function is not called and it holds no unit.  %false if it was not
 * queued on @sem (granted, failed, or never queued; queued on another
 * semaphore warns).
 */
bool sem_waiter_cancel(struct semaphore *sem, struct sem_waiter *waiter)
{
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&sem->lock, flags);
	ret = __sem_waiter_cancel(sem, waiter);
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(sem_waiter_cancel);

/**
 * sem_shutdown - fail every queued wait entry of a semaphore
 * @sem: the semaphore
 *
 * Marks @sem shut down and calls the grant function of every queued entry
 * with -ESHUTDOWN, oldest first, under the semaphore's lock; a down_async()
 * request has its function queued with that status.  Later, down_entry()
 * and down_async() fail the same way at once; down(), down_trylock() and
 * up() work as before.  Queued sleepers are a caller bug (a warning; up()
 * still wakes them).  sema_init() clears the state once nobody uses @sem.
 *
 * Context: Any context; does not sleep.  Not under a lock that a grant
 * function takes.
 */
void sem_shutdown(struct semaphore *sem)
{
	struct sem_waiter *waiter, *next, *last;
	unsigned int sleepers = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&sem->lock, flags);
	atomic_or(SEM_SHUTDOWN, &sem->count);
	waiter = sem->first_waiter;
	last = waiter ? list_prev_entry(waiter, list) : NULL;
	/* The oldest first, to @last; sleepers stay, in their order. */
	for (; waiter; waiter = waiter == last ? NULL : next) {
		next = list_next_entry(waiter, list);
		if (waiter->task) {
			sleepers++;
			continue;
		}
		trace_sem_entry_shutdown(sem, waiter);
		sem_grant(sem, waiter, -ESHUTDOWN);
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	WARN_ONCE(sleepers, "semaphore %p: %s() with sleeping waiters\n",
		  sem, __func__);
}
EXPORT_SYMBOL_GPL(sem_shutdown);

/*
 * A down_async() request is a wait entry whose grant function queues the
 * request's work.  sem->lock protects ->pending (submitted, and its function
 * not started for that submission) and ->status (of the grant whose run is
 * pending).  ->cancelling counts sem_async_cancel_sync() calls running: it
 * rises under the lock, so down_async() sees it, and falls without it.
 */
static void sem_async_grant(struct sem_waiter *waiter, int status)
{
	struct sem_async *req = container_of(waiter, struct sem_async, waiter);

	lockdep_assert_held(&req->sem->lock);
	req->status = status;
	/* PENDING is ours from down_async() to the run: never set here. */
	WARN_ONCE(!queue_work(req->wq, &req->work),
		  "semaphore %p: work of request %p was queued by hand\n",
		  req->sem, req);
}

static void sem_async_workfn(struct work_struct *work)
{
	struct sem_async *req = container_of(work, struct sem_async, work);
	int status;

	/* From here down_async() accepts @req again; this run owns @status. */
	raw_spin_lock_irq(&req->sem->lock);
	status = req->status;
	req->pending = false;
	raw_spin_unlock_irq(&req->sem->lock);
	req->func(req, status);
}

/* sem_async_init(), with the lockdep class of its call site. */
void __sem_async_init(struct sem_async *req, struct semaphore *sem,
		      struct workqueue_struct *wq, sem_async_fn func,
		      const char *name, struct lock_class_key *key)
{
	sem_waiter_init(&req->waiter, sem_async_grant);
	__INIT_WORK_KEY(&req->work, sem_async_workfn, false, key);
	lockdep_init_map(&req->work.lockdep_map, name, key, 0);
	req->sem = sem;
	req->wq = wq;
	req->func = func;
	req->status = 0;
	req->pending = false;
	atomic_set(&req->cancelling, 0);
}
EXPORT_SYMBOL_GPL(__sem_async_init);

/**
 * down_async - acquire the semaphore for a request's function
 * @req: a request initialised with sem_async_init()
 *
 * down() without waiting: take a free unit, or queue @req's wait entry
 * behind earlier waiters for the up() that hands it a unit; either way the
 * grant queues the request's function on its workqueue.  The function runs
 * once per submission, with status 0 (it holds a unit and sees the stores
 * made before the up() that released it) or -ESHUTDOWN (no unit).  It may
 * resubmit @req: runs never overlap; an ordered workqueue keeps grant order.
 *
 * Context: Any context; does not sleep.  Not under a lock that a grant
 * function takes (the workqueue's, the scheduler's).
 * Return: %true if @req was submitted; %false, as queue_work(), if it is
 * pending (submitted and its function not started for that submission), or
 * while sem_async_cancel_sync() runs for it.
 */
bool down_async(struct sem_async *req)
{
	struct semaphore *sem = req->sem;
	unsigned long flags;
	bool ret = false;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (!req->pending && !atomic_read(&req->cancelling)) {
		req->pending = true;
		if (__down_entry(sem, &req->waiter))
			sem_async_grant(&req->waiter, 0);
		ret = true;
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(down_async);

/* sem_async_cancel() with sem->lock held. */
static bool __sem_async_cancel(struct sem_async *req)
{
	if (!__sem_waiter_cancel(req->sem, &req->waiter))
		return false;
	req->pending = false;
	return true;
}

/**
 * sem_async_cancel - take a waiting down_async() request off its semaphore
 * @req: the request
 *
 * Exact under the semaphore's lock, as sem_waiter_cancel(): @req is removed
 * while it waits; once granted, its work is its workqueue's and its
 * function runs with the grant's status (with the unit, which it gives
 * back, or -ESHUTDOWN).
 *
 * Context: Any context; does not sleep.  Not under a lock that a grant
 * function takes.
 * Return: %true if @req was waiting and its function will not run for the
 * last submission; %false if it runs or ran, or @req was not submitted.
 */
bool sem_async_cancel(struct sem_async *req)
{
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&req->sem->lock, flags);
	ret = __sem_async_cancel(req);
	raw_spin_unlock_irqrestore(&req->sem->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(sem_async_cancel);

/**
 * sem_async_cancel_sync - cancel a down_async() request and wait for it
 * @req: the request
 *
 * As sem_async_cancel(), then waits for a function that was granted, queued
 * or running, as flush_work(); meanwhile down_async() refuses @req, also
 * from its function.  On return @req is idle and its function does not
 * run: free it or initialise it again.  Calls may overlap: @req is idle
 * once the last returned.
 *
 * Context: Process context; sleeps.  Not from @req's function (a warning,
 * and no wait), nor holding a lock that the function takes.
 * Return: as sem_async_cancel().
 */
bool sem_async_cancel_sync(struct sem_async *req)
{
	struct semaphore *sem = req->sem;
	bool ret;

	might_sleep();
	raw_spin_lock_irq(&sem->lock);
	atomic_inc(&req->cancelling);
	ret = __sem_async_cancel(req);
	raw_spin_unlock_irq(&sem->lock);

	if (!WARN_ON_ONCE(current_work() == &req->work))
		flush_work(&req->work);

	/* After flush_work(), which ends in an acquire: no run is left. */
	atomic_dec(&req->cancelling);
	return ret;
}
EXPORT_SYMBOL_GPL(sem_async_cancel_sync);

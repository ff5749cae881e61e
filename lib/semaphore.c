// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic counting semaphores on wait entries, with asynchronous
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
 * waiters (a sleeper has ->task set, an entry ->grant) and every change of
 * SEM_WAITERS, which the compare-and-exchange that finds no free unit sets:
 * from then on the fast up() fails and a released unit goes through the
 * lock to the oldest waiter.  All changes of ->count are atomic on the whole
 * word, so a fast and a slow change never both succeed on one old value.  A
 * down acquires, up() releases; a unit handed to a waiter is ordered by the
 * lock.  The lock is raw, with interrupts disabled: up() and down_trylock()
 * may run in hard interrupt context, also on PREEMPT_RT.
 *
 * The grant is decided under the lock: the entry is dequeued, marked and
 * holds the unit from then on.  A woken sleeper checks its state under the
 * lock, so a racing signal or timeout loses.  A grant function runs after
 * the unlock, with preemption disabled from the decision to its return.  A
 * down_async() request's work is queued under the lock, in the same step
 * (sem_async_queue()), and is then its workqueue's.  That nests the pool
 * lock and the scheduler's locks inside sem->lock, an order lockdep checks
 * on every grant: a semaphore released or waited for under those locks
 * must not have down_async() requests.
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/wake_q.h>
#include <linux/semaphore.h>
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

/* States of a struct sem_waiter; a request is only IDLE or QUEUED. */
enum {
	SEM_WAITER_IDLE,	/* initialised, not queued */
	SEM_WAITER_QUEUED,	/* on a wait list */
	SEM_WAITER_GRANTING,	/* settled, grant function not called yet */
	SEM_WAITER_DONE,	/* granted, or grant function called */
};

/*
 * Grant functions settled while another runs on this CPU wait here for it
 * to return, so that a grant function calling up() cannot recurse.
 */
struct sem_grant_queue {
	struct sem_waiter	*head;
	struct sem_waiter	*tail;
	bool			running;
};

static DEFINE_PER_CPU(struct sem_grant_queue, sem_grant_queue);

static void sem_run_grant(struct sem_waiter *waiter);
static bool sem_async_queue(struct sem_async *req, int status);

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
 * down_async() request has its work queued, a down_entry() entry has its
 * grant function called (see &typedef sem_grant_fn for when).  Whoever is
 * granted the unit sees the stores made before up().  An up() that would
 * overflow the count (2^30 - 1) warns and is ignored.
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
		.state	= SEM_WAITER_QUEUED,
		.sem	= sem,
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
		if (waiter.state == SEM_WAITER_DONE)
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

/*
 * Grant the unit being released to the oldest waiter; sem->lock held.  A
 * sleeper is put on @wake_q; an entry is returned, and the caller keeps
 * preemption disabled from before the unlock until sem_run_grant().
 */
static struct sem_waiter *__up(struct semaphore *sem,
			       struct wake_q_head *wake_q)
{
	struct sem_waiter *waiter;

	lockdep_assert_held(&sem->lock);

	while ((waiter = sem->first_waiter)) {
		sem_dequeue(sem, waiter);
		if (waiter->task) {
			wake_q_add(wake_q, waiter->task);
			waiter->state = SEM_WAITER_DONE;
			return NULL;
		}
		if (!waiter->async) {
			trace_sem_entry_grant(sem, waiter);
			sem_debug_entry(waiter, false);
			waiter->status = 0;
			WRITE_ONCE(waiter->state, SEM_WAITER_GRANTING);
			return waiter;
		}
		if (sem_async_queue(container_of(waiter, struct sem_async,
						 waiter), 0)) {
			trace_sem_entry_grant(sem, waiter);
			return NULL;
		}
		/* Its work could not be queued: the next waiter's unit. */
	}
	/* Nobody is left to take it (SEM_WAITERS is clear): free it. */
	atomic_inc_return_release(&sem->count);
	return NULL;
}

/*
 * Someone waits, or the count would overflow.  The fast path may change
 * ->count while SEM_WAITERS is clear: compare-and-exchange, even locked.
 */
static noinline void __sched __up_slow(struct semaphore *sem)
{
	struct sem_waiter *granted = NULL;
	unsigned long flags;
	bool overflow = false;
	DEFINE_WAKE_Q(wake_q);
	int c;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (likely(!sem->first_waiter)) {
		c = atomic_read(&sem->count);
		do {
			if ((c & SEM_COUNT_MAX) == SEM_COUNT_MAX) {
				overflow = true;
				break;
			}
		} while (!atomic_try_cmpxchg_release(&sem->count, &c, c + 1));
	} else {
		granted = __up(sem, &wake_q);
	}
	if (granted)
		preempt_disable();
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	if (granted) {
		sem_run_grant(granted);
		preempt_enable();
	}
	if (!wake_q_empty(&wake_q))
		wake_up_q(&wake_q);
	WARN_ONCE(overflow, "semaphore %p: up() would overflow the count\n",
		  sem);
}

/* Call the grant function of a settled entry; it may free the entry. */
static void sem_call_grant(struct sem_waiter *waiter)
{
	sem_grant_fn grant = waiter->grant;
	int status = waiter->status;

	/* Release: @status is read before a requeue can set it anew. */
	smp_store_release(&waiter->state, SEM_WAITER_DONE);
	grant(waiter, status);
}

/*
 * Run a settled entry's grant function, or queue it for the one running on
 * this CPU.  Preemption stays disabled until every queued one has run: the
 * read-side section that sem_cancel_sync() waits for with synchronize_rcu().
 */
static void sem_run_grant(struct sem_waiter *waiter)
{
	struct sem_grant_queue *q;
	unsigned long flags;

	lockdep_assert_preemption_disabled();

	local_irq_save(flags);
	q = this_cpu_ptr(&sem_grant_queue);
	if (q->running) {
		waiter->list.next = NULL;
		if (q->tail)
			q->tail->list.next = &waiter->list;
		else
			q->head = waiter;
		q->tail = waiter;
		local_irq_restore(flags);
		return;
	}

	q->running = true;
	while (waiter) {
		local_irq_restore(flags);
		sem_call_grant(waiter);
		local_irq_save(flags);
		waiter = q->head;
		if (waiter) {
			q->head = waiter->list.next ?
				list_entry(waiter->list.next,
					   struct sem_waiter, list) : NULL;
			if (!q->head)
				q->tail = NULL;
		}
	}
	q->running = false;
	local_irq_restore(flags);
}

/**
 * sem_waiter_init - initialise a wait entry for down_entry()
 * @waiter: the entry
 * @grant: the function to call once a queued @waiter is settled
 *
 * Once is enough: the entry may be queued again once its grant function
 * was called, sem_cancel() removed it or down_entry() did not queue it.
 * Not for an entry that is queued, or settled with its grant function not
 * yet called: CONFIG_DEBUG_SEMAPHORE reports a queued one.
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

/* An entry of sem_waiter_init(): not a sleeper's, nor a request's. */
static bool sem_waiter_valid(const struct sem_waiter *waiter)
{
	return waiter->grant && !waiter->task && !waiter->async;
}

/**
 * down_entry - acquire the semaphore, or queue a wait entry
 * @sem: the semaphore to be acquired
 * @waiter: an entry initialised with sem_waiter_init()
 *
 * If a unit is free and nobody is queued, take it: the grant function is
 * not called.  Otherwise queue @waiter behind every earlier waiter: unless
 * sem_cancel() removes it first, its grant function is called exactly once
 * (see &typedef sem_grant_fn), with status 0 when up() hands it the unit or
 * -ESHUTDOWN from sem_shutdown().  Until then the entry is the semaphore's:
 * keep it alive and leave it alone.  As for down(), an acquisition sees
 * every store made before the up() that released the unit.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if the semaphore was acquired, -EINPROGRESS if @waiter was
 * queued, -ESHUTDOWN if sem_shutdown() was called on @sem.  With a warning:
 * -EBUSY if @waiter is already queued or being granted, -EINVAL if it was
 * not initialised with a grant function.
 */
int down_entry(struct semaphore *sem, struct sem_waiter *waiter)
{
	unsigned int state;
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&sem->lock, flags);
	/* Acquire: pairs with the release of a grant on another lock. */
	state = smp_load_acquire(&waiter->state);
	if (!sem_waiter_valid(waiter)) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_QUEUED ||
		   state == SEM_WAITER_GRANTING) {
		ret = -EBUSY;
	} else if (atomic_read(&sem->count) & SEM_SHUTDOWN) {
		ret = -ESHUTDOWN;
	} else if (sem_take_or_wait(sem)) {
		WRITE_ONCE(waiter->state, SEM_WAITER_IDLE);
		ret = 0;
	} else {
		WRITE_ONCE(waiter->sem, sem);
		sem_enqueue(sem, waiter);
		trace_sem_entry_queue(sem, waiter);
		sem_debug_entry(waiter, true);
		/*
		 * Release: whoever sees QUEUED without sem->lock (a sem_cancel()
		 * under another lock) also sees ->sem; pairs with the acquire
		 * there.
		 */
		smp_store_release(&waiter->state, SEM_WAITER_QUEUED);
		ret = -EINPROGRESS;
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	WARN_ONCE(ret == -EINVAL,
		  "semaphore %p: wait entry %p is not initialised\n",
		  sem, waiter);
	WARN_ONCE(ret == -EBUSY,
		  "semaphore %p: wait entry %p is queued or being granted\n",
		  sem, waiter);
	return ret;
}
EXPORT_SYMBOL_GPL(down_entry);

/**
 * sem_cancel - remove a queued wait entry
 * @sem: the semaphore @waiter was queued on
 * @waiter: an entry queued with down_entry()
 *
 * Settles, under the semaphore's lock, whether @waiter is removed or was
 * already granted; removing any entry never strands a unit.  It acts on the
 * current queueing (one made by the grant function on another semaphore is
 * cancelled there).  @waiter must stay allocated until this returned 0
 * with no call of its grant function running (one that queued it again),
 * or its grant function was called; else use sem_cancel_sync().
 *
 * Context: Any context; does not sleep.
 * Return: 0 if @waiter was removed before it was granted: its grant
 * function will not be called for that queueing and no unit is held.
 * -EALREADY if it had already been settled: its grant function is about
 * to run, runs or has run, and it owns the unit (or the -ESHUTDOWN
 * status).  -ENOENT (with a warning) if @waiter is idle: never queued,
 * removed, or queued again by its grant function and granted at once (a
 * race that its owner must prevent); -EINVAL (with a warning, nothing
 * changed) if it is queued on another semaphore or was never initialised.
 */
int sem_cancel(struct semaphore *sem, struct sem_waiter *waiter)
{
	unsigned int state;
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&sem->lock, flags);
	/*
	 * Acquire: pairs with down_entry(): QUEUED comes with its ->sem,
	 * also when its grant function just queued it on another semaphore.
	 */
	state = smp_load_acquire(&waiter->state);
	if (!sem_waiter_valid(waiter)) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_IDLE) {
		ret = -ENOENT;
	} else if (READ_ONCE(waiter->sem) != sem) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_QUEUED) {
		sem_debug_entry(waiter, false);
		sem_dequeue(sem, waiter);
		WRITE_ONCE(waiter->state, SEM_WAITER_IDLE);
		trace_sem_entry_cancel(sem, waiter);
		ret = 0;
	} else {
		ret = -EALREADY;
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	WARN_ONCE(ret == -ENOENT,
		  "semaphore %p: cancelling wait entry %p that is not queued\n",
		  sem, waiter);
	WARN_ONCE(ret == -EINVAL,
		  "semaphore %p: cancelling wait entry %p of another semaphore or not initialised\n",
		  sem, waiter);
	return ret;
}
EXPORT_SYMBOL_GPL(sem_cancel);

/**
 * sem_cancel_sync - remove a queued wait entry, or wait for its grant
 * @sem: the semaphore @waiter was queued on
 * @waiter: an entry queued with down_entry()
 *
 * As sem_cancel(), then waits until a grant function settled for @waiter
 * has returned (del_timer_sync() for a wait entry).  On return the entry is
 * not queued and its grant function does not run, unless that queued it
 * again: an owner whose grant function may do so must stop that first.
 *
 * Context: Process context; sleeps (an RCU grace period).  Must not be
 * called from a grant function or with a lock held that one takes.
 * Return: as sem_cancel(); after 0 or -EALREADY @waiter may be freed.
 */
int sem_cancel_sync(struct semaphore *sem, struct sem_waiter *waiter)
{
	int ret;

	might_sleep();
	ret = sem_cancel(sem, waiter);
	/*
	 * A settled grant function runs with preemption disabled from the
	 * decision to its return, also when deferred: a grace period covers it.
	 */
	synchronize_rcu();
	return ret;
}
EXPORT_SYMBOL_GPL(sem_cancel_sync);

/*
 * Settle every queued entry with -ESHUTDOWN, unlock (@flags), run the grant
 * functions and return the number of sleepers, which stay queued.
 */
static unsigned int sem_fail_entries(struct semaphore *sem,
				     unsigned long flags)
	__releases(&sem->lock)
{
	struct sem_waiter *waiter, *next;
	unsigned int sleepers = 0;
	LIST_HEAD(failed);
	LIST_HEAD(all);

	/*
	 * @all, before the oldest waiter, heads the circle for the walk; the
	 * sleepers that stay form the circle again once it is taken out.
	 */
	if (sem->first_waiter)
		list_add_tail(&all, &sem->first_waiter->list);
	list_for_each_entry_safe(waiter, next, &all, list) {
		if (waiter->task) {
			sleepers++;
			continue;
		}
		trace_sem_entry_shutdown(sem, waiter);
		if (waiter->async) {
			list_del(&waiter->list);
			sem_async_queue(container_of(waiter, struct sem_async,
						     waiter), -ESHUTDOWN);
			continue;
		}
		sem_debug_entry(waiter, false);
		list_move_tail(&waiter->list, &failed);
		waiter->status = -ESHUTDOWN;
		WRITE_ONCE(waiter->state, SEM_WAITER_GRANTING);
	}
	sem->first_waiter = list_first_entry_or_null(&all, struct sem_waiter,
						     list);
	list_del(&all);
	sem_waiter_gone(sem);
	preempt_disable();
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	list_for_each_entry_safe(waiter, next, &failed, list)
		sem_run_grant(waiter);
	preempt_enable();
	return sleepers;
}

/**
 * sem_shutdown - fail every queued wait entry of a semaphore
 * @sem: the semaphore
 *
 * Marks @sem shut down and settles every queued entry with -ESHUTDOWN:
 * grant functions are called, down_async() requests have their function
 * queued with that status.  Later down_entry() returns -ESHUTDOWN and
 * down_async() queues the function with -ESHUTDOWN at once; down(),
 * down_trylock() and up() work as before.  Queued sleepers are a caller
 * bug (a warning; up() wakes them).  sema_init() clears the state once
 * nobody uses @sem.  It waits for nothing: stop submitting requests (their
 * functions may still resubmit them), then wait for the functions with
 * destroy_workqueue() or sem_async_cancel_sync() of each, and for grant
 * functions on other CPUs with sem_cancel_sync(), before freeing.  A grant
 * to a workqueue being drained is a bug: request and unit are lost for good.
 *
 * Context: Any context; does not sleep.
 */
void sem_shutdown(struct semaphore *sem)
{
	unsigned int sleepers;
	unsigned long flags;

	raw_spin_lock_irqsave(&sem->lock, flags);
	atomic_or(SEM_SHUTDOWN, &sem->count);
	sleepers = sem_fail_entries(sem, flags);
	WARN_ONCE(sleepers, "semaphore %p: %s() with sleeping waiters\n",
		  sem, __func__);
}
EXPORT_SYMBOL_GPL(sem_shutdown);

/*
 * A request, bound at init to ->waiter.sem, ->wq and ->func, is queued on
 * its semaphore, granted (->status holds the grant's status until the work
 * function takes it) or idle (SEM_ASYNC_IDLE); ->work knows pending/running.
 */
#define SEM_ASYNC_IDLE	1

/*
 * Grant @req with @status and queue its work in one step, under sem->lock;
 * false, warned and @req idle, if its work was queued or disabled by hand.
 */
static bool sem_async_queue(struct sem_async *req, int status)
{
	struct semaphore *sem = req->waiter.sem;

	lockdep_assert_held(&sem->lock);
	req->waiter.state = SEM_WAITER_IDLE;
	WRITE_ONCE(req->status, status);
	/* queue_work() orders @status before the work function reads it. */
	if (likely(queue_work(req->wq, &req->work)))
		return true;
	WRITE_ONCE(req->status, SEM_ASYNC_IDLE);
	sem_debug_entry(&req->waiter, false);
	WARN_ONCE(1, "semaphore %p: work of request %p cannot be queued\n", sem, req);
	return false;
}

static void sem_async_workfn(struct work_struct *work)
{
	struct sem_async *req = container_of(work, struct sem_async, work);
	int status;

	sem_debug_entry(&req->waiter, false);
	/*
	 * From here down_async() accepts @req again; this run owns @status
	 * and sees a refused caller's stores: full mb, as clearing PENDING.
	 */
	status = xchg(&req->status, SEM_ASYNC_IDLE);
	req->func(req, status);
}

/* sem_async_init(), with the lockdep class of its call site. */
void __sem_async_init(struct sem_async *req, struct semaphore *sem,
		      struct workqueue_struct *wq, sem_async_fn func,
		      const char *name, struct lock_class_key *key)
{
	sem_debug_entry_init(&req->waiter);
	req->waiter = (struct sem_waiter){ .async = true, .sem = sem };
	INIT_LIST_HEAD(&req->waiter.list);
	req->wq = wq;
	req->func = func;
	req->status = SEM_ASYNC_IDLE;
	atomic_set(&req->cancelling, 0);
	__INIT_WORK_KEY(&req->work, sem_async_workfn, false, key);
	lockdep_init_map(&req->work.lockdep_map, name, key, 0);
}
EXPORT_SYMBOL_GPL(__sem_async_init);

/**
 * down_async - acquire the semaphore for a request's function
 * @req: a request initialised with sem_async_init()
 *
 * down() without waiting: take a free unit and queue the request's function,
 * or queue @req behind earlier waiters for the up() that hands it a unit.
 * The function runs once per submission, with status 0 (it holds a unit and
 * sees the stores before the up() that released it) or -ESHUTDOWN (no unit).
 * It may resubmit @req: runs never overlap; an ordered wq keeps grant order.
 *
 * Context: Any context; does not sleep.
 * Return: %true if @req was submitted; %false if its function has not
 * started for the last submission (that run sees this caller's stores), or
 * sem_async_cancel_sync() runs for it, as queue_work() would.
 */
bool down_async(struct sem_async *req)
{
	struct semaphore *sem = req->waiter.sem;
	bool give_back = false, ret = false;
	unsigned long flags;

	if (WARN_ON_ONCE(!sem))
		return false;
	raw_spin_lock_irqsave(&sem->lock, flags);
	/* Pairs with the xchg() of sem_async_workfn() for a refused call. */
	smp_mb__after_spinlock();
	if (atomic_read(&req->cancelling) ||
	    req->waiter.state == SEM_WAITER_QUEUED ||
	    READ_ONCE(req->status) != SEM_ASYNC_IDLE)
		goto unlock;
	sem_debug_entry(&req->waiter, true);
	if (atomic_read(&sem->count) & SEM_SHUTDOWN) {
		ret = sem_async_queue(req, -ESHUTDOWN);
	} else if (sem_take_or_wait(sem)) {
		ret = sem_async_queue(req, 0);
		give_back = !ret;
	} else {
		sem_enqueue(sem, &req->waiter);
		trace_sem_entry_queue(sem, &req->waiter);
		req->waiter.state = SEM_WAITER_QUEUED;
		ret = true;
	}
unlock:
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	if (give_back)
		up(sem);
	return ret;
}
EXPORT_SYMBOL_GPL(down_async);

/**
 * sem_async_cancel - cancel a down_async() request, without waiting
 * @req: the request
 *
 * Takes @req off its semaphore, or takes its pending work back and gives the
 * grant's unit back, as cancel_work(); a running function is not waited for.
 *
 * Context: Any context; does not sleep.  A unit given back may be granted
 * to the next waiter: not under a lock that a grant function takes.
 * Return: %true if the function will not run for the last submission;
 * %false if it runs or ran for it, or @req was not submitted.
 */
bool sem_async_cancel(struct sem_async *req)
{
	struct semaphore *sem = req->waiter.sem;
	bool give_back = false, ret = true;
	unsigned long flags;

	if (WARN_ON_ONCE(!sem))
		return false;
	raw_spin_lock_irqsave(&sem->lock, flags);
	if (req->waiter.state == SEM_WAITER_QUEUED) {
		sem_dequeue(sem, &req->waiter);
		req->waiter.state = SEM_WAITER_IDLE;
	} else if (READ_ONCE(req->status) != SEM_ASYNC_IDLE &&
		   cancel_work(&req->work)) {
		/*
		 * Taken back before it ran; under sem->lock, so no grant's
		 * queue_work() meets the moment cancel_work() holds PENDING.
		 */
		give_back = !xchg(&req->status, SEM_ASYNC_IDLE);
	} else {
		ret = false;
	}
	if (ret) {
		sem_debug_entry(&req->waiter, false);
		trace_sem_entry_cancel(sem, &req->waiter);
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	if (give_back)
		up(sem);
	return ret;
}
EXPORT_SYMBOL_GPL(sem_async_cancel);

/**
 * sem_async_cancel_sync - cancel a down_async() request and wait for it
 * @req: the request
 *
 * As sem_async_cancel(), then waits for a running function, as
 * cancel_work_sync(); meanwhile down_async() refuses @req, also from its
 * function.  On return @req is idle, holds no unit: free or re-initialise it.
 *
 * Context: Process context; sleeps.  Not from @req's function (a warning,
 * and no wait), nor holding a lock that the function takes.  Calls may
 * overlap: @req is idle once the last returned.
 * Return: as sem_async_cancel().
 */
bool sem_async_cancel_sync(struct sem_async *req)
{
	bool ret;

	might_sleep();
	/* Seen by every down_async() that locks sem->lock after our cancel. */
	atomic_inc(&req->cancelling);
	ret = sem_async_cancel(req);
	/* Nothing can queue the work now: waits as cancel_work_sync() does. */
	if (!WARN_ON_ONCE(!in_task() || current_work() == &req->work))
		cancel_work_sync(&req->work);
	atomic_dec(&req->cancelling);
	return ret;
}
EXPORT_SYMBOL_GPL(sem_async_cancel_sync);

/**
 * sem_async_flush - wait for the function of a granted request
 * @req: the request
 *
 * Waits until the function has returned for the last grant of @req, as
 * flush_work(); a request still waiting on its semaphore is not waited for.
 *
 * Context: Process context; sleeps.  Not from @req's function.
 * Return: %true if it waited.
 */
bool sem_async_flush(struct sem_async *req)
{
	return flush_work(&req->work);
}
EXPORT_SYMBOL_GPL(sem_async_flush);

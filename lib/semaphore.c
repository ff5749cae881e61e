// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic counting semaphores on wait entries, with asynchronous
 * acquisition.
 *
 * Copyright (c) 2008 Intel Corporation
 * Author: Matthew Wilcox <willy@linux.intel.com>
 *
 * The wait-entry design comes from Trond Myklebust's "iosem" (2005), the
 * explicit wait entry for down() from Suparna Bhattacharya, and the idea
 * of one common implementation for every architecture from Benjamin
 * LaHaise.
 *
 * A counting semaphore may be acquired 'n' times before callers wait.
 * See mutex.c for single-acquisition sleeping locks which enforce rules
 * which allow code to be debugged more easily.
 */

/*
 * Some notes on the implementation:
 *
 * ->count is an atomic_t: bits 0-29 are the units that are free, bit 30
 * (SEM_WAITERS) is set while ->wait_list is not empty, bit 31
 * (SEM_SHUTDOWN) is set by sem_shutdown().  Every waiter is a struct
 * sem_waiter on ->wait_list, oldest first.  A sleeping waiter has ->task
 * set, an asynchronous one has ->grant set.
 *
 * Invariant: if ->wait_list is not empty, no unit is free.  A new request
 * queues behind the waiters; up() hands its unit directly to the oldest
 * waiter; nothing can overtake a queued waiter.  Because of the
 * invariant, a waiter that leaves the queue without being granted
 * (timeout, signal, sem_cancel(), sem_shutdown()) never holds a unit that
 * would have to be passed on.
 *
 * The fast path.  While nobody waits, down() and its variants take a unit
 * with one compare-and-exchange on ->count when a unit is free, and up()
 * gives one back with one compare-and-exchange when SEM_WAITERS is clear;
 * neither touches the lock.  Everything else takes the raw spinlock, which
 * protects ->wait_list and every change of SEM_WAITERS.  SEM_WAITERS is
 * set, under the lock, by the compare-and-exchange that finds no free
 * unit, before the waiter is queued; from then on the fast up() fails and
 * takes the lock, so a unit released while anyone waits always goes
 * through the lock to the oldest waiter, and nothing steals it.  The bit
 * is cleared, under the lock, when the last waiter leaves.  Because all
 * changes of ->count are compare-and-exchange or atomic bit operations on
 * the whole word, a fast-path change and a slow-path change can never
 * both succeed on the same old value.
 *
 * Memory ordering: every successful down takes its unit with an acquire
 * operation (the fast path's and the locked path's compare-and-exchange),
 * and up() gives a unit back with a release operation (its
 * compare-and-exchange), so everything before an up() happens before
 * everything after the down that takes that unit.  A unit handed to a
 * waiter goes through the lock instead: the granting up() holds it
 * (release on unlock) and the waiter takes it (acquire) or runs after it
 * on the same CPU.
 *
 * The raw spinlock is a raw spinlock, and not the lock of a
 * wait_queue_head_t, because up() and down_trylock() may be called from
 * hard interrupt context, also on PREEMPT_RT.  Various parts of the kernel
 * also call down() in interrupt context when they know it will succeed,
 * so every path disables interrupts while it holds the lock.
 *
 * The grant is decided under the lock: the entry is dequeued and marked,
 * and it holds the unit from that moment, whatever happens to it later.
 * A sleeper is woken through a wake_q after the lock is dropped; it looks
 * at its own state under the lock, so a signal or a timeout that races
 * with the grant loses to it.  A grant function is called after the lock
 * is dropped, with preemption disabled from the decision to its return.
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/debugobjects.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/task_stack.h>
#include <linux/sched/wake_q.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>
#include <linux/ftrace.h>
#include <trace/events/lock.h>

#define SEM_SHUTDOWN		__SEM_SHUTDOWN
#define SEM_WAITERS		__SEM_WAITERS
#define SEM_COUNT_MAX		__SEM_COUNT_MAX

/*
 * States of a struct sem_waiter.  The values are not small integers so
 * that an entry that was never passed to sem_waiter_init() is likely to
 * be caught.
 */
#define SEM_WAITER_IDLE		0x53454d30U	/* initialised, not queued */
#define SEM_WAITER_QUEUED	0x53454d31U	/* on a wait list */
#define SEM_WAITER_GRANTING	0x53454d32U	/* settled, function not run */
#define SEM_WAITER_DONE		0x53454d33U	/* granted, or function ran */

/* Waits for the work items of granted down_async() requests. */
DEFINE_STATIC_SRCU(sem_async_srcu);

/*
 * Grant functions that are settled while another grant function runs on
 * the same CPU are queued here and run by the outer caller once it
 * returns, so that a grant function calling up() cannot recurse.
 */
struct sem_grant_queue {
	struct sem_waiter	*head;
	struct sem_waiter	*tail;
	bool			running;
};

static DEFINE_PER_CPU(struct sem_grant_queue, sem_grant_queue);

static void sem_waiter_gone(struct semaphore *sem);
static void sem_run_grant(struct sem_waiter *waiter);
static unsigned int sem_fail_entries(struct semaphore *sem,
				     unsigned long flags, bool unlink_sleepers)
	__releases(&sem->lock);

#ifdef CONFIG_DEBUG_SEMAPHORE
/*
 * CONFIG_DEBUG_SEMAPHORE tracks, with debugobjects, every semaphore that
 * has waiters and every wait entry of down_entry() and down_async() that
 * is queued, from the moment it starts waiting to the moment it stops.
 * Freeing the memory of one of them in between is a bug that debugobjects
 * reports ("ODEBUG: free active ... object type: semaphore"); the fixups
 * below then leave the semaphore's wait list consistent.  Objects are
 * tracked only while they wait, so nothing needs to be registered when a
 * semaphore or an entry is initialised, and nothing is left behind.
 */
static const struct debug_obj_descr sem_debug_descr;
static const struct debug_obj_descr sem_waiter_debug_descr;

static void sem_debug_start(void *addr, const struct debug_obj_descr *descr)
{
	if (object_is_on_stack(addr))
		debug_object_init_on_stack(addr, descr);
	else
		debug_object_init(addr, descr);
	debug_object_activate(addr, descr);
}

static void sem_debug_stop(void *addr, const struct debug_obj_descr *descr)
{
	debug_object_deactivate(addr, descr);
	debug_object_free(addr, descr);
}

/*
 * A semaphore with waiters is being freed.  Fail its asynchronous entries
 * with -ESHUTDOWN, as sem_shutdown() would, so that their owners learn of
 * it.  Sleepers cannot be saved: their entries are on their stacks and
 * they will touch the semaphore again when they wake, so they are only
 * taken off the list and counted.
 */
static bool sem_debug_fixup_free(void *addr, enum debug_obj_state state)
{
	struct semaphore *sem = addr;
	unsigned int sleepers;
	unsigned long flags;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;

	raw_spin_lock_irqsave(&sem->lock, flags);
	sleepers = sem_fail_entries(sem, flags, true);
	WARN(sleepers, "semaphore %p freed with %u sleeping waiters\n",
	     sem, sleepers);
	return true;
}

static const struct debug_obj_descr sem_debug_descr = {
	.name		= "semaphore",
	.fixup_free	= sem_debug_fixup_free,
};

/*
 * A queued wait entry is being freed: take it off its semaphore's wait
 * list, as sem_cancel() would, so that the semaphore is not corrupted and
 * nobody behind it is affected.
 */
static bool sem_waiter_debug_fixup_free(void *addr, enum debug_obj_state state)
{
	struct sem_waiter *waiter = addr;
	struct semaphore *sem = READ_ONCE(waiter->sem);
	unsigned long flags;

	if (state != ODEBUG_STATE_ACTIVE || !sem)
		return false;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (READ_ONCE(waiter->state) == SEM_WAITER_QUEUED) {
		sem_debug_stop(waiter, &sem_waiter_debug_descr);
		list_del_init(&waiter->list);
		sem_waiter_gone(sem);
		waiter->state = SEM_WAITER_IDLE;
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	return true;
}

static const struct debug_obj_descr sem_waiter_debug_descr = {
	.name		= "semaphore wait entry",
	.fixup_free	= sem_waiter_debug_fixup_free,
};

/* sem->lock held: the first waiter was queued, or the last one left. */
static inline void sem_debug_waiters(struct semaphore *sem, bool waiters)
{
	if (waiters)
		sem_debug_start(sem, &sem_debug_descr);
	else
		sem_debug_stop(sem, &sem_debug_descr);
}

/* sem->lock held: a wait entry of down_entry() was queued or dequeued. */
static inline void sem_debug_entry(struct sem_waiter *waiter, bool queued)
{
	if (queued)
		sem_debug_start(waiter, &sem_waiter_debug_descr);
	else
		sem_debug_stop(waiter, &sem_waiter_debug_descr);
}
#else
static inline void sem_debug_waiters(struct semaphore *sem, bool waiters) { }
static inline void sem_debug_entry(struct sem_waiter *waiter, bool queued) { }
#endif /* CONFIG_DEBUG_SEMAPHORE */

/*
 * The fast path of every down: take a free unit without the lock.  A free
 * unit implies that nobody waits (the invariant), so this never overtakes
 * a waiter.  Acquire: pairs with the release of the up() that freed it.
 */
static __always_inline bool sem_take_fast(struct semaphore *sem)
{
	int c = atomic_read(&sem->count);

	do {
		if (unlikely(!(c & SEM_COUNT_MAX)))
			return false;
	} while (!atomic_try_cmpxchg_acquire(&sem->count, &c, c - 1));
	return true;
}

/*
 * Called with sem->lock held by a caller that will queue a waiter if this
 * returns false: take a free unit (acquire, as above), or else set
 * SEM_WAITERS, in one compare-and-exchange with the fast paths.
 */
static bool sem_take_or_wait(struct semaphore *sem)
	__must_hold(&sem->lock)
{
	int c = atomic_read(&sem->count);

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

/* A waiter left ->wait_list; called with sem->lock held. */
static void sem_waiter_gone(struct semaphore *sem)
	__must_hold(&sem->lock)
{
	if (list_empty(&sem->wait_list) &&
	    (atomic_read(&sem->count) & SEM_WAITERS)) {
		atomic_andnot(SEM_WAITERS, &sem->count);
		sem_debug_waiters(sem, false);
	}
}

static noinline int __down_common(struct semaphore *sem, long state,
				  long timeout);
static noinline void __up_slow(struct semaphore *sem);

/**
 * down - acquire the semaphore
 * @sem: the semaphore to be acquired
 *
 * Acquires the semaphore.  If no more tasks are allowed to acquire the
 * semaphore, calling this function will put the task to sleep until the
 * semaphore is released.
 *
 * Use of this function is deprecated, please use down_interruptible() or
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
 * Attempts to acquire the semaphore.  If no more tasks are allowed to
 * acquire the semaphore, calling this function will put the task to sleep.
 * A waiter that was granted the semaphore keeps it even if a signal
 * arrives at the same time.
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
 * Attempts to acquire the semaphore.  If no more tasks are allowed to
 * acquire the semaphore, calling this function will put the task to sleep.
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
 *
 * NOTE: This return value is inverted from both spin_trylock and
 * mutex_trylock!  Be careful about this when converting code.
 *
 * Unlike mutex_trylock, this function can be used from interrupt context,
 * and the semaphore can be released by any task or interrupt.
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
 * Attempts to acquire the semaphore.  If no more tasks are allowed to
 * acquire the semaphore, calling this function will put the task to sleep.
 * A waiter granted the semaphore as its timeout expires keeps it.
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
 * are queued, the unit goes directly to the oldest of them: a sleeper is
 * woken, an asynchronous entry has its grant function called before up()
 * returns (see down_entry()).
 *
 * Stores made before up() are visible to whoever is granted the unit: the
 * semaphore's lock orders them before the grant decision, the woken task
 * or the grant function acquires that order through the same lock or runs
 * after it on this CPU, and a down_async() work item gets it from
 * queue_work().
 *
 * An up() that would overflow the count warns and is ignored: the count
 * saturates at 2^30 - 1.
 *
 * Context: Any context.
 */
void __sched up(struct semaphore *sem)
{
	int c = atomic_read(&sem->count);

	do {
		if (unlikely(c & SEM_WAITERS) ||
		    unlikely((c & SEM_COUNT_MAX) == SEM_COUNT_MAX)) {
			__up_slow(sem);
			return;
		}
		/* Release: pairs with the acquire of the next down. */
	} while (!atomic_try_cmpxchg_release(&sem->count, &c, c + 1));
}
EXPORT_SYMBOL(up);

/* Functions for the contended case */

/*
 * Queue on the stack and sleep until up() hands a unit over, a signal
 * allowed by @state arrives, or @timeout expires.  Called with sem->lock
 * held, interrupts disabled, after sem_take_or_wait() found no free unit.
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

	list_add_tail(&waiter.list, &sem->wait_list);

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
	list_del(&waiter.list);
	sem_waiter_gone(sem);
	return -ETIME;

 interrupted:
	list_del(&waiter.list);
	sem_waiter_gone(sem);
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
		ret = 0;
	} else {
		trace_contention_begin(sem, 0);
		ret = ___down_common(sem, state, timeout);
		trace_contention_end(sem, ret);
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	return ret;
}

/*
 * Grant the unit being released to the oldest waiter.  Called with
 * sem->lock held and the wait list not empty.  A sleeper is put on
 * @wake_q; an asynchronous entry is returned, and the caller must keep
 * preemption disabled from before dropping the lock until it has passed
 * the entry to sem_run_grant().
 */
static struct sem_waiter *__up(struct semaphore *sem,
			       struct wake_q_head *wake_q)
	__must_hold(&sem->lock)
{
	struct sem_waiter *waiter = list_first_entry(&sem->wait_list,
						     struct sem_waiter, list);

	list_del(&waiter->list);
	sem_waiter_gone(sem);
	if (waiter->task) {
		wake_q_add(wake_q, waiter->task);
		waiter->state = SEM_WAITER_DONE;
		return NULL;
	}
	sem_debug_entry(waiter, false);
	waiter->status = 0;
	WRITE_ONCE(waiter->state, SEM_WAITER_GRANTING);
	return waiter;
}

/*
 * The slow path of up(): someone waits, or the count would overflow.  The
 * fast path may still change ->count while SEM_WAITERS is clear, hence the
 * compare-and-exchange even under the lock.
 */
static noinline void __sched __up_slow(struct semaphore *sem)
{
	struct sem_waiter *granted = NULL;
	unsigned long flags;
	bool overflow = false;
	DEFINE_WAKE_Q(wake_q);
	int c;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (likely(list_empty(&sem->wait_list))) {
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

	WRITE_ONCE(waiter->state, SEM_WAITER_DONE);
	grant(waiter, status);
}

/*
 * Run the grant function of a settled entry, or, if a grant function is
 * already running on this CPU (it called up(), or an interrupt arrived
 * while it ran), queue the entry for that caller to run next.  This bounds
 * the nesting of grant functions to one per CPU.  Preemption must be
 * disabled, and stays so until every queued function has run: this is
 * the read-side section that sem_shutdown() waits for with
 * synchronize_rcu().
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
 * The entry must not be queued.  It may be queued again after its grant
 * function was called, after sem_cancel() removed it, or after
 * down_entry() returned anything but -EINPROGRESS, without calling this
 * function again.
 *
 * Context: Any context.
 */
void sem_waiter_init(struct sem_waiter *waiter, sem_grant_fn grant)
{
	INIT_LIST_HEAD(&waiter->list);
	waiter->grant = grant;
	waiter->task = NULL;
	waiter->status = 0;
	waiter->sem = NULL;
	waiter->state = SEM_WAITER_IDLE;
}
EXPORT_SYMBOL(sem_waiter_init);

/*
 * @state is the entry's state read once with READ_ONCE(): the lock is held,
 * but sem_call_grant() moves a settled entry from GRANTING to DONE
 * without it.  Both mean "settled" to every caller.
 */
static bool sem_waiter_valid(const struct sem_waiter *waiter,
			     unsigned int state)
{
	return state >= SEM_WAITER_IDLE && state <= SEM_WAITER_DONE &&
	       waiter->grant && !waiter->task;
}

/*
 * Take a unit for @waiter or queue it.  On return preemption is disabled
 * and the caller re-enables it once it has dealt with a 0 return.
 */
static int sem_queue_entry(struct semaphore *sem, struct sem_waiter *waiter,
			   struct workqueue_struct *wq)
{
	unsigned int state;
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&sem->lock, flags);
	state = READ_ONCE(waiter->state);
	if (!sem_waiter_valid(waiter, state)) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_QUEUED ||
		   state == SEM_WAITER_GRANTING) {
		ret = -EBUSY;
	} else if (atomic_read(&sem->count) & SEM_SHUTDOWN) {
		ret = -ESHUTDOWN;
	} else {
		if (wq)
			container_of(waiter, struct sem_async, waiter)->wq = wq;
		waiter->sem = sem;
		if (sem_take_or_wait(sem)) {
			waiter->state = SEM_WAITER_IDLE;
			ret = 0;
		} else {
			WRITE_ONCE(waiter->state, SEM_WAITER_QUEUED);
			list_add_tail(&waiter->list, &sem->wait_list);
			sem_debug_entry(waiter, true);
			ret = -EINPROGRESS;
		}
	}
	preempt_disable();
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	WARN_ONCE(ret == -EINVAL,
		  "semaphore %p: wait entry %p is not initialised\n",
		  sem, waiter);
	WARN_ONCE(ret == -EBUSY, "semaphore %p: wait entry %p is already queued\n",
		  sem, waiter);
	return ret;
}

/**
 * down_entry - acquire the semaphore, or queue a wait entry
 * @sem: the semaphore to be acquired
 * @waiter: an entry initialised with sem_waiter_init()
 *
 * If a unit is free and nobody is queued, take it and return 0; the grant
 * function is not called.  Otherwise queue @waiter behind every earlier
 * waiter, sleeping or not, and return -EINPROGRESS: its grant function
 * will be called exactly once, with status 0 when an up() hands it the
 * unit, or with -ESHUTDOWN if sem_shutdown() fails it first, unless
 * sem_cancel() removes it before.  See &typedef sem_grant_fn for the
 * context of that call.
 *
 * A queued entry belongs to the semaphore: its owner must keep it alive
 * and leave it alone until its grant function has been called or
 * sem_cancel() returned 0.
 *
 * Memory ordering: as for down(), a successful acquisition (a 0 return,
 * or status 0 in the grant function) sees every store made before the
 * up() that released the unit.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if the semaphore was acquired, -EINPROGRESS if @waiter was
 * queued, -ESHUTDOWN if sem_shutdown() was called on @sem, -EBUSY (with a
 * warning) if @waiter is already queued or being granted, -EINVAL (with a
 * warning) if @waiter was not initialised with a grant function.
 */
int down_entry(struct semaphore *sem, struct sem_waiter *waiter)
{
	int ret = sem_queue_entry(sem, waiter, NULL);

	preempt_enable();
	return ret;
}
EXPORT_SYMBOL(down_entry);

/**
 * sem_cancel - remove a queued wait entry
 * @sem: the semaphore @waiter was queued on
 * @waiter: an entry queued with down_entry()
 *
 * Settles, under the semaphore's lock, whether @waiter is removed or was
 * already granted.  Nobody behind @waiter waits longer because of it:
 * while anyone is queued no unit is free, so removing an entry, the oldest
 * one included, never strands a unit.
 *
 * The caller must guarantee that @waiter is still allocated: the grant
 * function may free it, so it must not be freed before either this
 * function returned 0 or the grant function was called.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if @waiter was removed before it was granted: its grant
 * function will never be called and no unit is held.  -EALREADY if it had
 * already been settled: its grant function runs or has run, and it owns
 * the unit (or the -ESHUTDOWN status).  -ENOENT (with a warning) if
 * @waiter was never queued, -EINVAL (with a warning) if it is queued on
 * another semaphore or was never initialised.
 */
int sem_cancel(struct semaphore *sem, struct sem_waiter *waiter)
{
	unsigned int state;
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&sem->lock, flags);
	state = READ_ONCE(waiter->state);
	if (!sem_waiter_valid(waiter, state)) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_IDLE) {
		ret = -ENOENT;
	} else if (waiter->sem != sem) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_QUEUED) {
		sem_debug_entry(waiter, false);
		list_del_init(&waiter->list);
		sem_waiter_gone(sem);
		WRITE_ONCE(waiter->state, SEM_WAITER_IDLE);
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
EXPORT_SYMBOL(sem_cancel);

/*
 * Settle every queued wait entry of @sem with -ESHUTDOWN, drop sem->lock,
 * which the caller took with raw_spin_lock_irqsave() into @flags, and run
 * the entries' grant functions.  Sleepers stay queued, or with
 * @unlink_sleepers are taken off the list.  Return: the number of
 * sleepers.
 */
static unsigned int sem_fail_entries(struct semaphore *sem,
				     unsigned long flags, bool unlink_sleepers)
	__releases(&sem->lock)
{
	struct sem_waiter *waiter, *next;
	unsigned int sleepers = 0;
	LIST_HEAD(failed);

	list_for_each_entry_safe(waiter, next, &sem->wait_list, list) {
		if (waiter->task) {
			if (unlink_sleepers)
				list_del_init(&waiter->list);
			sleepers++;
			continue;
		}
		sem_debug_entry(waiter, false);
		list_move_tail(&waiter->list, &failed);
		waiter->status = -ESHUTDOWN;
		WRITE_ONCE(waiter->state, SEM_WAITER_GRANTING);
	}
	sem_waiter_gone(sem);
	preempt_disable();
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	list_for_each_entry_safe(waiter, next, &failed, list)
		sem_run_grant(waiter);
	preempt_enable();
	return sleepers;
}

/**
 * sem_shutdown - fail asynchronous requests for module unload or removal
 * @sem: the semaphore
 *
 * Marks @sem shut down, so that later down_entry() and down_async() calls
 * fail with -ESHUTDOWN, and settles every queued asynchronous entry with
 * status -ESHUTDOWN through its grant function (a down_async() work item
 * is queued and sees sem_async_status() == -ESHUTDOWN).  Then waits until
 * every grant function and every down_async() work item settled before
 * this point, on this or any other semaphore, has returned.
 *
 * The classic API is not affected: down(), down_trylock() and up() keep
 * working on the units.  Sleepers still queued are a bug of the caller:
 * they trigger a warning, stay queued and are woken by later up() calls
 * as usual.  sema_init() clears the shut-down state.
 *
 * Context: Process context; sleeps.  Must not be called from a grant
 * function or from a down_async() work function.
 */
void sem_shutdown(struct semaphore *sem)
{
	unsigned int sleepers;
	unsigned long flags;

	might_sleep();
	raw_spin_lock_irqsave(&sem->lock, flags);
	atomic_or(SEM_SHUTDOWN, &sem->count);
	sleepers = sem_fail_entries(sem, flags, false);

	WARN_ONCE(sleepers, "semaphore %p: %s() with sleeping waiters\n",
		  sem, __func__);

	/* Grant functions run with preemption disabled. */
	synchronize_rcu();
	/* Their work items hold sem_async_srcu until they return. */
	synchronize_srcu(&sem_async_srcu);
}
EXPORT_SYMBOL(sem_shutdown);

static void sem_async_workfn(struct work_struct *work)
{
	struct sem_async *req = to_sem_async(work);
	int idx = req->srcu_idx;
	unsigned long flags;

	req->func(work);
	/* @req may have been freed by now. */
	local_irq_save(flags);
	/* Taken by sem_async_grant(), in another context. */
	__acquire(&sem_async_srcu);
	srcu_up_read(&sem_async_srcu, idx);
	local_irq_restore(flags);
}

static void sem_async_grant(struct sem_waiter *waiter, int status)
{
	struct sem_async *req = container_of(waiter, struct sem_async, waiter);
	unsigned long flags;

	WRITE_ONCE(req->status, status);
	/* Interrupts off: Tiny SRCU's counters are not interrupt safe. */
	local_irq_save(flags);
	req->srcu_idx = srcu_down_read(&sem_async_srcu);
	/* Released by sem_async_workfn(), in another context. */
	__release(&sem_async_srcu);
	local_irq_restore(flags);
	queue_work(req->wq, &req->work);
}

/**
 * sem_async_init - initialise a down_async() request
 * @req: the request
 * @func: the work function to run once the request is settled
 *
 * The request must not be queued.  It may be passed to down_async()
 * again once @func has been called for it, or after sem_async_cancel()
 * returned 0, without calling this function again.
 *
 * Context: Any context.
 */
void sem_async_init(struct sem_async *req, work_func_t func)
{
	sem_waiter_init(&req->waiter, sem_async_grant);
	INIT_WORK(&req->work, sem_async_workfn);
	req->func = func;
	req->wq = NULL;
	req->status = 0;
	req->srcu_idx = 0;
}
EXPORT_SYMBOL(sem_async_init);

/**
 * down_async - acquire the semaphore from a work item
 * @sem: the semaphore to be acquired
 * @req: a request initialised with sem_async_init()
 * @wq: the workqueue to run the request's work function on
 *
 * The asynchronous form of down() (the iosem_lock_and_schedule_work() of
 * 2005): the caller does not wait.  If a unit is free and nobody is
 * queued, it is taken and the work is queued at once; otherwise @req is
 * queued behind every earlier waiter and its work is queued when up()
 * hands it the unit.  The work function runs holding the semaphore and
 * must release it with up(); it first checks sem_async_status(), which is
 * -ESHUTDOWN (no unit held) if sem_shutdown() failed the request.
 *
 * @req belongs to the semaphore from this call until its work function
 * is called or sem_async_cancel() returns 0.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if the unit was taken and the work queued, -EINPROGRESS if
 * @req was queued, -ESHUTDOWN if @sem was shut down (nothing queued),
 * -EBUSY or -EINVAL (with a warning) as for down_entry(), and -EINVAL
 * (with a warning) if @req was not initialised with sem_async_init().
 */
int down_async(struct semaphore *sem, struct sem_async *req,
	       struct workqueue_struct *wq)
{
	int ret;

	if (WARN_ONCE(req->waiter.grant != sem_async_grant || !wq,
		      "semaphore %p: bad %s() request %p\n", sem, __func__, req))
		return -EINVAL;

	ret = sem_queue_entry(sem, &req->waiter, wq);
	if (!ret)
		sem_async_grant(&req->waiter, 0);
	preempt_enable();
	return ret;
}
EXPORT_SYMBOL(down_async);

/**
 * sem_async_cancel - cancel a down_async() request
 * @sem: the semaphore @req was queued on
 * @req: the request
 *
 * See sem_cancel().
 *
 * Context: Any context; does not sleep.
 * Return: 0 if @req was removed and its work will not run for it,
 * -EALREADY if it was already settled and its work is queued, running or
 * done (the work owns the unit), or the errors of sem_cancel().
 */
int sem_async_cancel(struct semaphore *sem, struct sem_async *req)
{
	return sem_cancel(sem, &req->waiter);
}
EXPORT_SYMBOL(sem_async_cancel);

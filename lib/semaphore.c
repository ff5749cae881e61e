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
 * (SEM_WAITERS) is set while anyone waits, bit 31 (SEM_SHUTDOWN) is set
 * by sem_shutdown().  Every waiter is a struct sem_waiter; the waiters
 * form a circular list through their ->list members, and
 * ->first_waiter points at the oldest (there is no list head, which
 * keeps struct semaphore at 16 bytes on 64-bit).  A sleeping waiter has
 * ->task set, an asynchronous one has ->grant set.
 *
 * Invariant: if anyone waits, no unit is free.  A new request
 * queues behind the waiters; up() hands its unit directly to the oldest
 * waiter; nothing can overtake a queued waiter.  Because of the
 * invariant, a waiter that leaves the queue without being granted
 * (timeout, signal, sem_cancel(), sem_shutdown()) never holds a unit that
 * would have to be passed on.
 *
 * The fast path.  While nobody waits, down() and its variants take a unit
 * with one compare-and-exchange on ->count when a unit is free, and up()
 * gives one back with one compare-and-exchange when SEM_WAITERS is clear;
 * neither touches the lock.  Like mutex_lock(), neither reads ->count
 * first: the first compare-and-exchange guesses the value of a free
 * binary semaphore (1 for a down, 0 for an up), and only if the guess is
 * wrong does the loop look at the value it returned.  Everything else
 * takes the raw spinlock, which protects the waiters and every change of
 * SEM_WAITERS.  SEM_WAITERS is
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
 * A down_async() request has no grant function: its work item is queued
 * under the lock, in the same step as the decision.  From then on the
 * work belongs to its workqueue, which knows whether it is pending or
 * running and never runs it twice at once: cancelling a granted request
 * and tearing a semaphore down wait for the work as for any work item
 * (cancel_work_sync(), flush_workqueue()), with lockdep watching, and
 * this file keeps no record of its own of what the workqueue knows.
 * queue_work() under sem->lock nests the workqueue's pool lock, and the
 * scheduler's locks of the worker it wakes, inside sem->lock: a semaphore
 * that is released or waited for under those locks must not have
 * down_async() requests.
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
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/ftrace.h>
#include <linux/sched/clock.h>
#include <trace/events/lock.h>

#define CREATE_TRACE_POINTS
#include <trace/events/semaphore.h>

EXPORT_TRACEPOINT_SYMBOL_GPL(sem_entry_queue);
EXPORT_TRACEPOINT_SYMBOL_GPL(sem_entry_grant);
EXPORT_TRACEPOINT_SYMBOL_GPL(sem_entry_cancel);
EXPORT_TRACEPOINT_SYMBOL_GPL(sem_entry_shutdown);
EXPORT_TRACEPOINT_SYMBOL_GPL(sem_async_work_start);
EXPORT_TRACEPOINT_SYMBOL_GPL(sem_async_work_end);

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

/*
 * A down_async() request is IDLE, QUEUED, or DONE from its grant on: its
 * work was queued in the same step.  It is never GRANTING.
 */

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

static void sem_dequeue(struct semaphore *sem, struct sem_waiter *waiter);
static void sem_run_grant(struct sem_waiter *waiter);
static void sem_async_grant(struct sem_waiter *waiter, int status);
static bool sem_async_settle(struct semaphore *sem, struct sem_waiter *waiter,
			     int status);
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
 * A semaphore with waiters is being freed, or re-initialised with
 * sema_init().  Mark it shut down, so that a grant function that tries to
 * queue again gets -ESHUTDOWN, and fail its asynchronous entries with
 * -ESHUTDOWN, as sem_shutdown() would, so that their owners learn of it:
 * their grant functions run here, in the context of the kfree() or
 * sema_init() caller, with preemption disabled, as they would in an up().
 * Sleepers cannot be saved: their entries are on their stacks and they
 * will touch the semaphore again when they wake, so they are only taken
 * off the list and counted.  Tracking ends in every case, so that
 * debugobjects, which looks at the object again after a fixup, finds it
 * inactive and does not call the fixup again.
 */
static bool sem_debug_fixup_free(void *addr, enum debug_obj_state state)
{
	struct semaphore *sem = addr;
	unsigned int sleepers;
	unsigned long flags;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;

	raw_spin_lock_irqsave(&sem->lock, flags);
	atomic_or(SEM_SHUTDOWN, &sem->count);
	/*
	 * Tracked, so waiters were queued; but sema_init() may have reset the
	 * list and the count since.  Unless the list and SEM_WAITERS agree
	 * that someone waits (then the last sem_waiter_gone() below ends the
	 * tracking), end it here.
	 */
	if (!sem->first_waiter ||
	    !(atomic_read(&sem->count) & SEM_WAITERS)) {
		atomic_andnot(SEM_WAITERS, &sem->count);
		sem_debug_stop(sem, &sem_debug_descr);
	}
	sleepers = sem_fail_entries(sem, flags, true);
	WARN(sleepers, "semaphore %p freed or re-initialised with %u sleeping waiters\n",
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
 * nobody behind it is affected.  Its grant function is not called.
 * Tracking ends in every case (see above).
 */
static bool sem_waiter_debug_fixup_free(void *addr, enum debug_obj_state state)
{
	struct sem_waiter *waiter = addr;
	struct semaphore *sem = READ_ONCE(waiter->sem);
	unsigned long flags;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	if (WARN_ON_ONCE(!sem)) {
		/* Tracked but never queued: nothing to take off a list. */
		sem_debug_stop(waiter, &sem_waiter_debug_descr);
		return true;
	}

	raw_spin_lock_irqsave(&sem->lock, flags);
	/*
	 * Still queued on @sem: tracked until dequeued here.  Otherwise it was
	 * granted or cancelled since debugobjects looked, and that ended the
	 * tracking under the same lock.
	 */
	if (smp_load_acquire(&waiter->state) == SEM_WAITER_QUEUED &&
	    READ_ONCE(waiter->sem) == sem) {
		sem_debug_stop(waiter, &sem_waiter_debug_descr);
		sem_dequeue(sem, waiter);
		WRITE_ONCE(waiter->state, SEM_WAITER_IDLE);
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	return true;
}

static const struct debug_obj_descr sem_waiter_debug_descr = {
	.name		= "semaphore wait entry",
	.fixup_free	= sem_waiter_debug_fixup_free,
};

/*
 * sema_init() and sem_waiter_init() on memory that is still tracked: a
 * semaphore with waiters, or a queued entry.  debug_object_free() of an
 * active object calls the fixups above, which settle it; of an untracked
 * one it does nothing.
 */
void sem_debug_init(struct semaphore *sem)
{
	debug_object_free(sem, &sem_debug_descr);
}
EXPORT_SYMBOL(sem_debug_init);

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

/* The holder hint of a unit granted to the down_async() request @waiter. */
static __always_inline unsigned long sem_async_holder(struct sem_waiter *waiter)
{
	return (unsigned long)container_of(waiter, struct sem_async, waiter)->func;
}

#ifdef CONFIG_DETECT_HUNG_TASK_BLOCKER
/*
 * The holder hint: a task_struct pointer or a function address, told
 * apart by the reader with __kernel_text_address(), so that no pointer
 * needs spare low bits (struct semaphore is only 2-byte aligned on m68k).
 * Plain stores: a hint, read racily by the hung-task report.
 */
static __always_inline void sem_hint(struct semaphore *sem,
				     unsigned long holder)
{
	WRITE_ONCE(sem->last_holder, holder);
}

/* A unit taken by the caller: current, unless in interrupt context. */
static __always_inline void sem_hint_caller(struct semaphore *sem)
{
	sem_hint(sem, in_task() ? (unsigned long)current : 0);
}

/*
 * A sleeper of the down() family publishes the semaphore it waits for,
 * for the hung-task report.  Set with sem->lock held, before the sleep;
 * cleared under the task's pi_lock, which sem_task_blocker() holds while
 * it reads the semaphore, so that once a sleeper returned from down()
 * nobody reads the semaphore through it any more (its owner may free it).
 */
static void sem_blocker_set(struct semaphore *sem)
{
	WRITE_ONCE(current->blocker_sem, sem);
}

static void sem_blocker_clear(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&current->pi_lock, flags);
	WRITE_ONCE(current->blocker_sem, NULL);
	raw_spin_unlock_irqrestore(&current->pi_lock, flags);
}

/**
 * sem_task_blocker - the holder hint of the semaphore a task sleeps on
 * @t: the task
 * @holder: set to sem_holder_hint() of that semaphore
 *
 * For the hung-task report.  Reads the semaphore under @t's pi_lock, so
 * that it cannot be freed meanwhile, and without faulting.
 *
 * Context: Any context; takes @t's pi_lock.
 * Return: true if @t sleeps in down() or one of its variants.
 */
bool sem_task_blocker(struct task_struct *t, unsigned long *holder)
{
	struct semaphore *sem;
	unsigned long flags;
	bool ret = false;

	raw_spin_lock_irqsave(&t->pi_lock, flags);
	sem = READ_ONCE(t->blocker_sem);
	if (sem) {
		ret = !get_kernel_nofault(*holder, &sem->last_holder);
		/*
		 * A sleeper stranded by the debug fixup of a semaphore freed
		 * under it (sem_blocker_forget()) loses the pointer without
		 * this lock: the read may then have been of freed memory, and
		 * is discarded.
		 */
		smp_rmb();
		if (READ_ONCE(t->blocker_sem) != sem)
			ret = false;
	}
	raw_spin_unlock_irqrestore(&t->pi_lock, flags);
	return ret;
}

/*
 * The debug fixup unlinks a sleeper from a semaphore that is being freed
 * (sem->lock held): its task no longer waits on anything that the report
 * could read.  Not under the task's pi_lock, which must not nest inside
 * sem->lock; sem_task_blocker() checks the pointer again instead.
 */
static void sem_blocker_forget(struct task_struct *t)
{
	WRITE_ONCE(t->blocker_sem, NULL);
	/* Ordered before the free that follows the fixup. */
	smp_wmb();
}
#else
static __always_inline void sem_hint(struct semaphore *sem,
				     unsigned long holder) { }
static __always_inline void sem_hint_caller(struct semaphore *sem) { }
static inline void sem_blocker_set(struct semaphore *sem) { }
static inline void sem_blocker_clear(void) { }
static inline void sem_blocker_forget(struct task_struct *t) { }
#endif

/*
 * The fast path of every down: take a free unit without the lock.  A free
 * unit implies that nobody waits (the invariant), so this never overtakes
 * a waiter.  Acquire: pairs with the release of the up() that freed it.
 */
static __always_inline bool sem_take_fast(struct semaphore *sem)
{
	int c = 1;	/* the guess: a free binary semaphore */

	/* The guess in constants costs what mutex_lock() costs. */
	if (likely(atomic_try_cmpxchg_acquire(&sem->count, &c, 0)))
		goto taken;
	do {
		if (!(c & SEM_COUNT_MAX))
			return false;
	} while (!atomic_try_cmpxchg_acquire(&sem->count, &c, c - 1));
taken:
	sem_hint_caller(sem);
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

/* Queue @waiter behind every waiter of @sem; sem->lock held. */
static void sem_enqueue(struct semaphore *sem, struct sem_waiter *waiter)
	__must_hold(&sem->lock)
{
	if (sem->first_waiter) {
		list_add_tail(&waiter->list, &sem->first_waiter->list);
	} else {
		INIT_LIST_HEAD(&waiter->list);
		sem->first_waiter = waiter;
	}
}

/* Clear SEM_WAITERS once the last waiter left; sem->lock held. */
static void sem_waiter_gone(struct semaphore *sem)
	__must_hold(&sem->lock)
{
	if (!sem->first_waiter && (atomic_read(&sem->count) & SEM_WAITERS)) {
		atomic_andnot(SEM_WAITERS, &sem->count);
		sem_debug_waiters(sem, false);
	}
}

/*
 * Take @waiter, from any position, off @sem's waiters; sem->lock held.
 * An entry that is alone in its circle is the only waiter if it is the
 * first one, and otherwise not queued at all (a sleeper that the debug
 * fixup of sema_init() unlinked): then nothing changes.
 */
static void sem_dequeue(struct semaphore *sem, struct sem_waiter *waiter)
	__must_hold(&sem->lock)
{
	if (sem->first_waiter == waiter)
		sem->first_waiter = list_empty(&waiter->list) ? NULL :
				    list_next_entry(waiter, list);
	list_del_init(&waiter->list);
	sem_waiter_gone(sem);
}

/*
 * Trace the queueing of an entry, with the length of the queue it joined
 * (counted only while the event is enabled); note the time for
 * sem_entry_grant.  sem->lock held.
 */
static void sem_trace_queue(struct semaphore *sem, struct sem_waiter *waiter,
			    bool async)
	__must_hold(&sem->lock)
{
	unsigned int qlen = 1;
	struct sem_waiter *w;

	waiter->queued_ns = trace_sem_entry_grant_enabled() ? local_clock() : 0;
	if (!trace_sem_entry_queue_enabled())
		return;
	list_for_each_entry(w, &sem->first_waiter->list, list)
		qlen++;
	trace_sem_entry_queue(sem, waiter, qlen, async);
}

/* Trace the grant of a queued entry, with the time it waited. */
static void sem_trace_grant(struct semaphore *sem, struct sem_waiter *waiter)
{
	u64 now, wait = 0;

	if (!trace_sem_entry_grant_enabled())
		return;
	if (waiter->queued_ns) {
		/* local_clock() of another CPU may be behind: clamp at 0. */
		now = local_clock();
		if (now > waiter->queued_ns)
			wait = now - waiter->queued_ns;
	}
	trace_sem_entry_grant(sem, waiter, wait);
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
 * woken, a down_async() request has its work queued, and a down_entry()
 * entry has its grant function called, usually before up() returns, but
 * later if up() is called from a grant function or from an interrupt on
 * a CPU that runs one (see &typedef sem_grant_fn).
 *
 * Stores made before up() are visible to whoever is granted the unit: the
 * semaphore's lock orders them before the grant decision, the woken task
 * or the grant function acquires that order through the same lock or runs
 * after it on the same CPU, and a down_async() work item gets it from
 * queue_work().
 *
 * An up() that would overflow the count warns and is ignored: the count
 * saturates at 2^30 - 1.
 *
 * Context: Any context.
 */
void __sched up(struct semaphore *sem)
{
	int c = 0;	/* the guess: a binary semaphore, nobody waits */

	/* Before the release: a down after it may set a new hint. */
	sem_hint(sem, 0);
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
		sem_hint_caller(sem);
		raw_spin_unlock_irqrestore(&sem->lock, flags);
		return 0;
	}
	trace_contention_begin(sem, 0);
	sem_blocker_set(sem);
	ret = ___down_common(sem, state, timeout);
	trace_contention_end(sem, ret);
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	sem_blocker_clear();

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
	struct sem_waiter *waiter;

	while ((waiter = sem->first_waiter)) {
		sem_dequeue(sem, waiter);
		if (waiter->task) {
			sem_hint(sem, (unsigned long)waiter->task);
			wake_q_add(wake_q, waiter->task);
			waiter->state = SEM_WAITER_DONE;
			return NULL;
		}
		sem_debug_entry(waiter, false);
		sem_trace_grant(sem, waiter);
		if (waiter->grant != sem_async_grant) {
			sem_hint(sem, (unsigned long)waiter->grant);
			waiter->status = 0;
			WRITE_ONCE(waiter->state, SEM_WAITER_GRANTING);
			return waiter;
		}
		sem_hint(sem, sem_async_holder(waiter));
		if (sem_async_settle(sem, waiter, 0))
			return NULL;
		/* Its work could not be queued: the next waiter's unit. */
	}
	/* Nobody is left to take it (SEM_WAITERS is clear): free it. */
	sem_hint(sem, 0);
	atomic_inc_return_release(&sem->count);
	return NULL;
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

	WRITE_ONCE(waiter->state, SEM_WAITER_DONE);
	grant(waiter, status);
}

/*
 * Run the grant function of a settled entry, or, if a grant function is
 * already running on this CPU (it called up(), or an interrupt arrived
 * while it ran), queue the entry for that caller to run next.  This bounds
 * the nesting of grant functions to one per CPU.  Preemption must be
 * disabled, and stays so until every queued function has run: this is
 * the read-side section that sem_cancel_sync() waits for with
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
 * An entry that is queued, or settled and its grant function not called
 * yet, is left alone with a warning.  It may be queued again after its
 * grant function was called, after sem_cancel() removed it, or after
 * down_entry() returned anything but -EINPROGRESS, without calling this
 * function again.
 *
 * Context: Any context.
 */
void sem_waiter_init(struct sem_waiter *waiter, sem_grant_fn grant)
{
	unsigned int state = READ_ONCE(waiter->state);

	if (WARN_ONCE(state == SEM_WAITER_QUEUED ||
		      state == SEM_WAITER_GRANTING,
		      "semaphore: initialising wait entry %p, which is queued or being granted\n",
		      waiter))
		return;
	INIT_LIST_HEAD(&waiter->list);
	waiter->grant = grant;
	waiter->task = NULL;
	waiter->status = 0;
	waiter->sem = NULL;
	waiter->queued_ns = 0;
	waiter->state = SEM_WAITER_IDLE;
}
EXPORT_SYMBOL_GPL(sem_waiter_init);

/*
 * @state is the entry's state read once: the lock is held, but
 * sem_call_grant() moves a settled entry from GRANTING to DONE without
 * it.  Both mean "settled" to every caller.
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
	/* Acquire: pairs with the release of a grant on another lock. */
	state = smp_load_acquire(&waiter->state);
	if (!sem_waiter_valid(waiter, state)) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_QUEUED ||
		   state == SEM_WAITER_GRANTING) {
		ret = -EBUSY;
	} else if (atomic_read(&sem->count) & SEM_SHUTDOWN) {
		ret = -ESHUTDOWN;
	} else if (wq && atomic_read(&container_of(waiter, struct sem_async,
						   waiter)->cancelling)) {
		ret = -ECANCELED;
	} else if (wq && work_pending(&container_of(waiter, struct sem_async,
						    waiter)->work)) {
		/*
		 * After the refusals above: cancel_work_sync() of a running
		 * work item sets PENDING for a moment.
		 */
		ret = -EBUSY;
	} else if (wq && state == SEM_WAITER_DONE &&
		   container_of(waiter, struct sem_async, waiter)->wq != wq) {
		/* Its function may still run there: runs would overlap. */
		ret = -EXDEV;
	} else {
		if (wq)
			container_of(waiter, struct sem_async, waiter)->wq = wq;
		WRITE_ONCE(waiter->sem, sem);
		if (sem_take_or_wait(sem)) {
			ret = 0;
			if (!wq) {
				sem_hint_caller(sem);
				WRITE_ONCE(waiter->state, SEM_WAITER_IDLE);
			} else {
				/* Before the work may run and free @waiter. */
				sem_hint(sem, sem_async_holder(waiter));
				if (!sem_async_settle(sem, waiter, 0)) {
					/* Nobody waits: the unit is free again. */
					sem_hint(sem, 0);
					atomic_inc_return_release(&sem->count);
					ret = -ECANCELED;
				}
			}
		} else {
			sem_enqueue(sem, waiter);
			sem_trace_queue(sem, waiter, !!wq);
			sem_debug_entry(waiter, true);
			/*
			 * Release: whoever sees QUEUED without sem->lock (a
			 * sem_cancel() that holds another semaphore's lock)
			 * also sees ->sem.  Pairs with the acquire there.
			 */
			smp_store_release(&waiter->state, SEM_WAITER_QUEUED);
			ret = -EINPROGRESS;
		}
	}
	preempt_disable();
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	WARN_ONCE(ret == -EINVAL,
		  "semaphore %p: wait entry %p is not initialised\n",
		  sem, waiter);
	WARN_ONCE(ret == -EXDEV,
		  "semaphore %p: request %p moved to another workqueue without sem_async_init()\n",
		  sem, waiter);
	WARN_ONCE(ret == -EBUSY,
		  "semaphore %p: wait entry %p is queued, or being granted, or its work is pending\n",
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
 * warning) if @waiter was not initialised with a grant function or is
 * the entry of a down_async() request.
 */
int down_entry(struct semaphore *sem, struct sem_waiter *waiter)
{
	int ret;

	if (WARN_ONCE(waiter->grant == sem_async_grant,
		      "semaphore %p: %s() of request %p: use down_async()\n",
		      sem, __func__, waiter))
		return -EINVAL;
	ret = sem_queue_entry(sem, waiter, NULL);

	preempt_enable();
	return ret;
}
EXPORT_SYMBOL_GPL(down_entry);

/*
 * Settle, under the lock, whether @waiter is removed or was already
 * granted.  @sync (sem_async_cancel_sync()) does not warn about an idle
 * entry.
 */
static int __sem_cancel(struct semaphore *sem, struct sem_waiter *waiter,
			bool sync)
{
	unsigned int state;
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&sem->lock, flags);
	/*
	 * Acquire: pairs with the release in sem_queue_entry(), so that an
	 * entry seen QUEUED is seen with the semaphore it is queued on, also
	 * when its grant function just queued it on another semaphore.
	 */
	state = smp_load_acquire(&waiter->state);
	if (!sem_waiter_valid(waiter, state)) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_IDLE) {
		ret = -ENOENT;
	} else if (READ_ONCE(waiter->sem) != sem) {
		ret = -EINVAL;
	} else if (state == SEM_WAITER_QUEUED) {
		sem_debug_entry(waiter, false);
		sem_dequeue(sem, waiter);
		WRITE_ONCE(waiter->state, SEM_WAITER_IDLE);
		ret = 0;
	} else {
		ret = -EALREADY;
	}
	if (ret != -EINVAL)
		trace_sem_entry_cancel(sem, waiter, ret);
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	WARN_ONCE(ret == -ENOENT && !sync,
		  "semaphore %p: cancelling wait entry %p that is not queued\n",
		  sem, waiter);
	WARN_ONCE(ret == -EINVAL,
		  "semaphore %p: cancelling wait entry %p of another semaphore or not initialised\n",
		  sem, waiter);
	return ret;
}

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
 * The call acts on the entry's current queueing.  If its grant function
 * queued it again on @sem, that queueing is the one removed (0); if it
 * queued it on another semaphore, the entry must be cancelled there: this
 * call then returns -EINVAL and changes nothing.
 *
 * The caller must guarantee that @waiter is still allocated: the grant
 * function may free it, so it must not be freed before either this
 * function returned 0 or the grant function was called.  An owner that
 * wants to free @waiter after -EALREADY without waiting for its grant
 * function otherwise uses sem_cancel_sync().
 *
 * Context: Any context; does not sleep.
 * Return: 0 if @waiter was removed before it was granted: its grant
 * function will not be called for that queueing and no unit is held.
 * -EALREADY if it had already been settled: its grant function is about
 * to run, runs or has run, and it owns the unit (or the -ESHUTDOWN
 * status).  -ENOENT (with a warning) if @waiter is idle: never queued,
 * removed, or queued again by its grant function and granted a unit at
 * once (a race that the owner of such a grant function must prevent);
 * -EINVAL (with a warning) if it is queued
 * on another semaphore or was never initialised.
 */
int sem_cancel(struct semaphore *sem, struct sem_waiter *waiter)
{
	return __sem_cancel(sem, waiter, false);
}
EXPORT_SYMBOL_GPL(sem_cancel);

/**
 * sem_cancel_sync - remove a queued wait entry, or wait for its grant
 * @sem: the semaphore @waiter was queued on
 * @waiter: an entry queued with down_entry()
 *
 * As sem_cancel(), and then waits until a grant function that was settled
 * for @waiter has returned (the equivalent of del_timer_sync() for a wait
 * entry).  On return the entry is not queued and its grant function does
 * not run, unless the grant function queued it again: an owner whose
 * grant function may re-queue the entry must stop that first.  A
 * down_async() request is passed on to sem_async_cancel_sync().
 *
 * Context: Process context; sleeps (an RCU grace period).  Must not be
 * called from a grant function or with a lock held that one takes.
 * Return: as sem_cancel(); after 0 or -EALREADY the owner may free
 * @waiter.
 */
int sem_cancel_sync(struct semaphore *sem, struct sem_waiter *waiter)
{
	int ret;

	if (waiter->grant == sem_async_grant)
		return sem_async_cancel_sync(sem, container_of(waiter,
						struct sem_async, waiter));

	might_sleep();
	ret = sem_cancel(sem, waiter);
	/*
	 * A settled grant function runs with preemption disabled from the
	 * grant decision to its return, also when the per-CPU queue of
	 * sem_run_grant() defers it: a grace period covers it.
	 */
	if (ret == 0 || ret == -EALREADY)
		synchronize_rcu();
	return ret;
}
EXPORT_SYMBOL_GPL(sem_cancel_sync);

/*
 * Settle every queued wait entry of @sem with -ESHUTDOWN, drop sem->lock,
 * which the caller took with raw_spin_lock_irqsave() into @flags, and run
 * the entries' grant functions (down_async() requests have their work
 * queued under the lock).  Sleepers stay queued, or with @unlink_sleepers
 * are taken off the list.  Return: the number of sleepers.
 */
static unsigned int sem_fail_entries(struct semaphore *sem,
				     unsigned long flags, bool unlink_sleepers)
	__releases(&sem->lock)
{
	struct sem_waiter *waiter, *next;
	unsigned int sleepers = 0;
	LIST_HEAD(failed);
	LIST_HEAD(all);

	/*
	 * Give the circular list of waiters a head for the walk: insert @all
	 * before the oldest waiter.  The sleepers that stay queued form the
	 * circle again once @all is taken out.
	 */
	if (sem->first_waiter)
		list_add_tail(&all, &sem->first_waiter->list);
	list_for_each_entry_safe(waiter, next, &all, list) {
		if (waiter->task) {
			if (unlink_sleepers) {
				list_del_init(&waiter->list);
				sem_blocker_forget(waiter->task);
			}
			sleepers++;
			continue;
		}
		sem_debug_entry(waiter, false);
		trace_sem_entry_shutdown(sem, waiter);
		if (waiter->grant == sem_async_grant) {
			list_del(&waiter->list);
			sem_async_settle(sem, waiter, -ESHUTDOWN);
			continue;
		}
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

/*
 * Settle the down_async() request of @waiter with @status, under
 * sem->lock, and queue its work in the same step: whoever looks at the
 * request under the lock afterwards finds its work pending, running or
 * done.  If the work item cannot be queued (disabled, by a
 * sem_async_cancel_sync() that waits, or by its owner; or queued by
 * hand) the request is left idle with -ECANCELED, with a warning unless
 * a sem_async_cancel_sync() runs for it.
 * Return: false in that case; the caller then owns the grant's unit.
 */
static bool sem_async_settle(struct semaphore *sem, struct sem_waiter *waiter,
			     int status)
	__must_hold(&sem->lock)
{
	struct sem_async *req = container_of(waiter, struct sem_async, waiter);

	WRITE_ONCE(waiter->status, status);
	/*
	 * GRANTING until the work is queued: checks made without this lock
	 * (down_async() to another semaphore, sem_async_init()) must not
	 * find the request DONE and its work not pending yet.
	 */
	WRITE_ONCE(waiter->state, SEM_WAITER_GRANTING);
	/* Orders the status before the work function (see queue_work()). */
	if (likely(queue_work(req->wq, &req->work))) {
		smp_store_release(&waiter->state, SEM_WAITER_DONE);
		return true;
	}
	WRITE_ONCE(waiter->status, -ECANCELED);
	WRITE_ONCE(waiter->state, SEM_WAITER_IDLE);
	WARN_ONCE(!atomic_read(&req->cancelling),
		  "semaphore %p: work of request %p cannot be queued\n",
		  sem, req);
	return false;
}

/**
 * sem_shutdown - fail every queued wait entry of a semaphore
 * @sem: the semaphore
 *
 * Marks @sem shut down and settles every queued wait entry with
 * -ESHUTDOWN: grant functions of down_entry() entries are called (before
 * this returns, unless it is called from a grant function: then right
 * after that one returns), and down_async() requests have their work
 * queued with sem_async_status() -ESHUTDOWN (-ECANCELED, no work, if the
 * work item is disabled).  From then on down_entry()
 * and down_async() return -ESHUTDOWN.  Units held are not affected:
 * down(), down_trylock() and up() keep working on them.  Sleepers still
 * queued are a bug of the caller: they trigger a warning, stay queued
 * and are woken by later up() calls as usual.  sema_init() clears the
 * shut-down state, once nobody uses the semaphore any more.
 *
 * It waits for nothing.  The work of a request belongs to its workqueue:
 * to free @sem, or the requests, the owner waits for their work as for
 * any work item (flush_workqueue(), destroy_workqueue(), or
 * cancel_work_sync() of each request's work, giving back the unit of a
 * taken-back grant whose status was 0) and for grant functions of its
 * entries that run on other CPUs (sem_cancel_sync()).
 *
 * Context: Any context; does not sleep.
 */
void sem_shutdown(struct semaphore *sem)
{
	unsigned int sleepers;
	unsigned long flags;

	raw_spin_lock_irqsave(&sem->lock, flags);
	atomic_or(SEM_SHUTDOWN, &sem->count);
	sleepers = sem_fail_entries(sem, flags, false);
	WARN_ONCE(sleepers, "semaphore %p: %s() with sleeping waiters\n",
		  sem, __func__);
}
EXPORT_SYMBOL_GPL(sem_shutdown);

/* The work item of every request: the caller's function, traced. */
static void sem_async_workfn(struct work_struct *work)
{
	struct sem_async *req = to_sem_async(work);
	struct semaphore *sem = READ_ONCE(req->waiter.sem);
	unsigned long flags;

	/*
	 * The grant that queued the work still holds the lock and has not
	 * marked @req DONE: wait for it, so that the function finds its
	 * request granted (it may submit it again).
	 */
	if (unlikely(smp_load_acquire(&req->waiter.state) ==
		     SEM_WAITER_GRANTING)) {
		raw_spin_lock_irqsave(&sem->lock, flags);
		raw_spin_unlock_irqrestore(&sem->lock, flags);
	}
	trace_sem_async_work_start(sem, req, sem_async_status(req));
	req->func(work);
	/* @req may have been freed by now. */
	trace_sem_async_work_end(sem, req);
}

/*
 * The grant function of every down_async() request, which marks it as
 * one.  It is never called: sem_async_settle() queues the work instead.
 */
static void sem_async_grant(struct sem_waiter *waiter, int status)
{
	WARN_ONCE(1, "semaphore: grant function of request %p called\n",
		  waiter);
}

/*
 * Whether @req may not be initialised: it is queued, or its work is
 * pending.  Its work then runs once, for the grant that queued it.
 */
static bool sem_async_busy(struct sem_async *req)
{
	unsigned int state = READ_ONCE(req->waiter.state);

	return WARN_ONCE(state == SEM_WAITER_QUEUED ||
			 state == SEM_WAITER_GRANTING ||
			 (state == SEM_WAITER_DONE && (work_pending(&req->work) ||
				atomic_read(&req->cancelling))),
			 "semaphore: request %p is queued, pending or being cancelled\n",
			 req);
}

static bool sem_async_init_common(struct sem_async *req, work_func_t func)
{
	if (sem_async_busy(req))
		return false;
	sem_waiter_init(&req->waiter, sem_async_grant);
	req->func = func;
	req->wq = NULL;
	atomic_set(&req->cancelling, 0);
	return true;
}

/**
 * sem_async_init - initialise a down_async() request
 * @req: the request
 * @func: the work function to run once the request is settled
 *
 * A request needs no other initialisation between submissions.  One that
 * is queued, or whose work is pending, is left alone with a warning: its
 * work runs once, for the grant that queued it.  As for any work item,
 * the request must not be initialised while its work function runs,
 * unless that function freed it.
 *
 * Context: Any context.
 */
void sem_async_init(struct sem_async *req, work_func_t func)
{
	if (sem_async_init_common(req, func))
		INIT_WORK(&req->work, sem_async_workfn);
}
EXPORT_SYMBOL_GPL(sem_async_init);

/**
 * sem_async_init_onstack - initialise a down_async() request on the stack
 * @req: the request, on the caller's stack
 * @func: the work function to run once the request is settled
 *
 * As sem_async_init(), with INIT_WORK_ONSTACK().  Call
 * sem_async_destroy_onstack() before the stack frame goes away.
 *
 * Context: Any context.
 */
void sem_async_init_onstack(struct sem_async *req, work_func_t func)
{
	if (sem_async_init_common(req, func))
		INIT_WORK_ONSTACK(&req->work, sem_async_workfn);
}
EXPORT_SYMBOL_GPL(sem_async_init_onstack);

/**
 * sem_async_destroy_onstack - end the life of a request on the stack
 * @req: a request initialised with sem_async_init_onstack()
 *
 * The request must be idle: sem_async_cancel_sync() returned, or its
 * work function ran and returned (flush_work()).
 *
 * Context: Any context.
 */
void sem_async_destroy_onstack(struct sem_async *req)
{
	sem_async_busy(req);
	destroy_work_on_stack(&req->work);
}
EXPORT_SYMBOL_GPL(sem_async_destroy_onstack);

/**
 * down_async - acquire the semaphore from a work item
 * @sem: the semaphore to be acquired
 * @req: a request initialised with sem_async_init()
 * @wq: the workqueue to run the request's work function on
 *
 * The asynchronous form of down(): the caller does not wait.  If a unit
 * is free and nobody is queued, it is taken and the work queued at once;
 * otherwise @req is queued behind every earlier waiter, and the up() that
 * hands it a unit queues its work, in the same step, under the
 * semaphore's lock.  The work function runs holding the unit and must
 * release it with up(); it first checks sem_async_status().
 *
 * From the grant on, the work is the workqueue's: it is pending, running
 * or done, and the owner waits for it or takes it back as for any work
 * item (see sem_async_cancel()).  The work function may submit @req
 * again, to the same @wq: a grant made while it runs queues the work,
 * which the workqueue runs after the current run has returned, so runs
 * never overlap and an ordered workqueue keeps grant order.  A request
 * keeps its @wq once granted, until sem_async_init().  @wq must not be
 * drained or destroyed while a request on it may be granted (call
 * sem_shutdown() first): queue_work() would warn and lose the work.
 *
 * If the work cannot be queued (the work item is disabled, or was queued
 * by hand), the grant warns, gives its unit to the next waiter (or frees
 * it) and leaves @req idle with status -ECANCELED.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if the unit was taken and the work queued, -EINPROGRESS if
 * @req was queued, -ESHUTDOWN if @sem was shut down, -ECANCELED if
 * sem_async_cancel_sync() runs for @req or the work could not be queued
 * (nothing taken, nothing queued); -EBUSY (with a warning, nothing taken)
 * if @req is queued or its work is pending; -EXDEV (with a warning) if
 * @req was granted on another workqueue and not initialised since;
 * -EINVAL (with a warning) if @req was not initialised with
 * sem_async_init() or @wq is %NULL.
 */
int down_async(struct semaphore *sem, struct sem_async *req,
	       struct workqueue_struct *wq)
{
	int ret;

	if (WARN_ONCE(req->waiter.grant != sem_async_grant || !wq,
		      "semaphore %p: bad %s() request %p\n", sem, __func__, req))
		return -EINVAL;

	ret = sem_queue_entry(sem, &req->waiter, wq);
	preempt_enable();
	return ret;
}
EXPORT_SYMBOL_GPL(down_async);

/**
 * sem_async_cancel - cancel a down_async() request, without waiting
 * @sem: the semaphore @req was last submitted to
 * @req: the request
 *
 * Settles, under the semaphore's lock, whether @req is removed or was
 * already granted.  A grant queues the work in the same step, so after
 * -EALREADY the work is pending, running or done, and the owner deals
 * with it as with any work item: flush_work(&req->work) waits for the
 * function; if cancel_work_sync(&req->work) returns true the function
 * will not run for that grant and the owner holds what it gave: a unit,
 * to give back with up(), if sem_async_status() is 0; the request stays
 * granted for later cancel calls until it is submitted or initialised
 * again.  If the function may submit @req again, use
 * sem_async_cancel_sync() instead.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if @req was removed: its function will not run for it and no
 * unit is held; -EALREADY if it was granted (or failed by sem_shutdown()):
 * its work is queued, running or done; -ENOENT (with a warning) if @req
 * is idle; -EINVAL (with a warning) if it is queued on another semaphore
 * or was not initialised.
 */
int sem_async_cancel(struct semaphore *sem, struct sem_async *req)
{
	return sem_cancel(sem, &req->waiter);
}
EXPORT_SYMBOL_GPL(sem_async_cancel);

/*
 * cancel_work_sync() took back the pending work of @req's grant: the
 * function will not run for it.  Give its unit back to @sem.  A grant of
 * another semaphore (the function submitted @req there) is not ours to
 * give back: queue the work again and let it run.
 */
static int sem_async_take_back(struct semaphore *sem, struct sem_async *req)
{
	unsigned long flags;
	int status;

	if (WARN_ONCE(READ_ONCE(req->waiter.sem) != sem,
		      "semaphore %p: request %p was submitted to another semaphore\n",
		      sem, req)) {
		WARN_ON_ONCE(!queue_work(req->wq, &req->work));
		return -EINVAL;
	}
	raw_spin_lock_irqsave(&sem->lock, flags);
	status = req->waiter.status;
	WRITE_ONCE(req->waiter.state, SEM_WAITER_IDLE);
	trace_sem_entry_cancel(sem, &req->waiter, 0);
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	if (!status)
		up(sem);
	return 0;
}

/**
 * sem_async_cancel_sync - cancel a down_async() request and wait for it
 * @sem: the semaphore @req was last submitted to
 * @req: the request
 *
 * Removes @req from the wait queue, or takes its pending work back with
 * cancel_work_sync() and gives the unit of its grant back, or waits for
 * its running function, as cancel_work_sync() does (lockdep sees the
 * wait).  While it runs, down_async() refuses @req with -ECANCELED; a
 * submission that the running function made before it saw the refusal
 * is cancelled too.  On return @req is idle: not queued, its work neither
 * pending nor running, no unit held for it; the owner may free it.
 *
 * Context: Process context; sleeps.  Must not be called from @req's work
 * function, nor with a lock held that the work function takes, nor twice
 * at once for one request (a warning).
 * Return: 0 if the function will not run for the last submission (it was
 * removed, or its pending work was taken back); -EALREADY if it ran;
 * -ENOENT if @req was idle; -EINVAL (with a warning) if @req is queued on
 * another semaphore or was not initialised: nothing is done there.
 */
int sem_async_cancel_sync(struct semaphore *sem, struct sem_async *req)
{
	int ret = -ENOENT, r;

	might_sleep();
	/* Fully ordered: seen by a down_async() that locks @sem after us. */
	WARN_ONCE(atomic_inc_return(&req->cancelling) > 1,
		  "semaphore %p: concurrent %s() of request %p\n",
		  sem, __func__, req);
	for (;;) {
		r = __sem_cancel(sem, &req->waiter, true);
		if (r == -EINVAL) {
			ret = r;
			break;
		}
		if (r != -ENOENT)
			ret = r;
		if (cancel_work_sync(&req->work)) {
			ret = sem_async_take_back(sem, req);
			if (ret)
				break;
		}
		/*
		 * The function is not running.  It may have submitted @req
		 * before it saw ->cancelling: cancel that too.
		 */
		if (READ_ONCE(req->waiter.state) != SEM_WAITER_QUEUED &&
		    !work_pending(&req->work))
			break;
	}
	atomic_dec(&req->cancelling);
	return ret;
}
EXPORT_SYMBOL_GPL(sem_async_cancel_sync);

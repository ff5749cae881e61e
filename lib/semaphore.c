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
 * under the lock, together with the decision, so that whoever looks at
 * the request under the lock afterwards finds its work queued.
 *
 * Lifetimes of down_async() requests.  From its grant to the return of
 * its work function a request is "in flight": a struct sem_async_inflight
 * record, first the one in the request (work pending), then one on the
 * worker's stack (work running, the request may be freed), sits in a
 * small hash table keyed by the semaphore.  sem_shutdown() waits for the
 * records of its own semaphore and sem_async_cancel_sync() for those of
 * its request, and for nothing else.  Neither waits for work that has not
 * started: such work might be queued behind the caller itself (an ordered
 * workqueue), so they take it off its workqueue with cancel_work() and
 * deal with it themselves.
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/debugobjects.h>
#include <linux/export.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/task_stack.h>
#include <linux/sched/wake_q.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/ftrace.h>
#include <linux/sched/clock.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
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
 * For a down_async() request the same states mean: QUEUED on the wait
 * list; GRANTING settled, its work queued and not started yet; DONE its
 * work function was called.  A request may be queued again while IDLE or
 * DONE, never while QUEUED or GRANTING.
 *
 * The in-flight records of down_async() requests (see the notes at the
 * top), hashed by semaphore.  A bucket's lock nests inside sem->lock.
 * sem_async_gen counts the records that went away, so that waiters for
 * them can tell that something changed.
 */
#define SEM_INFLIGHT_BITS	6

struct sem_inflight_bucket {
	raw_spinlock_t		lock;
	struct hlist_head	head;
};

static struct sem_inflight_bucket sem_inflight[1 << SEM_INFLIGHT_BITS] = {
	[0 ... (1 << SEM_INFLIGHT_BITS) - 1] = {
		.lock = __RAW_SPIN_LOCK_UNLOCKED(sem_inflight.lock),
	},
};

static DECLARE_WAIT_QUEUE_HEAD(sem_async_wait);
static atomic_t sem_async_gen = ATOMIC_INIT(0);

static struct sem_inflight_bucket *sem_inflight_bucket(struct semaphore *sem)
{
	return &sem_inflight[hash_ptr(sem, SEM_INFLIGHT_BITS)];
}

/*
 * Every run of a work function, by the work item or by sem_shutdown()
 * (see sem_async_drain()), is listed here, keyed by request, from the
 * moment it starts until the function has returned.  A grant of the
 * request made meanwhile (the function submitted it again, to this or to
 * another semaphore) is not queued: sem_async_settle() finds the run and
 * leaves the queueing to it, for when the function has returned
 * (sem_async_run()).  So no grant's work is pending while the function
 * runs: the workqueue does not know of a run that sem_shutdown() makes,
 * and after an ordered workqueue moved to another pool (a change of the
 * unbound cpumask) neither does work_busy() of the work item's own; a
 * drain decides "running" from the records alone, and the end of the run
 * that queues the grant's work is a record going away, which wakes it.
 * Lock order: sem->lock, then an in-flight bucket, then a runner bucket.
 */
struct sem_async_runner {
	struct hlist_node		node;
	struct sem_async		*req;
	struct task_struct		*task;
	struct sem_async_inflight	*run;	/* the run's in-flight record */
	bool				requeue;
};

static struct sem_inflight_bucket sem_runners[1 << SEM_INFLIGHT_BITS] = {
	[0 ... (1 << SEM_INFLIGHT_BITS) - 1] = {
		.lock = __RAW_SPIN_LOCK_UNLOCKED(sem_runners.lock),
	},
};

static struct sem_inflight_bucket *sem_runner_bucket(struct sem_async *req)
{
	return &sem_runners[hash_ptr(req, SEM_INFLIGHT_BITS)];
}

/* The run of @req's function, if one runs; under its runner bucket lock. */
static struct sem_async_runner *sem_runner_find(struct sem_async *req)
{
	struct sem_async_runner *runner;

	hlist_for_each_entry(runner, &sem_runner_bucket(req)->head, node)
		if (runner->req == req)
			return runner;
	return NULL;
}

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
static void sem_async_settle(struct semaphore *sem, struct sem_waiter *waiter,
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
 * A queued wait entry is being freed, or re-initialised with
 * sem_waiter_init() or sem_async_init(): take it off its semaphore's wait
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

static void sem_debug_waiter_init(struct sem_waiter *waiter)
{
	debug_object_free(waiter, &sem_waiter_debug_descr);
}

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
static inline void sem_debug_waiter_init(struct sem_waiter *waiter) { }
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
	struct sem_waiter *waiter = sem->first_waiter;

	sem_dequeue(sem, waiter);
	if (waiter->task) {
		sem_hint(sem, (unsigned long)waiter->task);
		wake_q_add(wake_q, waiter->task);
		waiter->state = SEM_WAITER_DONE;
		return NULL;
	}
	sem_debug_entry(waiter, false);
	sem_trace_grant(sem, waiter);
	if (waiter->grant == sem_async_grant) {
		sem_hint(sem, sem_async_holder(waiter));
		sem_async_settle(sem, waiter, 0);
		return NULL;
	}
	sem_hint(sem, (unsigned long)waiter->grant);
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
 * The entry must not be queued (CONFIG_DEBUG_SEMAPHORE catches a queued
 * one, warns and takes it off its semaphore's list first).  It may be
 * queued again after its grant function was called, after sem_cancel()
 * removed it, or after down_entry() returned anything but -EINPROGRESS,
 * without calling this function again.
 *
 * Context: Any context.
 */
void sem_waiter_init(struct sem_waiter *waiter, sem_grant_fn grant)
{
	sem_debug_waiter_init(waiter);
	INIT_LIST_HEAD(&waiter->list);
	waiter->grant = grant;
	waiter->task = NULL;
	waiter->status = 0;
	waiter->sem = NULL;
	waiter->queued_ns = 0;
	waiter->state = SEM_WAITER_IDLE;
}
EXPORT_SYMBOL(sem_waiter_init);

/*
 * @state is the entry's state read once: the lock is held, but
 * sem_call_grant() moves a settled entry from GRANTING to DONE without
 * it, and so does the start of a down_async() work item.  Both mean
 * "settled" to every caller.
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
	} else {
		if (wq)
			container_of(waiter, struct sem_async, waiter)->wq = wq;
		WRITE_ONCE(waiter->sem, sem);
		if (sem_take_or_wait(sem)) {
			if (wq) {
				sem_hint(sem, sem_async_holder(waiter));
				sem_async_settle(sem, waiter, 0);
			} else {
				sem_hint_caller(sem);
				WRITE_ONCE(waiter->state, SEM_WAITER_IDLE);
			}
			ret = 0;
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
	WARN_ONCE(ret == -EBUSY,
		  "semaphore %p: wait entry %p is queued, or granted and its work has not started\n",
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

/*
 * Settle, under the lock, whether @waiter is removed or was already
 * granted.  @sync (sem_async_cancel_sync()) does not warn about an entry
 * that is not queued, or is queued on another semaphore: it deals with
 * both itself.
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

	if (sync && (ret == -ENOENT ||
		     (ret == -EINVAL && sem_waiter_valid(waiter, state))))
		return ret;
	WARN_ONCE(ret == -ENOENT,
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
EXPORT_SYMBOL(sem_cancel);

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
EXPORT_SYMBOL(sem_cancel_sync);

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
 * The in-flight records of down_async() requests.  sem_async_settle()
 * adds the request's own record when it queues the work; the work item
 * replaces it with one on its stack when it starts (sem_async_start()),
 * because the work function may free the request, and removes that one
 * when the function has returned (sem_async_end()).
 */

/*
 * Called with the bucket's lock held; @req's record is in the bucket.
 * Replace it with @run, on the caller's stack, and move @req to @state:
 * DONE when its work function is about to run (then @runner, also on the
 * caller's stack, lists the run: see struct sem_async_runner), IDLE when
 * the unit is about to be given back instead (a take-off, counted in
 * ->takeoffs).  Either way the request stays in flight until
 * sem_async_end().
 */
static void sem_async_start(struct sem_async *req,
			    struct sem_async_inflight *run,
			    struct sem_async_runner *runner, unsigned int state)
{
	struct sem_inflight_bucket *rb;

	run->sem = req->inflight.sem;
	run->req = req;
	run->task = current;
	run->takeoff = state == SEM_WAITER_IDLE;
	hlist_del_init(&req->inflight.node);
	hlist_add_head(&run->node, &sem_inflight_bucket(run->sem)->head);
	if (state == SEM_WAITER_DONE) {
		runner->req = req;
		runner->task = current;
		runner->run = run;
		runner->requeue = false;
		rb = sem_runner_bucket(req);
		raw_spin_lock(&rb->lock);
		hlist_add_head(&runner->node, &rb->head);
		raw_spin_unlock(&rb->lock);
	} else {
		WRITE_ONCE(req->takeoffs, req->takeoffs + 1);
	}
	/* Release: who sees DONE or IDLE sees the record moved (down_async()). */
	smp_store_release(&req->waiter.state, state);
}

/* A record went away: wake sem_async_drain(). */
static void sem_async_gone(void)
{
	atomic_inc(&sem_async_gen);
	/* wq_has_sleeper() orders the increment before its check. */
	if (wq_has_sleeper(&sem_async_wait))
		wake_up_all(&sem_async_wait);
}

static void sem_async_end(struct sem_async_inflight *run)
{
	struct sem_inflight_bucket *b = sem_inflight_bucket(run->sem);
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	hlist_del(&run->node);
	raw_spin_unlock_irqrestore(&b->lock, flags);
	sem_async_gone();
}

/*
 * Queue the work of @req, whose record sem_async_settle() hashed, under
 * its bucket lock; see sem_async_settle() for the failure.
 */
static void sem_async_queue(struct sem_async *req)
{
	if (likely(queue_work(req->wq, &req->work)))
		return;
	if (!work_pending(&req->work)) {
		hlist_del_init(&req->inflight.node);
		/* Release: as in sem_async_start(). */
		smp_store_release(&req->waiter.state, SEM_WAITER_DONE);
	}
	WARN_ONCE(1, "semaphore %p: work of request %p %s\n",
		  req->inflight.sem, req, work_pending(&req->work) ?
		  "was already pending" : "cannot be queued: request dropped");
}

/*
 * Run the work function of @req, whose record @run and run @runner
 * sem_async_start() put in flight, traced, and take both out.  For the
 * work item and for sem_shutdown(), which runs work that has not started
 * itself.
 */
static void sem_async_run(struct sem_async *req, struct sem_async_inflight *run,
			  struct sem_async_runner *runner)
{
	struct sem_inflight_bucket *b = sem_runner_bucket(req);
	unsigned long flags;
	bool requeue;

	trace_sem_async_work_start(run->sem, req, READ_ONCE(req->status));
	req->func(&req->work);
	/* @req may have been freed by now. */
	trace_sem_async_work_end(run->sem, req);
	raw_spin_lock_irqsave(&b->lock, flags);
	hlist_del(&runner->node);
	requeue = runner->requeue;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	/*
	 * The function submitted @req again and it was granted: it is the
	 * semaphore's until its work runs, so it is alive.  Queue the work
	 * under the bucket lock, as sem_async_settle() does, and before our
	 * record goes: a drain that found the grant's record held by this run
	 * waits for that.
	 */
	if (requeue) {
		b = sem_inflight_bucket(req->inflight.sem);
		raw_spin_lock_irqsave(&b->lock, flags);
		req->inflight.task = NULL;
		sem_async_queue(req);
		raw_spin_unlock_irqrestore(&b->lock, flags);
	}
	sem_async_end(run);
}

/*
 * Whether the function of @req runs; then that run queues @req's work
 * once the function has returned, and until then the new grant's record
 * is marked as held by its task, which drains treat as running (and as
 * their own, in that task).  Under sem->lock and the bucket lock of
 * @req's new grant.
 */
static bool sem_async_defer_queue(struct sem_async *req)
{
	struct sem_inflight_bucket *rb = sem_runner_bucket(req);
	struct sem_async_runner *runner;

	raw_spin_lock(&rb->lock);
	runner = sem_runner_find(req);
	if (runner) {
		runner->requeue = true;
		req->inflight.task = runner->task;
	}
	raw_spin_unlock(&rb->lock);
	return !!runner;
}

/*
 * Give back the unit of @req's grant instead of running its work function
 * (sem_async_cancel_sync() took it off, or the work started while one
 * runs), once sem_async_start() moved it to IDLE with @run in flight.
 */
static void sem_async_give_back(struct sem_async *req,
				struct sem_async_inflight *run, int status)
{
	trace_sem_entry_cancel(run->sem, &req->waiter, 0);
	if (!status)
		up(run->sem);
	sem_async_end(run);
}

/*
 * Settle the down_async() request of @waiter with @status, under
 * sem->lock: record it in flight and queue its work.  Queueing under the
 * lock means that a sem_cancel() that finds the request settled also
 * finds its work queued.
 */
static void sem_async_settle(struct semaphore *sem, struct sem_waiter *waiter,
			     int status)
	__must_hold(&sem->lock)
{
	struct sem_async *req = container_of(waiter, struct sem_async, waiter);
	struct sem_inflight_bucket *b = sem_inflight_bucket(sem);

	WRITE_ONCE(req->status, status);
	req->inflight.sem = sem;
	req->inflight.req = req;
	req->inflight.task = NULL;
	req->inflight.takeoff = false;
	raw_spin_lock(&b->lock);
	hlist_add_head(&req->inflight.node, &b->head);
	/* Release: pairs with the acquire of a sem_cancel() on another lock. */
	smp_store_release(&waiter->state, SEM_WAITER_GRANTING);
	/*
	 * Queued under the bucket lock: a hashed record is always either
	 * pending on its workqueue or started (sem_async_can_take()), or
	 * its queueing is left to a run of its function that has not
	 * returned yet (sem_async_defer_queue()), which queues it before its
	 * own record goes away, so that a drain that waits sees it queued.  The
	 * state machine lets a request be granted only while its work is
	 * not pending.  If it is anyway (queued by hand), that one run serves
	 * this grant: it finds and moves this record.  If it cannot be queued
	 * at all, which in 6.12 means that someone disabled the work item
	 * (a member private to this file), the request is dropped with a
	 * warning rather than left in flight for ever, and a unit it was
	 * granted is lost.  (A workqueue being destroyed does not get here:
	 * queue_work() warns and reports success.)
	 */
	if (!sem_async_defer_queue(req))
		sem_async_queue(req);
	raw_spin_unlock(&b->lock);
}

/*
 * Whether @r may be taken off its workqueue: pending, and so not held by
 * a run (->task).  No function of the request runs: a grant made while
 * one runs is queued only once it has returned (struct sem_async_runner),
 * also when the caller is that run.  Called with @r's bucket lock held,
 * which keeps a pending request alive.
 */
static bool sem_async_can_take(struct sem_async_inflight *r)
{
	return !r->task && cancel_work(&r->req->work);
}

/*
 * Whether sem_async_cancel_sync() may take @r off although it is the
 * caller's own: a grant whose queueing sem_async_defer_queue() left to
 * the caller's own run of the function (which then does not queue it).
 * The function has not started for it.  Called with @r's bucket lock
 * held.  The caller's own running record is not taken.
 */
static bool sem_async_can_take_own(struct sem_async_inflight *r)
{
	struct sem_inflight_bucket *rb;
	struct sem_async_runner *runner;
	bool found;

	if (!r->req || r != &r->req->inflight)
		return false;
	rb = sem_runner_bucket(r->req);
	raw_spin_lock(&rb->lock);
	runner = sem_runner_find(r->req);
	found = runner && runner->task == current && runner->requeue;
	if (found)
		runner->requeue = false;
	raw_spin_unlock(&rb->lock);
	return found;
}

/* What sem_async_drain() found, besides waiting. */
#define SEM_DRAIN_TAKEN		1	/* @req's pending work taken off */
#define SEM_DRAIN_SELF		2	/* the caller's own work left out */

/*
 * Wait until no down_async() request of @sem, or with @sem NULL no run of
 * @req, is in flight.  Work that has not started is not waited for: it
 * may be queued behind the caller (an ordered workqueue, or a worker that
 * waits for a lock the caller holds), so it is taken off its workqueue
 * and, for sem_shutdown(), its function runs here; for
 * sem_async_cancel_sync(), or for sem_shutdown() while a
 * sem_async_cancel_sync() runs for the request, the unit it holds is
 * given back instead and the function does not run.  The caller's own
 * running work function (a call from it is a bug) is left out, with a
 * warning, rather than waited for; sem_async_cancel_sync() takes a grant
 * of its request that waits behind that run off, too.
 * Return: SEM_DRAIN_TAKEN if @req's pending work was taken off, here or
 * by a concurrent sem_async_cancel_sync() that this call waited for;
 * SEM_DRAIN_SELF if the caller's own work was left out.
 */
static int sem_async_drain(struct semaphore *sem, struct sem_async *req)
{
	struct sem_inflight_bucket *b;
	struct sem_async_inflight *r, run;
	struct sem_async_runner runner;
	unsigned long flags;
	bool busy, self = false, taken = false;
	int gen, i, status = 0;

	for (;;) {
		struct sem_async *take = NULL;
		bool run_it = false;

		/* Acquire: read before the scan, so no removal is missed. */
		gen = atomic_read_acquire(&sem_async_gen);
		busy = false;
		for (i = 0; i < ARRAY_SIZE(sem_inflight) && !take; i++) {
			b = sem ? sem_inflight_bucket(sem) : &sem_inflight[i];
			raw_spin_lock_irqsave(&b->lock, flags);
			hlist_for_each_entry(r, &b->head, node) {
				if (sem ? r->sem != sem : r->req != req)
					continue;
				if (r->task == current) {
					if (!sem && sem_async_can_take_own(r)) {
						take = r->req;
						break;
					}
					self = true;
					continue;
				}
				if (sem_async_can_take(r)) {
					take = r->req;
					break;
				}
				/*
				 * Another sem_async_cancel_sync() took @req's
				 * work off: it will not run, as if we had.
				 */
				if (!sem && r->takeoff)
					taken = true;
				busy = true;
			}
			if (take) {
				/*
				 * Run it here, as the work item would; or give
				 * its unit back.  In flight until that is done,
				 * so that a concurrent sem_shutdown() or cancel
				 * does not return (and free) before our up().
				 * A sem_async_cancel_sync() that runs for the
				 * request may have missed this grant: as in
				 * sem_async_workfn(), the increment it made
				 * before its scan is seen under this lock if
				 * its scan of this bucket came first.
				 */
				status = READ_ONCE(take->status);
				run_it = sem && !atomic_read(&take->cancelling);
				sem_async_start(take, &run, &runner, run_it ?
						SEM_WAITER_DONE : SEM_WAITER_IDLE);
			}
			raw_spin_unlock_irqrestore(&b->lock, flags);
			if (sem)
				break;
		}
		if (run_it) {
			sem_async_run(take, &run, &runner);
			continue;
		}
		if (take) {
			sem_async_give_back(take, &run, status);
			if (!sem)
				taken = true;
			continue;
		}
		if (!busy)
			break;
		wait_event(sem_async_wait, atomic_read(&sem_async_gen) != gen);
	}
	WARN_ONCE(self,
		  "semaphore %p: %s from a work function it would wait for\n",
		  sem ? sem : req->inflight.sem,
		  sem ? "sem_shutdown()" : "sem_async_cancel_sync()");
	return (taken ? SEM_DRAIN_TAKEN : 0) | (self ? SEM_DRAIN_SELF : 0);
}

/**
 * sem_shutdown - fail asynchronous requests for module unload or removal
 * @sem: the semaphore
 *
 * Marks @sem shut down, so that later down_entry() and down_async() calls
 * fail with -ESHUTDOWN, and settles every queued asynchronous entry with
 * status -ESHUTDOWN through its grant function (a down_async() request
 * has its work queued, and sees sem_async_status() == -ESHUTDOWN).  Then
 * waits until every grant function settled before this point has
 * returned, and until the work functions of this semaphore's down_async()
 * requests, granted or failed, have returned.  It waits for nothing of
 * other semaphores' requests.  Work of this semaphore that has not
 * started yet is not waited for but taken off its workqueue and its
 * function called here, in the caller's context: so a caller that is
 * itself a work item of an ordered workqueue that those requests use does
 * not wait for work queued behind it.
 *
 * The classic API is not affected: down(), down_trylock() and up() keep
 * working on the units.  Sleepers still queued are a bug of the caller:
 * they trigger a warning, stay queued and are woken by later up() calls
 * as usual.  sema_init() clears the shut-down state, once nobody uses the
 * semaphore any more.
 *
 * A request of this semaphore whose function still runs for an earlier
 * grant (of this or another semaphore: the function submitted it again)
 * counts as running: its work is queued only once that run has returned,
 * and sem_shutdown() waits for it.  So does a sem_async_cancel_sync()
 * that followed its request to this semaphore, until it is done with it.
 *
 * Context: Process context; sleeps.  Must not be called from a grant
 * function, from the work function of one of this semaphore's requests
 * (that one is not waited for, with a warning), or with a lock held that
 * the work function of one of this semaphore's requests takes, whatever
 * grant it runs for.
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
	/* Work functions of this semaphore's requests. */
	sem_async_drain(sem, NULL);
}
EXPORT_SYMBOL(sem_shutdown);

static void sem_async_workfn(struct work_struct *work)
{
	struct sem_async *req = to_sem_async(work);
	struct sem_inflight_bucket *b;
	struct sem_async_inflight run;
	struct sem_async_runner runner;
	unsigned long flags;
	bool run_it;
	int status;

	b = sem_inflight_bucket(READ_ONCE(req->inflight.sem));
	raw_spin_lock_irqsave(&b->lock, flags);
	if (hlist_unhashed(&req->inflight.node)) {
		raw_spin_unlock_irqrestore(&b->lock, flags);
		WARN_ONCE(1, "semaphore: work of request %p queued without a grant\n",
			  req);
		return;
	}
	/*
	 * A sem_async_cancel_sync() runs for @req and its scan may have
	 * missed this grant (the request was queued when it looked, and
	 * granted after): give the unit back rather than run the function
	 * while that call returns.  Its increment, made before its scan of
	 * this bucket, is seen under this lock if this start comes after
	 * the scan; if it comes before, the scan sees the started record
	 * and waits for it.
	 */
	status = READ_ONCE(req->status);
	run_it = !atomic_read(&req->cancelling);
	sem_async_start(req, &run, &runner,
			run_it ? SEM_WAITER_DONE : SEM_WAITER_IDLE);
	raw_spin_unlock_irqrestore(&b->lock, flags);

	if (run_it)
		sem_async_run(req, &run, &runner);
	else
		sem_async_give_back(req, &run, status);
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
 * A request initialised at the address of one whose function still runs
 * (the function freed it and the memory came back) is a new request: its
 * grants must not be left to that run, nor drains take that run for one
 * of it.  Detach the run from the address: its runner, and its in-flight
 * record, under that record's bucket lock (taken first, as everywhere).
 * Return: false if the run holds a grant of the request back (then the
 * request is being initialised while the semaphore owns it, a bug), with
 * nothing changed.
 */
static bool sem_runner_forget(struct sem_async *req)
{
	struct sem_inflight_bucket *rb = sem_runner_bucket(req), *b;
	struct sem_async_runner *runner;
	struct semaphore *sem;
	unsigned long flags;
	bool ok = true;

	raw_spin_lock_irqsave(&rb->lock, flags);
	runner = sem_runner_find(req);
	/* Only hashed: the run may end once the lock is dropped. */
	sem = runner ? runner->run->sem : NULL;
	raw_spin_unlock_irqrestore(&rb->lock, flags);
	if (!runner)
		return true;

	b = sem_inflight_bucket(sem);
	raw_spin_lock_irqsave(&b->lock, flags);
	raw_spin_lock(&rb->lock);
	runner = sem_runner_find(req);
	if (runner && runner->requeue) {
		ok = false;
	} else if (runner && runner->run->sem == sem) {
		runner->req = NULL;
		runner->run->req = NULL;
	}
	raw_spin_unlock(&rb->lock);
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return ok;
}

static bool sem_async_init_common(struct sem_async *req, work_func_t func)
{
	if (WARN_ONCE(!sem_runner_forget(req),
		      "semaphore: initialising request %p, which holds a grant\n",
		      req))
		return false;
	sem_waiter_init(&req->waiter, sem_async_grant);
	req->func = func;
	req->wq = NULL;
	req->status = 0;
	atomic_set(&req->cancelling, 0);
	req->takeoffs = 0;
	INIT_HLIST_NODE(&req->inflight.node);
	req->inflight.sem = NULL;
	req->inflight.req = req;
	req->inflight.task = NULL;
	req->inflight.takeoff = false;
	return true;
}

/**
 * sem_async_init - initialise a down_async() request
 * @req: the request
 * @func: the work function to run once the request is settled
 *
 * The request must not be in flight: not queued, and no work of it
 * pending or running.  It may be passed to down_async() again from @func,
 * or once @func has been called for it, or after sem_async_cancel()
 * returned 0, without calling this function again.  For a request on the
 * stack use sem_async_init_onstack().
 *
 * The rule is about the request, not the memory: memory that @func freed
 * may be initialised as a new request while @func still runs (unless a
 * sem_async_cancel_sync() runs for the old request: its owner may not
 * free it yet).  The new request is not the old one: its grants and its
 * cancels do not wait for that run of @func.  A request that its running
 * @func submitted again and whose grant waits for @func to return is
 * left as it is (a warning the first time).
 *
 * Context: Any context.
 */
void sem_async_init(struct sem_async *req, work_func_t func)
{
	if (sem_async_init_common(req, func))
		INIT_WORK(&req->work, sem_async_workfn);
}
EXPORT_SYMBOL(sem_async_init);

/**
 * sem_async_init_onstack - initialise a down_async() request on the stack
 * @req: the request, on the caller's stack
 * @func: the work function to run once the request is settled
 *
 * As sem_async_init(), for a request on the stack (its work item is
 * initialised with INIT_WORK_ONSTACK()).  Call sem_async_destroy_onstack()
 * before the stack frame goes away.
 *
 * Context: Any context.
 */
void sem_async_init_onstack(struct sem_async *req, work_func_t func)
{
	if (sem_async_init_common(req, func))
		INIT_WORK_ONSTACK(&req->work, sem_async_workfn);
}
EXPORT_SYMBOL(sem_async_init_onstack);

/**
 * sem_async_destroy_onstack - end the life of a request on the stack
 * @req: a request initialised with sem_async_init_onstack()
 *
 * The request must not be in flight any more (its work function has
 * returned, or sem_async_cancel_sync() has returned).
 *
 * Context: Any context.
 */
void sem_async_destroy_onstack(struct sem_async *req)
{
	WARN_ONCE(!hlist_unhashed(&req->inflight.node),
		  "semaphore: request %p on the stack is still in flight\n", req);
	destroy_work_on_stack(&req->work);
}
EXPORT_SYMBOL(sem_async_destroy_onstack);

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
 * is called, sem_async_cancel() returns 0 or sem_async_cancel_sync()
 * returns.  sem_shutdown() may call the work function of a request whose
 * work has not started itself, in process context on any CPU: @wq must
 * not be a BH workqueue, the work function must not rely on running on a
 * particular CPU, and a request keeps the same @wq while its work
 * function runs.  It may be submitted again from its own work function, also
 * when the new unit is free at once (the work is then queued when the
 * current run returns, as is any grant made while it runs), but not while
 * it is queued or its work is pending.  A request that the function freed
 * and that was allocated and initialised anew at the same address is a new
 * request: its work is queued at once.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if the unit was taken and the work queued (or, while the
 * request's function runs, left to that run to queue), -EINPROGRESS if
 * @req was queued, -ESHUTDOWN if @sem was shut down (nothing queued),
 * -ECANCELED if sem_async_cancel_sync() runs for @req (nothing queued),
 * -EBUSY (with a warning, no unit taken) if @req is queued or its work is
 * pending and has not started, -EINVAL (with a warning) if @req was not
 * initialised with sem_async_init() or @wq is %NULL.
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
EXPORT_SYMBOL(down_async);

/**
 * sem_async_cancel - cancel a down_async() request
 * @sem: the semaphore @req was queued on
 * @req: the request
 *
 * See sem_cancel().  A request is settled and its work queued in one step
 * under the semaphore's lock, so -EALREADY means that the work is queued,
 * running or done, and will not be queued again for that grant; a grant
 * made while the request's function still runs (it submitted the request
 * again) is queued when that run returns.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if @req was removed and its work will not run for it,
 * -EALREADY if it was already settled and its work is queued, running or
 * done (the work owns the unit, or sees -ESHUTDOWN): the owner must not
 * free @req before its work function has returned, which
 * sem_async_cancel_sync() waits for; or the errors of sem_cancel().
 */
int sem_async_cancel(struct semaphore *sem, struct sem_async *req)
{
	return sem_cancel(sem, &req->waiter);
}
EXPORT_SYMBOL(sem_async_cancel);

/*
 * Two points of sem_async_cancel_sync() where the semaphore KUnit suites
 * stop it, to run the other side of a race there (kunit/static_stub.h):
 * after the call made itself known to the work item and to
 * sem_shutdown(), and once it holds the semaphore its request moved to.
 * Empty, and gone, without CONFIG_KUNIT.
 */
VISIBLE_IF_KUNIT void sem_test_cancel_begun(struct sem_async *req)
{
	KUNIT_STATIC_STUB_REDIRECT(sem_test_cancel_begun, req);
}
EXPORT_SYMBOL_IF_KUNIT(sem_test_cancel_begun);

VISIBLE_IF_KUNIT void sem_test_cancel_pinned(struct sem_async *req)
{
	KUNIT_STATIC_STUB_REDIRECT(sem_test_cancel_pinned, req);
}
EXPORT_SYMBOL_IF_KUNIT(sem_test_cancel_pinned);

/*
 * __sem_cancel() @req on the semaphore it is queued on or granted by now,
 * which its work function chose: not the caller's, which may be gone by
 * the time the lock is taken.  Nothing keeps that semaphore alive but
 * @req's place on it, which its sem_shutdown() may settle and drain at any
 * moment, then return and let it be freed.  So a record of ours pins it
 * first: hashed in its bucket, where sem_shutdown() waits for it, once
 * the bucket lock shows @req still queued on it (so sem_shutdown() has not
 * settled it yet) or granted by it (its record, in the same bucket, holds
 * sem_shutdown() back).
 * Return: as __sem_cancel(), or -EAGAIN if @req is neither any more.
 */
static int sem_async_cancel_pinned(struct sem_async *req)
{
	struct sem_async_inflight pin = { .req = req, .task = current };
	struct sem_inflight_bucket *b;
	struct semaphore *cur;
	unsigned int state;
	unsigned long flags;
	int ret;

	cur = READ_ONCE(req->waiter.sem);
	b = sem_inflight_bucket(cur);
	raw_spin_lock_irqsave(&b->lock, flags);
	/* Acquire: as in __sem_cancel(), @req's semaphore with its state. */
	state = smp_load_acquire(&req->waiter.state);
	if ((state != SEM_WAITER_QUEUED && state != SEM_WAITER_GRANTING) ||
	    READ_ONCE(req->waiter.sem) != cur) {
		raw_spin_unlock_irqrestore(&b->lock, flags);
		return -EAGAIN;
	}
	pin.sem = cur;
	hlist_add_head(&pin.node, &b->head);
	raw_spin_unlock_irqrestore(&b->lock, flags);

	sem_test_cancel_pinned(req);
	ret = __sem_cancel(cur, &req->waiter, true);
	sem_async_end(&pin);
	return ret;
}

/**
 * sem_async_cancel_sync - cancel a down_async() request and wait for it
 * @sem: the semaphore @req was submitted to
 * @req: the request
 *
 * The sleeping form of sem_async_cancel(), as cancel_work_sync() is of
 * cancel_work(): removes @req if it is queued; if it was granted but its
 * work has not started, takes the work off its workqueue and gives the
 * unit back with up() (its function does not run); and waits until a
 * work function already running for @req has returned.  If that function
 * submitted @req again, also to another semaphore, that submission is
 * cancelled the same way.  Meanwhile down_async() refuses @req with
 * -ECANCELED, so a work function that submits it again does not keep it
 * alive.
 *
 * Calls for the same request may run concurrently: one of them removes
 * it or takes its work off; the others wait until that one has given the
 * unit back.  A call that waited for a take-off returns 0 as well (the
 * work function does not run); one that found the request already
 * removed returns -ENOENT.  The owner may free @req only once every call
 * has returned.
 *
 * Context: Process context; sleeps.  Must not be called from @req's own
 * work function (that run is not waited for, with a warning; a grant of
 * @req that the function made and whose work waits behind it is taken
 * off as usual), nor with a lock held that the work function takes.
 * Return: 0 if the work function will not run for the last submission of
 * @req (it was removed, or its unit given back before the function
 * started: by this call, by a call it waited for, or by the work item or
 * sem_shutdown() because this call ran), -EALREADY if it
 * ran, -ENOENT if @req was not submitted (a work function still running
 * for an earlier submission was waited for all the same), -EINVAL (with a
 * warning) if @req was never initialised.  On return @req is not in
 * flight: the owner may free it or submit it again.
 */
int sem_async_cancel_sync(struct semaphore *sem, struct sem_async *req)
{
	unsigned int state, takeoffs;
	bool idle_seen = false;
	int found, ret, r;

	might_sleep();
	/*
	 * A take-off from here on is this call's doing, or one it waits for:
	 * the work item and sem_shutdown() give the unit back instead of
	 * running the function as soon as they see the increment below, which
	 * may be before __sem_cancel() looks (then it finds @req IDLE).
	 */
	takeoffs = READ_ONCE(req->takeoffs);
	/* Read before the increment, which a take-off that counts follows. */
	smp_mb__before_atomic();
	atomic_inc(&req->cancelling);
	/*
	 * Seen by a down_async() that takes @sem's lock after the
	 * __sem_cancel() below, and by a work item (or sem_shutdown()) that
	 * starts @req under a bucket lock after the scan of the drain below
	 * passed that bucket.  A down_async() that is not ordered after this
	 * (its own work function's, on another semaphore) may still submit
	 * @req: the loop below deals with that.
	 */
	smp_mb__after_atomic();
	sem_test_cancel_begun(req);
	ret = __sem_cancel(sem, &req->waiter, true);
	if (ret == -EINVAL) {
		if (!sem_waiter_valid(&req->waiter,
				      READ_ONCE(req->waiter.state))) {
			atomic_dec(&req->cancelling);
			return ret;
		}
		/* Submitted again elsewhere by its work function. */
		r = sem_async_cancel_pinned(req);
		if (r != -EAGAIN)
			ret = r;
	}
	for (;;) {
		found = sem_async_drain(NULL, req);
		if (found & SEM_DRAIN_TAKEN)
			ret = 0;
		/*
		 * A run that ended may have submitted @req again before it saw
		 * ->cancelling, on @sem or another semaphore: its stores are
		 * visible here, after the bucket locks of the drain.  A run
		 * that starts after the drain's scan passed its bucket sees
		 * ->cancelling and gives the unit back instead (the work item,
		 * sem_shutdown()), so DONE is a run that the drain saw end.
		 */
		state = smp_load_acquire(&req->waiter.state);
		/*
		 * IDLE after a take-off that the scan did not see (the work
		 * item's, or a concurrent call's, both after the scan passed
		 * the bucket): its record stays hashed until its up() has
		 * returned, so a second drain, after this acquire, waits for
		 * it.  Until then the semaphore is still used for @req.
		 */
		if (state == SEM_WAITER_IDLE && !idle_seen) {
			idle_seen = true;
			continue;
		}
		if (state != SEM_WAITER_QUEUED && state != SEM_WAITER_GRANTING)
			break;
		/*
		 * Called from @req's own work function (a bug, warned about),
		 * with a grant of @req behind the caller that the drain could
		 * not take off: waiting for it would wait for ever.
		 */
		if ((found & SEM_DRAIN_SELF) && state == SEM_WAITER_GRANTING)
			break;
		r = sem_async_cancel_pinned(req);
		if (r == 0 || r == -EALREADY)
			ret = r;
	}
	if (ret == -EINVAL)
		ret = -ENOENT;
	/*
	 * A grant was taken off since this call began (by this call, by a
	 * concurrent one, by the work item or by sem_shutdown(), the last two
	 * because they saw ->cancelling), and nothing submitted @req since:
	 * the function did not run for its last submission, whatever
	 * __sem_cancel() found when it looked.  The acquire above orders the
	 * read after the increment, made before the take-off's IDLE.
	 */
	if (state == SEM_WAITER_IDLE && READ_ONCE(req->takeoffs) != takeoffs)
		ret = 0;
	atomic_dec(&req->cancelling);
	return ret;
}
EXPORT_SYMBOL(sem_async_cancel_sync);

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Generic counting semaphores with wait entries and asynchronous
 * acquisition.
 *
 * Copyright (c) 2008 Intel Corporation
 * Author: Matthew Wilcox <willy@linux.intel.com>
 *
 * The wait-entry design follows Trond Myklebust's "iosem" (2005) and
 * Suparna Bhattacharya's explicit wait entries for down().
 *
 * Please see lib/semaphore.c and Documentation/locking/semaphore.rst for
 * documentation of these functions.
 */
#ifndef __LINUX_SEMAPHORE_H
#define __LINUX_SEMAPHORE_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue_types.h>

struct sem_waiter;

/*
 * Please don't access any members of this structure directly.
 *
 * ->first_waiter is the oldest waiter, NULL if nobody waits; the waiters
 * form a circular list through their ->list members, without a list
 * head, so that the semaphore takes 16 bytes on 64-bit (12 on 32-bit)
 * without lock debugging.  ->count comes first: the fast paths address
 * it without an offset (on arm64, that is one instruction fewer).
 */
struct semaphore {
	atomic_t		count;
	raw_spinlock_t		lock;
	struct sem_waiter	*first_waiter;
#ifdef CONFIG_DETECT_HUNG_TASK_BLOCKER
	unsigned long		last_holder;
#endif
};

/*
 * ->count: bits 0-29 count the free units, bit 30 says that someone waits
 * (->first_waiter is set), bit 31 that sem_shutdown() was called.
 */
#define __SEM_SHUTDOWN		INT_MIN
#define __SEM_WAITERS		0x40000000
#define __SEM_COUNT_MAX		(__SEM_WAITERS - 1)

/*
 * A constant initial count above __SEM_COUNT_MAX (or negative) would set
 * the waiters or shut-down bit: refuse it at build time.
 */
#define __SEM_INIT_COUNT(n)						\
	((n) + BUILD_BUG_ON_ZERO(__builtin_choose_expr(__is_constexpr(n), \
		(unsigned long long)(n) > __SEM_COUNT_MAX, 0)))

#ifdef CONFIG_DETECT_HUNG_TASK_BLOCKER
#define __SEM_LAST_HOLDER_INIT	.last_holder = 0,
#else
#define __SEM_LAST_HOLDER_INIT
#endif

#define __SEMAPHORE_INITIALIZER(name, n)				\
{									\
	.count		= ATOMIC_INIT(__SEM_INIT_COUNT(n)),		\
	.lock		= __RAW_SPIN_LOCK_UNLOCKED((name).lock),	\
	.first_waiter	= NULL,						\
	__SEM_LAST_HOLDER_INIT						\
}

/*
 * Unlike mutexes, binary semaphores do not have an owner, so up() can
 * be called in a different thread from the one which called down().
 * It is also safe to call down_trylock() and up() from interrupt
 * context.
 */
#define DEFINE_SEMAPHORE(_name, _n)	\
	struct semaphore _name = __SEMAPHORE_INITIALIZER(_name, _n)

#ifdef CONFIG_DEBUG_SEMAPHORE
void sem_debug_init(struct semaphore *sem);
#else
static inline void sem_debug_init(struct semaphore *sem) { }
#endif

/*
 * A semaphore holds at most 2^30 - 1 free units; sema_init() with more,
 * or with a negative count, warns and starts at that maximum.
 *
 * sema_init() may only be called on a semaphore that nobody uses: no
 * waiter queued, no work of a request pending or running (after
 * sem_shutdown() and a flush of the requests' work, for example).  Re-initialising a
 * semaphore that has waiters strands them; CONFIG_DEBUG_SEMAPHORE catches
 * it, warns and fails the waiters' entries first.
 */
static inline void sema_init(struct semaphore *sem, int val)
{
	static struct lock_class_key __key;

	sem_debug_init(sem);
	if (WARN_ON_ONCE((unsigned int)val > __SEM_COUNT_MAX))
		val = __SEM_COUNT_MAX;
	*sem = (struct semaphore) __SEMAPHORE_INITIALIZER(*sem, val);
	lockdep_init_map(&sem->lock.dep_map, "semaphore->lock", &__key, 0);
}

/*
 * Accessors for code outside lib/semaphore.c: snapshots, for assertions,
 * tracing and debugging output, never to decide whether down() sleeps.
 */

/**
 * sem_count - the number of free units of a semaphore
 * @sem: the semaphore
 *
 * Context: Any context.
 * Return: how many more down() calls would succeed without sleeping, at
 * the time of the call.
 */
static inline unsigned int sem_count(const struct semaphore *sem)
{
	return atomic_read(&sem->count) & __SEM_COUNT_MAX;
}

/**
 * sem_is_locked - whether a semaphore has no free unit
 * @sem: the semaphore
 *
 * Context: Any context.
 * Return: true if a down() would sleep at the time of the call.
 */
static inline bool sem_is_locked(const struct semaphore *sem)
{
	return sem_count(sem) == 0;
}

/**
 * sem_has_waiters - whether anyone waits for a semaphore
 * @sem: the semaphore
 *
 * Context: Any context.
 * Return: true if a sleeper or a wait entry was queued at the time of
 * the call.
 */
static inline bool sem_has_waiters(const struct semaphore *sem)
{
	return atomic_read(&sem->count) & __SEM_WAITERS;
}

/*
 * The holder hint of CONFIG_DETECT_HUNG_TASK_BLOCKER, for the hung-task
 * report.  A counting semaphore has no owner: this is the last task that
 * took a unit (0 in interrupt context), or, for a unit granted to a wait
 * entry, the entry's grant function or the down_async() request's work
 * function; up() clears it.  See Documentation/locking/semaphore.rst.
 */
#ifdef CONFIG_DETECT_HUNG_TASK_BLOCKER
/**
 * sem_holder_hint - who took a semaphore last
 * @sem: the semaphore
 *
 * Context: Any context.
 * Return: the address of the task_struct of the last task that took a
 * unit, or of the grant or work function a unit was granted to, or 0 if
 * it is unknown or up() was called since.  A snapshot, for debugging.
 */
static inline unsigned long sem_holder_hint(const struct semaphore *sem)
{
	return READ_ONCE(sem->last_holder);
}

bool sem_task_blocker(struct task_struct *t, unsigned long *holder);
#else
static inline unsigned long sem_holder_hint(const struct semaphore *sem)
{
	return 0;
}

static inline bool sem_task_blocker(struct task_struct *t,
				    unsigned long *holder)
{
	return false;
}
#endif

extern void down(struct semaphore *sem);
extern int __must_check down_interruptible(struct semaphore *sem);
extern int __must_check down_killable(struct semaphore *sem);
extern int __must_check down_trylock(struct semaphore *sem);
extern int __must_check down_timeout(struct semaphore *sem, long jiffies);
extern void up(struct semaphore *sem);

/*
 * Wait entries: every waiter is a struct sem_waiter.  The sleeping down()
 * family puts one on its stack; down_entry() takes one from the caller,
 * with a grant function; down_async() embeds one in a struct sem_async.
 */

/**
 * typedef sem_grant_fn - called once a queued wait entry is settled
 * @waiter: the entry that was queued with down_entry()
 * @status: 0 if the caller now holds one unit of the semaphore and must
 *	release it with up(); -ESHUTDOWN if sem_shutdown() (or the
 *	CONFIG_DEBUG_SEMAPHORE fixup of a freed semaphore) failed the
 *	request and no unit is held
 *
 * Runs exactly once per queued entry, after the semaphore's lock has been
 * dropped, with preemption disabled, in the context of the up() or
 * sem_shutdown() that settled the entry (possibly hard interrupt context)
 * before that returns; but grant functions do not nest: one settled while
 * another runs on the same CPU runs right after it.  It must not sleep
 * (on PREEMPT_RT, no spinlock_t either).  From the moment it is called the
 * entry belongs to its owner again and may be freed or queued again.
 */
typedef void (*sem_grant_fn)(struct sem_waiter *waiter, int status);

/**
 * struct sem_waiter - a wait entry of a semaphore
 * @list: link in the semaphore's circular FIFO list of waiters
 * @grant: grant function of an asynchronous entry, %NULL for a sleeper
 * @task: the sleeping task of a synchronous entry, %NULL otherwise
 * @state: where the entry is in its life (private to lib/semaphore.c)
 * @status: the status passed to @grant (private to lib/semaphore.c)
 * @sem: the semaphore the entry was last queued on (private)
 * @queued_ns: local_clock() when it was queued, while the sem_entry_grant
 *	trace event is enabled (private)
 *
 * Initialise with sem_waiter_init() before first use.  The members are
 * private to lib/semaphore.c.
 */
struct sem_waiter {
	struct list_head	list;
	sem_grant_fn		grant;
	struct task_struct	*task;
	unsigned int		state;
	int			status;
	struct semaphore	*sem;
	u64			queued_ns;
};

void sem_waiter_init(struct sem_waiter *waiter, sem_grant_fn grant);
int __must_check down_entry(struct semaphore *sem, struct sem_waiter *waiter);
int sem_cancel(struct semaphore *sem, struct sem_waiter *waiter);
int sem_cancel_sync(struct semaphore *sem, struct sem_waiter *waiter);
void sem_shutdown(struct semaphore *sem);

/**
 * struct sem_async - a down_async() request
 * @waiter: the wait entry queued on the semaphore
 * @work: queued on @wq in the same step as the grant, under the
 *	semaphore's lock
 * @func: the caller's work function
 * @wq: the workqueue @work is queued on
 * @cancelling: non-zero while sem_async_cancel_sync() runs for the
 *	request (one call at a time); down_async() refuses it meanwhile
 *
 * Initialise with sem_async_init(); the members are private to
 * lib/semaphore.c.  Use sem_async_status() in the work function.
 */
struct sem_async {
	struct sem_waiter	waiter;
	struct work_struct	work;
	work_func_t		func;
	struct workqueue_struct	*wq;
	atomic_t		cancelling;
};

void sem_async_init(struct sem_async *req, work_func_t func);
void sem_async_init_onstack(struct sem_async *req, work_func_t func);
void sem_async_destroy_onstack(struct sem_async *req);
int __must_check down_async(struct semaphore *sem, struct sem_async *req,
			    struct workqueue_struct *wq);
int sem_async_cancel(struct semaphore *sem, struct sem_async *req);
int sem_async_cancel_sync(struct semaphore *sem, struct sem_async *req);

/**
 * to_sem_async - the request that a down_async() work function runs for
 * @work: the work item passed to the work function
 *
 * Return: the struct sem_async that embeds @work.
 */
static inline struct sem_async *to_sem_async(struct work_struct *work)
{
	return container_of(work, struct sem_async, work);
}

/**
 * sem_async_status - how a down_async() request was settled
 * @req: the request, from the work function
 *
 * Read it before the work function submits @req again: the next grant
 * sets it anew.
 *
 * Return: 0 if the work function runs holding one unit of the semaphore
 * (it must release it with up()); -ESHUTDOWN if sem_shutdown() failed
 * the request, or -ECANCELED if its grant could not queue the work (the
 * work item was disabled or already queued by hand): no unit is held.
 */
static inline int sem_async_status(const struct sem_async *req)
{
	return READ_ONCE(req->waiter.status);
}

#endif /* __LINUX_SEMAPHORE_H */

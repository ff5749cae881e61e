/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Generic counting semaphores with wait entries and asynchronous
 * acquisition: see Documentation/locking/semaphore.rst.
 *
 * Copyright (c) 2008 Intel Corporation
 * Author: Matthew Wilcox <willy@linux.intel.com>
 */
#ifndef __LINUX_SEMAPHORE_H
#define __LINUX_SEMAPHORE_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue_types.h>

struct sem_waiter;

/*
 * Please don't access any members directly.  ->count: bits 0-29 free units,
 * bit 30 someone waits, bit 31 shut down; ->first_waiter: a circular list.
 */
struct semaphore {
	atomic_t		count;
	raw_spinlock_t		lock;
	struct sem_waiter	*first_waiter;
#ifdef CONFIG_DETECT_HUNG_TASK_BLOCKER
	unsigned long		last_holder;
#endif
};

#define __SEM_SHUTDOWN		INT_MIN
#define __SEM_WAITERS		0x40000000
#define __SEM_COUNT_MAX		(__SEM_WAITERS - 1)

/* A constant initial count that would set bit 30 or 31 fails the build. */
#define __SEM_INIT_COUNT(n)						\
	((n) + BUILD_BUG_ON_ZERO(__builtin_choose_expr(__is_constexpr(n), \
		(unsigned long long)(n) > __SEM_COUNT_MAX, 0)))

#define __SEMAPHORE_INITIALIZER(name, n)				\
{									\
	.count		= ATOMIC_INIT(__SEM_INIT_COUNT(n)),		\
	.lock		= __RAW_SPIN_LOCK_UNLOCKED((name).lock),	\
	.first_waiter	= NULL,						\
}

#define DEFINE_SEMAPHORE(_name, _n)	\
	struct semaphore _name = __SEMAPHORE_INITIALIZER(_name, _n)

#ifdef CONFIG_DEBUG_SEMAPHORE
void sem_debug_init(struct semaphore *sem);
#else
static inline void sem_debug_init(struct semaphore *sem) { }
#endif

/* Only for a semaphore nobody uses; a count above 2^30 - 1 warns. */
static inline void sema_init(struct semaphore *sem, int val)
{
	static struct lock_class_key __key;

	sem_debug_init(sem);
	if (WARN_ON_ONCE((unsigned int)val > __SEM_COUNT_MAX))
		val = __SEM_COUNT_MAX;
	*sem = (struct semaphore) __SEMAPHORE_INITIALIZER(*sem, val);
	lockdep_init_map(&sem->lock.dep_map, "semaphore->lock", &__key, 0);
}

/* Snapshots in any context, for assertions, tracing and debugging only. */
/**
 * sem_count - the number of free units of a semaphore
 * @sem: the semaphore
 * Return: how many down() calls would succeed now without sleeping.
 */
static inline unsigned int sem_count(const struct semaphore *sem)
{
	return atomic_read(&sem->count) & __SEM_COUNT_MAX;
}

/**
 * sem_is_locked - whether a semaphore has no free unit
 * @sem: the semaphore
 * Return: true if a down() would sleep now.
 */
static inline bool sem_is_locked(const struct semaphore *sem)
{
	return sem_count(sem) == 0;
}

/**
 * sem_has_waiters - whether anyone waits for a semaphore
 * @sem: the semaphore
 * Return: true if a sleeper or a wait entry is queued now.
 */
static inline bool sem_has_waiters(const struct semaphore *sem)
{
	return atomic_read(&sem->count) & __SEM_WAITERS;
}

#ifdef CONFIG_DETECT_HUNG_TASK_BLOCKER
/**
 * sem_holder_hint - who took a semaphore last, for the hung-task report
 * @sem: the semaphore
 * Return: the last task_struct to take a unit (0 in interrupt context), or
 * the grant or work function granted one; 0 if unknown or after up().
 */
static inline unsigned long sem_holder_hint(const struct semaphore *sem)
{
	return READ_ONCE(sem->last_holder);
}

bool sem_task_blocker(struct task_struct *t, unsigned long *holder);
#else
static inline unsigned long sem_holder_hint(const struct semaphore *sem) { return 0; }
static inline bool sem_task_blocker(struct task_struct *t, unsigned long *holder) { return false; }
#endif

extern void down(struct semaphore *sem);
extern int __must_check down_interruptible(struct semaphore *sem);
extern int __must_check down_killable(struct semaphore *sem);
extern int __must_check down_trylock(struct semaphore *sem);
extern int __must_check down_timeout(struct semaphore *sem, long jiffies);
extern void up(struct semaphore *sem);

/**
 * typedef sem_grant_fn - called once a queued wait entry is settled
 * @waiter: the entry that was queued with down_entry()
 * @status: 0 if the caller now holds one unit, to release with up(); or
 *	-ESHUTDOWN (no unit) from sem_shutdown() or CONFIG_DEBUG_SEMAPHORE
 *
 * Runs exactly once per queued entry, unlocked, with preemption disabled,
 * in the context (maybe hard interrupt) of the up() or sem_shutdown() that
 * settled it, before that returns, or right after a grant function that
 * runs on the same CPU: they do not nest.  Must not sleep (nor take a
 * spinlock_t on PREEMPT_RT).  Once called, it may free or requeue @waiter.
 */
typedef void (*sem_grant_fn)(struct sem_waiter *waiter, int status);

/**
 * struct sem_waiter - a wait entry of a semaphore (private members)
 * @list: link in the semaphore's circular FIFO list of waiters
 * @grant: grant function of an asynchronous entry, %NULL for a sleeper
 * @task: the sleeping task of a synchronous entry, %NULL otherwise
 * @state: where the entry is in its life
 * @status: the status passed to @grant
 * @sem: the semaphore the entry was last queued on
 * @queued_ns: local_clock() at queueing, while sem_entry_grant is traced
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
 * struct sem_async - a down_async() request (private members)
 * @waiter: the wait entry queued on the semaphore
 * @work: queued on @wq with the grant, under the semaphore's lock
 * @func: the caller's work function
 * @wq: the workqueue @work is queued on
 * @cancelling: non-zero while sem_async_cancel_sync() runs for the
 *	request (one call at a time); down_async() refuses it meanwhile
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
 * Return: the struct sem_async that embeds @work.
 */
static inline struct sem_async *to_sem_async(struct work_struct *work)
{
	return container_of(work, struct sem_async, work);
}

/**
 * sem_async_status - how a down_async() request was settled
 * @req: the request, from the work function; read the status before
 *	submitting @req again, as the next grant sets it anew
 * Return: 0 if the work function holds one unit, to release with up();
 * -ESHUTDOWN if sem_shutdown() failed the request, or -ECANCELED if its
 * grant could not queue the work (disabled, or queued by hand): no unit.
 */
static inline int sem_async_status(const struct sem_async *req)
{
	return READ_ONCE(req->waiter.status);
}

#endif /* __LINUX_SEMAPHORE_H */

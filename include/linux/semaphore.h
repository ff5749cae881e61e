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
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue_types.h>

/* Please don't access any members of this structure directly */
struct semaphore {
	raw_spinlock_t		lock;
	atomic_t		count;
	struct list_head	wait_list;
};

/*
 * ->count: bits 0-29 count the free units, bit 30 says that ->wait_list
 * is not empty, bit 31 that sem_shutdown() was called.
 */
#define __SEM_SHUTDOWN		INT_MIN
#define __SEM_WAITERS		0x40000000
#define __SEM_COUNT_MAX		(__SEM_WAITERS - 1)

#define __SEMAPHORE_INITIALIZER(name, n)				\
{									\
	.lock		= __RAW_SPIN_LOCK_UNLOCKED((name).lock),	\
	.count		= ATOMIC_INIT(n),				\
	.wait_list	= LIST_HEAD_INIT((name).wait_list),		\
}

/*
 * Unlike mutexes, binary semaphores do not have an owner, so up() can
 * be called in a different thread from the one which called down().
 * It is also safe to call down_trylock() and up() from interrupt
 * context.
 */
#define DEFINE_SEMAPHORE(_name, _n)	\
	struct semaphore _name = __SEMAPHORE_INITIALIZER(_name, _n)

/*
 * A semaphore holds at most 2^30 - 1 free units; sema_init() with more,
 * or with a negative count, warns and starts at that maximum.
 */
static inline void sema_init(struct semaphore *sem, int val)
{
	static struct lock_class_key __key;

	if (WARN_ON_ONCE((unsigned int)val > __SEM_COUNT_MAX))
		val = __SEM_COUNT_MAX;
	*sem = (struct semaphore) __SEMAPHORE_INITIALIZER(*sem, val);
	lockdep_init_map(&sem->lock.dep_map, "semaphore->lock", &__key, 0);
}

/*
 * Accessors for code outside lib/semaphore.c.  They return a snapshot
 * that may be stale by the time the caller looks at it: use them for
 * assertions, tracing and debugging output, never to decide whether a
 * down() would sleep.
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

extern void down(struct semaphore *sem);
extern int __must_check down_interruptible(struct semaphore *sem);
extern int __must_check down_killable(struct semaphore *sem);
extern int __must_check down_trylock(struct semaphore *sem);
extern int __must_check down_timeout(struct semaphore *sem, long jiffies);
extern void up(struct semaphore *sem);

/*
 * Wait entries.
 *
 * Every waiter on a semaphore is a struct sem_waiter.  The sleeping
 * down() family puts one on its stack; down_entry() takes one from the
 * caller together with a grant function, and down_async() embeds one in
 * a struct sem_async.  See Documentation/locking/semaphore.rst.
 */
struct sem_waiter;

/**
 * typedef sem_grant_fn - called once a queued wait entry is settled
 * @waiter: the entry that was queued with down_entry()
 * @status: 0 if the caller now holds one unit of the semaphore and must
 *	release it with up(); -ESHUTDOWN if sem_shutdown() failed the
 *	request and no unit is held
 *
 * Runs exactly once per queued entry, after the semaphore's lock has been
 * dropped, in the context of the up() or sem_shutdown() that settled it:
 * possibly hard interrupt context, always with preemption disabled.  It
 * must not sleep.  From the moment it is called the entry belongs to the
 * function's owner again and may be freed or queued again.
 */
typedef void (*sem_grant_fn)(struct sem_waiter *waiter, int status);

/**
 * struct sem_waiter - a wait entry of a semaphore
 * @list: link in the semaphore's FIFO wait list
 * @grant: grant function of an asynchronous entry, %NULL for a sleeper
 * @task: the sleeping task of a synchronous entry, %NULL otherwise
 * @state: where the entry is in its life (private to lib/semaphore.c)
 * @status: the status passed to @grant (private to lib/semaphore.c)
 * @sem: the semaphore the entry was last queued on (private)
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
};

void sem_waiter_init(struct sem_waiter *waiter, sem_grant_fn grant);
int __must_check down_entry(struct semaphore *sem, struct sem_waiter *waiter);
int sem_cancel(struct semaphore *sem, struct sem_waiter *waiter);
void sem_shutdown(struct semaphore *sem);

/**
 * struct sem_async - a down_async() request
 * @waiter: the wait entry queued on the semaphore
 * @work: queued on @wq once the request is settled
 * @func: the caller's work function
 * @wq: the workqueue @work is queued on
 * @status: 0 when @func runs holding the semaphore, -ESHUTDOWN otherwise
 * @srcu_idx: grace-period cookie held until @func has returned (private)
 *
 * Initialise with sem_async_init(); the members are private to
 * lib/semaphore.c.  Use sem_async_status() in the work function.
 */
struct sem_async {
	struct sem_waiter	waiter;
	struct work_struct	work;
	work_func_t		func;
	struct workqueue_struct	*wq;
	int			status;
	int			srcu_idx;
};

void sem_async_init(struct sem_async *req, work_func_t func);
int __must_check down_async(struct semaphore *sem, struct sem_async *req,
			    struct workqueue_struct *wq);
int sem_async_cancel(struct semaphore *sem, struct sem_async *req);

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
 * Return: 0 if the work function runs holding one unit of the semaphore
 * (it must release it with up()), or -ESHUTDOWN if the request was failed
 * by sem_shutdown() and no unit is held.
 */
static inline int sem_async_status(const struct sem_async *req)
{
	return READ_ONCE(req->status);
}

#endif /* __LINUX_SEMAPHORE_H */

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
 * 16 bytes on 64-bit without lock debugging.
 */
struct semaphore {
	atomic_t		count;
	raw_spinlock_t		lock;
	struct sem_waiter	*first_waiter;
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

/* Only for a semaphore nobody uses; a count above 2^30 - 1 warns. */
static inline void sema_init(struct semaphore *sem, int val)
{
	static struct lock_class_key __key;

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
 *	-ESHUTDOWN (no unit) from sem_shutdown()
 *
 * Runs once per queued entry, unlocked, with preemption disabled, in the
 * context (maybe hard interrupt) of the up() or sem_shutdown() that settled
 * it, or right after a grant function running on that CPU: they do not
 * nest.  Must not sleep (nor take a spinlock_t on PREEMPT_RT).  Once
 * called, it may free or requeue @waiter.
 */
typedef void (*sem_grant_fn)(struct sem_waiter *waiter, int status);

/**
 * struct sem_waiter - a wait entry of a semaphore (private members)
 * @list: link in the semaphore's circular FIFO list of waiters
 * @grant: grant function of a down_entry() entry
 * @task: the sleeping task of a synchronous entry, %NULL otherwise
 * @state: where the entry is in its life
 * @async: the entry of a down_async() request
 * @status: the status passed to @grant
 * @sem: the semaphore the entry was last queued on, or a request's
 */
struct sem_waiter {
	struct list_head	list;
	sem_grant_fn		grant;
	struct task_struct	*task;
	unsigned char		state;
	bool			async;
	int			status;
	struct semaphore	*sem;
};

void sem_waiter_init(struct sem_waiter *waiter, sem_grant_fn grant);
int __must_check down_entry(struct semaphore *sem, struct sem_waiter *waiter);
int sem_cancel(struct semaphore *sem, struct sem_waiter *waiter);
int sem_cancel_sync(struct semaphore *sem, struct sem_waiter *waiter);
void sem_shutdown(struct semaphore *sem);

struct sem_async;

/**
 * typedef sem_async_fn - the function of a down_async() request
 * @req: the request
 * @status: this run's: 0 if it holds one unit, to release with up();
 *	-ESHUTDOWN (no unit) if sem_shutdown() failed the request
 *
 * Runs on the request's workqueue once per submission not cancelled.  It
 * may submit @req again, or free it.
 */
typedef void (*sem_async_fn)(struct sem_async *req, int status);

/**
 * struct sem_async - a down_async() request (private members)
 * @waiter: queued on the request's semaphore (->sem) while it waits
 * @work: queued on @wq by the grant, under the semaphore's lock
 * @wq: the workqueue the function runs on
 * @func: the function
 * @status: the status of the grant whose work is pending
 * @cancelling: sem_async_cancel_sync() calls running for the request
 */
struct sem_async {
	struct sem_waiter	waiter;
	struct work_struct	work;
	struct workqueue_struct	*wq;
	sem_async_fn		func;
	int			status;
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
 * lockdep class, named after @req.
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
bool sem_async_flush(struct sem_async *req);

#endif /* __LINUX_SEMAPHORE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Generic counting semaphores: see Documentation/locking/semaphore.rst.
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

#endif /* __LINUX_SEMAPHORE_H */

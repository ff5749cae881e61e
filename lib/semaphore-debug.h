/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CONFIG_DEBUG_SEMAPHORE, for lib/semaphore.c only: see semaphore-debug.c.
 */
#ifndef __LIB_SEMAPHORE_DEBUG_H
#define __LIB_SEMAPHORE_DEBUG_H

struct semaphore;
struct sem_waiter;

#ifdef CONFIG_DEBUG_SEMAPHORE
void sem_debug_waiters(struct semaphore *sem, bool waiters);
void sem_debug_entry(struct sem_waiter *waiter, bool queued);
void sem_debug_entry_init(struct sem_waiter *waiter);
#else
static inline void sem_debug_waiters(struct semaphore *sem, bool waiters) { }
static inline void sem_debug_entry(struct sem_waiter *waiter, bool queued) { }
static inline void sem_debug_entry_init(struct sem_waiter *waiter) { }
#endif

#endif /* __LIB_SEMAPHORE_DEBUG_H */

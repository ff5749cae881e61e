// SPDX-License-Identifier: GPL-2.0-only
/*
 * CONFIG_DEBUG_SEMAPHORE: debugobjects tracks a semaphore while it has
 * waiters, and a wait entry while it is queued.  Freeing the memory of one
 * of them then is reported, and that is all: the free fixups only end the
 * tracking, so that debugobjects does not call them again.  Initialising a
 * queued entry again is reported and takes the entry off its semaphore, as
 * the timers' fixup deactivates an active timer, so that the semaphore's
 * list is not broken.
 */
#include <linux/debugobjects.h>
#include <linux/sched/task_stack.h>
#include <linux/semaphore_async.h>

#include "semaphore-debug.h"

static const struct debug_obj_descr sem_debug_descr;
static const struct debug_obj_descr sem_waiter_debug_descr;

static void sem_debug_init(void *addr, const struct debug_obj_descr *descr)
{
	if (object_is_on_stack(addr))
		debug_object_init_on_stack(addr, descr);
	else
		debug_object_init(addr, descr);
}

static void sem_debug_start(void *addr, const struct debug_obj_descr *descr)
{
	sem_debug_init(addr, descr);
	debug_object_activate(addr, descr);
}

static void sem_debug_stop(void *addr, const struct debug_obj_descr *descr)
{
	debug_object_deactivate(addr, descr);
	debug_object_free(addr, descr);
}

/* Reported: end the tracking, so that debugobjects does not call it again. */
static bool sem_debug_fixup_free(void *addr, enum debug_obj_state state)
{
	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	sem_debug_stop(addr, &sem_debug_descr);
	return true;
}

static const struct debug_obj_descr sem_debug_descr = {
	.name		= "semaphore",
	.fixup_free	= sem_debug_fixup_free,
};

/* Reported: the entry, about to be overwritten, leaves its semaphore. */
static bool sem_waiter_debug_fixup_init(void *addr, enum debug_obj_state state)
{
	struct sem_waiter *waiter = addr;
	struct semaphore *sem = READ_ONCE(waiter->sem);

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	/* Stops the tracking; a grant that came first has done so. */
	if (!sem || !sem_waiter_cancel(sem, waiter))
		sem_debug_stop(addr, &sem_waiter_debug_descr);
	return true;
}

static bool sem_waiter_debug_fixup_free(void *addr, enum debug_obj_state state)
{
	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	sem_debug_stop(addr, &sem_waiter_debug_descr);
	return true;
}

static const struct debug_obj_descr sem_waiter_debug_descr = {
	.name		= "semaphore wait entry",
	.fixup_init	= sem_waiter_debug_fixup_init,
	.fixup_free	= sem_waiter_debug_fixup_free,
};

/* sem->lock held: the first waiter was queued, or the last one left. */
void sem_debug_waiters(struct semaphore *sem, bool waiters)
{
	if (waiters)
		sem_debug_start(sem, &sem_debug_descr);
	else
		sem_debug_stop(sem, &sem_debug_descr);
}

/* sem->lock held: a wait entry was queued, or left the queue. */
void sem_debug_entry(struct sem_waiter *waiter, bool queued)
{
	if (queued)
		sem_debug_start(waiter, &sem_waiter_debug_descr);
	else
		sem_debug_stop(waiter, &sem_waiter_debug_descr);
}

/* An entry about to be (re)initialised: a queued one is fixed up. */
void sem_debug_entry_init(struct sem_waiter *waiter)
{
	sem_debug_init(waiter, &sem_waiter_debug_descr);
	debug_object_free(waiter, &sem_waiter_debug_descr);
}

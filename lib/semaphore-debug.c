// SPDX-License-Identifier: GPL-2.0-only
/*
 * CONFIG_DEBUG_SEMAPHORE: debugobjects tracks a semaphore while it has
 * waiters, and a wait entry while it is queued (a down_async() request
 * until its function starts), so that freeing the memory of one of them,
 * or initialising a queued entry again, is reported.  Reporting is all it
 * does: the fixups only end the tracking, so that debugobjects does not
 * call them again, and touch nothing else.
 */

#include <linux/debugobjects.h>
#include <linux/sched/task_stack.h>
#include <linux/semaphore.h>

#include "semaphore-debug.h"

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

static bool sem_waiter_debug_fixup_free(void *addr, enum debug_obj_state state)
{
	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	sem_debug_stop(addr, &sem_waiter_debug_descr);
	return true;
}

static const struct debug_obj_descr sem_waiter_debug_descr = {
	.name		= "semaphore wait entry",
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

/* sem->lock held: a wait entry was queued, or left the list. */
void sem_debug_entry(struct sem_waiter *waiter, bool queued)
{
	if (queued)
		sem_debug_start(waiter, &sem_waiter_debug_descr);
	else
		sem_debug_stop(waiter, &sem_waiter_debug_descr);
}

/* An entry (re)initialised: reported if it is queued. */
void sem_debug_entry_init(struct sem_waiter *waiter)
{
	debug_object_free(waiter, &sem_waiter_debug_descr);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the wait entries of the generic semaphore (down_entry(),
 * sem_waiter_cancel(), sem_shutdown()), the FIFO queue they share with
 * sleepers, the accessors and CONFIG_DEBUG_SEMAPHORE.  The comment above
 * each case names its rule; misuse cases say warnings follow.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/semaphore_async.h>

#include "semaphore_kunit.h"

static atomic_t sem_entry_seq = ATOMIC_INIT(0);

/* A wait entry and what its grant function saw at its last call. */
struct sem_entry {
	struct sem_waiter	waiter;
	atomic_t		calls;
	int			status, seq;
	bool			irqs_off;
	struct task_struct	*task;
};

static struct sem_entry *to_entry(struct sem_waiter *waiter)
{
	return container_of(waiter, struct sem_entry, waiter);
}

/* Record the call; the entry keeps the unit (the case gives it back). */
static void sem_entry_record(struct sem_waiter *waiter, int status)
{
	struct sem_entry *e = to_entry(waiter);

	e->status = status;
	e->irqs_off = irqs_disabled();
	e->task = current;
	e->seq = atomic_inc_return(&sem_entry_seq);
	atomic_inc(&e->calls);
}

static void sem_entry_init(struct sem_entry *e)
{
	memset(e, 0, sizeof(*e));
	sem_waiter_init(&e->waiter, sem_entry_record);
	e->status = 1;
}

static const struct sem_test_param sem_entry_units[] = {
	{ "free_unit", 1 }, { "no_free_unit", 0 },
};

KUNIT_ARRAY_PARAM_DESC(sem_entry_units, sem_entry_units, desc);

/* Rule: down_entry() takes a free unit at once, else up() grants it under its lock. */
static void sem_entry_test_granted(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct semaphore sem;
	struct sem_entry e;

	sema_init(&sem, p->kind);
	sem_entry_init(&e);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), !!p->kind);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 0);
	if (!p->kind) {
		up(&sem);
		KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
		KUNIT_EXPECT_EQ(test, e.status, 0);
		KUNIT_EXPECT_PTR_EQ(test, e.task, current);
		KUNIT_EXPECT_TRUE(test, e.irqs_off);
	}
	/* The unit is the entry's: the case holds it. */
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), !p->kind);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/* Rule: sleepers and wait entries share one FIFO queue. */
static void sem_entry_test_fifo_mixed(struct kunit *test)
{
	struct sem_test_thread *sleeper[2];
	struct sem_entry e[2];
	struct semaphore sem;
	int i;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	for (i = 0; i < 2; i++) {
		sleeper[i] = sem_test_thread_run_queued(test, &sem, i ? SEM_TEST_INTERRUPTIBLE :
							SEM_TEST_DOWN, 0, false);
		sleeper[i]->seq = &sem_entry_seq;
		sem_entry_init(&e[i]);
		KUNIT_EXPECT_FALSE(test, down_entry(&sem, &e[i].waiter));
	}
	/* Queue: sleeper 0, entry 0, sleeper 1, entry 1. */
	for (i = 0; i < 2; i++) {
		up(&sem);
		KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(sleeper[i]));
		KUNIT_EXPECT_EQ(test, atomic_read(&e[i].calls), 0);
		up(&sem);
		KUNIT_EXPECT_EQ(test, atomic_read(&e[i].calls), 1);
		KUNIT_EXPECT_FALSE(test, !i && sem_test_returned(sleeper[1]));
	}
	KUNIT_EXPECT_LT(test, sleeper[0]->seq_no, e[0].seq);
	KUNIT_EXPECT_LT(test, e[0].seq, sleeper[1]->seq_no);
	KUNIT_EXPECT_LT(test, sleeper[1]->seq_no, e[1].seq);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, sleeper[0]);
	sem_test_thread_put(test, sleeper[1]);
}

static const struct sem_test_param sem_entry_whos[] = {
	{ "cancel_entry", 0 }, { "cancel_sleeper", 1 },
	{ "init_entry", 0, 1 }, { "init_sleeper", 1, 1 },
};

KUNIT_ARRAY_PARAM_DESC(sem_entry_whos, sem_entry_whos, desc);

/* Rule: [free after cancel] a removed entry is never granted: the next waiter
 * is; (debug) initialising a queued entry takes it off and reports; the next
 * waiter is granted
 */
static void sem_entry_test_cancel_queued(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct sem_test_thread *sleeper = NULL;
	struct sem_entry head, next;
	struct semaphore sem;

	if (p->arg && !IS_ENABLED(CONFIG_DEBUG_SEMAPHORE))
		kunit_skip(test, "needs CONFIG_DEBUG_SEMAPHORE");
	sema_init(&sem, SEM_TEST_NO_UNITS);
	sem_entry_init(&head);
	sem_entry_init(&next);
	KUNIT_EXPECT_FALSE(test, down_entry(&sem, &head.waiter));
	if (p->kind)
		sleeper = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	else
		KUNIT_EXPECT_FALSE(test, down_entry(&sem, &next.waiter));
	if (p->arg) {
		kunit_info(test, "an ODEBUG report follows\n");
		sem_waiter_init(&head.waiter, sem_entry_record);
	} else {
		KUNIT_EXPECT_TRUE(test, sem_waiter_cancel(&sem, &head.waiter));
	}
	up(&sem);
	KUNIT_EXPECT_TRUE(test, p->kind ? sem_test_wait_returned(sleeper) :
				  atomic_read(&next.calls) == 1);
	if (p->kind)
		sem_test_thread_put(test, sleeper);	/* gives the unit back */
	else
		up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&head.calls), 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	/* Removed, it may be queued again. */
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_FALSE(test, down_entry(&sem, &head.waiter));
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&head.calls), 1);
}

/* A semaphore that an interrupt on another CPU up()s. */
struct sem_entry_remote {
	struct semaphore	sem;
	atomic_t		done;
};

static void sem_entry_remote_up(void *data)
{
	struct sem_entry_remote *r = data;

	udelay(atomic_read(&r->done) % 8);
	up(&r->sem);
	atomic_inc(&r->done);
}

#define SEM_ENTRY_RACE_LOOPS	10000

/* Rule: [grant from an interrupt] sem_waiter_cancel() racing with up() in an irq:
 * removed or granted; an up() that frees the unit is done with the semaphore
 */
static void sem_entry_test_cancel_race(struct kunit *test)
{
	struct sem_entry_remote *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int i, cpu, granted = 0, cancelled = 0, bad = 0;
	unsigned long end;
	struct sem_entry e;
	bool ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 1; i <= SEM_ENTRY_RACE_LOOPS && !bad; i++) {
		sema_init(&r->sem, SEM_TEST_NO_UNITS);
		sem_entry_init(&e);
		bad |= down_entry(&r->sem, &e.waiter);
		cpu = get_cpu();
		smp_call_function_single(cpumask_any_but(cpu_online_mask, cpu),
					 sem_entry_remote_up, r, 0);
		put_cpu();
		udelay(i % 32);
		ret = sem_waiter_cancel(&r->sem, &e.waiter);
		/* The grant function has returned, or will not be called. */
		bad |= (atomic_read(&e.calls) != !ret) << 1;
		end = jiffies + SEM_TEST_WAIT;
		/*
		 * Removed: up() finds nobody and frees the unit.  Take it as
		 * soon as it is free, and free the semaphore as a caller that
		 * uses it as a completion does: up() must be done with it.
		 */
		while (ret && down_trylock(&r->sem) && time_before(jiffies, end))
			cpu_relax();
		if (ret)
			memset(&r->sem, 0x6b, sizeof(r->sem));
		while (atomic_read(&r->done) != i && time_before(jiffies, end))
			cpu_relax();
		bad |= (atomic_read(&r->done) != i || atomic_read(&e.calls) != !ret) << 2;
		if (ret) {
			cancelled++;
			bad |= !!memchr_inv(&r->sem, 0x6b, sizeof(r->sem)) << 3;
		} else {
			granted++;
			bad |= (e.status || !e.irqs_off) << 4;
			/* Exactly one unit existed, and the entry holds it. */
			bad |= (!down_trylock(&r->sem)) << 5;
		}
	}
	kunit_info(test, "%d granted, %d cancelled\n", granted, cancelled);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "round %d", i - 1);
	KUNIT_EXPECT_GT(test, granted, 0);
	KUNIT_EXPECT_GT(test, cancelled, 0);
}

/* Rule: misuse of an entry warns; nothing else is queued, taken or lost. */
static void sem_entry_test_misuse(struct kunit *test)
{
	struct semaphore sem, other;
	struct sem_entry e;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sema_init(&other, SEM_TEST_NO_UNITS);
	sem_entry_init(&e);
	/* Not queued: nothing to cancel, and no warning (as del_timer()). */
	KUNIT_EXPECT_FALSE(test, sem_waiter_cancel(&sem, &e.waiter));
	KUNIT_EXPECT_FALSE(test, down_entry(&sem, &e.waiter));
	kunit_info(test, "warnings about a queued wait entry follow\n");
	KUNIT_EXPECT_FALSE(test, down_entry(&sem, &e.waiter));
	KUNIT_EXPECT_FALSE(test, down_entry(&other, &e.waiter));
	KUNIT_EXPECT_FALSE(test, sem_waiter_cancel(&other, &e.waiter));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&other));
	/* Queued once: granted once; the second up() frees a unit. */
	up(&sem);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/* Rule: sem_shutdown() fails queued entries at once; a sleeper (a warning) stays queued. */
static void sem_entry_test_shutdown(struct kunit *test)
{
	struct sem_test_thread *sleeper;
	struct semaphore sem;
	struct sem_entry e[3];
	int i;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	for (i = 0; i < 3; i++)
		sem_entry_init(&e[i]);
	KUNIT_EXPECT_FALSE(test, down_entry(&sem, &e[0].waiter));
	sleeper = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	KUNIT_EXPECT_FALSE(test, down_entry(&sem, &e[1].waiter));
	kunit_info(test, "a warning from sem_shutdown() about the sleeper follows\n");
	sem_shutdown(&sem);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_TRUE(test, atomic_read(&e[i].calls) == 1 &&
				  e[i].status == -ESHUTDOWN);
	KUNIT_EXPECT_LT(test, e[0].seq, e[1].seq);
	KUNIT_EXPECT_FALSE(test, sem_test_returned(sleeper));
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&sem));
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(sleeper));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	sem_test_thread_put(test, sleeper);
	/* down_entry() fails, calling it back, until sema_init(). */
	KUNIT_EXPECT_FALSE(test, down_entry(&sem, &e[2].waiter));
	KUNIT_EXPECT_TRUE(test, atomic_read(&e[2].calls) == 1 &&
			  e[2].status == -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	sema_init(&sem, 1);
	KUNIT_EXPECT_TRUE(test, down_entry(&sem, &e[0].waiter));
}

/* Rule: the accessors tell free units and waiters, entries included. */
static void sem_entry_test_accessors(struct kunit *test)
{
	struct semaphore sem;
	struct sem_entry e;

	sema_init(&sem, 1);
	KUNIT_EXPECT_FALSE(test, sem_is_locked(&sem));
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_TRUE(test, sem_is_locked(&sem));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	sem_entry_init(&e);
	KUNIT_EXPECT_FALSE(test, down_entry(&sem, &e.waiter));
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&sem));
	up(&sem);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	up(&sem);
	sem_shutdown(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

static struct kunit_case sem_entry_cases[] = {
	KUNIT_CASE_PARAM(sem_entry_test_granted, sem_entry_units_gen_params),
	KUNIT_CASE(sem_entry_test_fifo_mixed),
	KUNIT_CASE_PARAM(sem_entry_test_cancel_queued, sem_entry_whos_gen_params),
	KUNIT_CASE(sem_entry_test_cancel_race),
	KUNIT_CASE(sem_entry_test_misuse),
	KUNIT_CASE(sem_entry_test_shutdown),
	KUNIT_CASE(sem_entry_test_accessors),
	{}
};

static struct kunit_suite sem_entry_suite = {
	.name = "semaphore_entry",
	.test_cases = sem_entry_cases,
};

kunit_test_suite(sem_entry_suite);

MODULE_DESCRIPTION("KUnit tests for the wait entries of the semaphore");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the wait entries of the generic semaphore (down_entry(),
 * sem_cancel(), sem_shutdown() and their kin), the FIFO queue they share
 * with sleepers, the accessors and CONFIG_DEBUG_SEMAPHORE.  The
 * comment above each case names its rule; misuse cases say warnings follow.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/debugobjects.h>
#include <linux/hrtimer.h>
#include <linux/semaphore.h>

#include "semaphore_kunit.h"

static atomic_t sem_entry_seq = ATOMIC_INIT(0);

/* A wait entry and what its grant function saw at its last call. */
struct sem_entry {
	struct sem_waiter	waiter;
	struct semaphore	*sem;		/* for down_trylock() inside */
	atomic_t		calls;
	int			status, seq, cpu;
	bool			hardirq, unit_free;
	struct task_struct	*task;
	struct semaphore	*requeue_on;
	int			requeue_ret;
};

static struct sem_entry *to_entry(struct sem_waiter *waiter)
{
	return container_of(waiter, struct sem_entry, waiter);
}

/* Record the call; keep the unit (the case gives it back). */
static void sem_entry_record(struct sem_waiter *waiter, int status)
{
	struct sem_entry *e = to_entry(waiter);

	e->status = status;
	e->hardirq = in_hardirq();
	e->cpu = raw_smp_processor_id();
	e->task = current;
	e->seq = atomic_inc_return(&sem_entry_seq);
	e->unit_free = e->sem && !down_trylock(e->sem);
	if (e->unit_free)
		up(e->sem);
	atomic_inc(&e->calls);
}

/* Record the call and queue the entry again, on ->requeue_on. */
static void sem_entry_requeue(struct sem_waiter *waiter, int status)
{
	sem_entry_record(waiter, status);
	to_entry(waiter)->requeue_ret = down_entry(to_entry(waiter)->requeue_on,
						   waiter);
}

static void sem_entry_init(struct sem_entry *e, struct semaphore *sem,
			   sem_grant_fn grant)
{
	memset(e, 0, sizeof(*e));
	sem_waiter_init(&e->waiter, grant);
	e->sem = sem;
	e->status = 1;
}

static const struct sem_test_param sem_entry_units[] = {
	{ "free_unit", 1 }, { "no_free_unit", 0 },
};

KUNIT_ARRAY_PARAM_DESC(sem_entry_units, sem_entry_units, desc);

/* Rule: down_entry() takes a free unit at once, else up() grants it: one call. */
static void sem_entry_test_granted(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct semaphore sem;
	struct sem_entry e;

	sema_init(&sem, p->kind);
	sem_entry_init(&e, &sem, sem_entry_record);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), p->kind ? 0 : -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 0);
	if (!p->kind) {
		up(&sem);
		KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
		KUNIT_EXPECT_EQ(test, e.status, 0);
		KUNIT_EXPECT_PTR_EQ(test, e.task, current);
		KUNIT_EXPECT_FALSE(test, e.unit_free);
	}
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
		sem_entry_init(&e[i], &sem, sem_entry_record);
		KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[i].waiter), -EINPROGRESS);
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
	{ "entry", 0 }, { "sleeper", 1 },
};

KUNIT_ARRAY_PARAM_DESC(sem_entry_whos, sem_entry_whos, desc);

/* Rule: [free after cancel] a removed entry is never granted: the next waiter is. */
static void sem_entry_test_cancel_queued(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct sem_test_thread *sleeper = NULL;
	struct sem_entry head, next;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sem_entry_init(&head, &sem, sem_entry_record);
	sem_entry_init(&next, &sem, sem_entry_record);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &head.waiter), -EINPROGRESS);
	if (p->kind)
		sleeper = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	else
		KUNIT_EXPECT_EQ(test, down_entry(&sem, &next.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &head.waiter), 0);
	up(&sem);
	KUNIT_EXPECT_TRUE(test, p->kind ? sem_test_wait_returned(sleeper) :
				  atomic_read(&next.calls) == 1);
	if (p->kind)
		sem_test_thread_put(test, sleeper);	/* gives the unit back */
	else
		up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&head.calls), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	/* Removed, it may be queued again. */
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &head.waiter), -EINPROGRESS);
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

static void sem_entry_up_remotely(struct sem_entry_remote *r)
{
	int cpu = get_cpu();

	smp_call_function_single(cpumask_any_but(cpu_online_mask, cpu),
				 sem_entry_remote_up, r, 0);
	put_cpu();
}

#define SEM_ENTRY_RACE_LOOPS	10000

/* Rule: sem_cancel() racing with up() in an irq settles once: removed or granted. */
static void sem_entry_test_cancel_race(struct kunit *test)
{
	struct sem_entry_remote *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int i, ret, granted = 0, cancelled = 0, bad = 0;
	unsigned long end;
	struct sem_entry e;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 1; i <= SEM_ENTRY_RACE_LOOPS && !bad; i++) {
		sema_init(&r->sem, SEM_TEST_NO_UNITS);
		sem_entry_init(&e, &r->sem, sem_entry_record);
		bad += down_entry(&r->sem, &e.waiter) != -EINPROGRESS;
		sem_entry_up_remotely(r);
		udelay(i % 32);
		ret = sem_cancel(&r->sem, &e.waiter);
		end = jiffies + SEM_TEST_WAIT;
		while (atomic_read(&r->done) != i && time_before(jiffies, end))
			cpu_relax();
		bad += atomic_read(&r->done) != i;
		if (ret == 0) {
			cancelled++;
			bad += atomic_read(&e.calls) || down_trylock(&r->sem);
		} else {
			granted++;
			bad += ret != -EALREADY || atomic_read(&e.calls) != 1 ||
			       e.status || !down_trylock(&r->sem);
			up(&r->sem);
			bad += down_trylock(&r->sem);
		}
		/* Exactly one unit existed, and it is taken now. */
		bad += !down_trylock(&r->sem);
	}
	kunit_info(test, "%d granted, %d cancelled\n", granted, cancelled);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_GT(test, granted, 0);
	KUNIT_EXPECT_GT(test, cancelled, 0);
}

/* A pinned hrtimer that calls up() on ->sem from hard interrupt context. */
struct sem_entry_irq {
	struct hrtimer		timer;
	struct semaphore	*sem;
	struct sem_entry	*watch;
	int			in_irq, after_irq;	/* ->watch's calls */
	atomic_t		fired;
	struct sem_entry	outer;	/* its grant function starts the timer */
};

static enum hrtimer_restart sem_entry_irq_up(struct hrtimer *timer)
{
	struct sem_entry_irq *h = container_of(timer, struct sem_entry_irq, timer);

	up(h->sem);
	h->in_irq = atomic_read(&h->watch->calls);
	atomic_inc(&h->fired);
	return HRTIMER_NORESTART;
}

/* Start the timer, whose up() comes while this grant function runs. */
static void sem_entry_irq_inside(struct sem_waiter *waiter, int status)
{
	struct sem_entry_irq *h = container_of(to_entry(waiter),
					       struct sem_entry_irq, outer);
	unsigned long end = jiffies + HZ;

	sem_entry_record(waiter, status);
	hrtimer_start(&h->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (!atomic_read(&h->fired) && time_before(jiffies, end))
		cpu_relax();
	/* The interrupt's grant has not run yet: it waits for this one. */
	h->after_irq = atomic_read(&h->watch->calls);
}

/* Rule: [grant from an interrupt] up() in an irq grants there, or after the grant it broke into. */
static void sem_entry_test_up_in_irq(struct kunit *test)
{
	struct sem_entry_irq h = { .after_irq = -1 };
	unsigned long end = jiffies + SEM_TEST_WAIT;
	struct semaphore s1, s2;
	struct sem_entry inner;

	sema_init(&s1, SEM_TEST_NO_UNITS);
	sema_init(&s2, SEM_TEST_NO_UNITS);
	sem_entry_init(&h.outer, &s1, sem_entry_irq_inside);
	sem_entry_init(&inner, &s2, sem_entry_record);
	h.sem = &s2;
	h.watch = &inner;
	hrtimer_init_on_stack(&h.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	h.timer.function = sem_entry_irq_up;
	KUNIT_EXPECT_EQ(test, down_entry(&s2, &inner.waiter), -EINPROGRESS);
	hrtimer_start(&h.timer, ns_to_ktime(100 * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
	while (!atomic_read(&h.fired) && time_before(jiffies, end))
		usleep_range(100, 200);
	KUNIT_EXPECT_TRUE(test, h.in_irq == 1 && inner.hardirq && !inner.status);
	/* Again, while a grant function runs: it waits for that one. */
	atomic_set(&h.fired, 0);
	KUNIT_EXPECT_EQ(test, down_entry(&s2, &inner.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&s1, &h.outer.waiter), -EINPROGRESS);
	up(&s1);
	hrtimer_cancel(&h.timer);
	destroy_hrtimer_on_stack(&h.timer);
	KUNIT_EXPECT_EQ(test, atomic_read(&h.fired), 1);
	KUNIT_EXPECT_EQ(test, h.in_irq, 1);
	KUNIT_EXPECT_EQ(test, h.after_irq, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner.calls), 2);
	KUNIT_EXPECT_EQ(test, inner.status, 0);
	KUNIT_EXPECT_FALSE(test, inner.hardirq);
	KUNIT_EXPECT_EQ(test, inner.cpu, h.outer.cpu);
}

#define SEM_ENTRY_CHAIN		100

static atomic_t sem_entry_depth, sem_entry_max_depth;

/* Record the call and release the unit, noting how deep calls nest. */
static void sem_entry_chain(struct sem_waiter *waiter, int status)
{
	int depth = atomic_inc_return(&sem_entry_depth);

	if (depth > atomic_read(&sem_entry_max_depth))
		atomic_set(&sem_entry_max_depth, depth);
	sem_entry_record(waiter, status);
	up(to_entry(waiter)->sem);
	atomic_dec(&sem_entry_depth);
}

/* Rule: grant functions never nest: a grant's up() grants the next after it. */
static void sem_entry_test_grant_chain(struct kunit *test)
{
	struct sem_entry *e = kunit_kcalloc(test, SEM_ENTRY_CHAIN, sizeof(*e),
					    GFP_KERNEL);
	struct semaphore sem;
	int i, in_order = 0;

	KUNIT_ASSERT_NOT_NULL(test, e);
	atomic_set(&sem_entry_max_depth, 0);
	sema_init(&sem, SEM_TEST_NO_UNITS);
	for (i = 0; i < SEM_ENTRY_CHAIN; i++) {
		sem_entry_init(&e[i], &sem, sem_entry_chain);
		KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[i].waiter), -EINPROGRESS);
	}
	up(&sem);
	for (i = 0; i < SEM_ENTRY_CHAIN; i++)
		in_order += atomic_read(&e[i].calls) == 1 && e[i].seq == e[0].seq + i;
	KUNIT_EXPECT_EQ(test, in_order, SEM_ENTRY_CHAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&sem_entry_max_depth), 1);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/* In the grant of s1: up(s2) settles ->inner, whose call is deferred. */
struct sem_entry_nester {
	struct sem_waiter	waiter;
	struct semaphore	*s2;
	struct sem_entry	*inner;
	int			inner_calls, queue_ret, cancel_ret;
};

static void sem_entry_nest(struct sem_waiter *waiter, int status)
{
	struct sem_entry_nester *n = container_of(waiter, struct sem_entry_nester,
						  waiter);

	up(n->s2);
	n->queue_ret = down_entry(n->s2, &n->inner->waiter);
	n->cancel_ret = sem_cancel(n->s2, &n->inner->waiter);
	n->inner_calls = atomic_read(&n->inner->calls);
}

/* Rule: an entry settled but not yet called back is left alone until it is. */
static void sem_entry_test_init_granting(struct kunit *test)
{
	struct sem_entry_nester n = { .inner_calls = -1 };
	struct semaphore s1, s2;
	struct sem_entry inner;

	sema_init(&s1, SEM_TEST_NO_UNITS);
	sema_init(&s2, SEM_TEST_NO_UNITS);
	sem_entry_init(&inner, &s2, sem_entry_record);
	sem_waiter_init(&n.waiter, sem_entry_nest);
	n.s2 = &s2;
	n.inner = &inner;
	KUNIT_EXPECT_EQ(test, down_entry(&s2, &inner.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&s1, &n.waiter), -EINPROGRESS);
	kunit_info(test, "a warning from down_entry() follows\n");
	up(&s1);
	KUNIT_EXPECT_EQ_MSG(test, n.inner_calls, 0, "a grant function nested");
	KUNIT_EXPECT_EQ(test, n.queue_ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, n.cancel_ret, -EALREADY);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner.calls), 1);
	KUNIT_EXPECT_EQ(test, inner.status, 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&s2));
	KUNIT_EXPECT_EQ(test, sem_count(&s2), 0U);
}

/* Rule: misuse of an entry warns and returns an error; nothing queued or taken. */
static void sem_entry_test_misuse(struct kunit *test)
{
	struct sem_async *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct semaphore sem, other;
	struct sem_entry e;

	KUNIT_ASSERT_NOT_NULL(test, req);
	sema_init(&sem, SEM_TEST_NO_UNITS);
	sema_init(&other, SEM_TEST_NO_UNITS);
	sem_entry_init(&e, &sem, sem_entry_requeue);
	e.requeue_on = &other;
	kunit_info(test, "warnings about misused wait entries follow\n");
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &e.waiter), -ENOENT);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EBUSY);
	KUNIT_EXPECT_EQ(test, down_entry(&other, &e.waiter), -EBUSY);
	KUNIT_EXPECT_EQ(test, sem_cancel(&other, &e.waiter), -EINVAL);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&sem));
	/* Granted once; its grant function queues it on @other. */
	up(&sem);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, e.requeue_ret, -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &e.waiter), -EINVAL);
	KUNIT_EXPECT_EQ(test, sem_cancel(&other, &e.waiter), 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&other));
	/* Never initialised (zeroed, or garbage), or a down_async() request's. */
	memset(&e.waiter, 0, sizeof(e.waiter));
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINVAL);
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &e.waiter), -EINVAL);
	memset(&e.waiter, 0x5a, sizeof(e.waiter));
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINVAL);
	KUNIT_EXPECT_FALSE(test, down_async(req));	/* never initialised */
	sem_async_init(req, &sem, system_wq, NULL);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &req->waiter), -EINVAL);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/* Take 100 ms, counting the call on entry and again on return. */
static void sem_entry_slow(struct sem_waiter *waiter, int status)
{
	atomic_inc(&to_entry(waiter)->calls);
	mdelay(100);
	sem_entry_record(waiter, status);
}

/* Rule: [free a busy entry] sem_cancel_sync() returns after a running grant function. */
static void sem_entry_test_cancel_sync_waits(struct kunit *test)
{
	struct sem_entry_remote *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct sem_entry *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	unsigned long end = jiffies + SEM_TEST_WAIT;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_ASSERT_TRUE(test, r && e);
	sema_init(&r->sem, SEM_TEST_NO_UNITS);
	sem_entry_init(e, NULL, sem_entry_slow);
	KUNIT_ASSERT_EQ(test, down_entry(&r->sem, &e->waiter), -EINPROGRESS);
	sem_entry_up_remotely(r);
	while (!atomic_read(&e->calls) && time_before(jiffies, end))
		cpu_relax();
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&e->calls), 1, "no grant function");
	KUNIT_EXPECT_EQ(test, sem_cancel_sync(&r->sem, &e->waiter), -EALREADY);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->calls), 2);
	KUNIT_EXPECT_EQ(test, e->status, 0);
}

/* Rule: sem_shutdown() fails queued entries at once; a sleeper (a warning) stays queued. */
static void sem_entry_test_shutdown(struct kunit *test)
{
	struct sem_test_thread *sleeper;
	struct semaphore sem;
	struct sem_entry e[2];
	int i;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sem_entry_init(&e[0], &sem, sem_entry_record);
	sem_entry_init(&e[1], &sem, sem_entry_record);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[0].waiter), -EINPROGRESS);
	sleeper = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[1].waiter), -EINPROGRESS);
	kunit_info(test, "a warning from sem_shutdown() about the sleeper follows\n");
	sem_shutdown(&sem);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_TRUE(test, atomic_read(&e[i].calls) == 1 &&
				  e[i].status == -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, sem_test_returned(sleeper));
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&sem));
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(sleeper));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	sem_test_thread_put(test, sleeper);
	/* down_entry() fails until sema_init(); the classic API still works. */
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[0].waiter), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	sema_init(&sem, 1);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[0].waiter), 0);
}

/* Rule: the accessors tell free units and waiters; the count saturates. */
static void sem_entry_test_accessors(struct kunit *test)
{
	struct semaphore sem;
	struct sem_entry e;

	sema_init(&sem, 2);
	KUNIT_EXPECT_FALSE(test, sem_is_locked(&sem));
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_TRUE(test, sem_is_locked(&sem));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	sem_entry_init(&e, &sem, sem_entry_record);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&sem));
	up(&sem);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	up(&sem);
	up(&sem);
	sem_shutdown(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 2U);
	/* At most 2^30 - 1 units: sema_init() clamps, up() there warns. */
	kunit_info(test, "warnings from sema_init() and up() follow\n");
	sema_init(&sem, INT_MAX);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), (1U << 30) - 1);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), (1U << 30) - 2);
}

static const struct sem_test_param sem_entry_frees[] = {
	{ "entry", 0 }, { "semaphore", 1 },
};

KUNIT_ARRAY_PARAM_DESC(sem_entry_frees, sem_entry_frees, desc);

/* Rule: (debug) a queued entry or its semaphore freed is reported, and nothing else changes. */
static void sem_entry_test_debug_free(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct sem_entry *gone, e;
	struct semaphore *sem;

	if (!IS_ENABLED(CONFIG_DEBUG_SEMAPHORE) ||
	    !IS_BUILTIN(CONFIG_SEMAPHORE_KUNIT_TEST))
		kunit_skip(test, "needs CONFIG_DEBUG_SEMAPHORE, built in");
	sem = kzalloc(sizeof(*sem), GFP_KERNEL);
	gone = kzalloc(sizeof(*gone), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sem && gone);
	sema_init(sem, SEM_TEST_NO_UNITS);
	sem_entry_init(gone, NULL, sem_entry_record);
	sem_entry_init(&e, NULL, sem_entry_record);
	KUNIT_EXPECT_EQ(test, down_entry(sem, &gone->waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(sem, &e.waiter), -EINPROGRESS);
	kunit_info(test, "ODEBUG reports follow\n");
	/* As kfree() would, but the memory stays. */
	if (p->kind)
		debug_check_no_obj_freed(sem, sizeof(*sem));
	else
		debug_check_no_obj_freed(gone, sizeof(*gone));
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(sem));
	up(sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&gone->calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 0);
	up(sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, gone->status, 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	kfree(gone);
	kfree(sem);
}

static struct kunit_case sem_entry_cases[] = {
	KUNIT_CASE_PARAM(sem_entry_test_granted, sem_entry_units_gen_params),
	KUNIT_CASE(sem_entry_test_fifo_mixed),
	KUNIT_CASE_PARAM(sem_entry_test_cancel_queued, sem_entry_whos_gen_params),
	KUNIT_CASE(sem_entry_test_cancel_race),
	KUNIT_CASE(sem_entry_test_up_in_irq),
	KUNIT_CASE(sem_entry_test_grant_chain),
	KUNIT_CASE(sem_entry_test_init_granting),
	KUNIT_CASE(sem_entry_test_misuse),
	KUNIT_CASE(sem_entry_test_cancel_sync_waits),
	KUNIT_CASE(sem_entry_test_shutdown),
	KUNIT_CASE(sem_entry_test_accessors),
	KUNIT_CASE_PARAM(sem_entry_test_debug_free, sem_entry_frees_gen_params),
	{}
};

static struct kunit_suite sem_entry_suite = {
	.name = "semaphore_entry",
	.test_cases = sem_entry_cases,
};

kunit_test_suite(sem_entry_suite);

MODULE_DESCRIPTION("KUnit tests for the wait entries of the semaphore");
MODULE_LICENSE("GPL");

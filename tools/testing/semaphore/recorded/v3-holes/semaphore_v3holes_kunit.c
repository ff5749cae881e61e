// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 48's holes, written against series v3's API, to show each one
 * failing on v3.  Each case asserts what v4 guarantees (the v4 suites
 * check the same with v4's API).  Not part of the series.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

struct v3_req {
	struct sem_async	req;
	struct semaphore	*sem;
	atomic_t		runs;
	int			status[2];
	bool			again;
	struct completion	started;
};

static void v3_req_fn(struct sem_async *req, int status)
{
	struct v3_req *r = container_of(req, struct v3_req, req);
	int n = atomic_read(&r->runs);

	if (n < 2)
		r->status[n] = status;
	complete(&r->started);
	if (r->again && n == 0) {
		/* Slow: the teardown starts while this run is on. */
		msleep(200);
		down_async(req);
	}
	if (!status)
		up(r->sem);
	atomic_inc(&r->runs);
}

/* sem_async_flush(); kfree() of a request still queued on its semaphore. */
static void v3_flush_then_free(struct kunit *test)
{
	struct workqueue_struct *wq = alloc_workqueue("v3_flush", 0, 0);
	struct semaphore *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);
	struct v3_req *r = kzalloc(sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, wq && sem && r);
	sema_init(sem, 0);
	init_completion(&r->started);
	r->sem = sem;
	sem_async_init(&r->req, sem, wq, v3_req_fn);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	sem_async_flush(&r->req);
	/* v4: a request that was waited for is off its semaphore. */
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	kfree(r);
	up(sem);	/* KASAN: the grant writes into the freed request */
	flush_workqueue(wq);
}

/* The rst's teardown: sem_shutdown(), then flush_workqueue(). */
static void v3_teardown_flush_workqueue(struct kunit *test)
{
	struct workqueue_struct *wq = alloc_workqueue("v3_teardown", WQ_UNBOUND, 0);
	struct semaphore *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);
	struct v3_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, wq && sem && r);
	sema_init(sem, 1);
	init_completion(&r->started);
	r->again = true;
	r->sem = sem;
	sem_async_init(&r->req, sem, wq, v3_req_fn);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	wait_for_completion(&r->started);
	sem_shutdown(sem);
	flush_workqueue(wq);
	/* v4's teardown waits for the resubmitted run too. */
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 2);
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 2);
}

static void v3_entry_grant(struct sem_waiter *w, int status)
{
	w->status = status + 1;		/* 1: granted a unit */
}

/* sem_waiter_init() of an entry that is queued, with another behind it. */
static void v3_reinit_queued_entry(struct kunit *test)
{
	struct semaphore *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);
	struct sem_waiter *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct sem_waiter *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, sem && a && b);
	sema_init(sem, 0);
	sem_waiter_init(a, v3_entry_grant);
	sem_waiter_init(b, v3_entry_grant);
	KUNIT_EXPECT_EQ(test, down_entry(sem, a), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(sem, b), -EINPROGRESS);
	sem_waiter_init(a, v3_entry_grant);	/* misuse */
	up(sem);
	/* v4: only @a is damaged; the next owner's waiter gets the unit. */
	KUNIT_EXPECT_EQ(test, b->status, 1);
	KUNIT_EXPECT_EQ(test, down_trylock(sem), 1);
	if (b->status == 1)
		up(sem);
	KUNIT_EXPECT_EQ(test, down_trylock(sem), 0);
}

/* sem_async_init() of a request that is queued, with another behind it. */
static void v3_reinit_queued_request(struct kunit *test)
{
	struct workqueue_struct *wq = alloc_workqueue("v3_reinit", 0, 0);
	struct semaphore *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);
	struct v3_req *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct v3_req *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, wq && sem && a && b);
	sema_init(sem, 0);
	init_completion(&a->started);
	init_completion(&b->started);
	a->sem = sem;
	b->sem = sem;
	sem_async_init(&a->req, sem, wq, v3_req_fn);
	sem_async_init(&b->req, sem, wq, v3_req_fn);
	KUNIT_EXPECT_TRUE(test, down_async(&a->req));
	KUNIT_EXPECT_TRUE(test, down_async(&b->req));
	sem_async_init(&a->req, sem, wq, v3_req_fn);	/* misuse */
	up(sem);
	flush_workqueue(wq);
	/* v4: the next owner's request runs, and gives its unit back. */
	KUNIT_EXPECT_EQ(test, atomic_read(&b->runs), 1);
	KUNIT_EXPECT_EQ(test, down_trylock(sem), 0);
	destroy_workqueue(wq);
}

struct v3_drain {
	struct work_struct	blocker;
	struct work_struct	drainer;
	struct completion	release;
	struct workqueue_struct	*wq;
};

static void v3_blocker_fn(struct work_struct *work)
{
	wait_for_completion(&container_of(work, struct v3_drain, blocker)->release);
}

static void v3_drainer_fn(struct work_struct *work)
{
	drain_workqueue(container_of(work, struct v3_drain, drainer)->wq);
}

/* A grant to a workqueue being drained, then sem_async_cancel(). */
static void v3_draining_wq(struct kunit *test)
{
	struct workqueue_struct *wq = alloc_workqueue("v3_drain", 0, 0);
	struct semaphore *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);
	struct v3_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct v3_drain *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, wq && sem && r && d);
	sema_init(sem, 0);
	init_completion(&r->started);
	init_completion(&d->release);
	r->sem = sem;
	d->wq = wq;
	sem_async_init(&r->req, sem, wq, v3_req_fn);
	INIT_WORK(&d->blocker, v3_blocker_fn);
	INIT_WORK(&d->drainer, v3_drainer_fn);
	queue_work(wq, &d->blocker);
	queue_work(system_unbound_wq, &d->drainer);
	msleep(200);			/* the drain waits for the blocker */
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	up(sem);			/* the workqueue refuses the grant */
	kunit_info(test, "sem_async_cancel() of the refused request\n");
	sem_async_cancel(&r->req);	/* v3: spins with sem->lock held */
	kunit_info(test, "sem_async_cancel() returned\n");
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	complete(&d->release);
	flush_work(&d->drainer);
	destroy_workqueue(wq);
}

static struct kunit_case v3_holes_cases[] = {
	KUNIT_CASE(v3_teardown_flush_workqueue),
	KUNIT_CASE(v3_reinit_queued_entry),
	KUNIT_CASE(v3_reinit_queued_request),
	KUNIT_CASE(v3_flush_then_free),
	KUNIT_CASE(v3_draining_wq),
	{}
};

static struct kunit_suite v3_holes_suite = {
	.name = "semaphore_v3_holes",
	.test_cases = v3_holes_cases,
};
kunit_test_suite(v3_holes_suite);

MODULE_DESCRIPTION("Issue 48's holes on series v3");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the lifetimes of the semaphore's asynchronous waiters:
 * what sem_shutdown() waits for and what it must not wait for, what the
 * results of the cancel calls promise at the moment they are returned,
 * resubmission of down_async() requests, the grant functions that the
 * per-CPU grant queue defers, and the CONFIG_DEBUG_SEMAPHORE fixups.
 *
 * Each case names the owner action of the "Lifetimes" table in
 * Documentation/locking/semaphore.rst that it backs.  A case that would
 * hang on a broken semaphore waits with a timeout instead and fails; the
 * objects a stuck thread may still touch are then leaked, not freed.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "semaphore_kunit.h"

/* A down_async() request and what its work function did. */
struct sem_life_req {
	struct sem_async	req;
	struct semaphore	*sem;
	struct workqueue_struct	*wq;
	int			status;
	atomic_t		runs;
	bool			release;	/* up() when granted */
	struct task_struct	*task;		/* who ran the work function */
	struct completion	started;
	struct completion	proceed;	/* with @block: wait for it */
	bool			block;
	/* A mutex that the work function takes and releases. */
	struct mutex		*lock;
	int			resubmit;	/* down_async() again, this often */
	int			resubmit_ret;
	struct semaphore	*shutdown;	/* sem_shutdown() from the work */
	struct semaphore	*move_to;	/* down_async() there first */
	struct completion	ran;
};

static void sem_life_work(struct work_struct *work)
{
	struct sem_life_req *r = container_of(to_sem_async(work),
					      struct sem_life_req, req);

	r->status = sem_async_status(&r->req);
	r->task = current;
	if (r->move_to)
		r->resubmit_ret = down_async(r->move_to, &r->req, r->wq);
	complete(&r->started);
	if (r->block)
		wait_for_completion_timeout(&r->proceed, SEM_TEST_WAIT);
	if (r->lock) {
		mutex_lock(r->lock);
		mutex_unlock(r->lock);
	}
	if (r->shutdown)
		sem_shutdown(r->shutdown);
	atomic_inc(&r->runs);
	if (!r->status && r->release)
		up(r->sem);
	if (r->resubmit > 0) {
		r->resubmit--;
		r->resubmit_ret = down_async(r->sem, &r->req, r->wq);
	}
	/* Last access: the test may free @r once it sees this. */
	complete(&r->ran);
}

static struct sem_life_req *sem_life_req_alloc(struct kunit *test,
					       struct semaphore *sem,
					       struct workqueue_struct *wq)
{
	struct sem_life_req *r = kzalloc(sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	sem_async_init(&r->req, sem_life_work);
	r->sem = sem;
	r->wq = wq;
	r->status = 1;
	r->release = true;
	init_completion(&r->started);
	init_completion(&r->proceed);
	init_completion(&r->ran);
	return r;
}

static bool sem_life_wait(struct completion *c)
{
	return wait_for_completion_timeout(c, SEM_TEST_WAIT);
}

/*
 * A semaphore of @count units, allocated so that it can outlive a test
 * that fails with a stuck thread still using it; the test frees it.
 */
static struct semaphore *sem_life_sem_alloc(struct kunit *test, int count)
{
	struct semaphore *sem = kzalloc(sizeof(*sem), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sem);
	sema_init(sem, count);
	return sem;
}

/* An item that keeps an ordered workqueue busy until released. */
struct sem_life_blocker {
	struct work_struct	work;
	struct completion	running;
	struct completion	release;
};

static void sem_life_blocker_fn(struct work_struct *work)
{
	struct sem_life_blocker *b = container_of(work, struct sem_life_blocker,
						  work);

	complete(&b->running);
	wait_for_completion_timeout(&b->release, SEM_TEST_WAIT);
}

static struct sem_life_blocker *sem_life_block(struct kunit *test,
					       struct workqueue_struct *wq)
{
	struct sem_life_blocker *b = kzalloc(sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	INIT_WORK(&b->work, sem_life_blocker_fn);
	init_completion(&b->running);
	init_completion(&b->release);
	queue_work(wq, &b->work);
	KUNIT_EXPECT_TRUE(test, sem_life_wait(&b->running));
	return b;
}

/*
 * A plain work item that runs some semaphore calls and then
 * sem_shutdown(), on the workqueue the test chooses.
 */
struct sem_life_stopper {
	struct work_struct	work;
	struct semaphore	*up;		/* up() this first, if set */
	struct semaphore	*shutdown;
	struct mutex		*hold;		/* held across sem_shutdown() */
	struct completion	done;
	struct task_struct	*task;
};

static void sem_life_stopper_fn(struct work_struct *work)
{
	struct sem_life_stopper *s = container_of(work, struct sem_life_stopper,
						  work);

	s->task = current;
	if (s->hold)
		mutex_lock(s->hold);
	if (s->up)
		up(s->up);
	/* Let a work function that was just granted start, if it can. */
	msleep(20);
	sem_shutdown(s->shutdown);
	if (s->hold)
		mutex_unlock(s->hold);
	complete(&s->done);
}

static struct sem_life_stopper *sem_life_stopper_alloc(struct kunit *test)
{
	struct sem_life_stopper *s = kzalloc(sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	INIT_WORK(&s->work, sem_life_stopper_fn);
	init_completion(&s->done);
	return s;
}

/*
 * Lifetimes, "shutdown from a work item": a work item R on an ordered
 * workqueue grants request Q of another semaphore B, whose work is then
 * queued behind R, and calls sem_shutdown() on an unrelated semaphore A.
 * It must not wait for Q, which can only run after R returns.
 */
static void sem_life_test_shutdown_other_sem(struct kunit *test)
{
	struct workqueue_struct *wq;
	struct sem_life_stopper *s;
	struct sem_life_req *q;
	struct semaphore *a, *b;

	wq = alloc_ordered_workqueue("sem_life_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	a = sem_life_sem_alloc(test, 1);
	b = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	q = sem_life_req_alloc(test, b, wq);
	KUNIT_EXPECT_EQ(test, down_async(b, &q->req, wq), -EINPROGRESS);

	s = sem_life_stopper_alloc(test);
	s->up = b;
	s->shutdown = a;
	queue_work(wq, &s->work);
	if (!sem_life_wait(&s->done)) {
		KUNIT_FAIL(test, "sem_shutdown() waited for another semaphore's request");
		return;	/* leak: the stuck work still uses them */
	}
	KUNIT_EXPECT_TRUE(test, sem_life_wait(&q->ran));
	KUNIT_EXPECT_EQ(test, q->status, 0);
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, sem_count(b), 1U);
	kfree(q);
	kfree(s);
	kfree(a);
	kfree(b);
}

/*
 * Lifetimes, "shutdown from a work item": the same, but Q belongs to the
 * semaphore being shut down.  sem_shutdown() takes Q's pending work off
 * the workqueue and runs it itself, instead of waiting for it.
 */
static void sem_life_test_shutdown_own_ordered(struct kunit *test)
{
	struct workqueue_struct *wq;
	struct sem_life_stopper *s;
	struct sem_life_req *q;
	struct semaphore *a;

	wq = alloc_ordered_workqueue("sem_life_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	a = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	q = sem_life_req_alloc(test, a, wq);
	KUNIT_EXPECT_EQ(test, down_async(a, &q->req, wq), -EINPROGRESS);

	s = sem_life_stopper_alloc(test);
	s->up = a;
	s->shutdown = a;
	queue_work(wq, &s->work);
	if (!sem_life_wait(&s->done)) {
		KUNIT_FAIL(test, "sem_shutdown() waited for work queued behind its caller");
		return;
	}
	/* Q ran, granted, before sem_shutdown() returned, in R's context. */
	KUNIT_EXPECT_EQ(test, atomic_read(&q->runs), 1);
	KUNIT_EXPECT_EQ(test, q->status, 0);
	KUNIT_EXPECT_PTR_EQ(test, q->task, s->task);
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(a), 1U);
	kfree(q);
	kfree(s);
	kfree(a);
}

/*
 * Lifetimes, "shutdown holding a lock": the caller holds a mutex that
 * the running work function of another semaphore's request waits for.
 * sem_shutdown() of its own semaphore must not wait for that work.
 */
static void sem_life_test_shutdown_lock_held(struct kunit *test)
{
	struct workqueue_struct *wq;
	struct sem_life_stopper *s;
	struct sem_life_req *q;
	struct semaphore *a, *b;
	/* Held by the caller of sem_shutdown(), taken by Q's function. */
	struct mutex *m;

	wq = alloc_workqueue("sem_life_wq", WQ_UNBOUND, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	a = sem_life_sem_alloc(test, 1);
	b = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	mutex_init(m);
	q = sem_life_req_alloc(test, b, wq);
	q->lock = m;
	KUNIT_EXPECT_EQ(test, down_async(b, &q->req, wq), -EINPROGRESS);

	s = sem_life_stopper_alloc(test);
	s->hold = m;
	s->up = b;
	s->shutdown = a;
	queue_work(system_unbound_wq, &s->work);
	if (!sem_life_wait(&s->done)) {
		KUNIT_FAIL(test, "sem_shutdown() waited for work that needs the caller's lock");
		return;
	}
	KUNIT_EXPECT_TRUE(test, sem_life_wait(&q->ran));
	KUNIT_EXPECT_EQ(test, q->status, 0);
	destroy_workqueue(wq);
	flush_work(&s->work);
	KUNIT_EXPECT_EQ(test, sem_count(b), 1U);
	kfree(q);
	kfree(s);
	kfree(m);
	kfree(a);
	kfree(b);
}

/* A down_entry() entry whose grant function takes its time. */
struct sem_life_entry {
	struct sem_waiter	waiter;
	struct semaphore	*sem;
	atomic_t		started;
	atomic_t		finished;
	int			status;
	unsigned int		delay_ms;
	bool			hardirq;
	bool			preemptible;
	int			cpu;
	/* For the requeue and interrupt cases. */
	struct semaphore	*requeue_on;
	int			requeue_ret;
	struct sem_life_entry	*other;
	int			other_calls;	/* @other's calls seen inside */
	struct hrtimer		timer;
	struct semaphore	*irq_up;
	atomic_t		irq_fired;
};

static void sem_life_grant(struct sem_waiter *waiter, int status)
{
	struct sem_life_entry *e = container_of(waiter, struct sem_life_entry,
						waiter);

	e->status = status;
	e->hardirq = in_hardirq();
	e->preemptible = preemptible();
	e->cpu = raw_smp_processor_id();
	atomic_inc(&e->started);
	if (e->delay_ms)
		mdelay(e->delay_ms);
	if (e->requeue_on)
		e->requeue_ret = down_entry(e->requeue_on, &e->other->waiter);
	atomic_inc(&e->finished);
}

static void sem_life_entry_init(struct sem_life_entry *e,
				struct semaphore *sem)
{
	memset(e, 0, sizeof(*e));
	sem_waiter_init(&e->waiter, sem_life_grant);
	e->sem = sem;
	e->status = 1;
}

struct sem_life_upper {
	struct semaphore	*sem;
	struct completion	done;
};

static int sem_life_upper_fn(void *data)
{
	struct sem_life_upper *u = data;

	up(u->sem);
	complete(&u->done);
	return 0;
}

/*
 * Queue @e on @sem (no unit free), pin the test to its CPU and call up()
 * on @sem from a kernel thread on another CPU, so that the grant
 * function, which takes @delay_ms, runs there while the test goes on
 * here.  Then wait, sleeping, until the grant function started.
 */
static bool sem_life_grant_elsewhere(struct kunit *test,
				     struct sem_life_upper *u,
				     struct semaphore *sem,
				     struct sem_life_entry *e,
				     unsigned int delay_ms)
{
	struct task_struct *task;
	unsigned long end;
	unsigned int cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");

	sema_init(sem, SEM_TEST_NO_UNITS);
	sem_life_entry_init(e, sem);
	e->delay_ms = delay_ms;
	KUNIT_ASSERT_EQ(test, down_entry(sem, &e->waiter), -EINPROGRESS);
	cpu = raw_smp_processor_id();
	if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
		return false;
	u->sem = sem;
	init_completion(&u->done);
	task = kthread_create(sem_life_upper_fn, u, "sem_life_up");
	if (IS_ERR(task))
		return false;
	kthread_bind(task, cpumask_any_but(cpu_online_mask, cpu));
	wake_up_process(task);
	end = jiffies + SEM_TEST_WAIT;
	while (!atomic_read(&e->started) && time_before(jiffies, end))
		usleep_range(100, 200);
	return atomic_read(&e->started) == 1;
}

/*
 * sem_shutdown() waits for a grant function of its semaphore that runs
 * on another CPU (settled by an up() there before the shutdown).
 */
static void sem_life_test_shutdown_waits_grant(struct kunit *test)
{
	struct sem_life_upper u;
	struct sem_life_entry e;
	struct semaphore sem;

	if (!sem_life_grant_elsewhere(test, &u, &sem, &e, 200)) {
		KUNIT_FAIL(test, "the grant function did not start");
		return;	/* leak: the thread may still use the stack */
	}
	sem_shutdown(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.finished), 1);
	KUNIT_EXPECT_TRUE(test, sem_life_wait(&u.done));
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, e.status, 0);
	up(&sem);
}

/*
 * Lifetimes, "shutdown from a work item": sem_shutdown() from the work
 * function of one of its own requests is a bug; it warns and does not
 * wait for that function (itself) instead of hanging.
 */
static void sem_life_test_shutdown_from_own_work(struct kunit *test)
{
	struct sem_life_req *r;
	struct semaphore *sem;

	sem = sem_life_sem_alloc(test, 1);
	r = sem_life_req_alloc(test, sem, system_unbound_wq);
	r->shutdown = sem;
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, system_unbound_wq), 0);
	if (!sem_life_wait(&r->ran)) {
		KUNIT_FAIL(test, "sem_shutdown() from its own work function hung");
		return;
	}
	KUNIT_EXPECT_EQ(test, r->status, 0);
	flush_work(&r->req.work);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	kfree(r);
	kfree(sem);
}

/*
 * Lifetimes, "free after -EALREADY": the reproducer of the review.  A
 * grant function calls up() on a semaphore with a queued request and
 * then cancels the request: the grant of that request is settled while a
 * grant function runs on this CPU, so its function would be deferred by
 * the per-CPU queue.  -EALREADY must mean that the work is queued.
 */
struct sem_life_canceller {
	struct sem_waiter	waiter;
	struct semaphore	*own;
	struct semaphore	*other;
	struct sem_life_req	*req;
	int			ret;
	bool			pending;
	int			runs;
};

static void sem_life_canceller_grant(struct sem_waiter *waiter, int status)
{
	struct sem_life_canceller *c = container_of(waiter,
					struct sem_life_canceller, waiter);

	up(c->other);
	c->ret = sem_async_cancel(c->other, &c->req->req);
	c->pending = work_pending(&c->req->req.work);
	c->runs = atomic_read(&c->req->runs);
	if (!status)
		up(c->own);
}

static void sem_life_test_cancel_already_queued(struct kunit *test)
{
	struct sem_life_canceller c = {};
	struct sem_life_blocker *blk;
	struct workqueue_struct *wq;
	struct semaphore s1, s2;

	wq = alloc_ordered_workqueue("sem_life_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	blk = sem_life_block(test, wq);
	sema_init(&s1, SEM_TEST_NO_UNITS);
	sema_init(&s2, SEM_TEST_NO_UNITS);
	c.own = &s1;
	c.other = &s2;
	c.req = sem_life_req_alloc(test, &s2, wq);
	c.ret = 1;
	sem_waiter_init(&c.waiter, sem_life_canceller_grant);
	KUNIT_EXPECT_EQ(test, down_async(&s2, &c.req->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&s1, &c.waiter), -EINPROGRESS);

	up(&s1);
	KUNIT_EXPECT_EQ(test, c.ret, -EALREADY);
	KUNIT_EXPECT_TRUE_MSG(test, c.pending || c.runs,
			      "-EALREADY but the work is neither queued nor run");
	complete(&blk->release);
	KUNIT_EXPECT_TRUE(test, sem_life_wait(&c.req->ran));
	KUNIT_EXPECT_EQ(test, c.req->status, 0);
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.req->runs), 1);
	/* The request gave its unit back; the grant function its own. */
	KUNIT_EXPECT_EQ(test, sem_count(&s2), 1U);
	KUNIT_EXPECT_EQ(test, sem_count(&s1), 1U);
	kfree(c.req);
	kfree(blk);
}

/* Lifetimes, "free after cancel 0": a queued request, cancelled. */
static void sem_life_test_cancel_sync_queued(struct kunit *test)
{
	struct sem_life_req *r;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	r = sem_life_req_alloc(test, &sem, system_wq);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, system_wq),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r->req), 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	up(&sem);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	kfree(r);
}

/*
 * Lifetimes, "free after -EALREADY": granted, but its work has not
 * started (its ordered workqueue is busy): sem_async_cancel_sync() takes
 * the work off and gives the unit back; the function never runs.
 */
static void sem_life_test_cancel_sync_pending(struct kunit *test)
{
	struct sem_life_blocker *blk;
	struct workqueue_struct *wq;
	struct sem_life_req *r;
	struct semaphore sem;

	wq = alloc_ordered_workqueue("sem_life_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	blk = sem_life_block(test, wq);
	sema_init(&sem, 1);
	r = sem_life_req_alloc(test, &sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, wq), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	KUNIT_EXPECT_TRUE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_EQ(test, sem_async_cancel(&sem, &r->req), -EALREADY);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r->req), 0);
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);

	/* Idle again: it may be submitted again and runs normally. */
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, wq), 0);
	complete(&blk->release);
	KUNIT_EXPECT_TRUE(test, sem_life_wait(&r->ran));
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	kfree(r);
	kfree(blk);
}

struct sem_life_sync_caller {
	struct semaphore	*sem;
	struct sem_life_req	*req;
	int			ret;
	int			runs_at_return;
	struct completion	done;
};

static int sem_life_sync_caller_fn(void *data)
{
	struct sem_life_sync_caller *c = data;

	c->ret = sem_async_cancel_sync(c->sem, &c->req->req);
	c->runs_at_return = atomic_read(&c->req->runs);
	complete(&c->done);
	return 0;
}

/*
 * Lifetimes, "free after -EALREADY": the work function runs; the sleeping
 * cancel returns only once it has returned.
 */
static void sem_life_test_cancel_sync_running(struct kunit *test)
{
	struct sem_life_sync_caller *c;
	struct task_struct *task;
	struct sem_life_req *r;
	struct semaphore *sem;

	sem = sem_life_sem_alloc(test, 1);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	r = sem_life_req_alloc(test, sem, system_unbound_wq);
	r->block = true;
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, system_unbound_wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->started));

	c->sem = sem;
	c->req = r;
	c->ret = 1;
	init_completion(&c->done);
	task = kthread_run(sem_life_sync_caller_fn, c, "sem_life_cancel");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&c->done));
	complete(&r->proceed);
	if (!sem_life_wait(&c->done)) {
		KUNIT_FAIL(test, "sem_async_cancel_sync() did not return");
		return;
	}
	KUNIT_EXPECT_EQ(test, c->ret, -EALREADY);
	KUNIT_EXPECT_EQ(test, c->runs_at_return, 1);
	KUNIT_EXPECT_TRUE(test, completion_done(&r->ran));
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	kfree(r);
	kfree(c);
	kfree(sem);
}

/*
 * Lifetimes, "concurrent cancels": a granted request whose work has not
 * started (its ordered workqueue is busy) is cancelled by a thread on
 * another CPU, which takes the work off and gives the unit back with up().
 * That up() grants an entry whose grant function takes 500 ms, in the
 * thread's context.  A second sem_async_cancel_sync() of the request,
 * made here meanwhile, must not return before the first one's up() has
 * returned: until then the request is still in the semaphore's hands, and
 * an owner that freed it (or the semaphore) after the second call would
 * free it under the first.  Both report 0: the work function never runs.
 */
static void sem_life_test_cancel_sync_concurrent(struct kunit *test)
{
	struct sem_life_sync_caller *c;
	struct sem_life_blocker *blk;
	struct workqueue_struct *wq;
	struct sem_life_entry *e;
	struct task_struct *task;
	struct sem_life_req *r;
	struct semaphore *sem;
	unsigned long end;
	unsigned int cpu;
	int ret, finished;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");

	wq = alloc_ordered_workqueue("sem_life_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	blk = sem_life_block(test, wq);
	sem = sem_life_sem_alloc(test, 1);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, e);
	r = sem_life_req_alloc(test, sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), 0);
	KUNIT_EXPECT_TRUE(test, work_pending(&r->req.work));
	sem_life_entry_init(e, sem);
	e->delay_ms = 500;
	KUNIT_EXPECT_EQ(test, down_entry(sem, &e->waiter), -EINPROGRESS);

	c->sem = sem;
	c->req = r;
	c->ret = 1;
	init_completion(&c->done);
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	task = kthread_create(sem_life_sync_caller_fn, c, "sem_life_cancel");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, cpumask_any_but(cpu_online_mask, cpu));
	wake_up_process(task);
	end = jiffies + SEM_TEST_WAIT;
	while (!atomic_read(&e->started) && time_before(jiffies, end))
		usleep_range(100, 200);
	KUNIT_ASSERT_EQ(test, atomic_read(&e->started), 1);

	/* The first call is inside its up(), in the grant function. */
	ret = sem_async_cancel_sync(sem, &r->req);
	finished = atomic_read(&e->finished);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ_MSG(test, finished, 1,
			    "returned while the other cancel was still in up()");
	/* It waited for the other call's take-off: the work does not run. */
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!sem_life_wait(&c->done)) {
		KUNIT_FAIL(test, "the first sem_async_cancel_sync() did not return");
		return;	/* leak: the thread may still use them */
	}
	KUNIT_EXPECT_EQ(test, c->ret, 0);
	KUNIT_EXPECT_EQ(test, e->status, 0);
	complete(&blk->release);
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 0);
	/* The entry holds the unit that the taken-off request gave back. */
	KUNIT_EXPECT_EQ(test, sem_count(sem), 0U);
	up(sem);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	kfree(r);
	kfree(e);
	kfree(c);
	kfree(blk);
	kfree(sem);
}

/*
 * Lifetimes, "free after -EALREADY": the work function submitted its
 * request to another semaphore and still runs.  The sleeping cancel,
 * given the first semaphore, removes it from the other one and waits for
 * the function; the request is then idle and may be freed.
 */
static void sem_life_test_cancel_sync_moved(struct kunit *test)
{
	struct sem_life_sync_caller *c;
	struct semaphore *a, *b;
	struct task_struct *task;
	struct sem_life_req *r;

	a = sem_life_sem_alloc(test, 1);
	b = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	r = sem_life_req_alloc(test, a, system_unbound_wq);
	r->move_to = b;
	r->block = true;
	KUNIT_EXPECT_EQ(test, down_async(a, &r->req, system_unbound_wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->started));
	KUNIT_EXPECT_EQ(test, r->resubmit_ret, -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(b));

	c->sem = a;
	c->req = r;
	c->ret = 1;
	init_completion(&c->done);
	task = kthread_run(sem_life_sync_caller_fn, c, "sem_life_cancel");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&c->done));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(b));
	complete(&r->proceed);
	if (!sem_life_wait(&c->done)) {
		KUNIT_FAIL(test, "sem_async_cancel_sync() did not return");
		return;
	}
	KUNIT_EXPECT_EQ(test, c->ret, 0);
	KUNIT_EXPECT_EQ(test, c->runs_at_return, 1);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(b));
	KUNIT_EXPECT_EQ(test, sem_count(a), 1U);
	up(b);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(b), 1U);
	kfree(r);
	kfree(c);
	kfree(a);
	kfree(b);
}

/*
 * Lifetimes, "resubmit": a work function that submits its request again
 * each time, getting the unit at once, does not keep the sleeping cancel
 * waiting: while it runs, down_async() refuses the request.
 */
static void sem_life_test_cancel_sync_resubmit(struct kunit *test)
{
	struct sem_life_req *r;
	struct semaphore sem;
	int runs, ret;

	sema_init(&sem, 1);
	r = sem_life_req_alloc(test, &sem, system_unbound_wq);
	r->resubmit = INT_MAX;
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, system_unbound_wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->started));
	usleep_range(10000, 11000);
	ret = sem_async_cancel_sync(&sem, &r->req);
	KUNIT_EXPECT_TRUE(test, ret == 0 || ret == -EALREADY);
	runs = atomic_read(&r->runs);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), runs);
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_GT(test, runs, 1);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	kunit_info(test, "%d runs before the cancel, last resubmission %d\n",
		   runs, r->resubmit_ret);
	kfree(r);
}

/*
 * Lifetimes, "resubmit": a request whose work is pending and has not
 * started is refused with -EBUSY and no unit is taken.
 */
static void sem_life_test_resubmit_pending(struct kunit *test)
{
	struct sem_life_blocker *blk;
	struct workqueue_struct *wq;
	struct sem_life_req *r;
	struct semaphore sem;

	wq = alloc_ordered_workqueue("sem_life_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	blk = sem_life_block(test, wq);
	sema_init(&sem, 2);
	r = sem_life_req_alloc(test, &sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, wq), 0);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, wq), -EBUSY);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	complete(&blk->release);
	KUNIT_EXPECT_TRUE(test, sem_life_wait(&r->ran));
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 2U);
	/* Nothing of it is left in flight: the shutdown returns. */
	if (sem_count(&sem) == 2)
		sem_shutdown(&sem);
	kfree(r);
	kfree(blk);
}

/*
 * Lifetimes, "resubmit": from its own work function, with the unit free
 * at once: the grant waits for the run to return and is queued then (that
 * the runs do not overlap is sem_life_test_work_run_resubmits'); it runs
 * again after, and sem_shutdown() finds nothing left over.
 */
static void sem_life_test_resubmit_from_work(struct kunit *test)
{
	unsigned long end = jiffies + SEM_TEST_WAIT;
	struct sem_life_req *r;
	struct semaphore sem;

	sema_init(&sem, 1);
	r = sem_life_req_alloc(test, &sem, system_wq);
	r->resubmit = 1;
	r->resubmit_ret = 1;
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, system_wq), 0);
	while (atomic_read(&r->runs) < 2 && time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, r->resubmit_ret, 0);
	flush_work(&r->req.work);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 2);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_shutdown(&sem);
	kfree(r);
}

/*
 * A request whose first run submits it again to a second semaphore and
 * lets that run start, and what the runs saw of each other.
 */
struct sem_life_twice {
	struct sem_async	req;
	struct workqueue_struct	*wq;
	struct semaphore	*first;
	struct semaphore	*second;
	struct sem_life_blocker	*blk;	/* released by the first run */
	bool			cancel;	/* the first run cancels it, too */
	atomic_t		running;
	atomic_t		runs;
	atomic_t		overlaps;
	int			resubmit_ret;
	int			cancel_ret;
	struct task_struct	*first_task;
	struct completion	first_done;
	struct completion	ran_twice;
};

static void sem_life_twice_fn(struct work_struct *work)
{
	struct sem_life_twice *t = container_of(to_sem_async(work),
						struct sem_life_twice, req);
	int status = sem_async_status(&t->req);
	int run;

	if (atomic_inc_return(&t->running) > 1)
		atomic_inc(&t->overlaps);
	run = atomic_inc_return(&t->runs);
	if (run == 1) {
		t->first_task = current;
		if (!status)
			up(t->first);
		t->resubmit_ret = down_async(t->second, &t->req, t->wq);
		if (t->blk)
			complete(&t->blk->release);
		if (t->cancel)
			t->cancel_ret = sem_async_cancel_sync(t->second,
							      &t->req);
		/* Long enough for a second run to start, if it may. */
		msleep(100);
	} else if (!status) {
		up(t->second);
	}
	atomic_dec(&t->running);
	if (run == 1)
		complete(&t->first_done);
	else if (run == 2)
		complete(&t->ran_twice);
}

/* With its own workqueue, @ordered or not, and two semaphores of 1. */
static struct sem_life_twice *sem_life_twice_alloc(struct kunit *test,
						   bool ordered)
{
	struct sem_life_twice *t = kzalloc(sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	sem_async_init(&t->req, sem_life_twice_fn);
	t->wq = ordered ? alloc_ordered_workqueue("sem_life_ordered", 0) :
			  alloc_workqueue("sem_life_wq", WQ_UNBOUND, 0);
	KUNIT_ASSERT_NOT_NULL(test, t->wq);
	t->first = sem_life_sem_alloc(test, 1);
	t->second = sem_life_sem_alloc(test, 1);
	init_completion(&t->first_done);
	init_completion(&t->ran_twice);
	return t;
}

/*
 * Grant @t's request on its first semaphore at once, its work pending
 * behind a blocker of its ordered workqueue, and have a work item shut
 * that semaphore down, which then runs the first run itself.  Return
 * that work item, or NULL (the case failed) if sem_shutdown() hangs.
 */
static struct sem_life_stopper *sem_life_twice_shutdown(struct kunit *test,
							struct sem_life_twice *t)
{
	struct sem_life_stopper *s;

	t->blk = sem_life_block(test, t->wq);
	KUNIT_EXPECT_EQ(test, down_async(t->first, &t->req, t->wq), 0);
	KUNIT_EXPECT_TRUE(test, work_pending(&t->req.work));
	s = sem_life_stopper_alloc(test);
	s->shutdown = t->first;
	queue_work(system_unbound_wq, &s->work);
	if (!sem_life_wait(&s->done)) {
		KUNIT_FAIL(test, "sem_shutdown() did not return");
		return NULL;	/* leak: the stuck work still uses them */
	}
	/* sem_shutdown() ran the first run itself, in that work item. */
	KUNIT_EXPECT_PTR_EQ(test, t->first_task, s->task);
	KUNIT_EXPECT_EQ(test, t->resubmit_ret, 0);
	return s;
}

/*
 * End a case of @t: the workqueue flushed, @runs runs that never
 * overlapped, nothing pending, both units back.
 */
static void sem_life_twice_end(struct kunit *test, struct sem_life_twice *t,
			       struct sem_life_stopper *s, int runs)
{
	destroy_workqueue(t->wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->runs), runs);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&t->overlaps), 0,
			    "the function ran twice at the same time");
	KUNIT_EXPECT_FALSE(test, work_pending(&t->req.work));
	KUNIT_EXPECT_EQ(test, sem_count(t->first), 1U);
	KUNIT_EXPECT_EQ(test, sem_count(t->second), 1U);
	kfree(s);
	kfree(t->blk);
	kfree(t->first);
	kfree(t->second);
	kfree(t);
}

/*
 * Lifetimes, "resubmit": sem_shutdown() runs the function of a granted
 * request whose work has not started itself (its ordered workqueue is
 * busy), and that run submits the request to another semaphore, whose
 * unit is free.  The work item of that grant must not run while the
 * first run, which the workqueue does not know about, still runs: it is
 * queued when the first run has returned.
 */
static void sem_life_test_shutdown_run_resubmits(struct kunit *test)
{
	struct sem_life_stopper *s;
	struct sem_life_twice *t;

	t = sem_life_twice_alloc(test, true);
	s = sem_life_twice_shutdown(test, t);
	if (!s)
		return;
	if (!sem_life_wait(&t->ran_twice)) {
		KUNIT_FAIL(test, "the grant on the second semaphore did not run");
		return;	/* leak: its work may still run */
	}
	sem_life_twice_end(test, t, s, 2);
}

/*
 * Lifetimes, "cancel from own work" (a bug of the caller): the function
 * submits its request again, gets the unit at once, so that its work is
 * queued behind itself, and then calls sem_async_cancel_sync().  The call
 * warns about the running function, which it does not wait for, and
 * takes the new grant off (0): it neither waits for itself for ever nor
 * leaves the request in flight.  The second run never happens.
 */
static void sem_life_test_cancel_sync_from_own_work(struct kunit *test)
{
	struct sem_life_twice *t;

	t = sem_life_twice_alloc(test, false);
	t->cancel = true;
	kunit_info(test, "a warning from sem_async_cancel_sync() may follow\n");
	KUNIT_EXPECT_EQ(test, down_async(t->first, &t->req, t->wq), 0);
	if (!sem_life_wait(&t->first_done)) {
		KUNIT_FAIL(test, "sem_async_cancel_sync() from the work function did not return");
		return;	/* leak: the work still uses them */
	}
	KUNIT_EXPECT_EQ(test, t->resubmit_ret, 0);
	KUNIT_EXPECT_EQ(test, t->cancel_ret, 0);
	sem_life_twice_end(test, t, NULL, 1);
}

/*
 * Lifetimes, "resubmit": as sem_life_test_shutdown_run_resubmits, and the
 * run that sem_shutdown() makes then cancels the new grant, whose
 * queueing was left to that run.  The cancel takes it off (0) and gives
 * the unit back; the run does not queue it, so there is no second run.
 */
static void sem_life_test_shutdown_run_cancels(struct kunit *test)
{
	struct sem_life_stopper *s;
	struct sem_life_twice *t;

	t = sem_life_twice_alloc(test, true);
	t->cancel = true;
	s = sem_life_twice_shutdown(test, t);
	if (!s)
		return;
	KUNIT_EXPECT_EQ(test, t->cancel_ret, 0);
	sem_life_twice_end(test, t, s, 1);
}

/*
 * Lifetimes, "resubmit": a work function, run by its work item, submits
 * its request to a second semaphore and gets the unit at once.  Its work
 * is not queued while the function still runs (it would be pending on a
 * workqueue that may run it elsewhere, and that sem_shutdown() would
 * take it off and run it itself): it is queued once the function has
 * returned.  So a sem_shutdown() of the second semaphore meanwhile waits
 * for the first run, and the two runs never overlap.
 */
static void sem_life_test_work_run_resubmits(struct kunit *test)
{
	struct sem_life_stopper *s;
	struct sem_life_twice *t;
	unsigned long end;
	bool pending;

	t = sem_life_twice_alloc(test, false);
	s = sem_life_stopper_alloc(test);
	s->shutdown = t->second;
	KUNIT_EXPECT_EQ(test, down_async(t->first, &t->req, t->wq), 0);
	/* The first run took the second semaphore's unit; it runs 100 ms. */
	end = jiffies + SEM_TEST_WAIT;
	while (sem_count(t->second) && time_before(jiffies, end))
		usleep_range(100, 200);
	KUNIT_ASSERT_EQ(test, sem_count(t->second), 0U);
	/* Pending first, then running: a run that just ended may queue it. */
	pending = work_pending(&t->req.work);
	if (atomic_read(&t->running))
		KUNIT_EXPECT_FALSE_MSG(test, pending,
				       "a grant was queued while the function ran");
	queue_work(system_unbound_wq, &s->work);
	if (!sem_life_wait(&s->done) || !sem_life_wait(&t->ran_twice)) {
		KUNIT_FAIL(test, "sem_shutdown() or the second run did not return");
		return;	/* leak: they may still use them */
	}
	KUNIT_EXPECT_EQ(test, t->resubmit_ret, 0);
	sem_life_twice_end(test, t, s, 2);
}

/*
 * A request whose work function frees it and gets the memory back at once
 * (here: initialises it anew in place) as a new request, for another
 * function, and submits that to a second semaphore.
 */
enum sem_life_reuse_mode {
	SEM_LIFE_REUSE_WAIT,		/* then wait for the new request's run */
	SEM_LIFE_REUSE_SHUTDOWN,	/* then shut the second semaphore down */
	SEM_LIFE_REUSE_GRANTED,		/* submit first, then initialise */
	SEM_LIFE_REUSE_CANCEL,		/* then have another task cancel it */
};

struct sem_life_reuse {
	struct sem_async	req;
	struct semaphore	*a;
	struct semaphore	*x;
	struct workqueue_struct	*xwq;	/* for the second submission */
	enum sem_life_reuse_mode mode;
	atomic_t		runs;
	int			submit_ret;
	bool			waited;
	bool			x_ran_first;
	struct completion	x_ran;
	struct completion	a_done;
	struct work_struct	canceller;
	int			cancel_ret;
	struct completion	cancelled;
};

/* Another task cancels the new request, waiting for it as it must. */
static void sem_life_reuse_cancel_fn(struct work_struct *work)
{
	struct sem_life_reuse *u = container_of(work, struct sem_life_reuse,
						canceller);

	u->cancel_ret = sem_async_cancel_sync(u->x, &u->req);
	complete_all(&u->cancelled);
}

/* The run for the second semaphore's grant: the new request's, or the old. */
static void sem_life_reuse_x_fn(struct work_struct *work)
{
	struct sem_life_reuse *u = container_of(to_sem_async(work),
						struct sem_life_reuse, req);

	if (!sem_async_status(&u->req))
		up(u->x);
	complete_all(&u->x_ran);
}

static void sem_life_reuse_a_fn(struct work_struct *work)
{
	struct sem_life_reuse *u = container_of(to_sem_async(work),
						struct sem_life_reuse, req);

	if (atomic_inc_return(&u->runs) > 1) {
		sem_life_reuse_x_fn(work);
		return;
	}
	if (!sem_async_status(&u->req))
		up(u->a);
	if (u->mode == SEM_LIFE_REUSE_GRANTED) {
		u->submit_ret = down_async(u->x, &u->req, u->xwq);
		/* Refused with a warning: the request holds a grant. */
		sem_async_init(&u->req, sem_life_reuse_x_fn);
	} else {
		sem_async_init(&u->req, sem_life_reuse_x_fn);
		u->submit_ret = down_async(u->x, &u->req, u->xwq);
	}
	if (u->mode == SEM_LIFE_REUSE_WAIT)
		u->waited = wait_for_completion_timeout(&u->x_ran, HZ);
	if (u->mode == SEM_LIFE_REUSE_CANCEL) {
		/* Queued (no unit): the new request's function never runs. */
		queue_work(system_unbound_wq, &u->canceller);
		u->waited = wait_for_completion_timeout(&u->cancelled, HZ);
		/* The unit the test took, so that the request had to queue. */
		up(u->x);
		complete_all(&u->x_ran);
	}
	if (u->mode == SEM_LIFE_REUSE_SHUTDOWN) {
		sem_shutdown(u->x);
		u->x_ran_first = completion_done(&u->x_ran);
	}
	complete(&u->a_done);
}

static struct sem_life_reuse *sem_life_reuse_alloc(struct kunit *test,
						   enum sem_life_reuse_mode mode,
						   struct workqueue_struct *xwq)
{
	struct sem_life_reuse *u = kzalloc(sizeof(*u), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, u);
	u->a = sem_life_sem_alloc(test, 1);
	u->x = sem_life_sem_alloc(test, 1);
	u->xwq = xwq;
	u->mode = mode;
	init_completion(&u->x_ran);
	init_completion(&u->a_done);
	init_completion(&u->cancelled);
	INIT_WORK(&u->canceller, sem_life_reuse_cancel_fn);
	sem_async_init(&u->req, sem_life_reuse_a_fn);
	return u;
}

/* Submit to the first semaphore; both runs done, both units back. */
static bool sem_life_reuse_run(struct kunit *test, struct sem_life_reuse *u,
			       int runs, int submit_ret)
{
	KUNIT_EXPECT_EQ(test, down_async(u->a, &u->req, system_unbound_wq), 0);
	if (!sem_life_wait(&u->a_done) || !sem_life_wait(&u->x_ran)) {
		KUNIT_FAIL(test, "a work function did not return");
		return false;	/* leak: it may still use them */
	}
	KUNIT_EXPECT_EQ(test, u->submit_ret, submit_ret);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->runs), runs);
	KUNIT_EXPECT_EQ(test, sem_count(u->a), 1U);
	KUNIT_EXPECT_EQ(test, sem_count(u->x), 1U);
	return true;
}

static void sem_life_reuse_free(struct sem_life_reuse *u)
{
	kfree(u->a);
	kfree(u->x);
	kfree(u);
}

/*
 * Lifetimes, "free after grant": the function may free its request; a new
 * request that gets the same address is not the old one.  Its grant is
 * not left to the run of the old request's function, which here waits for
 * the new request's work (on a workqueue of another pool): it runs at
 * once.
 */
static void sem_life_test_reinit_in_work(struct kunit *test)
{
	struct sem_life_reuse *u;

	u = sem_life_reuse_alloc(test, SEM_LIFE_REUSE_WAIT, system_wq);
	if (!sem_life_reuse_run(test, u, 1, 0))
		return;
	KUNIT_EXPECT_TRUE_MSG(test, u->waited,
			      "the new request's work waited for the old one's function");
	sem_life_reuse_free(u);
}

/*
 * Lifetimes, "shutdown in a work item": as sem_life_test_reinit_in_work,
 * the new request's work pending on a busy ordered workqueue, and the old
 * function then shuts the second semaphore down.  The new request is not
 * the caller's own: sem_shutdown() takes its work off and runs it before
 * it returns.
 */
static void sem_life_test_reinit_shutdown_in_work(struct kunit *test)
{
	struct workqueue_struct *wq;
	struct sem_life_blocker *blk;
	struct sem_life_reuse *u;

	wq = alloc_ordered_workqueue("sem_life_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	blk = sem_life_block(test, wq);
	u = sem_life_reuse_alloc(test, SEM_LIFE_REUSE_SHUTDOWN, wq);
	if (!sem_life_reuse_run(test, u, 1, 0))
		return;
	KUNIT_EXPECT_TRUE_MSG(test, u->x_ran_first,
			      "sem_shutdown() returned before the new request's function ran");
	complete(&blk->release);
	destroy_workqueue(wq);
	kfree(blk);
	sem_life_reuse_free(u);
}

/*
 * Misuse: the function submits its request again, gets the unit at once
 * (its grant waits for the function to return) and then initialises it.
 * sem_async_init() refuses with a warning and changes nothing: the grant
 * runs the function a second time once the first run has returned.
 */
static void sem_life_test_init_granted(struct kunit *test)
{
	struct sem_life_reuse *u;

	u = sem_life_reuse_alloc(test, SEM_LIFE_REUSE_GRANTED,
				 system_unbound_wq);
	kunit_info(test, "a warning from sem_async_init() may follow\n");
	if (!sem_life_reuse_run(test, u, 2, 0))
		return;
	sem_life_reuse_free(u);
}

/*
 * Lifetimes, "free after -EALREADY": as sem_life_test_reinit_in_work, the
 * new request queued on the second semaphore (no unit), and the old
 * function waits while another task cancels the new request with
 * sem_async_cancel_sync().  The old function's run is not a run of the
 * new request: the call removes it (0) without waiting for that run.
 */
static void sem_life_test_reinit_cancel_in_work(struct kunit *test)
{
	struct sem_life_reuse *u;

	u = sem_life_reuse_alloc(test, SEM_LIFE_REUSE_CANCEL,
				 system_unbound_wq);
	KUNIT_ASSERT_EQ(test, down_trylock(u->x), 0);
	if (!sem_life_reuse_run(test, u, 1, -EINPROGRESS))
		return;
	KUNIT_EXPECT_TRUE_MSG(test, u->waited,
			      "the cancel of the new request waited for the old one's function");
	if (!sem_life_wait(&u->cancelled)) {
		KUNIT_FAIL(test, "sem_async_cancel_sync() did not return");
		return;	/* leak: it may still use them */
	}
	KUNIT_EXPECT_EQ(test, u->cancel_ret, 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(u->x));
	sem_life_reuse_free(u);
}

/*
 * The other side of a race, run where sem_async_cancel_sync() stops (a
 * KUnit static stub of lib/semaphore.c), and what the test needs there.
 */
static struct workqueue_struct *sem_life_window_wq;
static struct sem_life_blocker *sem_life_window_blk;
static struct sem_life_stopper *sem_life_window_stopper;
static bool sem_life_window_returned;

/* The pending work of the request starts, and finishes. */
static void sem_life_window_work_runs(struct sem_async *req)
{
	complete(&sem_life_window_blk->release);
	flush_workqueue(sem_life_window_wq);
}

/*
 * Lifetimes, "free after -EALREADY": a request is granted, its work
 * pending behind a blocker.  Its work starts once sem_async_cancel_sync()
 * has begun, sees the call and gives the unit back, all before the call
 * first looks at the request.  The call caused that take-off: it returns
 * 0 (the function does not run), not -ENOENT ("not submitted").
 */
static void sem_life_test_cancel_sync_early_give_back(struct kunit *test)
{
	struct workqueue_struct *wq;
	struct sem_life_req *r;
	struct semaphore *sem;
	int ret;

	wq = alloc_ordered_workqueue("sem_life_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	sem_life_window_wq = wq;
	sem_life_window_blk = sem_life_block(test, wq);
	sem = sem_life_sem_alloc(test, 1);
	r = sem_life_req_alloc(test, sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), 0);
	KUNIT_EXPECT_TRUE(test, work_pending(&r->req.work));

	kunit_activate_static_stub(test, sem_test_cancel_begun,
				   sem_life_window_work_runs);
	ret = sem_async_cancel_sync(sem, &r->req);
	kunit_deactivate_static_stub(test, sem_test_cancel_begun);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	destroy_workqueue(wq);
	kfree(sem_life_window_blk);
	kfree(r);
	kfree(sem);
}

/* A submission of the request while the call runs. */
static struct semaphore *sem_life_window_sem;
static int sem_life_window_ret;

static void sem_life_window_resubmit(struct sem_async *req)
{
	sem_life_window_ret = down_async(sem_life_window_sem, req,
					 system_unbound_wq);
}

/*
 * Lifetimes, "resubmit": while sem_async_cancel_sync() runs for a request,
 * down_async() refuses it with -ECANCELED and takes no unit (a work
 * function that keeps submitting its request cannot keep the call
 * waiting); the call then finds nothing submitted.  Submitted after the
 * call, the request runs as usual.
 */
static void sem_life_test_cancel_sync_refuses_resubmit(struct kunit *test)
{
	struct sem_life_req *r;
	struct semaphore *sem;
	int ret;

	sem = sem_life_sem_alloc(test, 1);
	r = sem_life_req_alloc(test, sem, system_unbound_wq);
	sem_life_window_sem = sem;
	sem_life_window_ret = 1;

	kunit_activate_static_stub(test, sem_test_cancel_begun,
				   sem_life_window_resubmit);
	ret = sem_async_cancel_sync(sem, &r->req);
	kunit_deactivate_static_stub(test, sem_test_cancel_begun);
	KUNIT_EXPECT_EQ(test, sem_life_window_ret, -ECANCELED);
	KUNIT_EXPECT_EQ(test, ret, -ENOENT);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 0);

	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, system_unbound_wq), 0);
	if (!sem_life_wait(&r->ran)) {
		KUNIT_FAIL(test, "the request submitted after the call did not run");
		return;	/* leak: its work may still run */
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	/* Waits until the work function has returned. */
	sem_shutdown(sem);
	kfree(r);
	kfree(sem);
}

/* The second semaphore's owner shuts it down; did that return at once? */
static void sem_life_window_shutdown(struct sem_async *req)
{
	queue_work(system_unbound_wq, &sem_life_window_stopper->work);
	sem_life_window_returned =
		wait_for_completion_timeout(&sem_life_window_stopper->done,
					    msecs_to_jiffies(500));
}

/*
 * Lifetimes, "free after -EALREADY": the work function moved its request
 * to a second semaphore, where it waits; the owner cancels it with
 * sem_async_cancel_sync() on the first, and the call follows it to the
 * second.  The second semaphore's owner shuts it down meanwhile and may
 * free it once sem_shutdown() returns: so sem_shutdown() must wait until
 * the call is done with it.  The request, failed by sem_shutdown() while
 * the call runs, is given back: 0, one run only.
 */
static void sem_life_test_cancel_sync_pins_moved(struct kunit *test)
{
	struct semaphore *a, *b;
	struct sem_life_req *r;
	int ret;

	a = sem_life_sem_alloc(test, 1);
	b = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	r = sem_life_req_alloc(test, a, system_unbound_wq);
	r->move_to = b;
	KUNIT_EXPECT_EQ(test, down_async(a, &r->req, system_unbound_wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->ran));
	KUNIT_EXPECT_EQ(test, r->resubmit_ret, -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(b));
	sem_life_window_stopper = sem_life_stopper_alloc(test);
	sem_life_window_stopper->shutdown = b;
	sem_life_window_returned = false;

	kunit_activate_static_stub(test, sem_test_cancel_pinned,
				   sem_life_window_shutdown);
	ret = sem_async_cancel_sync(a, &r->req);
	kunit_deactivate_static_stub(test, sem_test_cancel_pinned);
	KUNIT_EXPECT_FALSE_MSG(test, sem_life_window_returned,
			       "sem_shutdown() returned while sem_async_cancel_sync() used the semaphore");
	if (!sem_life_wait(&sem_life_window_stopper->done)) {
		KUNIT_FAIL(test, "sem_shutdown() did not return");
		return;	/* leak: the stuck work still uses them */
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(a), 1U);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(b));
	kfree(sem_life_window_stopper);
	kfree(r);
	kfree(a);
	kfree(b);
}

static enum hrtimer_restart sem_life_irq_up(struct hrtimer *timer)
{
	struct sem_life_entry *e = container_of(timer, struct sem_life_entry,
						timer);

	up(e->irq_up);
	e->other_calls = atomic_read(&e->other->finished);
	atomic_inc(&e->irq_fired);
	return HRTIMER_NORESTART;
}

static void sem_life_irq_grant(struct sem_waiter *waiter, int status)
{
	struct sem_life_entry *e = container_of(waiter, struct sem_life_entry,
						waiter);
	unsigned long end = jiffies + HZ;

	e->status = status;
	e->cpu = raw_smp_processor_id();
	hrtimer_start(&e->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (!atomic_read(&e->irq_fired) && time_before(jiffies, end))
		cpu_relax();
	/* The interrupt's grant has not run: it waits for this function. */
	e->requeue_ret = atomic_read(&e->other->finished);
	atomic_inc(&e->finished);
}

/*
 * up() from an interrupt that arrives while a grant function runs on the
 * same CPU: that up() returns first, and the grant function it settled
 * runs right after the running one, on this CPU, not in the interrupt.
 */
static void sem_life_test_up_irq_during_grant(struct kunit *test)
{
	struct sem_life_entry outer, inner;
	struct semaphore s1, s2;

	sema_init(&s1, SEM_TEST_NO_UNITS);
	sema_init(&s2, SEM_TEST_NO_UNITS);
	memset(&outer, 0, sizeof(outer));
	sem_waiter_init(&outer.waiter, sem_life_irq_grant);
	outer.requeue_ret = -1;
	outer.irq_up = &s2;
	outer.other = &inner;
	hrtimer_init_on_stack(&outer.timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	outer.timer.function = sem_life_irq_up;
	sem_life_entry_init(&inner, &s2);
	KUNIT_EXPECT_EQ(test, down_entry(&s2, &inner.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&s1, &outer.waiter), -EINPROGRESS);

	up(&s1);
	hrtimer_cancel(&outer.timer);
	destroy_hrtimer_on_stack(&outer.timer);

	KUNIT_EXPECT_EQ(test, atomic_read(&outer.irq_fired), 1);
	/* Neither inside the interrupt nor inside the outer function. */
	KUNIT_EXPECT_EQ(test, outer.other_calls, 0);
	KUNIT_EXPECT_EQ(test, outer.requeue_ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner.finished), 1);
	KUNIT_EXPECT_EQ(test, inner.status, 0);
	KUNIT_EXPECT_FALSE(test, inner.hardirq);
	KUNIT_EXPECT_FALSE(test, inner.preemptible);
	KUNIT_EXPECT_EQ(test, inner.cpu, outer.cpu);
}

/*
 * sem_cancel() acts on the entry's current queueing: an entry that its
 * grant function queued on another semaphore is not on this one any
 * more (-EINVAL, nothing changed); cancelled there, it is removed.
 */
static void sem_life_test_cancel_requeued_elsewhere(struct kunit *test)
{
	struct semaphore a, b;
	struct sem_life_entry e;

	sema_init(&a, SEM_TEST_NO_UNITS);
	sema_init(&b, SEM_TEST_NO_UNITS);
	sem_life_entry_init(&e, &a);
	e.requeue_on = &b;
	e.other = &e;
	KUNIT_EXPECT_EQ(test, down_entry(&a, &e.waiter), -EINPROGRESS);
	up(&a);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.finished), 1);
	KUNIT_EXPECT_EQ(test, e.requeue_ret, -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_cancel(&a, &e.waiter), -EINVAL);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&b));
	KUNIT_EXPECT_EQ(test, sem_cancel(&b, &e.waiter), 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&b));
	up(&a);
	KUNIT_EXPECT_EQ(test, sem_count(&a), 1U);
}

/*
 * Lifetimes, "free after -EALREADY", for down_entry(): sem_cancel_sync()
 * returns once a grant function running on another CPU has returned.
 */
static void sem_life_test_entry_cancel_sync(struct kunit *test)
{
	struct sem_life_upper u;
	struct sem_life_entry e;
	struct semaphore sem;

	if (!sem_life_grant_elsewhere(test, &u, &sem, &e, 100)) {
		KUNIT_FAIL(test, "the grant function did not start");
		return;
	}
	KUNIT_EXPECT_EQ(test, sem_cancel_sync(&sem, &e.waiter), -EALREADY);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.finished), 1);
	KUNIT_EXPECT_TRUE(test, sem_life_wait(&u.done));
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	up(&sem);
}

/* Lifetimes, "free after grant": the work function frees its request. */
struct sem_life_owned {
	struct sem_async	req;
	struct semaphore	*sem;
};

static void sem_life_free_work(struct work_struct *work)
{
	struct sem_life_owned *o = container_of(to_sem_async(work),
						struct sem_life_owned, req);

	if (!sem_async_status(&o->req))
		up(o->sem);
	kfree(o);
}

static void sem_life_test_free_in_work(struct kunit *test)
{
	struct sem_life_owned *o;
	struct semaphore sem;
	int i, ret;

	sema_init(&sem, 1);
	for (i = 0; i < 4; i++) {
		o = kzalloc(sizeof(*o), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o);
		sem_async_init(&o->req, sem_life_free_work);
		o->sem = &sem;
		ret = down_async(&sem, &o->req, system_wq);
		KUNIT_EXPECT_TRUE(test, ret == 0 || ret == -EINPROGRESS);
	}
	/* Waits for the work functions, which free their requests. */
	sem_shutdown(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

struct sem_life_freer {
	void			*ptr;
	struct completion	done;
};

static int sem_life_freer_fn(void *data)
{
	struct sem_life_freer *f = data;

	kfree(f->ptr);
	complete(&f->done);
	return 0;
}

/* kfree() in a kernel thread, so that a kfree() that loops fails, not hangs. */
static bool sem_life_kfree(struct kunit *test, void *ptr)
{
	struct sem_life_freer *f = kzalloc(sizeof(*f), GFP_KERNEL);
	struct task_struct *task;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ptr = ptr;
	init_completion(&f->done);
	task = kthread_run(sem_life_freer_fn, f, "sem_life_kfree");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	if (!sem_life_wait(&f->done))
		return false;	/* leak @f: the thread still uses it */
	kfree(f);
	return true;
}

/*
 * CONFIG_DEBUG_SEMAPHORE: sem_shutdown() with a sleeper, then sema_init(),
 * then kfree().  The re-initialisation is caught and the sleeper taken
 * off (it times out); the kfree() finds nothing tracked and returns.
 */
static void sem_life_test_debug_reinit_sleeper(struct kunit *test)
{
	struct sem_test_thread *t;
	struct semaphore *sem;
	unsigned long holder;

	if (!IS_ENABLED(CONFIG_DEBUG_SEMAPHORE))
		kunit_skip(test, "needs CONFIG_DEBUG_SEMAPHORE");

	sem = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	t = sem_test_thread_run_queued(test, sem, SEM_TEST_TIMEOUT, HZ, false);
	sem_shutdown(sem);
	sema_init(sem, SEM_TEST_NO_UNITS);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	/* Nor does its task point at it for the hung-task report. */
	KUNIT_EXPECT_FALSE(test, sem_task_blocker(t->task, &holder));
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, -ETIME);
	sem_test_thread_put(test, t);
	KUNIT_EXPECT_TRUE_MSG(test, sem_life_kfree(test, sem),
			      "kfree() of the re-initialised semaphore did not return");
}

/*
 * CONFIG_DEBUG_SEMAPHORE: sem_waiter_init() on a queued entry takes it off
 * its semaphore's list first; the kfree() of the entry then returns.
 */
static void sem_life_test_debug_waiter_reinit(struct kunit *test)
{
	struct sem_life_entry *e;
	struct semaphore sem;

	if (!IS_ENABLED(CONFIG_DEBUG_SEMAPHORE))
		kunit_skip(test, "needs CONFIG_DEBUG_SEMAPHORE");

	sema_init(&sem, SEM_TEST_NO_UNITS);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	sem_life_entry_init(e, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e->waiter), -EINPROGRESS);
	sem_waiter_init(&e->waiter, sem_life_grant);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_TRUE_MSG(test, sem_life_kfree(test, e),
			      "kfree() of the re-initialised entry did not return");
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/*
 * CONFIG_DEBUG_SEMAPHORE: a semaphore freed with a queued entry whose
 * grant function queues again.  The fixup marks the semaphore shut down
 * first, so the grant function, which runs in the context of the kfree()
 * with preemption disabled and status -ESHUTDOWN, gets -ESHUTDOWN.
 */
static void sem_life_test_debug_free_requeue(struct kunit *test)
{
	struct sem_life_entry *e, *f;
	struct semaphore *sem;

	if (!IS_ENABLED(CONFIG_DEBUG_SEMAPHORE))
		kunit_skip(test, "needs CONFIG_DEBUG_SEMAPHORE");

	sem = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_NOT_NULL(test, f);
	sem_life_entry_init(e, sem);
	sem_life_entry_init(f, sem);
	e->requeue_on = sem;
	e->other = f;
	e->requeue_ret = 1;
	KUNIT_EXPECT_EQ(test, down_entry(sem, &e->waiter), -EINPROGRESS);
	if (!sem_life_kfree(test, sem)) {
		KUNIT_FAIL(test, "kfree() of the semaphore did not return");
		return;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&e->finished), 1);
	KUNIT_EXPECT_EQ(test, e->status, -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, e->preemptible);
	KUNIT_EXPECT_EQ(test, e->requeue_ret, -ESHUTDOWN);
	kfree(e);
	kfree(f);
}

static struct kunit_case sem_lifetime_test_cases[] = {
	KUNIT_CASE(sem_life_test_shutdown_other_sem),
	KUNIT_CASE(sem_life_test_shutdown_own_ordered),
	KUNIT_CASE(sem_life_test_shutdown_lock_held),
	KUNIT_CASE(sem_life_test_shutdown_waits_grant),
	KUNIT_CASE(sem_life_test_shutdown_from_own_work),
	KUNIT_CASE(sem_life_test_cancel_already_queued),
	KUNIT_CASE(sem_life_test_cancel_sync_queued),
	KUNIT_CASE(sem_life_test_cancel_sync_pending),
	KUNIT_CASE(sem_life_test_cancel_sync_running),
	KUNIT_CASE(sem_life_test_cancel_sync_concurrent),
	KUNIT_CASE(sem_life_test_cancel_sync_moved),
	KUNIT_CASE(sem_life_test_cancel_sync_resubmit),
	KUNIT_CASE(sem_life_test_resubmit_pending),
	KUNIT_CASE(sem_life_test_resubmit_from_work),
	KUNIT_CASE(sem_life_test_shutdown_run_resubmits),
	KUNIT_CASE(sem_life_test_shutdown_run_cancels),
	KUNIT_CASE(sem_life_test_cancel_sync_from_own_work),
	KUNIT_CASE(sem_life_test_work_run_resubmits),
	KUNIT_CASE(sem_life_test_reinit_in_work),
	KUNIT_CASE(sem_life_test_reinit_shutdown_in_work),
	KUNIT_CASE(sem_life_test_init_granted),
	KUNIT_CASE(sem_life_test_reinit_cancel_in_work),
	KUNIT_CASE(sem_life_test_cancel_sync_early_give_back),
	KUNIT_CASE(sem_life_test_cancel_sync_pins_moved),
	KUNIT_CASE(sem_life_test_cancel_sync_refuses_resubmit),
	KUNIT_CASE(sem_life_test_up_irq_during_grant),
	KUNIT_CASE(sem_life_test_cancel_requeued_elsewhere),
	KUNIT_CASE(sem_life_test_entry_cancel_sync),
	KUNIT_CASE(sem_life_test_free_in_work),
	KUNIT_CASE(sem_life_test_debug_reinit_sleeper),
	KUNIT_CASE(sem_life_test_debug_waiter_reinit),
	KUNIT_CASE(sem_life_test_debug_free_requeue),
	{}
};

static struct kunit_suite sem_lifetime_test_suite = {
	.name = "semaphore_lifetime",
	.test_cases = sem_lifetime_test_cases,
};

kunit_test_suite(sem_lifetime_test_suite);

MODULE_DESCRIPTION("KUnit tests for the lifetimes of asynchronous semaphore waiters");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

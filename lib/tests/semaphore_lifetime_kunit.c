// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the lifetimes of the semaphore's asynchronous waiters:
 * "the semaphore owns its wait queue, the workqueue owns the work".
 *
 * It checks that sem_shutdown() never waits and never runs a work
 * function, what the results of the cancel calls promise when they are
 * returned, resubmission of down_async() requests, grants whose work
 * cannot be queued, the refusals of busy requests and entries, the grant
 * functions that the per-CPU grant queue defers, and the
 * CONFIG_DEBUG_SEMAPHORE fixups.
 *
 * Only the public API is used: interleavings are forced with ordered
 * workqueues kept busy by a blocking work item, grant functions, kernel
 * threads and completions.  Every wait is bounded, and so is every work
 * function of the suite: a case that would hang on a broken semaphore
 * fails instead, and the objects that a stuck thread or work item may
 * still touch are then leaked, not freed.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "semaphore_kunit.h"

/*
 * Each case gets an ordered and an unbound workqueue, and memory that
 * sem_life_exit() frees after the case once the workqueues are drained,
 * or leaks if the case failed: a stuck thread or work may still use it.
 */
#define SEM_LIFE_MAX_OBJS	16

struct sem_life_fixture {
	struct workqueue_struct	*ordered;
	struct workqueue_struct	*unbound;
	unsigned int		nr_objs;
	void			*objs[SEM_LIFE_MAX_OBJS];
};

static struct workqueue_struct *sem_life_ordered(struct kunit *test)
{
	return ((struct sem_life_fixture *)test->priv)->ordered;
}

static struct workqueue_struct *sem_life_unbound(struct kunit *test)
{
	return ((struct sem_life_fixture *)test->priv)->unbound;
}

static void *sem_life_alloc(struct kunit *test, size_t size)
{
	struct sem_life_fixture *f = test->priv;
	void *p;

	KUNIT_ASSERT_LT(test, f->nr_objs, SEM_LIFE_MAX_OBJS);
	p = kzalloc(size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	f->objs[f->nr_objs++] = p;
	return p;
}

/* What the work functions of a case saw, shared by its requests. */
struct sem_life_ctx {
	atomic_t		seq;		/* runs begun, of all requests */
	atomic_t		running;	/* functions running now */
	atomic_t		overlaps;	/* a run began while another ran */
};

/* A down_async() request and what its work function did. */
struct sem_life_req {
	struct sem_async	req;
	struct semaphore	*sem;
	struct workqueue_struct	*wq;
	struct sem_life_ctx	own_ctx;
	struct sem_life_ctx	*ctx;
	int			status;		/* of the last run */
	atomic_t		runs;		/* runs begun */
	atomic_t		running;
	atomic_t		overlaps;	/* a run began while one ran */
	atomic_t		bad_context;	/* not run by its own work item */
	int			seq_first;	/* ctx->seq of the first run */
	int			seq_last;	/* ctx->seq of the last run */
	bool			release;	/* up() when granted */
	struct task_struct	*task;		/* who ran the function last */
	bool			block;		/* wait for @proceed */
	struct completion	started;	/* completed by every run */
	struct completion	proceed;	/* completed with complete_all() */
	int			resubmit;	/* down_async() again, this often */
	bool			resubmit_first;	/* before @block, not after it */
	int			resubmit_ret;
	unsigned int		count_after_resubmit;
	struct semaphore	*move_to;	/* resubmit there, not to @sem */
	/* sem_shutdown() after the up(), then look at @watch. */
	struct semaphore	*shutdown;
	struct sem_life_ctx	*watch;
	int			seq_after_shutdown;
	bool			wrong_func;	/* another function ran for it */
	struct completion	ran;		/* completed by every run */
};

static void sem_life_resubmit(struct sem_life_req *r)
{
	struct semaphore *sem = r->move_to ?: r->sem;

	if (r->resubmit <= 0)
		return;
	r->resubmit--;
	r->resubmit_ret = down_async(sem, &r->req, r->wq);
	r->count_after_resubmit = sem_count(sem);
}

static void sem_life_work(struct work_struct *work)
{
	struct sem_life_req *r = container_of(to_sem_async(work),
					      struct sem_life_req, req);
	int status = sem_async_status(&r->req);
	int seq = atomic_inc_return(&r->ctx->seq);

	if (atomic_inc_return(&r->running) > 1)
		atomic_inc(&r->overlaps);
	if (atomic_inc_return(&r->ctx->running) > 1)
		atomic_inc(&r->ctx->overlaps);
	/* Run by a worker, as the request's own work item, never inline. */
	if (!(current->flags & PF_WQ_WORKER) || current_work() != work)
		atomic_inc(&r->bad_context);
	if (atomic_inc_return(&r->runs) == 1)
		r->seq_first = seq;
	r->seq_last = seq;
	r->status = status;
	r->task = current;
	if (r->resubmit_first)
		sem_life_resubmit(r);
	complete(&r->started);
	if (r->block)
		wait_for_completion_timeout(&r->proceed, SEM_TEST_WAIT);
	if (!r->resubmit_first)
		sem_life_resubmit(r);
	if (!status && r->release)
		up(r->sem);
	if (r->shutdown) {
		sem_shutdown(r->shutdown);
		r->seq_after_shutdown = atomic_read(&r->watch->seq);
	}
	atomic_dec(&r->ctx->running);
	atomic_dec(&r->running);
	/* Last access: the test may free @r once it sees this. */
	complete(&r->ran);
}

/* A function that must never run: sem_async_init() should have refused. */
static void sem_life_wrong_work(struct work_struct *work)
{
	struct sem_life_req *r = container_of(to_sem_async(work),
					      struct sem_life_req, req);

	r->wrong_func = true;
	if (!sem_async_status(&r->req))
		up(r->sem);
	complete(&r->ran);
}

/* A zeroed request for @sem on @wq; @ctx may be NULL (then its own). */
static void sem_life_req_init(struct sem_life_req *r, struct sem_life_ctx *ctx,
			      struct semaphore *sem,
			      struct workqueue_struct *wq)
{
	sem_async_init(&r->req, sem_life_work);
	r->sem = sem;
	r->wq = wq;
	r->ctx = ctx ?: &r->own_ctx;
	r->status = 1;
	r->release = true;
	r->seq_after_shutdown = -1;
	init_completion(&r->started);
	init_completion(&r->proceed);
	init_completion(&r->ran);
}

static struct sem_life_req *sem_life_req_alloc(struct kunit *test,
					       struct sem_life_ctx *ctx,
					       struct semaphore *sem,
					       struct workqueue_struct *wq)
{
	struct sem_life_req *r = sem_life_alloc(test, sizeof(*r));

	sem_life_req_init(r, ctx, sem, wq);
	return r;
}

/*
 * @r's function began @runs runs, the last with @status, each run by the
 * request's own work item in a worker, never two at once; nothing is
 * pending.  Call once the work is known to be done and flushed.
 */
static void sem_life_expect_runs(struct kunit *test, struct sem_life_req *r,
				 int runs, int status)
{
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), runs);
	if (runs && atomic_read(&r->runs))
		KUNIT_EXPECT_EQ(test, r->status, status);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->overlaps), 0,
			    "two runs of the function overlapped");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->bad_context), 0,
			    "the function ran outside its work item");
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_FALSE(test, r->wrong_func);
}

static bool sem_life_wait(struct completion *c)
{
	return wait_for_completion_timeout(c, SEM_TEST_WAIT);
}

static struct semaphore *sem_life_sem_alloc(struct kunit *test, int count)
{
	struct semaphore *sem = sem_life_alloc(test, sizeof(*sem));

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
	struct sem_life_blocker *b = sem_life_alloc(test, sizeof(*b));

	INIT_WORK(&b->work, sem_life_blocker_fn);
	init_completion(&b->running);
	init_completion(&b->release);
	queue_work(wq, &b->work);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&b->running));
	return b;
}

/* A call made from a kernel thread, so that the test can wait for it. */
enum sem_life_op {
	SEM_LIFE_SHUTDOWN,	/* ret: runs of @req's ctx begun at return */
	SEM_LIFE_CANCEL_SYNC,	/* ret: what sem_async_cancel_sync() returned */
	SEM_LIFE_RELEASE,	/* sleep, complete_all(&req->proceed); ret: runs */
};

struct sem_life_call {
	enum sem_life_op	op;
	struct semaphore	*sem;
	struct sem_life_req	*req;
	unsigned int		delay_ms;
	int			ret;
	bool			entered;
	struct task_struct	*task;
	struct completion	done;
};

static int sem_life_call_fn(void *data)
{
	struct sem_life_call *c = data;

	WRITE_ONCE(c->entered, true);
	switch (c->op) {
	case SEM_LIFE_SHUTDOWN:
		sem_shutdown(c->sem);
		c->ret = atomic_read(&c->req->ctx->seq);
		break;
	case SEM_LIFE_CANCEL_SYNC:
		c->ret = sem_async_cancel_sync(c->sem, &c->req->req);
		break;
	case SEM_LIFE_RELEASE:
		msleep(c->delay_ms);
		c->ret = atomic_read(&c->req->runs);
		complete_all(&c->req->proceed);
		break;
	}
	complete(&c->done);
	return 0;
}

static struct sem_life_call *sem_life_call_start(struct kunit *test,
						 enum sem_life_op op,
						 struct semaphore *sem,
						 struct sem_life_req *r,
						 unsigned int delay_ms)
{
	struct sem_life_call *c = sem_life_alloc(test, sizeof(*c));
	struct task_struct *task;

	c->op = op;
	c->sem = sem;
	c->req = r;
	c->delay_ms = delay_ms;
	c->ret = 1;
	init_completion(&c->done);
	task = kthread_create(sem_life_call_fn, c, "sem_life_call");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
	get_task_struct(task);
	c->task = task;
	wake_up_process(task);
	return c;
}

/* Wait until the call sleeps (sem_async_cancel_sync() waiting for work). */
static bool sem_life_call_sleeps(struct sem_life_call *c)
{
	unsigned long end = jiffies + SEM_TEST_WAIT;

	while (time_before(jiffies, end)) {
		if (completion_done(&c->done))
			return false;
		if (READ_ONCE(c->entered) &&
		    (READ_ONCE(c->task->__state) & TASK_UNINTERRUPTIBLE))
			return true;
		usleep_range(200, 400);
	}
	return false;
}

/* Wait for the call to return; the case fails if it does not. */
static int sem_life_call_end(struct kunit *test, struct sem_life_call *c)
{
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_wait(&c->done),
			      "the call in a kernel thread did not return");
	put_task_struct(c->task);
	return c->ret;
}

/*
 * sem_shutdown() from a plain kernel thread never waits for work and
 * never runs a work function: with a granted request and two queued ones
 * on an ordered workqueue whose running item blocks, it returns at once
 * with no function run, and the queued requests' work is queued.  Once
 * the workqueue is released, each function runs exactly once, in its own
 * work item, one after the other, in grant order: 0 for the granted one,
 * -ESHUTDOWN for the queued ones.  Later submissions get -ESHUTDOWN.
 */
static void sem_life_test_shutdown_thread(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_req *r[3], *late;
	struct sem_life_blocker *blk;
	struct sem_life_call *c;
	struct sem_life_ctx *ctx;
	struct semaphore *sem;
	int i, runs;

	blk = sem_life_block(test, wq);
	sem = sem_life_sem_alloc(test, 1);
	ctx = sem_life_alloc(test, sizeof(*ctx));
	for (i = 0; i < 3; i++)
		r[i] = sem_life_req_alloc(test, ctx, sem, wq);
	late = sem_life_req_alloc(test, ctx, sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r[0]->req, wq), 0);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r[1]->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r[2]->req, wq), -EINPROGRESS);

	c = sem_life_call_start(test, SEM_LIFE_SHUTDOWN, sem, r[0], 0);
	runs = sem_life_call_end(test, c);
	KUNIT_EXPECT_EQ_MSG(test, runs, 0, "sem_shutdown() ran a work function");
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, work_pending(&r[i]->req.work));
	KUNIT_EXPECT_EQ(test, down_async(sem, &late->req, wq), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->seq), 0);

	complete(&blk->release);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r[0], 1, 0);
	sem_life_expect_runs(test, r[1], 1, -ESHUTDOWN);
	sem_life_expect_runs(test, r[2], 1, -ESHUTDOWN);
	sem_life_expect_runs(test, late, 0, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->overlaps), 0);
	KUNIT_EXPECT_LT(test, r[0]->seq_first, r[1]->seq_first);
	KUNIT_EXPECT_LT(test, r[1]->seq_first, r[2]->seq_first);
	/* The granted request gave its unit back; the others held none. */
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/*
 * Request S, granted on semaphore @b and running on the ordered
 * workqueue, up()s @b and then shuts @a down.  Granted request G of @a
 * (when @own) and Q of @b queue behind S; request F, queued on @a, is
 * queued behind them by the shutdown.  S must return: sem_shutdown()
 * waits for nothing and runs nothing.  Then G runs with 0, Q with 0 and
 * F with -ESHUTDOWN, in that order.
 */
static void sem_life_shutdown_in_work(struct kunit *test, bool own)
{
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_req *s, *g, *q, *f;
	struct sem_life_ctx *ctx;
	struct semaphore *a, *b;

	a = sem_life_sem_alloc(test, own ? 1 : SEM_TEST_NO_UNITS);
	b = sem_life_sem_alloc(test, 1);
	ctx = sem_life_alloc(test, sizeof(*ctx));
	s = sem_life_req_alloc(test, NULL, b, wq);
	g = sem_life_req_alloc(test, ctx, a, wq);
	q = sem_life_req_alloc(test, ctx, b, wq);
	f = sem_life_req_alloc(test, ctx, a, wq);
	s->block = true;
	s->shutdown = a;
	s->watch = ctx;
	KUNIT_EXPECT_EQ(test, down_async(b, &s->req, wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&s->started));
	if (own)
		KUNIT_EXPECT_EQ(test, down_async(a, &g->req, wq), 0);
	KUNIT_EXPECT_EQ(test, down_async(b, &q->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_async(a, &f->req, wq), -EINPROGRESS);

	complete_all(&s->proceed);
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_wait(&s->ran),
			      "sem_shutdown() waited for work queued behind its caller");
	KUNIT_EXPECT_EQ_MSG(test, s->seq_after_shutdown, 0,
			    "sem_shutdown() ran a work function");
	flush_workqueue(wq);
	sem_life_expect_runs(test, s, 1, 0);
	sem_life_expect_runs(test, g, own, 0);
	sem_life_expect_runs(test, q, 1, 0);
	sem_life_expect_runs(test, f, 1, -ESHUTDOWN);
	if (own)
		KUNIT_EXPECT_LT(test, g->seq_first, q->seq_first);
	KUNIT_EXPECT_LT(test, q->seq_first, f->seq_first);
	KUNIT_EXPECT_EQ(test, sem_count(a), own ? 1U : 0U);
	KUNIT_EXPECT_EQ(test, sem_count(b), 1U);
}

/*
 * sem_shutdown() from a work item on the requests' own ordered workqueue,
 * with the work of one of its granted requests queued behind it, and a
 * queued request: no hang; they run with 0 and -ESHUTDOWN.
 */
static void sem_life_test_shutdown_own_ordered(struct kunit *test)
{
	sem_life_shutdown_in_work(test, true);
}

/*
 * sem_shutdown() from a work item with another semaphore's granted work
 * queued behind it (granted by the item's own up()): no hang.
 */
static void sem_life_test_shutdown_other_sem(struct kunit *test)
{
	sem_life_shutdown_in_work(test, false);
}

/*
 * sem_async_init() on a request granted at once whose work is still
 * pending, and on a queued request, warns and leaves it alone: the
 * pending work runs once, with status 0 and the original function, and
 * its unit comes back; the queued request stays queued and a later up()
 * (the first request's) grants it normally.
 */
static void sem_life_test_init_busy(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_blocker *blk;
	struct sem_life_req *r, *q;
	struct sem_life_ctx *ctx;
	struct semaphore *sem;

	blk = sem_life_block(test, wq);
	sem = sem_life_sem_alloc(test, 1);
	ctx = sem_life_alloc(test, sizeof(*ctx));
	r = sem_life_req_alloc(test, ctx, sem, wq);
	q = sem_life_req_alloc(test, ctx, sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), 0);
	KUNIT_EXPECT_TRUE(test, work_pending(&r->req.work));
	kunit_info(test, "a warning from sem_async_init() may follow\n");
	sem_async_init(&r->req, sem_life_wrong_work);
	KUNIT_EXPECT_TRUE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_EQ(test, sem_count(sem), 0U);
	KUNIT_EXPECT_EQ(test, sem_async_cancel(sem, &r->req), -EALREADY);

	KUNIT_EXPECT_EQ(test, down_async(sem, &q->req, wq), -EINPROGRESS);
	sem_async_init(&q->req, sem_life_wrong_work);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_FALSE(test, work_pending(&q->req.work));

	complete(&blk->release);
	/* r runs and gives its unit to q, whose work is queued then. */
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_wait(&q->ran),
			      "the queued request was not granted");
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 1, 0);
	sem_life_expect_runs(test, q, 1, 0);
	KUNIT_EXPECT_LT(test, r->seq_first, q->seq_first);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/*
 * A request that its own work function resubmits, granted at once, has
 * its work queued while the function still runs: the workqueue runs it
 * after that run returns, never at the same time.  On an ordered
 * workqueue, a second request granted after the resubmission (queued on
 * the semaphore meanwhile) runs after the resubmission's run: grant order
 * is kept.  On an unbound workqueue the runs do not overlap either.
 */
static void sem_life_test_resubmit_fifo(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_req *a, *b;
	struct sem_life_ctx *ctx;
	struct semaphore *sem;

	sem = sem_life_sem_alloc(test, 2);
	ctx = sem_life_alloc(test, sizeof(*ctx));
	a = sem_life_req_alloc(test, ctx, sem, wq);
	b = sem_life_req_alloc(test, ctx, sem, wq);
	a->resubmit = 1;
	a->resubmit_first = true;
	a->block = true;
	KUNIT_EXPECT_EQ(test, down_async(sem, &a->req, wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&a->started));
	/* The first run holds one unit; its resubmission got the other. */
	KUNIT_EXPECT_EQ(test, a->resubmit_ret, 0);
	KUNIT_EXPECT_EQ(test, a->count_after_resubmit, 0U);
	KUNIT_EXPECT_TRUE(test, work_pending(&a->req.work));
	KUNIT_EXPECT_EQ(test, down_async(sem, &b->req, wq), -EINPROGRESS);
	/* The first run's up() grants b, whose work queues behind a's. */
	complete_all(&a->proceed);
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_wait(&b->ran),
			      "the second request did not run");
	flush_workqueue(wq);
	sem_life_expect_runs(test, a, 2, 0);
	sem_life_expect_runs(test, b, 1, 0);
	KUNIT_EXPECT_LT_MSG(test, a->seq_last, b->seq_first,
			    "a later grant ran before the resubmission");
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 2U);

	wq = sem_life_unbound(test);
	a = sem_life_req_alloc(test, NULL, sem, wq);
	a->resubmit = 1;
	a->resubmit_first = true;
	a->block = true;
	KUNIT_EXPECT_EQ(test, down_async(sem, &a->req, wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&a->started));
	KUNIT_EXPECT_EQ(test, a->resubmit_ret, 0);
	msleep(50);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&a->runs), 1,
			    "the resubmission ran while the first run still ran");
	complete_all(&a->proceed);
	flush_workqueue(wq);
	sem_life_expect_runs(test, a, 2, 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 2U);
}

/*
 * down_entry() with the wait entry of a struct sem_async: -EINVAL with a
 * warning; nothing queued, no unit taken, the request still usable.
 */
static void sem_life_test_down_entry_of_request(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_req *r;
	struct semaphore sem;

	sema_init(&sem, 1);
	r = sem_life_req_alloc(test, NULL, &sem, wq);
	kunit_info(test, "a warning from down_entry() may follow\n");
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &r->req.waiter), -EINVAL);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &r->req.waiter), -EINVAL);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	up(&sem);

	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, wq), 0);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 1, 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/* A down_entry() entry whose grant function records its call. */
struct sem_life_entry {
	struct sem_waiter	waiter;
	atomic_t		started;
	atomic_t		finished;
	int			status;
	unsigned int		delay_ms;
	bool			hardirq;
	bool			preemptible;
	bool			wrong;		/* another grant function ran */
	int			cpu;
	struct task_struct	*task;		/* who called it */
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
	e->task = current;
	atomic_inc(&e->started);
	if (e->delay_ms)
		mdelay(e->delay_ms);
	if (e->requeue_on)
		e->requeue_ret = down_entry(e->requeue_on, &e->other->waiter);
	atomic_inc(&e->finished);
}

/* Must never run: sem_waiter_init() should have refused. */
static void sem_life_wrong_grant(struct sem_waiter *waiter, int status)
{
	container_of(waiter, struct sem_life_entry, waiter)->wrong = true;
}

static void sem_life_entry_init(struct sem_life_entry *e)
{
	memset(e, 0, sizeof(*e));
	sem_waiter_init(&e->waiter, sem_life_grant);
	e->status = 1;
}

/*
 * A grant whose work cannot be queued (the owner disabled the work item of
 * the queued request) warns; the unit goes to the next waiter, here a
 * down_entry() entry and then a second request; the request is left idle
 * with sem_async_status() -ECANCELED and works again once enabled.  An
 * idle request whose work is disabled is refused at once: -ECANCELED, no
 * unit taken, nothing queued.
 */
static void sem_life_test_grant_cannot_queue(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_req *r1, *r2;
	struct sem_life_entry e;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	r1 = sem_life_req_alloc(test, NULL, &sem, wq);
	r2 = sem_life_req_alloc(test, NULL, &sem, wq);
	sem_life_entry_init(&e);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r1->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r2->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_FALSE(test, disable_work(&r1->req.work));

	kunit_info(test, "a warning about a work that cannot be queued may follow\n");
	up(&sem);
	/* The unit went past r1 to e, in this up(). */
	KUNIT_EXPECT_EQ(test, atomic_read(&e.finished), 1);
	KUNIT_EXPECT_EQ(test, e.status, 0);
	KUNIT_EXPECT_PTR_EQ(test, e.task, current);
	KUNIT_EXPECT_EQ(test, sem_async_status(&r1->req), -ECANCELED);
	KUNIT_EXPECT_FALSE(test, work_pending(&r1->req.work));
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r1->req), -ENOENT);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&sem));
	/* e's unit, given back, goes to r2. */
	up(&sem);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r2, 1, 0);
	sem_life_expect_runs(test, r1, 0, 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);

	KUNIT_EXPECT_TRUE(test, enable_work(&r1->req.work));
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r1->req, wq), 0);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r1, 1, 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);

	/* Disabled and idle: refused at once, the free unit untouched. */
	KUNIT_EXPECT_FALSE(test, disable_work(&r2->req.work));
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r2->req, wq), -ECANCELED);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_EQ(test, sem_async_status(&r2->req), -ECANCELED);
	KUNIT_EXPECT_TRUE(test, enable_work(&r2->req.work));
	flush_workqueue(wq);
	sem_life_expect_runs(test, r2, 1, 0);
}

/*
 * An entry whose grant function, in the context of an up(), calls up()
 * on a second semaphore where @inner is queued: @inner is then settled
 * but its grant function deferred until this one returns (GRANTING).
 * What the function saw of @inner, and did to it, is recorded.
 */
struct sem_life_nester {
	struct sem_waiter	waiter;
	struct semaphore	*s2;
	struct sem_life_entry	*inner;
	int			status;
	int			inner_calls;
	int			queue_ret;
	int			cancel_ret;
};

static void sem_life_nester_grant(struct sem_waiter *waiter, int status)
{
	struct sem_life_nester *n = container_of(waiter, struct sem_life_nester,
						 waiter);

	n->status = status;
	up(n->s2);
	sem_waiter_init(&n->inner->waiter, sem_life_wrong_grant);
	n->queue_ret = down_entry(n->s2, &n->inner->waiter);
	n->cancel_ret = sem_cancel(n->s2, &n->inner->waiter);
	n->inner_calls = atomic_read(&n->inner->started);
}

/*
 * sem_waiter_init() on a busy entry warns and leaves it alone.  Settled,
 * its grant function deferred by the per-CPU grant queue (GRANTING): the
 * grant function still runs exactly once, with status 0, and meanwhile
 * down_entry() refuses it (-EBUSY) and sem_cancel() says it was granted
 * (-EALREADY).  Queued: it stays queued, and the next up() calls its
 * original grant function.
 */
static void sem_life_test_waiter_init_busy(struct kunit *test)
{
	struct sem_life_nester n = {};
	struct sem_life_entry inner;
	struct semaphore s1, s2;

	sema_init(&s1, SEM_TEST_NO_UNITS);
	sema_init(&s2, SEM_TEST_NO_UNITS);
	sem_life_entry_init(&inner);
	sem_waiter_init(&n.waiter, sem_life_nester_grant);
	n.s2 = &s2;
	n.inner = &inner;
	n.status = 1;
	n.inner_calls = -1;
	KUNIT_EXPECT_EQ(test, down_entry(&s2, &inner.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&s1, &n.waiter), -EINPROGRESS);

	kunit_info(test, "warnings from sem_waiter_init() and down_entry() may follow\n");
	up(&s1);
	KUNIT_EXPECT_EQ(test, n.status, 0);
	KUNIT_EXPECT_EQ_MSG(test, n.inner_calls, 0,
			    "the nested grant function ran inside the outer one");
	KUNIT_EXPECT_EQ(test, n.queue_ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, n.cancel_ret, -EALREADY);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner.finished), 1);
	KUNIT_EXPECT_EQ(test, inner.status, 0);
	KUNIT_EXPECT_FALSE(test, inner.wrong);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&s2));
	KUNIT_EXPECT_EQ(test, sem_count(&s2), 0U);
	up(&s1);
	KUNIT_EXPECT_EQ(test, sem_count(&s1), 1U);

	/* Queued. */
	KUNIT_EXPECT_EQ(test, down_entry(&s2, &inner.waiter), -EINPROGRESS);
	sem_waiter_init(&inner.waiter, sem_life_wrong_grant);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&s2));
	up(&s2);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner.finished), 2);
	KUNIT_EXPECT_FALSE(test, inner.wrong);
	up(&s2);
	KUNIT_EXPECT_EQ(test, sem_count(&s2), 1U);
}

/*
 * down_async() on a request that is queued, or whose work is pending:
 * -EBUSY with a warning, no unit taken, neither on its semaphore nor on
 * another one with a free unit; the request then runs once, normally.
 * On a workqueue other than the one it was submitted to (granted, or
 * queued and removed): -EXDEV with a warning, no unit taken, until
 * sem_async_init().
 */
static void sem_life_test_down_async_busy(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_blocker *blk;
	struct semaphore a, b;
	struct sem_life_req *r;

	sema_init(&a, SEM_TEST_NO_UNITS);
	sema_init(&b, 1);
	r = sem_life_req_alloc(test, NULL, &a, wq);
	kunit_info(test, "warnings from down_async() may follow\n");
	KUNIT_EXPECT_EQ(test, down_async(&a, &r->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_async(&a, &r->req, wq), -EBUSY);
	KUNIT_EXPECT_EQ(test, down_async(&b, &r->req, wq), -EBUSY);
	KUNIT_EXPECT_EQ(test, sem_count(&b), 1U);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&a));
	up(&a);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 1, 0);
	KUNIT_EXPECT_EQ(test, sem_count(&a), 1U);

	/* Pending: granted at once behind a blocked item. */
	blk = sem_life_block(test, wq);
	up(&a);
	KUNIT_EXPECT_EQ(test, down_async(&a, &r->req, wq), 0);
	KUNIT_EXPECT_TRUE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_EQ(test, down_async(&a, &r->req, wq), -EBUSY);
	KUNIT_EXPECT_EQ(test, sem_count(&a), 1U);
	KUNIT_EXPECT_EQ(test, down_async(&b, &r->req, wq), -EBUSY);
	KUNIT_EXPECT_EQ(test, sem_count(&b), 1U);
	complete(&blk->release);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 2, 0);
	KUNIT_EXPECT_EQ(test, sem_count(&a), 2U);

	wq = sem_life_unbound(test);
	r->sem = &b;
	KUNIT_EXPECT_EQ(test, down_async(&b, &r->req, wq), -EXDEV);
	KUNIT_EXPECT_EQ(test, sem_count(&b), 1U);
	sem_async_init(&r->req, sem_life_work);
	KUNIT_EXPECT_EQ(test, down_async(&b, &r->req, wq), 0);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 3, 0);
	KUNIT_EXPECT_EQ(test, sem_count(&b), 1U);

	/*
	 * Queued on its workqueue and removed, never granted: idle, but still
	 * bound to that workqueue (its function may still run there).
	 */
	sema_init(&a, SEM_TEST_NO_UNITS);
	r->sem = &a;
	KUNIT_EXPECT_EQ(test, down_async(&a, &r->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_async_cancel(&a, &r->req), 0);
	KUNIT_EXPECT_EQ(test, down_async(&b, &r->req, sem_life_ordered(test)),
			-EXDEV);
	KUNIT_EXPECT_EQ(test, sem_count(&b), 1U);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&a));
}

/*
 * sem_async_cancel_sync() of a queued request: 0, removed, idle after.
 * Of a granted one whose work is pending (ordered workqueue blocked): 0,
 * the work taken back and its unit given back; the function never runs.
 * Of an idle one (never submitted, or after cancel_sync): -ENOENT without
 * a warning.  Of one whose function ran: -EALREADY.
 */
static void sem_life_test_cancel_sync_basic(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_blocker *blk;
	struct sem_life_req *r;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	r = sem_life_req_alloc(test, NULL, &sem, wq);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r->req), -ENOENT);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r->req), 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r->req), -ENOENT);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);

	blk = sem_life_block(test, wq);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, wq), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	KUNIT_EXPECT_TRUE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r->req), 0);
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r->req), -ENOENT);
	complete(&blk->release);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 0, 0);

	/* Idle again: it runs normally when submitted again. */
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r->req, wq), 0);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 1, 0);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r->req), -EALREADY);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/*
 * sem_async_cancel_sync() of a request whose function runs (blocked until
 * another thread releases it 50 ms later): -EALREADY, returned only once
 * the function has returned.
 */
static void sem_life_test_cancel_sync_running(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_call *rel;
	struct sem_life_req *r;
	struct semaphore *sem;
	int ret, runs;

	sem = sem_life_sem_alloc(test, 1);
	r = sem_life_req_alloc(test, NULL, sem, wq);
	r->block = true;
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->started));

	rel = sem_life_call_start(test, SEM_LIFE_RELEASE, NULL, r, 50);
	ret = sem_async_cancel_sync(sem, &r->req);
	KUNIT_EXPECT_EQ(test, ret, -EALREADY);
	KUNIT_EXPECT_TRUE_MSG(test, completion_done(&r->ran),
			      "returned before the function did");
	runs = sem_life_call_end(test, rel);
	KUNIT_EXPECT_EQ(test, runs, 1);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	sem_life_expect_runs(test, r, 1, 0);
}

/*
 * While sem_async_cancel_sync() runs for a request, down_async() refuses
 * it: the function, blocked until the call waits for it, then resubmits
 * and gets -ECANCELED, no unit taken, whether a unit is free (2 units: the
 * work item is disabled meanwhile, so the grant could not queue it anyway)
 * or not (1 unit: the request would be queued, and the call would find it
 * queued after its look).  The call returns -EALREADY once the function
 * has returned, and the request is idle.
 */
static void sem_life_test_cancel_sync_refuses_resubmit(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_call *c;
	struct sem_life_req *r;
	struct semaphore *sem;
	unsigned int units;
	int ret;

	for (units = 2; units >= 1; units--) {
		sem = sem_life_sem_alloc(test, units);
		r = sem_life_req_alloc(test, NULL, sem, wq);
		r->block = true;
		r->resubmit = 1;
		r->resubmit_ret = 1;
		KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), 0);
		KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->started));

		c = sem_life_call_start(test, SEM_LIFE_CANCEL_SYNC, sem, r, 0);
		KUNIT_EXPECT_TRUE_MSG(test, sem_life_call_sleeps(c),
				      "sem_async_cancel_sync() did not wait for the function");
		msleep(20);
		complete_all(&r->proceed);
		ret = sem_life_call_end(test, c);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EALREADY, "%u units", units);
		KUNIT_EXPECT_EQ_MSG(test, r->resubmit_ret, -ECANCELED,
				    "%u units", units);
		/* The running function held one unit, the refusal took none. */
		KUNIT_EXPECT_EQ(test, r->count_after_resubmit, units - 1);
		KUNIT_EXPECT_TRUE(test, completion_done(&r->ran));
		KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
		KUNIT_EXPECT_EQ(test, sem_count(sem), units);
		flush_workqueue(wq);
		sem_life_expect_runs(test, r, 1, 0);
	}
}

/*
 * A work function that submits its request again each time (queued, then
 * granted by its own up()) does not keep sem_async_cancel_sync() waiting:
 * a pending resubmission is taken back (0), or a running function's
 * resubmission is refused (-EALREADY); no run follows, the unit is back.
 */
static void sem_life_test_cancel_sync_resubmitting(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_req *r;
	struct semaphore *sem;
	int runs, ret;

	sem = sem_life_sem_alloc(test, 1);
	r = sem_life_req_alloc(test, NULL, sem, wq);
	r->resubmit = INT_MAX;
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->started));
	usleep_range(10000, 11000);
	ret = sem_async_cancel_sync(sem, &r->req);
	KUNIT_EXPECT_TRUE(test, ret == 0 || ret == -EALREADY);
	KUNIT_EXPECT_EQ(test, r->resubmit_ret,
			ret == -EALREADY ? -ECANCELED : -EINPROGRESS);
	runs = atomic_read(&r->runs);
	msleep(20);
	KUNIT_EXPECT_GT(test, runs, 1);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, runs, 0);
	kunit_info(test, "%d runs before the cancel returned %d\n", runs, ret);
}

/*
 * A request is not followed: its running function moved it to semaphore
 * @b; sem_async_cancel_sync() given the first semaphore returns -EINVAL
 * (with a warning) and does nothing, neither waits nor removes.  Given
 * @b, it removes it there (0) and waits for the running function.
 */
static void sem_life_test_cancel_sync_moved(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_call *c;
	struct semaphore *a, *b;
	struct sem_life_req *r;
	int ret;

	a = sem_life_sem_alloc(test, 1);
	b = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	r = sem_life_req_alloc(test, NULL, a, wq);
	r->move_to = b;
	r->resubmit = 1;
	r->resubmit_first = true;
	r->block = true;
	KUNIT_EXPECT_EQ(test, down_async(a, &r->req, wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->started));
	KUNIT_EXPECT_EQ(test, r->resubmit_ret, -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(b));

	kunit_info(test, "a warning from sem_async_cancel_sync() may follow\n");
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(a, &r->req), -EINVAL);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(b));
	KUNIT_EXPECT_FALSE(test, completion_done(&r->ran));

	c = sem_life_call_start(test, SEM_LIFE_CANCEL_SYNC, b, r, 0);
	KUNIT_EXPECT_TRUE(test, sem_life_call_sleeps(c));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(b));
	complete_all(&r->proceed);
	ret = sem_life_call_end(test, c);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, completion_done(&r->ran));
	KUNIT_EXPECT_EQ(test, sem_count(a), 1U);
	up(b);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 1, 0);
	KUNIT_EXPECT_EQ(test, sem_count(b), 1U);
}

/*
 * The race of sem_async_cancel_sync() with a grant.  Each iteration queues
 * request R and behind it entry E on a semaphore without units; a kernel
 * thread queues a short spacer item on R's ordered workqueue and calls
 * up(), while the test calls sem_async_cancel_sync(R) after a delay that
 * varies.  Who calls E's grant function tells what happened:
 *  - the thread's up(): R was removed before the grant (0, R never ran);
 *  - the test, inside the call: R's pending work was taken back and its
 *    unit given back with up() (0, R never ran);
 *  - R's function, which up()s its unit: it ran (-EALREADY).
 * Whatever happened, E got the one unit exactly once and nothing else
 * holds or frees one: the count is 0, nobody waits, nothing is pending.
 * Each outcome must have happened at least once.
 */
#define SEM_LIFE_RACE_LOOPS	2000
#define SEM_LIFE_SPACER_US	20

struct sem_life_race {
	struct semaphore	sem;
	struct workqueue_struct	*wq;
	struct work_struct	spacer;
	unsigned int		up_delay_us;
	atomic_t		go;
	atomic_t		done;
	bool			stop;
	wait_queue_head_t	wait;
	struct completion	exited;
};

static void sem_life_spacer_fn(struct work_struct *work)
{
	udelay(SEM_LIFE_SPACER_US);
}

static int sem_life_race_upper_fn(void *data)
{
	struct sem_life_race *x = data;
	int seen = 0;

	for (;;) {
		if (!wait_event_timeout(x->wait, READ_ONCE(x->stop) ||
					atomic_read(&x->go) != seen,
					SEM_TEST_WAIT))
			break;
		if (READ_ONCE(x->stop))
			break;
		seen = atomic_read(&x->go);
		udelay(READ_ONCE(x->up_delay_us));
		queue_work(x->wq, &x->spacer);
		up(&x->sem);
		atomic_set(&x->done, seen);
		wake_up(&x->wait);
	}
	complete(&x->exited);
	return 0;
}

static void sem_life_test_cancel_sync_races_grant(struct kunit *test)
{
	unsigned int removed = 0, taken_back = 0, ran = 0, i, delay;
	struct task_struct *upper;
	struct sem_life_race *x;
	struct sem_life_entry *e;
	struct sem_life_req *r;
	const char *by;
	int ret, runs;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");

	x = sem_life_alloc(test, sizeof(*x));
	e = sem_life_alloc(test, sizeof(*e));
	sema_init(&x->sem, SEM_TEST_NO_UNITS);
	x->wq = sem_life_ordered(test);
	INIT_WORK(&x->spacer, sem_life_spacer_fn);
	init_waitqueue_head(&x->wait);
	init_completion(&x->exited);
	r = sem_life_req_alloc(test, NULL, &x->sem, x->wq);
	sem_life_entry_init(e);
	upper = kthread_run(sem_life_race_upper_fn, x, "sem_life_up");
	KUNIT_ASSERT_FALSE(test, IS_ERR(upper));

	for (i = 0; i < SEM_LIFE_RACE_LOOPS; i++) {
		runs = atomic_read(&r->runs);
		atomic_set(&e->started, 0);
		e->task = NULL;
		e->status = 1;
		if (down_async(&x->sem, &r->req, x->wq) != -EINPROGRESS ||
		    down_entry(&x->sem, &e->waiter) != -EINPROGRESS) {
			KUNIT_FAIL(test, "iteration %u: could not queue", i);
			break;
		}
		/* 0-49 steps of 1, 2, 4, ... 64 us: up to 3.1 ms. */
		delay = (i % 50) << ((i / 50) % 7);
		WRITE_ONCE(x->up_delay_us, i % 5);
		atomic_inc(&x->go);
		wake_up(&x->wait);
		udelay(delay);
		ret = sem_async_cancel_sync(&x->sem, &r->req);
		if (!wait_event_timeout(x->wait,
					atomic_read(&x->done) == (int)i + 1,
					SEM_TEST_WAIT)) {
			KUNIT_FAIL(test, "iteration %u: up() did not return", i);
			break;
		}
		flush_work(&x->spacer);
		runs = atomic_read(&r->runs) - runs;
		if (atomic_read(&e->started) != 1 || e->status ||
		    sem_count(&x->sem) || sem_has_waiters(&x->sem) ||
		    work_pending(&r->req.work)) {
			KUNIT_FAIL(test,
				   "iteration %u (ret %d, runs %d): E granted %d times with %d, count %u, waiters %d, pending %d",
				   i, ret, runs, atomic_read(&e->started),
				   e->status, sem_count(&x->sem),
				   sem_has_waiters(&x->sem),
				   work_pending(&r->req.work));
			break;
		}
		by = e->task == upper ? "the up() thread" :
		     e->task == current ? "the test" :
		     e->task == r->task ? "the function" : "someone else";
		if (!ret && !runs && e->task == upper) {
			removed++;
		} else if (!ret && !runs && e->task == current) {
			taken_back++;
		} else if (ret == -EALREADY && runs == 1 && e->task == r->task) {
			ran++;
		} else {
			KUNIT_FAIL(test, "iteration %u: ret %d with %d runs, E granted by %s",
				   i, ret, runs, by);
			break;
		}
	}

	WRITE_ONCE(x->stop, true);
	wake_up(&x->wait);
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_wait(&x->exited),
			      "the up() thread did not finish");
	kunit_info(test, "%u removed, %u taken back, %u ran\n",
		   removed, taken_back, ran);
	KUNIT_EXPECT_GT_MSG(test, removed, 0U, "never removed before the grant");
	KUNIT_EXPECT_GT_MSG(test, taken_back, 0U, "never took pending work back");
	KUNIT_EXPECT_GT_MSG(test, ran, 0U, "never found the function run");
	KUNIT_EXPECT_EQ(test, atomic_read(&r->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->bad_context), 0);
}

/* An hrtimer that calls up() from hard interrupt context. */
struct sem_life_irq {
	struct hrtimer		timer;
	struct semaphore	*sem;
	bool			hardirq;
	atomic_t		fired;
};

static enum hrtimer_restart sem_life_irq_fn(struct hrtimer *timer)
{
	struct sem_life_irq *h = container_of(timer, struct sem_life_irq,
					      timer);

	h->hardirq = in_hardirq();
	up(h->sem);
	atomic_inc(&h->fired);
	return HRTIMER_NORESTART;
}

/*
 * up() from hard interrupt context grants a queued request: its work is
 * queued there and runs, in a worker, with status 0.
 */
static void sem_life_test_up_hardirq_grants(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_irq h = {};
	struct sem_life_req *r;
	struct semaphore *sem;
	bool ran;

	sem = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	r = sem_life_req_alloc(test, NULL, sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), -EINPROGRESS);
	h.sem = sem;
	hrtimer_init_on_stack(&h.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	h.timer.function = sem_life_irq_fn;
	hrtimer_start(&h.timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	ran = sem_life_wait(&r->ran);
	hrtimer_cancel(&h.timer);
	destroy_hrtimer_on_stack(&h.timer);
	KUNIT_EXPECT_EQ(test, atomic_read(&h.fired), 1);
	KUNIT_EXPECT_TRUE(test, h.hardirq);
	KUNIT_ASSERT_TRUE_MSG(test, ran,
			      "the request granted from the interrupt did not run");
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 1, 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/*
 * The recipes of sem_async_cancel(): a queued request is removed (0) and
 * never runs.  A granted one returns -EALREADY: if its work is pending,
 * cancel_work_sync() returns true, the function never runs for that grant
 * and the owner up()s the unit; if it runs, flush_work() waits for it.
 */
static void sem_life_test_cancel_recipe(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_blocker *blk;
	struct sem_life_call *rel;
	struct sem_life_req *r;
	struct semaphore *sem;
	int runs;

	sem = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	r = sem_life_req_alloc(test, NULL, sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_async_cancel(sem, &r->req), 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	up(sem);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);

	blk = sem_life_block(test, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), 0);
	KUNIT_EXPECT_EQ(test, sem_async_cancel(sem, &r->req), -EALREADY);
	KUNIT_EXPECT_TRUE(test, cancel_work_sync(&r->req.work));
	KUNIT_EXPECT_EQ(test, sem_async_status(&r->req), 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 0U);
	up(sem);
	complete(&blk->release);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 0, 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);

	r->block = true;
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r->started));
	KUNIT_EXPECT_EQ(test, sem_async_cancel(sem, &r->req), -EALREADY);
	rel = sem_life_call_start(test, SEM_LIFE_RELEASE, NULL, r, 20);
	flush_work(&r->req.work);
	KUNIT_EXPECT_TRUE(test, completion_done(&r->ran));
	runs = sem_life_call_end(test, rel);
	KUNIT_EXPECT_EQ(test, runs, 1);
	sem_life_expect_runs(test, r, 1, 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/*
 * The teardown recipe: sem_shutdown(), flush_workqueue(), then kfree() of
 * the requests and the semaphore.  With one request granted (its
 * function running) and three queued, every function runs exactly once,
 * the queued ones with -ESHUTDOWN; the classic API keeps working.
 */
static void sem_life_test_teardown(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_req *r[4];
	struct semaphore *sem;
	int i;

	sem = kmalloc(sizeof(*sem), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sem);
	sema_init(sem, 1);
	for (i = 0; i < 4; i++) {
		r[i] = kzalloc(sizeof(*r[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r[i]);
		sem_life_req_init(r[i], NULL, sem, wq);
	}
	r[0]->block = true;
	KUNIT_EXPECT_EQ(test, down_async(sem, &r[0]->req, wq), 0);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&r[0]->started));
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_EQ(test, down_async(sem, &r[i]->req, wq),
				-EINPROGRESS);

	sem_shutdown(sem);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	complete_all(&r[0]->proceed);
	flush_workqueue(wq);
	sem_life_expect_runs(test, r[0], 1, 0);
	for (i = 1; i < 4; i++)
		sem_life_expect_runs(test, r[i], 1, -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r[1]->req, wq), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, down_trylock(sem), 0);
	up(sem);
	for (i = 0; i < 4; i++)
		kfree(r[i]);
	kfree(sem);
}

/*
 * The teardown recipe with cancel_work_sync() per request instead of a
 * flush: after sem_shutdown(), the pending work of a granted request and
 * of a failed one is taken back; only the granted one held a unit (status
 * 0), which the owner gives back.  No function runs.
 */
static void sem_life_test_teardown_cancel_work(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_blocker *blk;
	struct sem_life_req *r[2];
	struct semaphore *sem;
	int i;

	blk = sem_life_block(test, wq);
	sem = sem_life_sem_alloc(test, 1);
	for (i = 0; i < 2; i++)
		r[i] = sem_life_req_alloc(test, NULL, sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r[0]->req, wq), 0);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r[1]->req, wq), -EINPROGRESS);
	sem_shutdown(sem);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_TRUE(test, cancel_work_sync(&r[i]->req.work));
		if (sem_async_status(&r[i]->req) == 0)
			up(sem);
	}
	KUNIT_EXPECT_EQ(test, sem_async_status(&r[1]->req), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	complete(&blk->release);
	flush_workqueue(wq);
	for (i = 0; i < 2; i++)
		sem_life_expect_runs(test, r[i], 0, 0);
}

/* The work function frees its request. */
struct sem_life_owned {
	struct sem_async	req;
	struct semaphore	*sem;
	atomic_t		*freed;
};

static void sem_life_free_work(struct work_struct *work)
{
	struct sem_life_owned *o = container_of(to_sem_async(work),
						struct sem_life_owned, req);
	atomic_t *freed = o->freed;

	if (!sem_async_status(&o->req))
		up(o->sem);
	kfree(o);
	atomic_inc(freed);
}

/*
 * The work function may free its request: nothing touches it after the
 * call.  Four requests, one granted and three queued, each freed by its
 * function after it gave its unit back.
 */
static void sem_life_test_free_in_work(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	unsigned long end = jiffies + SEM_TEST_WAIT;
	struct sem_life_owned *o;
	struct semaphore *sem;
	atomic_t *freed;
	int i, ret;

	sem = sem_life_sem_alloc(test, 1);
	freed = sem_life_alloc(test, sizeof(*freed));
	for (i = 0; i < 4; i++) {
		o = kzalloc(sizeof(*o), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o);
		sem_async_init(&o->req, sem_life_free_work);
		o->sem = sem;
		o->freed = freed;
		ret = down_async(sem, &o->req, wq);
		KUNIT_EXPECT_TRUE(test, ret == 0 || ret == -EINPROGRESS);
	}
	/* Each run's up() queues the next one's work: wait for all four. */
	while (atomic_read(freed) < 4 && time_before(jiffies, end))
		usleep_range(1000, 2000);
	flush_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(freed), 4);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/*
 * A grant function calls up() on a semaphore where a request is queued
 * and then cancels the request: the request's work was queued in that
 * up(), under the lock, so sem_async_cancel() returns -EALREADY with the
 * work pending (its ordered workqueue is blocked), and it runs once.
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
	struct workqueue_struct *wq = sem_life_ordered(test);
	struct sem_life_canceller c = {};
	struct sem_life_blocker *blk;
	struct semaphore s1, s2;

	blk = sem_life_block(test, wq);
	sema_init(&s1, SEM_TEST_NO_UNITS);
	sema_init(&s2, SEM_TEST_NO_UNITS);
	c.own = &s1;
	c.other = &s2;
	c.req = sem_life_req_alloc(test, NULL, &s2, wq);
	c.ret = 1;
	sem_waiter_init(&c.waiter, sem_life_canceller_grant);
	KUNIT_EXPECT_EQ(test, down_async(&s2, &c.req->req, wq), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&s1, &c.waiter), -EINPROGRESS);

	up(&s1);
	KUNIT_EXPECT_EQ(test, c.ret, -EALREADY);
	KUNIT_EXPECT_TRUE_MSG(test, c.pending,
			      "-EALREADY but the work is not queued");
	KUNIT_EXPECT_EQ(test, c.runs, 0);
	complete(&blk->release);
	flush_workqueue(wq);
	sem_life_expect_runs(test, c.req, 1, 0);
	/* The request gave its unit back; the grant function its own. */
	KUNIT_EXPECT_EQ(test, sem_count(&s2), 1U);
	KUNIT_EXPECT_EQ(test, sem_count(&s1), 1U);
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
 * sem_cancel_sync() of a down_entry() entry returns once a grant function
 * running on another CPU has returned: the entry is queued (no unit
 * free), the test pinned to its CPU, and up() called from a kernel thread
 * on another CPU, where the grant function then takes 100 ms.
 */
static void sem_life_test_entry_cancel_sync(struct kunit *test)
{
	unsigned long end = jiffies + SEM_TEST_WAIT;
	struct task_struct *task;
	struct sem_life_upper *u;
	struct sem_life_entry *e;
	struct semaphore *sem;
	unsigned int cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");

	sem = sem_life_sem_alloc(test, SEM_TEST_NO_UNITS);
	u = sem_life_alloc(test, sizeof(*u));
	e = sem_life_alloc(test, sizeof(*e));
	sem_life_entry_init(e);
	e->delay_ms = 100;
	KUNIT_ASSERT_EQ(test, down_entry(sem, &e->waiter), -EINPROGRESS);
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	u->sem = sem;
	init_completion(&u->done);
	task = kthread_create(sem_life_upper_fn, u, "sem_life_up");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, cpumask_any_but(cpu_online_mask, cpu));
	wake_up_process(task);
	while (!atomic_read(&e->started) && time_before(jiffies, end))
		usleep_range(100, 200);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&e->started), 1,
			    "the grant function did not start");
	KUNIT_EXPECT_EQ(test, sem_cancel_sync(sem, &e->waiter), -EALREADY);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->finished), 1);
	KUNIT_ASSERT_TRUE(test, sem_life_wait(&u->done));
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, e->status, 0);
	up(sem);
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
	sem_life_entry_init(&e);
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
	sem_life_entry_init(&inner);
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

	sem = kzalloc(sizeof(*sem), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sem);
	sema_init(sem, SEM_TEST_NO_UNITS);
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
 * CONFIG_DEBUG_SEMAPHORE: freeing a queued down_entry() entry, and a queued
 * down_async() request, is reported and the fixup takes each off its
 * semaphore's list: the next unit becomes free.  Freeing a semaphore with
 * a queued request fails the request as sem_shutdown() would: its work
 * runs once with -ESHUTDOWN (and does not touch the freed semaphore).
 */
static void sem_life_test_debug_free_queued(struct kunit *test)
{
	struct workqueue_struct *wq = sem_life_unbound(test);
	struct sem_life_entry *e;
	struct sem_life_req *r;
	struct semaphore *sem;

	if (!IS_ENABLED(CONFIG_DEBUG_SEMAPHORE))
		kunit_skip(test, "needs CONFIG_DEBUG_SEMAPHORE");

	sem = kzalloc(sizeof(*sem), GFP_KERNEL);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sem && e && r);
	sema_init(sem, SEM_TEST_NO_UNITS);
	sem_life_entry_init(e);
	sem_life_req_init(r, NULL, sem, wq);
	KUNIT_EXPECT_EQ(test, down_entry(sem, &e->waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), -EINPROGRESS);
	kunit_info(test, "three ODEBUG reports of freed active objects follow\n");
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_kfree(test, e) &&
			      sem_life_kfree(test, r),
			      "kfree() of a queued waiter did not return");
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	up(sem);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);

	KUNIT_ASSERT_EQ(test, down_trylock(sem), 0);
	r = sem_life_req_alloc(test, NULL, sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), -EINPROGRESS);
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_kfree(test, sem),
			      "kfree() of the semaphore did not return");
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_wait(&r->ran),
			      "the request of the freed semaphore did not run");
	flush_workqueue(wq);
	sem_life_expect_runs(test, r, 1, -ESHUTDOWN);
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

	sem = kzalloc(sizeof(*sem), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sem);
	sema_init(sem, SEM_TEST_NO_UNITS);
	e = sem_life_alloc(test, sizeof(*e));
	f = sem_life_alloc(test, sizeof(*f));
	sem_life_entry_init(e);
	sem_life_entry_init(f);
	e->requeue_on = sem;
	e->other = f;
	e->requeue_ret = 1;
	KUNIT_EXPECT_EQ(test, down_entry(sem, &e->waiter), -EINPROGRESS);
	KUNIT_ASSERT_TRUE_MSG(test, sem_life_kfree(test, sem),
			      "kfree() of the semaphore did not return");
	KUNIT_EXPECT_EQ(test, atomic_read(&e->finished), 1);
	KUNIT_EXPECT_EQ(test, e->status, -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, e->preemptible);
	KUNIT_EXPECT_EQ(test, e->requeue_ret, -ESHUTDOWN);
}

static int sem_life_init(struct kunit *test)
{
	struct sem_life_fixture *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	test->priv = f;
	f->ordered = alloc_ordered_workqueue("sem_life_ordered", 0);
	f->unbound = alloc_workqueue("sem_life_unbound", WQ_UNBOUND, 0);
	return f->ordered && f->unbound ? 0 : -ENOMEM;
}

/*
 * After a case that passed, nothing of it is in flight: destroy the
 * workqueues (which drains them) and free its memory.  After a failed
 * case a thread or work item may be stuck and still use them: leak them.
 */
static void sem_life_exit(struct kunit *test)
{
	struct sem_life_fixture *f = test->priv;
	unsigned int i;

	if (!f || test->status == KUNIT_FAILURE)
		return;
	if (f->ordered)
		destroy_workqueue(f->ordered);
	if (f->unbound)
		destroy_workqueue(f->unbound);
	for (i = 0; i < f->nr_objs; i++)
		kfree(f->objs[i]);
	kfree(f);
}

static struct kunit_case sem_lifetime_test_cases[] = {
	KUNIT_CASE(sem_life_test_shutdown_thread),
	KUNIT_CASE(sem_life_test_shutdown_own_ordered),
	KUNIT_CASE(sem_life_test_shutdown_other_sem),
	KUNIT_CASE(sem_life_test_init_busy),
	KUNIT_CASE(sem_life_test_resubmit_fifo),
	KUNIT_CASE(sem_life_test_down_entry_of_request),
	KUNIT_CASE(sem_life_test_grant_cannot_queue),
	KUNIT_CASE(sem_life_test_waiter_init_busy),
	KUNIT_CASE(sem_life_test_down_async_busy),
	KUNIT_CASE(sem_life_test_cancel_sync_basic),
	KUNIT_CASE(sem_life_test_cancel_sync_running),
	KUNIT_CASE(sem_life_test_cancel_sync_refuses_resubmit),
	KUNIT_CASE(sem_life_test_cancel_sync_resubmitting),
	KUNIT_CASE(sem_life_test_cancel_sync_moved),
	KUNIT_CASE(sem_life_test_cancel_sync_races_grant),
	KUNIT_CASE(sem_life_test_up_hardirq_grants),
	KUNIT_CASE(sem_life_test_cancel_recipe),
	KUNIT_CASE(sem_life_test_teardown),
	KUNIT_CASE(sem_life_test_teardown_cancel_work),
	KUNIT_CASE(sem_life_test_free_in_work),
	KUNIT_CASE(sem_life_test_cancel_already_queued),
	KUNIT_CASE(sem_life_test_entry_cancel_sync),
	KUNIT_CASE(sem_life_test_cancel_requeued_elsewhere),
	KUNIT_CASE(sem_life_test_up_irq_during_grant),
	KUNIT_CASE(sem_life_test_debug_reinit_sleeper),
	KUNIT_CASE(sem_life_test_debug_free_queued),
	KUNIT_CASE(sem_life_test_debug_free_requeue),
	{}
};

static struct kunit_suite sem_lifetime_test_suite = {
	.name = "semaphore_lifetime",
	.init = sem_life_init,
	.exit = sem_life_exit,
	.test_cases = sem_lifetime_test_cases,
};

kunit_test_suite(sem_lifetime_test_suite);

MODULE_DESCRIPTION("KUnit tests for the lifetimes of asynchronous semaphore waiters");
MODULE_LICENSE("GPL");

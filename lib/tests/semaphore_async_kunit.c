// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for down_async() requests.  The comment above each case names
 * its rule.  Busy ordered workqueues and functions waiting at a gate force
 * the interleavings; when a case ends its requests are cancelled, then freed.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/debugobjects.h>
#include <linux/semaphore_async.h>

#include "semaphore_kunit.h"

/* Order of all runs of the suite, to compare the runs of one case. */
static atomic_t sem_req_seq = ATOMIC_INIT(0);

/* A request and what its function did; run[] has its first two runs. */
struct sem_req {
	struct sem_async	req;
	struct semaphore	*sem;
	atomic_t		runs, running;
	struct { int status, seq; } run[2];
	bool			bad;		/* runs overlapped, or not its work */
	bool			again;		/* its own down_async() */
	int			seen_seq;	/* sem_req_seq after shutdown */
	struct completion	started, gate, ran;	/* gate: complete_all() */
};

static struct sem_req *to_req(struct sem_async *req)
{
	return container_of(req, struct sem_req, req);
}

/* The start of every run: count and record it, check that it runs alone. */
static int sem_req_begin(struct sem_async *req, int status)
{
	struct sem_req *r = to_req(req);
	int run = atomic_inc_return(&r->runs);

	if (run <= ARRAY_SIZE(r->run)) {
		r->run[run - 1].status = status;
		r->run[run - 1].seq = atomic_inc_return(&sem_req_seq);
	}
	if (atomic_inc_return(&r->running) > 1 || current_work() != &req->work)
		r->bad = true;
	complete(&r->started);
	return run;
}

/* The end of every run: give the unit back (if granted one), tell the case. */
static void sem_req_end(struct sem_async *req, int status)
{
	struct sem_req *r = to_req(req);

	atomic_dec(&r->running);
	if (!status)
		up(r->sem);
	complete(&r->ran);
}

/* Give the unit back at once. */
static void sem_req_release(struct sem_async *req, int status)
{
	sem_req_begin(req, status);
	sem_req_end(req, status);
}

/* Hold the unit until the case opens the gate. */
static void sem_req_hold(struct sem_async *req, int status)
{
	sem_req_begin(req, status);
	wait_for_completion_timeout(&to_req(req)->gate, SEM_TEST_WAIT);
	sem_req_end(req, status);
}

/* First run: submit the request again (before it starts), wait at the gate. */
static void sem_req_again_early(struct sem_async *req, int status)
{
	if (!atomic_read(&to_req(req)->runs))
		to_req(req)->again = down_async(req);
	if (sem_req_begin(req, status) == 1)
		wait_for_completion_timeout(&to_req(req)->gate, SEM_TEST_WAIT);
	sem_req_end(req, status);
}

/* First run: wait at the gate, then submit the request again. */
static void sem_req_again_late(struct sem_async *req, int status)
{
	if (sem_req_begin(req, status) == 1) {
		wait_for_completion_timeout(&to_req(req)->gate, SEM_TEST_WAIT);
		to_req(req)->again = down_async(req);
	}
	sem_req_end(req, status);
}

/* Wait at the gate, up() the unit, then shut the semaphore down. */
static void sem_req_shut_down(struct sem_async *req, int status)
{
	sem_req_begin(req, status);
	wait_for_completion_timeout(&to_req(req)->gate, SEM_TEST_WAIT);
	up(to_req(req)->sem);
	sem_shutdown(to_req(req)->sem);
	to_req(req)->seen_seq = atomic_read(&sem_req_seq);
	sem_req_end(req, 1);
}

static void sem_req_setup(struct sem_req *r, struct semaphore *sem,
			  struct workqueue_struct *wq, sem_async_fn fn)
{
	r->sem = sem;
	init_completion(&r->started);
	init_completion(&r->gate);
	init_completion(&r->ran);
	sem_async_init(&r->req, sem, wq, fn);
}

static void sem_req_cancel_action(void *req)
{
	sem_async_cancel_sync(req);
}

/* A request of the case, cancelled (and waited for) when it ends. */
static struct sem_req *sem_req_new(struct kunit *test, struct semaphore *sem,
				   struct workqueue_struct *wq, sem_async_fn fn)
{
	struct sem_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	sem_req_setup(r, sem, wq, fn);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sem_req_cancel_action, &r->req), 0);
	return r;
}

/* A semaphore of the case; allocate it before its requests. */
static struct semaphore *sem_new(struct kunit *test, int count)
{
	struct semaphore *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sem);
	sema_init(sem, count);
	return sem;
}

static const struct sem_test_param sem_async_grants[] = {
	{ "free_unit", 1 }, { "waits_for_up", 0 },
};

KUNIT_ARRAY_PARAM_DESC(sem_async_grants, sem_async_grants, desc);

/* Rule: [resubmit while waiting] a submission runs once with 0, at once or after up(). */
static void sem_async_test_granted(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct workqueue_struct *wq = sem_test_wq(test, true);
	struct sem_test_blocker *blk = sem_test_block(test, wq);
	struct semaphore *sem = sem_new(test, p->kind);
	struct sem_req *r = sem_req_new(test, sem, wq, sem_req_hold);

	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	/* Submitted again before it runs: refused, nothing changes. */
	KUNIT_EXPECT_FALSE(test, down_async(&r->req));
	KUNIT_EXPECT_EQ(test, sem_has_waiters(sem), !p->kind);
	KUNIT_EXPECT_EQ(test, work_pending(&r->req.work), !!p->kind);
	if (!p->kind) {
		up(sem);
		KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	}
	/* Queued behind the blocker: never run inline. */
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 0);
	sem_test_unblock(blk);
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->started));
	KUNIT_EXPECT_EQ(test, r->run[0].status, 0);
	KUNIT_EXPECT_FALSE(test, r->bad);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 0U);
	complete_all(&r->gate);
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->ran));
	flush_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

static const struct sem_test_param sem_async_resubmits[] = {
	{ "ordered_2_units", 1, 2 }, { "unbound_2_units", 0, 2 },
	{ "unbound_1_unit", 0, 1 },
};

KUNIT_ARRAY_PARAM_DESC(sem_async_resubmits, sem_async_resubmits, desc);

/* Rule: [resubmit from the function] runs never overlap, FIFO kept. */
static void sem_async_test_resubmit(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct workqueue_struct *wq = sem_test_wq(test, p->kind);
	struct semaphore *sem = sem_new(test, p->arg);
	struct sem_req *a = sem_req_new(test, sem, wq, sem_req_again_early);
	struct sem_req *b = sem_req_new(test, sem, wq, sem_req_release);

	KUNIT_EXPECT_TRUE(test, down_async(&a->req));
	KUNIT_ASSERT_TRUE(test, sem_test_done(&a->started));
	KUNIT_EXPECT_TRUE(test, a->again);
	/* Every unit is a's or waited for by a: b is granted after a. */
	KUNIT_EXPECT_TRUE(test, down_async(&b->req));
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(sem));
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->runs), 1);
	complete_all(&a->gate);
	KUNIT_ASSERT_TRUE(test, sem_test_done(&a->ran) && sem_test_done(&a->ran) &&
			  sem_test_done(&b->ran));
	flush_workqueue(wq);
	KUNIT_EXPECT_FALSE_MSG(test, a->bad, "two runs overlapped");
	KUNIT_EXPECT_EQ(test, atomic_read(&a->runs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->runs), 1);
	if (p->kind)
		KUNIT_EXPECT_LT(test, a->run[1].seq, b->run[0].seq);
	KUNIT_EXPECT_EQ(test, sem_count(sem), (unsigned int)p->arg);
}

/* Rule: each sem_async_init() call site gives its own lockdep class. */
static void sem_async_test_lockdep_class(struct kunit *test)
{
#ifdef CONFIG_LOCKDEP
	struct sem_async *a = kunit_kcalloc(test, 3, sizeof(*a), GFP_KERNEL);
	struct semaphore *sem = sem_new(test, 1);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	for (i = 0; i < 2; i++)
		sem_async_init(&a[i], sem, system_wq, sem_req_release);
	sem_async_init(&a[2], sem, system_wq, sem_req_release);
	KUNIT_EXPECT_NOT_NULL(test, a[0].work.lockdep_map.key);
	KUNIT_EXPECT_PTR_EQ(test, a[0].work.lockdep_map.key,
			    a[1].work.lockdep_map.key);
	KUNIT_EXPECT_PTR_NE(test, a[0].work.lockdep_map.key,
			    a[2].work.lockdep_map.key);
	KUNIT_EXPECT_STREQ(test, a[2].work.lockdep_map.name, "(work_completion)&a[2]");
#else
	kunit_skip(test, "needs CONFIG_LOCKDEP");
#endif
}

enum { SEM_QUEUED, SEM_GRANTED, SEM_GRANTED_BY_UP, SEM_FAILED };

static const struct sem_test_param sem_async_cancels[] = {
	{ "queued", SEM_QUEUED, 0 }, { "queued_sync", SEM_QUEUED, 1 },
	{ "granted", SEM_GRANTED, 0 }, { "granted_sync", SEM_GRANTED, 1 },
	{ "granted_by_up", SEM_GRANTED_BY_UP, 0 },
	{ "granted_by_up_sync", SEM_GRANTED_BY_UP, 1 },
	{ "failed", SEM_FAILED, 0 }, { "failed_sync", SEM_FAILED, 1 },
};

KUNIT_ARRAY_PARAM_DESC(sem_async_cancels, sem_async_cancels, desc);

/* Rule: [free after cancel] [cancel a granted request] removed: never runs; granted: runs once. */
static void sem_async_test_cancel(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct workqueue_struct *wq = sem_test_wq(test, true);
	struct sem_test_blocker *blk = sem_test_block(test, wq);
	struct semaphore *sem = sem_new(test, 1);
	struct sem_req *r = sem_req_new(test, sem, wq, sem_req_release);
	bool queued = p->kind == SEM_QUEUED;

	if (p->kind != SEM_GRANTED)
		KUNIT_EXPECT_EQ(test, down_trylock(sem), 0);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	if (p->kind == SEM_GRANTED_BY_UP)
		up(sem);
	else if (p->kind == SEM_FAILED)
		sem_shutdown(sem);
	KUNIT_EXPECT_EQ(test, work_pending(&r->req.work), !queued);
	if (p->arg)
		sem_test_unblock(blk);
	KUNIT_EXPECT_EQ(test, p->arg ? sem_async_cancel_sync(&r->req) :
			      sem_async_cancel(&r->req), queued);
	/* _sync returns after the function; the other does not wait. */
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), p->arg && !queued);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	if (queued || p->kind == SEM_FAILED)
		up(sem);
	sem_test_unblock(blk);
	flush_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), !queued);
	if (!queued)
		KUNIT_EXPECT_EQ(test, r->run[0].status,
				p->kind == SEM_FAILED ? -ESHUTDOWN : 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/* A call that sleeps in a kernel thread, to see it wait. */
struct sem_async_waiter {
	struct sem_async	*req;
	struct workqueue_struct	*wq;
	bool			entered, ret;
	struct completion	done;
	struct task_struct	*task;
};

static int sem_async_waiter_fn(void *data)
{
	struct sem_async_waiter *c = data;

	WRITE_ONCE(c->entered, true);
	if (c->req)
		c->ret = sem_async_cancel_sync(c->req);
	else
		drain_workqueue(c->wq);
	complete(&c->done);
	return 0;
}

/* Start the thread; true once it sleeps in its call. */
static bool sem_async_waiter_start(struct kunit *test, struct sem_async_waiter *c)
{
	unsigned long end = jiffies + SEM_TEST_WAIT;

	init_completion(&c->done);
	c->task = kthread_run(sem_async_waiter_fn, c, "sem_async_wait");
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->task));
	get_task_struct(c->task);
	while (time_before(jiffies, end) && !completion_done(&c->done)) {
		usleep_range(200, 400);
		if (READ_ONCE(c->entered) &&
		    (READ_ONCE(c->task->__state) & TASK_UNINTERRUPTIBLE))
			return true;
	}
	return false;
}

static bool sem_async_waiter_stop(struct sem_async_waiter *c)
{
	bool done = sem_test_done(&c->done);

	put_task_struct(c->task);
	return done;
}

static const struct sem_test_param sem_async_units[] = {
	{ "1_unit", 1 }, { "2_units", 2 },
};

KUNIT_ARRAY_PARAM_DESC(sem_async_units, sem_async_units, desc);

/* Rule: [resubmit while cancelled] while sem_async_cancel_sync() waits, down_async() refuses. */
static void sem_async_test_cancel_sync_refuses(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct semaphore *sem = sem_new(test, p->kind);
	struct sem_req *r = sem_req_new(test, sem, system_unbound_wq,
					sem_req_again_late);
	struct sem_async_waiter *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	bool sleeps;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->req = &r->req;
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->started));
	sleeps = sem_async_waiter_start(test, c);
	complete_all(&r->gate);
	KUNIT_ASSERT_TRUE_MSG(test, sem_async_waiter_stop(c),
			      "sem_async_cancel_sync() did not return");
	KUNIT_EXPECT_TRUE_MSG(test, sleeps, "it did not wait for the function");
	KUNIT_EXPECT_FALSE(test, c->ret);
	KUNIT_EXPECT_FALSE(test, r->again);
	KUNIT_EXPECT_TRUE(test, completion_done(&r->ran));
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(sem), (unsigned int)p->kind);
}

/*
 * Each round queues request R on a semaphore without units; an interrupt
 * on another CPU calls up(), while the case calls sem_async_cancel_sync(R)
 * after a delay that varies.  Either R was removed and up() freed the unit,
 * or R was granted, and its function ran and gave the unit back: one unit
 * is free in the end, and sem_async_cancel_sync() said which.
 */
#define SEM_ASYNC_RACE_LOOPS	2000

struct sem_async_race {
	struct semaphore	*sem;
	atomic_t		done;
};

static void sem_async_race_up(void *data)
{
	struct sem_async_race *x = data;

	udelay(atomic_read(&x->done) % 5);
	up(x->sem);
	atomic_inc(&x->done);
}

/* Rule: [free a busy request] [grant from an interrupt] cancel_sync racing a grant: exact. */
static void sem_async_test_cancel_sync_race(struct kunit *test)
{
	struct workqueue_struct *wq = sem_test_wq(test, true);
	struct semaphore *sem = sem_new(test, SEM_TEST_NO_UNITS);
	struct sem_req *r = sem_req_new(test, sem, wq, sem_req_release);
	struct sem_async_race *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	unsigned int removed = 0, ran = 0, i, cpu;
	unsigned long end;
	int runs;
	bool ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_ASSERT_NOT_NULL(test, x);
	x->sem = sem;
	/* Pinned: the interrupt never runs in this task's context. */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	for (i = 0; i < SEM_ASYNC_RACE_LOOPS; i++) {
		runs = atomic_read(&r->runs);
		if (!down_async(&r->req)) {
			KUNIT_FAIL(test, "round %u: refused", i);
			break;
		}
		smp_call_function_single(cpumask_any_but(cpu_online_mask, cpu),
					 sem_async_race_up, x, 0);
		/* 0-49 steps of 1, 2, 4, ... 64 us: up to 3.1 ms. */
		udelay((i % 50) << ((i / 50) % 7));
		ret = sem_async_cancel_sync(&r->req);
		/* On return the function ran to its end, or never runs. */
		runs = atomic_read(&r->runs) - runs;
		end = jiffies + SEM_TEST_WAIT;
		while (atomic_read(&x->done) != i + 1 && time_before(jiffies, end))
			cpu_relax();
		if (atomic_read(&x->done) != i + 1 || runs != !ret ||
		    atomic_read(&r->running) || work_pending(&r->req.work) ||
		    sem_has_waiters(sem) || down_trylock(sem) || sem_count(sem)) {
			KUNIT_FAIL(test, "round %u: %d after %d runs, count %u",
				   i, ret, runs, sem_count(sem));
			break;
		}
		removed += ret;
		ran += !ret;
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kunit_info(test, "%u removed, %u ran\n", removed, ran);
	KUNIT_EXPECT_GT_MSG(test, removed, 0U, "never cancelled");
	KUNIT_EXPECT_GT_MSG(test, ran, 0U, "never found the function run");
	KUNIT_EXPECT_FALSE(test, r->bad);
}

/* Rule: a grant to a draining workqueue warns; cancel returns, the semaphore serves others. */
static void sem_async_test_draining_wq(struct kunit *test)
{
	struct workqueue_struct *wq = sem_test_wq(test, true);
	struct sem_test_blocker *blk = sem_test_block(test, wq);
	struct semaphore *sem = sem_new(test, SEM_TEST_NO_UNITS);
	struct sem_req *r = sem_req_new(test, sem, wq, sem_req_release);
	struct sem_async_waiter *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->wq = wq;
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	/* drain_workqueue() waits for the blocker: the workqueue drains. */
	KUNIT_ASSERT_TRUE(test, sem_async_waiter_start(test, c));
	kunit_info(test, "a warning from the workqueue follows\n");
	up(sem);
	/* The request holds the unit, and its run is lost; nothing spins. */
	KUNIT_EXPECT_FALSE(test, sem_async_cancel(&r->req));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_EQ(test, down_trylock(sem), 1);
	up(sem);
	KUNIT_EXPECT_EQ(test, down_trylock(sem), 0);
	sem_test_unblock(blk);
	KUNIT_EXPECT_TRUE(test, sem_async_waiter_stop(c));
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 0);
}

/* Rule: [tear down] [submit after shutdown] shutdown waits for nothing, fails in order. */
static void sem_async_test_shutdown(struct kunit *test)
{
	struct workqueue_struct *wq = sem_test_wq(test, true);
	struct semaphore *sem = kzalloc(sizeof(*sem), GFP_KERNEL);
	struct sem_req *r[4];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, sem);
	sema_init(sem, 1);
	for (i = 0; i < 4; i++) {
		r[i] = kzalloc(sizeof(*r[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r[i]);
		sem_req_setup(r[i], sem, wq, i ? sem_req_release : sem_req_shut_down);
		KUNIT_EXPECT_TRUE(test, i == 3 || down_async(&r[i]->req));
	}
	/* r[0]'s up() grants r[1], its sem_shutdown() fails r[2]: both behind it. */
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r[0]->started));
	complete_all(&r[0]->gate);
	KUNIT_ASSERT_TRUE_MSG(test, sem_test_done(&r[0]->ran),
			      "sem_shutdown() waited for work queued behind it");
	KUNIT_EXPECT_EQ_MSG(test, r[0]->seen_seq, r[0]->run[0].seq,
			    "sem_shutdown() ran a function");
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_TRUE(test, down_async(&r[3]->req));
	for (i = 0; i < 4; i++)
		sem_async_cancel_sync(&r[i]->req);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&r[i]->runs), 1);
		KUNIT_EXPECT_EQ(test, r[i]->run[0].status, i > 1 ? -ESHUTDOWN : 0);
		if (i)
			KUNIT_EXPECT_LT(test, r[i - 1]->run[0].seq, r[i]->run[0].seq);
	}
	/* The classic API keeps working; all of it may be freed. */
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	KUNIT_EXPECT_EQ(test, down_trylock(sem), 0);
	for (i = 0; i < 4; i++)
		kfree(r[i]);
	kfree(sem);
}

/* First run: sleep 20 ms, then submit the request again. */
static void sem_req_again_slow(struct sem_async *req, int status)
{
	if (sem_req_begin(req, status) == 1) {
		msleep(20);
		to_req(req)->again = down_async(req);
	}
	sem_req_end(req, status);
}

static const struct sem_test_param sem_async_teardowns[] = {
	{ "destroy_workqueue", 0 }, { "cancel_sync", 1 },
};

KUNIT_ARRAY_PARAM_DESC(sem_async_teardowns, sem_async_teardowns, desc);

/* Rule: [tear down] the documented sequence waits for every run, also a
 * resubmitted one; [resubmit from the function] the status belongs to the
 * run: 0, then -ESHUTDOWN
 */
static void sem_async_test_teardown(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct workqueue_struct *wq = alloc_workqueue("sem_test_teardown", WQ_UNBOUND, 0);
	struct semaphore *sem = sem_new(test, 1);
	struct sem_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, wq && r);
	sem_req_setup(r, sem, wq, sem_req_again_slow);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->started));
	sem_shutdown(sem);
	/* The run resubmits after the teardown began. */
	if (p->kind)
		KUNIT_EXPECT_FALSE(test, sem_async_cancel_sync(&r->req));
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->running), 0);
	KUNIT_EXPECT_EQ(test, r->again, !p->kind);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), p->kind ? 1 : 2);
	KUNIT_EXPECT_EQ(test, r->run[1].status, p->kind ? 0 : -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/* Give the unit back and free the request. */
static void sem_req_free(struct sem_async *req, int status)
{
	up(to_req(req)->sem);
	kfree(to_req(req));
}

/* Rule: [free in the function] the function may free its request. */
static void sem_async_test_fn_frees(struct kunit *test)
{
	struct workqueue_struct *wq = sem_test_wq(test, false);
	struct semaphore *sem = sem_new(test, 1);
	struct sem_req *r = kzalloc(sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	sem_req_setup(r, sem, wq, sem_req_free);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	flush_workqueue(wq);
	/* It ran (and so gave the unit back); nothing touched it after. */
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/* Rule: [rebind] after sem_async_cancel_sync(), sem_async_init() binds anew. */
static void sem_async_test_rebind(struct kunit *test)
{
	struct semaphore *a = sem_new(test, 0), *b = sem_new(test, 1);
	struct sem_req *r = sem_req_new(test, a, system_wq, sem_req_hold);

	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	KUNIT_EXPECT_TRUE(test, sem_async_cancel_sync(&r->req));
	sem_req_setup(r, b, system_unbound_wq, sem_req_release);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->ran));
	sem_async_cancel_sync(&r->req);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(a));
	KUNIT_EXPECT_EQ(test, r->run[0].status, 0);
	KUNIT_EXPECT_EQ(test, sem_count(b), 1U);
}

enum { SEM_FREE_REQ, SEM_FREE_SEM, SEM_INIT_REQ };

static const struct sem_test_param sem_async_debugs[] = {
	{ "free_waiting", SEM_FREE_REQ, 0 }, { "free_granted", SEM_FREE_REQ, 1 },
	{ "free_semaphore", SEM_FREE_SEM, 0 }, { "init_waiting", SEM_INIT_REQ, 0 },
};

KUNIT_ARRAY_PARAM_DESC(sem_async_debugs, sem_async_debugs, desc);

/* Rule: (debug) a submitted request or its semaphore freed is reported, and
 * that is all; (debug) initialising a waiting request takes it off and
 * reports; the next is granted
 */
static void sem_async_test_debug(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct sem_req *r, *next = NULL;
	struct sem_test_blocker *blk;
	struct workqueue_struct *wq;
	struct semaphore *sem;
	int seq;

	if (!IS_ENABLED(CONFIG_DEBUG_SEMAPHORE) || !IS_ENABLED(CONFIG_DEBUG_OBJECTS_WORK) ||
	    !IS_BUILTIN(CONFIG_SEMAPHORE_KUNIT_TEST))
		kunit_skip(test, "needs DEBUG_SEMAPHORE and DEBUG_OBJECTS_WORK, built in");
	wq = sem_test_wq(test, true);
	blk = sem_test_block(test, wq);
	sem = kzalloc(sizeof(*sem), GFP_KERNEL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sem && r);
	sema_init(sem, p->arg);
	sem_req_setup(r, sem, wq, sem_req_release);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	if (p->kind == SEM_INIT_REQ) {
		next = sem_req_new(test, sem, wq, sem_req_release);
		KUNIT_EXPECT_TRUE(test, down_async(&next->req));
	}
	seq = atomic_read(&sem_req_seq);
	kunit_info(test, "ODEBUG reports follow\n");
	/* As kfree() would, but the memory stays. */
	if (p->kind == SEM_FREE_SEM)
		debug_check_no_obj_freed(sem, sizeof(*sem));
	else if (p->kind == SEM_FREE_REQ)
		debug_check_no_obj_freed(r, sizeof(*r));
	else
		sem_req_setup(r, sem, wq, sem_req_release);
	sem_test_unblock(blk);
	flush_workqueue(wq);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sem_req_seq), seq, "it ran");
	KUNIT_EXPECT_EQ(test, sem_has_waiters(sem), !p->arg);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 0U);
	up(sem);
	flush_workqueue(wq);
	/*
	 * The first waiting request runs now and gives the unit back; the
	 * work of a granted one was cancelled by DEBUG_OBJECTS_WORK, and its
	 * unit with it: the up() above gave one.
	 */
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), !p->arg && !next);
	if (next)
		KUNIT_EXPECT_EQ(test, atomic_read(&next->runs), 1);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	kfree(r);
	kfree(sem);
}

static struct kunit_case sem_async_cases[] = {
	KUNIT_CASE_PARAM(sem_async_test_granted, sem_async_grants_gen_params),
	KUNIT_CASE_PARAM(sem_async_test_resubmit, sem_async_resubmits_gen_params),
	KUNIT_CASE(sem_async_test_lockdep_class),
	KUNIT_CASE_PARAM(sem_async_test_cancel, sem_async_cancels_gen_params),
	KUNIT_CASE_PARAM(sem_async_test_cancel_sync_refuses, sem_async_units_gen_params),
	KUNIT_CASE(sem_async_test_cancel_sync_race),
	KUNIT_CASE(sem_async_test_draining_wq),
	KUNIT_CASE(sem_async_test_shutdown),
	KUNIT_CASE_PARAM(sem_async_test_teardown, sem_async_teardowns_gen_params),
	KUNIT_CASE(sem_async_test_fn_frees),
	KUNIT_CASE(sem_async_test_rebind),
	KUNIT_CASE_PARAM(sem_async_test_debug, sem_async_debugs_gen_params),
	{}
};

static struct kunit_suite sem_async_suite = {
	.name = "semaphore_async",
	.test_cases = sem_async_cases,
};

kunit_test_suite(sem_async_suite);

MODULE_DESCRIPTION("KUnit tests for down_async() requests of the semaphore");
MODULE_LICENSE("GPL");

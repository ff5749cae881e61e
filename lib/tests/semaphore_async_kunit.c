// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for down_async() requests.  The comment above each case names
 * its rule.  Busy ordered workqueues and functions waiting at a gate force
 * the interleavings; when a case ends its requests are cancelled, then freed.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/debugobjects.h>
#include <linux/semaphore.h>
#include <linux/wait.h>

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
	bool			cancelled;	/* its own sem_async_cancel_sync() */
	struct task_struct	*task;		/* ran the last run */
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
	r->task = current;
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

/* Hold the unit for 50 ms. */
static void sem_req_sleep(struct sem_async *req, int status)
{
	sem_req_begin(req, status);
	msleep(50);
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

/* First run: submit the request again, then cancel it from inside. */
static void sem_req_cancel_self(struct sem_async *req, int status)
{
	if (sem_req_begin(req, status) == 1) {
		to_req(req)->again = down_async(req);
		to_req(req)->cancelled = sem_async_cancel_sync(req);
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
		/* Waiting on the semaphore, not running: nothing to flush. */
		KUNIT_EXPECT_FALSE(test, sem_async_flush(&r->req));
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
	sem_async_flush(&r->req);
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

/* Rule: the status belongs to the run, whatever happens to the next one. */
static void sem_async_test_status_per_run(struct kunit *test)
{
	struct workqueue_struct *wq = sem_test_wq(test, false);
	struct semaphore *sem = sem_new(test, 1);
	struct sem_req *r = sem_req_new(test, sem, wq, sem_req_hold);

	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->started));
	/* Run 1 started: the request may be submitted again; it waits. */
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(sem));
	sem_shutdown(sem);
	complete_all(&r->gate);
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->ran) && sem_test_done(&r->ran));
	flush_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 2);
	KUNIT_EXPECT_EQ(test, r->run[0].status, 0);
	KUNIT_EXPECT_EQ(test, r->run[1].status, -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
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

/* Rule: [free after cancel] a cancelled request never runs and holds no unit. */
static void sem_async_test_cancel(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct workqueue_struct *wq = sem_test_wq(test, true);
	struct sem_test_blocker *blk = sem_test_block(test, wq);
	struct semaphore *sem = sem_new(test, 1);
	struct sem_req *r = sem_req_new(test, sem, wq, sem_req_release);
	bool holds = p->kind == SEM_QUEUED || p->kind == SEM_FAILED;

	if (p->kind != SEM_GRANTED)
		KUNIT_EXPECT_EQ(test, down_trylock(sem), 0);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	if (p->kind == SEM_GRANTED_BY_UP)
		up(sem);
	else if (p->kind == SEM_FAILED)
		sem_shutdown(sem);
	KUNIT_EXPECT_EQ(test, work_pending(&r->req.work), p->kind != SEM_QUEUED);
	KUNIT_EXPECT_TRUE(test, p->arg ? sem_async_cancel_sync(&r->req) :
				  sem_async_cancel(&r->req));
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	if (holds)
		up(sem);
	sem_test_unblock(blk);
	flush_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 0);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

enum { SEM_CANCEL, SEM_CANCEL_SYNC, SEM_FLUSH };

static const struct sem_test_param sem_async_idles[] = {
	{ "cancel_never_submitted", SEM_CANCEL, 0 },
	{ "cancel_sync_never_submitted", SEM_CANCEL_SYNC, 0 },
	{ "cancel_running", SEM_CANCEL, 1 },
	{ "cancel_sync_running", SEM_CANCEL_SYNC, 1 },
	{ "flush_running", SEM_FLUSH, 1 },
	{ "cancel_ran", SEM_CANCEL, 2 }, { "cancel_sync_ran", SEM_CANCEL_SYNC, 2 },
	{ "cancel_never_initialised", SEM_CANCEL, 3 },
	{ "cancel_sync_never_initialised", SEM_CANCEL_SYNC, 3 },
};

KUNIT_ARRAY_PARAM_DESC(sem_async_idles, sem_async_idles, desc);

/* Rule: [cancel a running request] nothing to cancel: false; _sync and flush wait for a run. */
static void sem_async_test_nothing_to_cancel(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct semaphore *sem = sem_new(test, 1);
	struct sem_req *r = sem_req_new(test, sem, system_unbound_wq,
			p->kind == SEM_CANCEL ? sem_req_hold : sem_req_sleep);
	bool ret, submit = p->arg == 1 || p->arg == 2;

	if (p->arg == 3) {	/* Never initialised: warnings, and refused. */
		memset(&r->req, 0, sizeof(r->req));
		KUNIT_EXPECT_FALSE(test, down_async(&r->req));
	}
	KUNIT_ASSERT_TRUE(test, !submit || (down_async(&r->req) && sem_test_done(&r->started)));
	if (p->arg == 2) {
		complete_all(&r->gate);
		sem_async_flush(&r->req);
	}
	ret = p->kind == SEM_CANCEL ? sem_async_cancel(&r->req) :
	      p->kind == SEM_CANCEL_SYNC ? sem_async_cancel_sync(&r->req) :
	      sem_async_flush(&r->req);
	KUNIT_EXPECT_EQ(test, ret, p->kind == SEM_FLUSH);
	if (p->arg == 1)	/* Has the running function returned? */
		KUNIT_EXPECT_EQ(test, !atomic_read(&r->running), p->kind != SEM_CANCEL);
	complete_all(&r->gate);
	sem_async_flush(&r->req);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), submit);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/* sem_async_cancel_sync() in a kernel thread, to see it wait. */
struct sem_async_canceller {
	struct sem_async	*req;
	bool			entered, ret;
	struct completion	done;
};

static int sem_async_canceller_fn(void *data)
{
	struct sem_async_canceller *c = data;

	WRITE_ONCE(c->entered, true);
	c->ret = sem_async_cancel_sync(c->req);
	complete(&c->done);
	return 0;
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
	struct sem_async_canceller *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned long end = jiffies + SEM_TEST_WAIT;
	struct task_struct *task;
	bool sleeps = false;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->req = &r->req;
	init_completion(&c->done);
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->started));
	task = kthread_create(sem_async_canceller_fn, c, "sem_async_cancel");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	wake_up_process(task);
	/* Until it sleeps in the call (flush_work()). */
	while (!sleeps && time_before(jiffies, end) && !completion_done(&c->done)) {
		usleep_range(200, 400);
		sleeps = READ_ONCE(c->entered) &&
			 (READ_ONCE(task->__state) & TASK_UNINTERRUPTIBLE);
	}
	complete_all(&r->gate);
	KUNIT_ASSERT_TRUE_MSG(test, sem_test_done(&c->done),
			      "sem_async_cancel_sync() did not return");
	put_task_struct(task);
	KUNIT_EXPECT_TRUE_MSG(test, sleeps, "it did not wait for the function");
	KUNIT_EXPECT_FALSE(test, c->ret);
	KUNIT_EXPECT_FALSE(test, r->again);
	KUNIT_EXPECT_TRUE(test, completion_done(&r->ran));
	KUNIT_EXPECT_FALSE(test, work_pending(&r->req.work));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_EQ(test, sem_count(sem), (unsigned int)p->kind);
}

/* Rule: sem_async_cancel_sync() in its own function warns, cancels, no wait. */
static void sem_async_test_cancel_sync_in_fn(struct kunit *test)
{
	struct semaphore *sem = sem_new(test, 1);
	struct sem_req *r = sem_req_new(test, sem, system_wq,
					sem_req_cancel_self);

	kunit_info(test, "a warning from sem_async_cancel_sync() follows\n");
	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	KUNIT_ASSERT_TRUE_MSG(test, sem_test_done(&r->ran),
			      "the function waited for itself");
	sem_async_flush(&r->req);
	KUNIT_EXPECT_TRUE(test, r->again);
	KUNIT_EXPECT_TRUE(test, r->cancelled);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), 1);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
}

/*
 * Each round queues request R and entry E behind it on a semaphore without
 * units; an interrupt on another CPU queues a spacer work item on R's
 * ordered workqueue and calls up(), while the case calls
 * sem_async_cancel_sync(R) after a delay that varies.  Who calls E's grant
 * function tells what happened: the interrupt (R was removed), the case
 * (R's pending work was taken back and its unit given back), R's function
 * (it ran and up()ed its unit).
 */
#define SEM_ASYNC_RACE_LOOPS	2000

struct sem_async_race {
	struct semaphore	*sem;
	struct workqueue_struct	*wq;
	struct work_struct	spacer;
	struct sem_waiter	entry;
	atomic_t		granted, done;
	int			status;
	struct task_struct	*granted_by;
	struct sem_async	*req;		/* for sem_async_race_cancel() */
	bool			cancelled;
};

static void sem_async_spacer_fn(struct work_struct *work)
{
	ndelay(19 * NSEC_PER_USEC);
}

static void sem_async_race_grant(struct sem_waiter *waiter, int status)
{
	struct sem_async_race *x = container_of(waiter, struct sem_async_race,
						entry);

	x->status = status;
	x->granted_by = current;
	atomic_inc(&x->granted);
}

static void sem_async_race_up(void *data)
{
	struct sem_async_race *x = data;

	udelay(atomic_read(&x->done) % 5);
	queue_work(x->wq, &x->spacer);
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
	unsigned int removed = 0, taken_back = 0, ran = 0, i, cpu;
	unsigned long end;
	int runs;
	bool ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_ASSERT_NOT_NULL(test, x);
	x->sem = sem;
	x->wq = wq;
	INIT_WORK(&x->spacer, sem_async_spacer_fn);
	sem_waiter_init(&x->entry, sem_async_race_grant);
	/* Pinned: the interrupt never runs in this task's context. */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	for (i = 0; i < SEM_ASYNC_RACE_LOOPS; i++) {
		runs = atomic_read(&r->runs);
		atomic_set(&x->granted, 0);
		if (!down_async(&r->req) || down_entry(sem, &x->entry) != -EINPROGRESS) {
			KUNIT_FAIL(test, "round %u: could not queue", i);
			break;
		}
		smp_call_function_single(cpumask_any_but(cpu_online_mask, cpu),
					 sem_async_race_up, x, 0);
		/* 0-49 steps of 1, 2, 4, ... 64 us: up to 3.1 ms. */
		udelay((i % 50) << ((i / 50) % 7));
		ret = sem_async_cancel_sync(&r->req);
		end = jiffies + SEM_TEST_WAIT;
		while (atomic_read(&x->done) != i + 1 && time_before(jiffies, end))
			cpu_relax();
		flush_work(&x->spacer);
		runs = atomic_read(&r->runs) - runs;
		if (atomic_read(&x->done) != i + 1 || atomic_read(&x->granted) != 1 ||
		    x->status || sem_count(sem) || sem_has_waiters(sem) ||
		    work_pending(&r->req.work)) {
			KUNIT_FAIL(test, "round %u (%d, %d runs): E granted %d times, count %u",
				   i, ret, runs, atomic_read(&x->granted), sem_count(sem));
			break;
		}
		if (ret && !runs && x->granted_by == current) {
			taken_back++;
		} else if (ret && !runs) {
			removed++;
		} else if (!ret && runs == 1 && x->granted_by == r->task) {
			ran++;
		} else {
			KUNIT_FAIL(test, "round %u: %d after %d runs", i, ret, runs);
			break;
		}
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kunit_info(test, "%u removed, %u taken back, %u ran\n", removed, taken_back, ran);
	KUNIT_EXPECT_GT_MSG(test, removed + taken_back, 0U, "never cancelled");
	KUNIT_EXPECT_GT_MSG(test, ran, 0U, "never found the function run");
	KUNIT_EXPECT_FALSE(test, r->bad);
}

/* In an interrupt on another CPU: cancel ->req. */
static void sem_async_race_cancel(void *data)
{
	struct sem_async_race *x = data;

	udelay(atomic_read(&x->done) % 7);
	x->cancelled = sem_async_cancel(x->req);
	atomic_inc(&x->done);
}

/* Rule: a cancel racing with a submission: the function runs, or cancel said it won't. */
static void sem_async_test_cancel_submit_race(struct kunit *test)
{
	struct semaphore *sem = sem_new(test, 1);
	struct sem_req *r = sem_req_new(test, sem, system_unbound_wq, sem_req_release);
	struct sem_async_race *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	unsigned int cancelled = 0, i, cpu;
	unsigned long end;
	int runs;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_ASSERT_NOT_NULL(test, x);
	x->req = &r->req;
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	for (i = 0; i < SEM_ASYNC_RACE_LOOPS; i++) {
		runs = atomic_read(&r->runs);
		smp_call_function_single(cpumask_any_but(cpu_online_mask, cpu),
					 sem_async_race_cancel, x, 0);
		udelay(i % 11);
		if (!down_async(&r->req)) {
			KUNIT_FAIL(test, "round %u: a cancel made down_async() fail", i);
			break;
		}
		end = jiffies + SEM_TEST_WAIT;
		while (atomic_read(&x->done) != i + 1 && time_before(jiffies, end))
			cpu_relax();
		sem_async_flush(&r->req);
		runs = atomic_read(&r->runs) - runs;
		if (atomic_read(&x->done) != i + 1 || runs != !x->cancelled ||
		    sem_count(sem) != 1) {
			KUNIT_FAIL(test, "round %u: cancel %d, %d runs, count %u",
				   i, x->cancelled, runs, sem_count(sem));
			break;
		}
		cancelled += x->cancelled;
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kunit_info(test, "%u cancelled, %u ran\n", cancelled, i - cancelled);
	KUNIT_EXPECT_GT_MSG(test, cancelled, 0U, "never cancelled");
	KUNIT_EXPECT_GT_MSG(test, i - cancelled, 0U, "never ran");
}

/* Rule: a grant whose work cannot be queued warns and passes the unit on. */
static void sem_async_test_cannot_queue(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct semaphore *sem = sem_new(test, p->kind);
	struct sem_req *r1 = sem_req_new(test, sem, system_wq, sem_req_release);
	struct sem_req *r2 = sem_req_new(test, sem, system_wq, sem_req_release);

	kunit_info(test, "a warning about work that cannot be queued follows\n");
	if (p->kind) {
		disable_work(&r1->req.work);
		KUNIT_EXPECT_FALSE(test, down_async(&r1->req));
	} else {
		KUNIT_EXPECT_TRUE(test, down_async(&r1->req));
		KUNIT_EXPECT_TRUE(test, down_async(&r2->req));
		disable_work(&r1->req.work);
		up(sem);
		/* The unit went past r1 to r2. */
		KUNIT_ASSERT_TRUE(test, sem_test_done(&r2->ran));
		sem_async_flush(&r2->req);
	}
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(sem));
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	KUNIT_EXPECT_TRUE(test, enable_work(&r1->req.work));
	KUNIT_EXPECT_TRUE(test, down_async(&r1->req));
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r1->ran));
	sem_async_flush(&r1->req);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
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
	flush_workqueue(wq);
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

enum { SEM_FREE_REQ, SEM_FREE_SEM };

static const struct sem_test_param sem_async_debugs[] = {
	{ "waiting", SEM_FREE_REQ, 0 }, { "granted", SEM_FREE_REQ, 1 },
	{ "semaphore", SEM_FREE_SEM, 0 },
};

KUNIT_ARRAY_PARAM_DESC(sem_async_debugs, sem_async_debugs, desc);

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
	sem_async_flush(&r->req);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(a));
	KUNIT_EXPECT_EQ(test, r->run[0].status, 0);
	KUNIT_EXPECT_EQ(test, sem_count(b), 1U);
}

/* Rule: (debug) a submitted request or its semaphore freed is reported, and that is all. */
static void sem_async_test_debug(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct sem_test_blocker *blk;
	struct workqueue_struct *wq;
	struct semaphore *sem;
	struct sem_req *r;
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
	seq = atomic_read(&sem_req_seq);
	kunit_info(test, "ODEBUG reports follow\n");
	/* As kfree() would, but the memory stays. */
	if (p->kind == SEM_FREE_SEM)
		debug_check_no_obj_freed(sem, sizeof(*sem));
	else
		debug_check_no_obj_freed(r, sizeof(*r));
	sem_test_unblock(blk);
	flush_workqueue(wq);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sem_req_seq), seq, "it ran");
	KUNIT_EXPECT_EQ(test, sem_has_waiters(sem), !p->arg);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 0U);
	up(sem);
	flush_workqueue(wq);
	/*
	 * A waiting request runs now and gives the unit back; the work of a
	 * granted one was cancelled by DEBUG_OBJECTS_WORK, and its unit with
	 * it: the up() above gave one.
	 */
	KUNIT_EXPECT_EQ(test, atomic_read(&r->runs), !p->arg);
	KUNIT_EXPECT_EQ(test, sem_count(sem), 1U);
	kfree(r);
	kfree(sem);
}

/* Rule: a request costs a wait entry, a work item and three words. */
static void sem_async_test_size(struct kunit *test)
{
	if (BITS_PER_LONG != 64 || sizeof(struct work_struct) != 32)
		kunit_skip(test, "for 64-bit without lock debugging");
	KUNIT_EXPECT_EQ(test, sizeof(struct sem_async), 104);
}

static struct kunit_case sem_async_cases[] = {
	KUNIT_CASE_PARAM(sem_async_test_granted, sem_async_grants_gen_params),
	KUNIT_CASE_PARAM(sem_async_test_resubmit, sem_async_resubmits_gen_params),
	KUNIT_CASE(sem_async_test_status_per_run),
	KUNIT_CASE(sem_async_test_lockdep_class),
	KUNIT_CASE_PARAM(sem_async_test_cancel, sem_async_cancels_gen_params),
	KUNIT_CASE_PARAM(sem_async_test_nothing_to_cancel, sem_async_idles_gen_params),
	KUNIT_CASE_PARAM(sem_async_test_cancel_sync_refuses, sem_async_units_gen_params),
	KUNIT_CASE(sem_async_test_cancel_sync_in_fn),
	KUNIT_CASE(sem_async_test_cancel_sync_race),
	KUNIT_CASE(sem_async_test_cancel_submit_race),
	KUNIT_CASE_PARAM(sem_async_test_cannot_queue, sem_async_grants_gen_params),
	KUNIT_CASE(sem_async_test_shutdown),
	KUNIT_CASE(sem_async_test_fn_frees),
	KUNIT_CASE(sem_async_test_rebind),
	KUNIT_CASE_PARAM(sem_async_test_debug, sem_async_debugs_gen_params),
	KUNIT_CASE(sem_async_test_size),
	{}
};

static struct kunit_suite sem_async_suite = {
	.name = "semaphore_async",
	.test_cases = sem_async_cases,
};

kunit_test_suite(sem_async_suite);

MODULE_DESCRIPTION("KUnit tests for down_async() requests of the semaphore");
MODULE_LICENSE("GPL");

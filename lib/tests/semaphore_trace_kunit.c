// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the semaphore's trace events: probes on every event of
 * include/trace/events/semaphore.h record what one test semaphore
 * produces, and each case checks that one request gives exactly the
 * expected sequence, for a grant, a cancel and a shutdown.  Needs
 * CONFIG_TRACEPOINTS (the cases skip without it).
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <trace/events/semaphore.h>

#include "semaphore_kunit.h"

enum sem_trace_ev {
	EV_QUEUE = 'Q',
	EV_GRANT = 'G',
	EV_CANCEL = 'C',
	EV_SHUTDOWN = 'X',
	EV_START = 'S',
	EV_END = 'E',
};

#define SEM_TRACE_MAX	16

/* What the probes saw for one semaphore. */
struct sem_trace_log {
	spinlock_t		lock;		/* the probes run on any CPU */
	struct semaphore	*sem;
	unsigned int		n;
	char			ev[SEM_TRACE_MAX + 1];
	const void		*obj[SEM_TRACE_MAX];	/* entry or request */
	int			val[SEM_TRACE_MAX];	/* qlen, ret, status */
	u64			wait_ns;
	atomic_t		queued_async;	/* queue events of down_async() */
	/* Called once from the first -EALREADY cancel event of @hook_task. */
	void			(*hook)(struct sem_trace_log *log);
	struct task_struct	*hook_task;
	void			*hook_data;
};

static void sem_trace_add(void *data, struct semaphore *sem, char ev,
			  const void *obj, int val)
{
	struct sem_trace_log *log = data;
	unsigned long flags;

	if (sem != log->sem)
		return;
	spin_lock_irqsave(&log->lock, flags);
	if (log->n < SEM_TRACE_MAX) {
		log->ev[log->n] = ev;
		log->obj[log->n] = obj;
		log->val[log->n] = val;
	}
	log->n++;
	spin_unlock_irqrestore(&log->lock, flags);
}

static void probe_queue(void *data, struct semaphore *sem,
			struct sem_waiter *waiter, unsigned int qlen, bool async)
{
	struct sem_trace_log *log = data;

	if (sem == log->sem && async)
		atomic_inc(&log->queued_async);
	sem_trace_add(data, sem, EV_QUEUE, waiter, qlen);
}

static void probe_grant(void *data, struct semaphore *sem,
			struct sem_waiter *waiter, u64 wait_ns)
{
	struct sem_trace_log *log = data;

	if (sem == log->sem)
		WRITE_ONCE(log->wait_ns, wait_ns);
	sem_trace_add(data, sem, EV_GRANT, waiter, 0);
}

static void probe_cancel(void *data, struct semaphore *sem,
			 struct sem_waiter *waiter, int ret)
{
	struct sem_trace_log *log = data;
	void (*hook)(struct sem_trace_log *log);

	sem_trace_add(data, sem, EV_CANCEL, waiter, ret);
	if (sem == log->sem && ret == -EALREADY &&
	    current == READ_ONCE(log->hook_task)) {
		hook = log->hook;
		log->hook = NULL;
		if (hook)
			hook(log);
	}
}

static void probe_shutdown(void *data, struct semaphore *sem,
			   struct sem_waiter *waiter)
{
	sem_trace_add(data, sem, EV_SHUTDOWN, waiter, 0);
}

static void probe_start(void *data, struct semaphore *sem,
			struct sem_async *req, int status)
{
	sem_trace_add(data, sem, EV_START, req, status);
}

static void probe_end(void *data, struct semaphore *sem, const void *req)
{
	sem_trace_add(data, sem, EV_END, req, 0);
}

static int sem_trace_init(struct kunit *test)
{
	struct sem_trace_log *log;
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "needs CONFIG_TRACEPOINTS");
	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	if (!log)
		return -ENOMEM;
	spin_lock_init(&log->lock);
	ret = register_trace_sem_entry_queue(probe_queue, log) ?:
	      register_trace_sem_entry_grant(probe_grant, log) ?:
	      register_trace_sem_entry_cancel(probe_cancel, log) ?:
	      register_trace_sem_entry_shutdown(probe_shutdown, log) ?:
	      register_trace_sem_async_work_start(probe_start, log) ?:
	      register_trace_sem_async_work_end(probe_end, log);
	test->priv = log;
	return ret;
}

static void sem_trace_exit(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;

	if (!log)
		return;
	unregister_trace_sem_entry_queue(probe_queue, log);
	unregister_trace_sem_entry_grant(probe_grant, log);
	unregister_trace_sem_entry_cancel(probe_cancel, log);
	unregister_trace_sem_entry_shutdown(probe_shutdown, log);
	unregister_trace_sem_async_work_start(probe_start, log);
	unregister_trace_sem_async_work_end(probe_end, log);
	tracepoint_synchronize_unregister();
}

/* The events seen so far, as a string such as "QGSE". */
static const char *sem_trace_seq(struct sem_trace_log *log)
{
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	log->ev[min(log->n, SEM_TRACE_MAX)] = '\0';
	spin_unlock_irqrestore(&log->lock, flags);
	return log->ev;
}

struct sem_trace_req {
	struct sem_async	req;
	struct semaphore	*sem;
	struct completion	ran;
};

static void sem_trace_work(struct work_struct *work)
{
	struct sem_trace_req *r = container_of(to_sem_async(work),
					       struct sem_trace_req, req);

	if (!sem_async_status(&r->req))
		up(r->sem);
	complete(&r->ran);
}

/* The requests live on the test's stack. */
static void sem_trace_req_init(struct sem_trace_req *r, struct semaphore *sem)
{
	sem_async_init_onstack(&r->req, sem_trace_work);
	r->sem = sem;
	init_completion(&r->ran);
}

/* Wait for the work item's end event, which comes after the function. */
static void sem_trace_wait_end(struct kunit *test, struct sem_trace_log *log,
			       struct sem_trace_req *r, unsigned int events)
{
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&r->ran,
							    SEM_TEST_WAIT));
	flush_work(&r->req.work);
	KUNIT_EXPECT_EQ(test, READ_ONCE(log->n), events);
}

/*
 * A down_async() request that waits and is granted by up(): queued
 * (qlen 1), granted, its work started with status 0 and finished.
 */
static void sem_trace_test_grant(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_req r;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq),
			-EINPROGRESS);
	msleep(20);
	up(&sem);
	sem_trace_wait_end(test, log, &r, 4);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QGSE");
	KUNIT_EXPECT_PTR_EQ(test, log->obj[0], (const void *)&r.req.waiter);
	KUNIT_EXPECT_EQ(test, log->val[0], 1);
	/* The queue event names down_async() as the caller. */
	KUNIT_EXPECT_EQ(test, atomic_read(&log->queued_async), 1);
	KUNIT_EXPECT_PTR_EQ(test, log->obj[1], (const void *)&r.req.waiter);
	KUNIT_EXPECT_PTR_EQ(test, log->obj[2], (const void *)&r.req);
	KUNIT_EXPECT_EQ(test, log->val[2], 0);
	KUNIT_EXPECT_PTR_EQ(test, log->obj[3], (const void *)&r.req);
	/* It waited the 20 ms between down_async() and up(). */
	KUNIT_EXPECT_GE(test, READ_ONCE(log->wait_ns), 10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_async_destroy_onstack(&r.req);
}

/* A request granted at once: no queue or grant event, only its work. */
static void sem_trace_test_immediate(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_req r;
	struct semaphore sem;

	sema_init(&sem, 1);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq), 0);
	sem_trace_wait_end(test, log, &r, 2);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "SE");
	sem_async_destroy_onstack(&r.req);
}

/* Queued, then removed by sem_async_cancel(): one cancel event, 0. */
static void sem_trace_test_cancel(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_req r;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_async_cancel(&sem, &r.req), 0);
	up(&sem);
	msleep(20);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QC");
	KUNIT_EXPECT_EQ(test, log->val[1], 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_async_destroy_onstack(&r.req);
}

/* A work item that keeps an ordered workqueue busy. */
struct sem_trace_blocker {
	struct work_struct	work;
	struct completion	running;
	struct completion	release;
};

static void sem_trace_blocker_fn(struct work_struct *work)
{
	struct sem_trace_blocker *b = container_of(work,
					struct sem_trace_blocker, work);

	complete(&b->running);
	wait_for_completion_timeout(&b->release, SEM_TEST_WAIT);
}

/* An ordered workqueue kept busy by @blk until sem_trace_unblock(). */
static struct workqueue_struct *sem_trace_block(struct kunit *test,
						struct sem_trace_blocker *blk)
{
	struct workqueue_struct *wq;

	wq = alloc_ordered_workqueue("sem_trace_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	INIT_WORK_ONSTACK(&blk->work, sem_trace_blocker_fn);
	init_completion(&blk->running);
	init_completion(&blk->release);
	queue_work(wq, &blk->work);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&blk->running,
							    SEM_TEST_WAIT));
	return wq;
}

static void sem_trace_unblock(struct workqueue_struct *wq,
			      struct sem_trace_blocker *blk)
{
	complete(&blk->release);
	destroy_workqueue(wq);
	destroy_work_on_stack(&blk->work);
}

/*
 * Granted at once, its work pending behind a busy ordered workqueue, then
 * taken off by sem_async_cancel_sync(): the cancel finds it settled
 * (-EALREADY), then reports the take-off (0); the work never starts.
 */
static void sem_trace_test_cancel_sync_takes_off(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_blocker blk;
	struct workqueue_struct *wq;
	struct sem_trace_req r;
	struct semaphore sem;

	wq = sem_trace_block(test, &blk);
	sema_init(&sem, 1);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, wq), 0);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r.req), 0);
	sem_trace_unblock(wq, &blk);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "CC");
	KUNIT_EXPECT_EQ(test, log->val[0], -EALREADY);
	KUNIT_EXPECT_EQ(test, log->val[1], 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&r.ran));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_async_destroy_onstack(&r.req);
}

struct sem_trace_gives_back {
	struct sem_trace_blocker	*blk;
	struct semaphore		*sem;
	bool				given_back;
};

/*
 * In sem_async_cancel_sync()'s first look, under the semaphore's lock:
 * let the request's work start on the other CPU and wait until its unit
 * is back and its record gone (the give-back's up() is the fast path).
 */
static void sem_trace_let_work_start(struct sem_trace_log *log)
{
	struct sem_trace_gives_back *g = log->hook_data;
	int i;

	complete(&g->blk->release);
	/* At most a second: interrupts are off. */
	for (i = 0; i < 200000 && !sem_count(g->sem); i++)
		udelay(5);
	g->given_back = sem_count(g->sem);
	/* The record goes right after the up(). */
	mdelay(1);
}

/*
 * A grant whose work starts while sem_async_cancel_sync() runs for the
 * request, after the cancel looked at it (here: between its first look,
 * which finds it settled, and its scan of the requests in flight, which
 * then finds nothing).  The work item gives the unit back instead of
 * running the function, and the cancel reports 0, not -EALREADY: a
 * cancel that missed such a grant would otherwise return while the
 * function runs (and the owner frees the request under it).  The work
 * is pending on a per-CPU workqueue of another CPU, behind a blocker
 * that the probe of the first cancel event releases.
 */
static void sem_trace_test_cancel_sync_work_gives_back(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_gives_back g = {};
	struct sem_trace_blocker blk;
	struct workqueue_struct *wq;
	struct sem_trace_req r;
	struct semaphore sem;
	unsigned int cpu, other;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	wq = alloc_workqueue("sem_trace_one", 0, 1);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	cpu = raw_smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, cpu);
	INIT_WORK_ONSTACK(&blk.work, sem_trace_blocker_fn);
	init_completion(&blk.running);
	init_completion(&blk.release);
	queue_work_on(other, wq, &blk.work);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&blk.running,
							    SEM_TEST_WAIT));
	sema_init(&sem, 1);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	/* Queued from the other CPU: its work waits behind the blocker. */
	if (set_cpus_allowed_ptr(current, cpumask_of(other))) {
		sem_trace_unblock(wq, &blk);
		sem_async_destroy_onstack(&r.req);
		kunit_skip(test, "cannot move to CPU %u", other);
	}
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, wq), 0);
	/*
	 * Back to @cpu.  Should that fail, the probe spins on @other, where
	 * the work cannot start: it gives up after a second, and the case
	 * fails.
	 */
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)),
			0);
	KUNIT_EXPECT_TRUE(test, work_pending(&r.req.work));

	g.blk = &blk;
	g.sem = &sem;
	log->hook_data = &g;
	log->hook = sem_trace_let_work_start;
	WRITE_ONCE(log->hook_task, current);
	ret = sem_async_cancel_sync(&sem, &r.req);
	WRITE_ONCE(log->hook_task, NULL);
	set_cpus_allowed_ptr(current, cpu_possible_mask);

	KUNIT_EXPECT_TRUE(test, g.given_back);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&r.ran));
	flush_work(&r.req.work);
	KUNIT_EXPECT_FALSE(test, completion_done(&r.ran));
	/* The cancel's look, then the work item's give-back; no start. */
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "CC");
	KUNIT_EXPECT_EQ(test, log->val[0], -EALREADY);
	KUNIT_EXPECT_EQ(test, log->val[1], 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_trace_unblock(wq, &blk);
	sem_async_destroy_onstack(&r.req);
}

/*
 * Queued, then failed by sem_shutdown(): the shutdown event, then its
 * work with status -ESHUTDOWN.
 */
static void sem_trace_test_shutdown(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_req r;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq),
			-EINPROGRESS);
	sem_shutdown(&sem);
	sem_trace_wait_end(test, log, &r, 4);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QXSE");
	KUNIT_EXPECT_EQ(test, log->val[2], -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	sem_async_destroy_onstack(&r.req);
}

/*
 * sem_shutdown() runs work that has not started itself (its workqueue is
 * busy): that run is traced as the work item's would be.
 */
static void sem_trace_test_shutdown_runs_work(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_blocker blk;
	struct workqueue_struct *wq;
	struct sem_trace_req r;
	struct semaphore sem;

	wq = sem_trace_block(test, &blk);
	sema_init(&sem, SEM_TEST_NO_UNITS);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, wq), -EINPROGRESS);
	sem_shutdown(&sem);
	/* sem_shutdown() ran the work function itself, in this thread. */
	KUNIT_EXPECT_TRUE(test, completion_done(&r.ran));
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QXSE");
	KUNIT_EXPECT_EQ(test, log->val[2], -ESHUTDOWN);
	sem_trace_unblock(wq, &blk);
	sem_async_destroy_onstack(&r.req);
}

/* A down_entry() entry: queue and grant events, nothing else. */
static void sem_trace_entry_grant(struct sem_waiter *waiter, int status)
{
}

static void sem_trace_test_qlen(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_waiter w[3];
	struct semaphore sem;
	int i;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	log->sem = &sem;
	for (i = 0; i < 3; i++) {
		sem_waiter_init(&w[i], sem_trace_entry_grant);
		KUNIT_EXPECT_EQ(test, down_entry(&sem, &w[i]), -EINPROGRESS);
	}
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &w[1]), 0);
	up(&sem);
	up(&sem);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QQQCGG");
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_PTR_EQ(test, log->obj[i], (const void *)&w[i]);
		KUNIT_EXPECT_EQ(test, log->val[i], i + 1);
	}
	/* ... and down_entry(), not down_async(), as the caller. */
	KUNIT_EXPECT_EQ(test, atomic_read(&log->queued_async), 0);
	/* FIFO: the first, then the third; the cancelled one is skipped. */
	KUNIT_EXPECT_PTR_EQ(test, log->obj[4], (const void *)&w[0]);
	KUNIT_EXPECT_PTR_EQ(test, log->obj[5], (const void *)&w[2]);
	up(&sem);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 2U);
}

static struct kunit_case sem_trace_cases[] = {
	KUNIT_CASE(sem_trace_test_grant),
	KUNIT_CASE(sem_trace_test_immediate),
	KUNIT_CASE(sem_trace_test_cancel),
	KUNIT_CASE(sem_trace_test_cancel_sync_takes_off),
	KUNIT_CASE(sem_trace_test_cancel_sync_work_gives_back),
	KUNIT_CASE(sem_trace_test_shutdown),
	KUNIT_CASE(sem_trace_test_shutdown_runs_work),
	KUNIT_CASE(sem_trace_test_qlen),
	{}
};

static struct kunit_suite sem_trace_suite = {
	.name = "semaphore_trace",
	.init = sem_trace_init,
	.exit = sem_trace_exit,
	.test_cases = sem_trace_cases,
};

kunit_test_suite(sem_trace_suite);

MODULE_DESCRIPTION("KUnit tests for the semaphore's trace events");
MODULE_LICENSE("GPL");

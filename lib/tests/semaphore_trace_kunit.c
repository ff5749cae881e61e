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

/*
 * Queued, then removed by sem_async_cancel_sync(): its first look removes
 * it (a cancel event with 0); there is no work to take back, so nothing
 * else is traced.  A second call finds the request idle: -ENOENT, traced,
 * without a warning.
 */
static void sem_trace_test_cancel_sync_removes(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_req r;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r.req), 0);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QC");
	KUNIT_EXPECT_PTR_EQ(test, log->obj[1], (const void *)&r.req.waiter);
	KUNIT_EXPECT_EQ(test, log->val[1], 0);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r.req), -ENOENT);
	up(&sem);
	msleep(20);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QCC");
	KUNIT_EXPECT_EQ(test, log->val[2], -ENOENT);
	KUNIT_EXPECT_FALSE(test, completion_done(&r.ran));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_async_destroy_onstack(&r.req);
}

/*
 * Granted at once and its work done, then sem_async_cancel_sync(): the
 * request stays granted after its function ran, so the cancel finds it
 * settled (-EALREADY), has no work to take back and returns -EALREADY.
 */
static void sem_trace_test_cancel_sync_ran(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_req r;
	struct semaphore sem;

	sema_init(&sem, 1);
	log->sem = &sem;
	sem_trace_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq), 0);
	sem_trace_wait_end(test, log, &r, 2);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r.req), -EALREADY);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "SEC");
	KUNIT_EXPECT_PTR_EQ(test, log->obj[2], (const void *)&r.req.waiter);
	KUNIT_EXPECT_EQ(test, log->val[2], -EALREADY);
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

/* Let the workqueue go; destroy_workqueue() waits for what is queued. */
static void sem_trace_unblock(struct workqueue_struct *wq,
			      struct sem_trace_blocker *blk)
{
	complete(&blk->release);
	destroy_workqueue(wq);
	destroy_work_on_stack(&blk->work);
}

/*
 * Granted at once, its work pending behind a busy ordered workqueue, then
 * taken back by sem_async_cancel_sync(): its first look finds the request
 * granted (-EALREADY); cancel_work_sync() then takes the pending work
 * back, and the take-back, which gives the unit back, is traced with 0.
 * The work never starts, not even once the workqueue is free again.
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
	KUNIT_EXPECT_TRUE(test, work_pending(&r.req.work));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r.req), 0);
	KUNIT_EXPECT_FALSE(test, work_pending(&r.req.work));
	/* The unit of the grant is back before the cancel returns. */
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_trace_unblock(wq, &blk);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "CC");
	KUNIT_EXPECT_PTR_EQ(test, log->obj[0], (const void *)&r.req.waiter);
	KUNIT_EXPECT_EQ(test, log->val[0], -EALREADY);
	KUNIT_EXPECT_PTR_EQ(test, log->obj[1], (const void *)&r.req.waiter);
	KUNIT_EXPECT_EQ(test, log->val[1], 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&r.ran));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_async_destroy_onstack(&r.req);
}

struct sem_trace_let_start {
	struct sem_trace_blocker	*blk;
	struct semaphore		*sem;
	bool				started;
};

/*
 * In sem_async_cancel_sync()'s first look, under the semaphore's lock:
 * let the request's work start on the other CPU and wait until its
 * function has given the unit back (its up() is the fast path: nobody
 * waits).
 */
static void sem_trace_let_work_start(struct sem_trace_log *log)
{
	struct sem_trace_let_start *g = log->hook_data;
	int i;

	complete(&g->blk->release);
	/* At most a second: interrupts are off. */
	for (i = 0; i < 200000 && !sem_count(g->sem); i++)
		udelay(5);
	g->started = sem_count(g->sem);
}

/*
 * A grant whose work starts while sem_async_cancel_sync() runs for the
 * request, after its first look (which finds the request granted): the
 * work is then running or done, cancel_work_sync() has nothing to take
 * back and waits for it, and the cancel returns -EALREADY only after the
 * work item has returned, end event included.  A cancel that returned
 * while the function still ran would let the owner free the request
 * under it.  The work is pending on a per-CPU workqueue of another CPU,
 * behind a blocker that the probe of the first cancel event releases.
 */
static void sem_trace_test_cancel_sync_waits(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_let_start g = {};
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
	 * the work cannot start: it gives up after a second, the cancel then
	 * takes the pending work back, and the case fails.
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

	KUNIT_EXPECT_TRUE(test, g.started);
	KUNIT_EXPECT_EQ(test, ret, -EALREADY);
	/* Nothing to flush: the function and the work item have returned. */
	KUNIT_EXPECT_TRUE(test, completion_done(&r.ran));
	KUNIT_EXPECT_FALSE(test, work_pending(&r.req.work));
	/* The cancel's look, then the work, start to end; no take-back. */
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "CSE");
	KUNIT_EXPECT_EQ(test, log->val[0], -EALREADY);
	KUNIT_EXPECT_PTR_EQ(test, log->obj[1], (const void *)&r.req);
	KUNIT_EXPECT_EQ(test, log->val[1], 0);
	KUNIT_EXPECT_PTR_EQ(test, log->obj[2], (const void *)&r.req);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	sem_trace_unblock(wq, &blk);
	sem_async_destroy_onstack(&r.req);
}

/*
 * Queued, then failed by sem_shutdown(): the shutdown event, then its
 * work, on the workqueue, with status -ESHUTDOWN.
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
	KUNIT_EXPECT_PTR_EQ(test, log->obj[1], (const void *)&r.req.waiter);
	KUNIT_EXPECT_EQ(test, log->val[2], -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	sem_async_destroy_onstack(&r.req);
}

/*
 * A request queued on @sem (no unit) behind a blocked workqueue, then
 * failed by sem_shutdown(): its work is pending.  Return: the workqueue.
 */
static struct workqueue_struct *sem_trace_queue_shut(struct kunit *test,
						     struct sem_trace_blocker *blk,
						     struct sem_trace_req *r,
						     struct semaphore *sem)
{
	struct sem_trace_log *log = test->priv;
	struct workqueue_struct *wq = sem_trace_block(test, blk);

	sema_init(sem, SEM_TEST_NO_UNITS);
	log->sem = sem;
	sem_trace_req_init(r, sem);
	KUNIT_EXPECT_EQ(test, down_async(sem, &r->req, wq), -EINPROGRESS);
	sem_shutdown(sem);
	return wq;
}

/*
 * sem_shutdown() neither waits for nor runs the work of a request it
 * fails: with the workqueue busy it returns after the shutdown event,
 * the work pending.  The work runs on the workqueue once that is free
 * (destroy_workqueue() waits for it, as the teardown recipe does), and
 * only then are its start and end traced.
 */
static void sem_trace_test_shutdown_queues_work(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_blocker blk;
	struct workqueue_struct *wq;
	struct sem_trace_req r;
	struct semaphore sem;

	wq = sem_trace_queue_shut(test, &blk, &r, &sem);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QX");
	KUNIT_EXPECT_TRUE(test, work_pending(&r.req.work));
	KUNIT_EXPECT_EQ(test, sem_async_status(&r.req), -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, completion_done(&r.ran));
	sem_trace_unblock(wq, &blk);
	KUNIT_EXPECT_TRUE(test, completion_done(&r.ran));
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QXSE");
	KUNIT_EXPECT_PTR_EQ(test, log->obj[2], (const void *)&r.req);
	KUNIT_EXPECT_EQ(test, log->val[2], -ESHUTDOWN);
	KUNIT_EXPECT_PTR_EQ(test, log->obj[3], (const void *)&r.req);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	sem_async_destroy_onstack(&r.req);
}

/*
 * Queued, failed by sem_shutdown() while its workqueue is busy, then
 * sem_async_cancel_sync(): the first look finds it settled (-EALREADY),
 * the pending work is taken back (0), and no unit is given back, since
 * the request was failed and held none.  The work never starts.
 */
static void sem_trace_test_shutdown_cancel_sync(struct kunit *test)
{
	struct sem_trace_log *log = test->priv;
	struct sem_trace_blocker blk;
	struct workqueue_struct *wq;
	struct sem_trace_req r;
	struct semaphore sem;

	wq = sem_trace_queue_shut(test, &blk, &r, &sem);
	KUNIT_EXPECT_EQ(test, sem_async_cancel_sync(&sem, &r.req), 0);
	sem_trace_unblock(wq, &blk);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), "QXCC");
	KUNIT_EXPECT_EQ(test, log->val[2], -EALREADY);
	KUNIT_EXPECT_EQ(test, log->val[3], 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&r.ran));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
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
	KUNIT_CASE(sem_trace_test_cancel_sync_removes),
	KUNIT_CASE(sem_trace_test_cancel_sync_ran),
	KUNIT_CASE(sem_trace_test_cancel_sync_takes_off),
	KUNIT_CASE(sem_trace_test_cancel_sync_waits),
	KUNIT_CASE(sem_trace_test_shutdown),
	KUNIT_CASE(sem_trace_test_shutdown_queues_work),
	KUNIT_CASE(sem_trace_test_shutdown_cancel_sync),
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

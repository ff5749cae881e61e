// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the semaphore's trace events: probes log the events of
 * one semaphore, and each case (its rule in the comment above it) checks
 * the exact sequence.  The cases skip without CONFIG_TRACEPOINTS.
 */
#include <kunit/test.h>
#include <linux/semaphore_async.h>
#include <trace/events/semaphore.h>

#include "semaphore_kunit.h"

#define SEM_TRACE_MAX	16

/* The events of one semaphore, as a string such as "QGC". */
struct sem_trace_log {
	raw_spinlock_t		lock;	/* probes run under the raw sem->lock */
	struct semaphore	*sem;
	unsigned int		n;
	char			ev[SEM_TRACE_MAX + 1];
	const void		*obj[SEM_TRACE_MAX];	/* the wait entry */
};

static void sem_trace_add(void *data, struct semaphore *sem, char ev,
			  const void *obj)
{
	struct sem_trace_log *log = data;
	unsigned long flags;

	if (sem != log->sem)
		return;
	raw_spin_lock_irqsave(&log->lock, flags);
	if (log->n < SEM_TRACE_MAX) {
		log->ev[log->n] = ev;
		log->obj[log->n] = obj;
	}
	log->n++;
	raw_spin_unlock_irqrestore(&log->lock, flags);
}

static void probe_queue(void *data, struct semaphore *sem,
			struct sem_waiter *waiter)
{
	sem_trace_add(data, sem, 'Q', waiter);
}

static void probe_grant(void *data, struct semaphore *sem,
			struct sem_waiter *waiter)
{
	sem_trace_add(data, sem, 'G', waiter);
}

static void probe_cancel(void *data, struct semaphore *sem,
			 struct sem_waiter *waiter)
{
	sem_trace_add(data, sem, 'C', waiter);
}

static void probe_shutdown(void *data, struct semaphore *sem,
			   struct sem_waiter *waiter)
{
	sem_trace_add(data, sem, 'X', waiter);
}

static int sem_trace_init(struct kunit *test)
{
	struct sem_trace_log *log;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "needs CONFIG_TRACEPOINTS");
	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	if (!log)
		return -ENOMEM;
	raw_spin_lock_init(&log->lock);
	test->priv = log;
	return register_trace_sem_entry_queue(probe_queue, log) ?:
	       register_trace_sem_entry_grant(probe_grant, log) ?:
	       register_trace_sem_entry_cancel(probe_cancel, log) ?:
	       register_trace_sem_entry_shutdown(probe_shutdown, log);
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
	tracepoint_synchronize_unregister();
}

static const char *sem_trace_seq(struct sem_trace_log *log)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&log->lock, flags);
	log->ev[min(log->n, SEM_TRACE_MAX)] = '\0';
	raw_spin_unlock_irqrestore(&log->lock, flags);
	return log->ev;
}

/* A request on its own semaphore, which the log watches. */
struct sem_trace_req {
	struct sem_async	req;
	struct semaphore	sem;
	struct completion	ran;
	int			status;
};

static void sem_trace_fn(struct sem_async *req, int status)
{
	struct sem_trace_req *r = container_of(req, struct sem_trace_req, req);

	r->status = status;
	if (!status)
		up(&r->sem);
	complete(&r->ran);
}

static void sem_trace_req_cancel(void *req)
{
	sem_async_cancel_sync(req);
}

static struct sem_trace_req *sem_trace_req_new(struct kunit *test, int count,
					       struct workqueue_struct *wq)
{
	struct sem_trace_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	sema_init(&r->sem, count);
	init_completion(&r->ran);
	sem_async_init(&r->req, &r->sem, wq, sem_trace_fn);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sem_trace_req_cancel, &r->req), 0);
	((struct sem_trace_log *)test->priv)->sem = &r->sem;
	return r;
}

static const struct sem_test_param sem_trace_grants[] = {
	{ "waits_for_up", 0, 0, "QG" }, { "granted_at_once", 1, 0, "" },
};

KUNIT_ARRAY_PARAM_DESC(sem_trace_grants, sem_trace_grants, desc);

/* Rule: a request reports queue and grant if it waits; no more. */
static void sem_trace_test_grant(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct sem_trace_log *log = test->priv;
	struct sem_trace_req *r = sem_trace_req_new(test, p->kind, system_wq);

	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	msleep(20);
	up(&r->sem);
	KUNIT_ASSERT_TRUE(test, sem_test_done(&r->ran));
	/* A cancel with nothing to cancel reports nothing. */
	KUNIT_EXPECT_FALSE(test, sem_async_cancel_sync(&r->req));
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), p->seq);
	if (!p->kind) {
		KUNIT_EXPECT_PTR_EQ(test, log->obj[0], (const void *)&r->req.waiter);
		KUNIT_EXPECT_PTR_EQ(test, log->obj[1], (const void *)&r->req.waiter);
	}
	KUNIT_EXPECT_EQ(test, sem_count(&r->sem), p->kind ? 2U : 1U);
}

/* kind: 0 waits, 1 granted at once, 2 failed; arg: sem_async_cancel_sync() */
static const struct sem_test_param sem_trace_cancels[] = {
	{ "queued", 0, 0, "QC" }, { "queued_sync", 0, 1, "QC" },
	{ "granted", 1, 0, "" }, { "granted_sync", 1, 1, "" },
	{ "failed", 2, 0, "QX" }, { "failed_sync", 2, 1, "QX" },
};

KUNIT_ARRAY_PARAM_DESC(sem_trace_cancels, sem_trace_cancels, desc);

/* Rule: a cancel that removes a request reports one event; one that finds it
 * granted, none; sem_shutdown() reports a failed request; its run comes later
 */
static void sem_trace_test_cancel(struct kunit *test)
{
	const struct sem_test_param *p = test->param_value;
	struct sem_trace_log *log = test->priv;
	struct workqueue_struct *wq = sem_test_wq(test, true);
	struct sem_test_blocker *blk = sem_test_block(test, wq);
	struct sem_trace_req *r = sem_trace_req_new(test, p->kind == 1, wq);

	KUNIT_EXPECT_TRUE(test, down_async(&r->req));
	if (p->kind == 2)
		sem_shutdown(&r->sem);
	if (p->arg)
		sem_test_unblock(blk);
	KUNIT_EXPECT_EQ(test, p->arg ? sem_async_cancel_sync(&r->req) :
			      sem_async_cancel(&r->req), !p->kind);
	sem_test_unblock(blk);
	flush_workqueue(wq);
	KUNIT_EXPECT_STREQ(test, sem_trace_seq(log), p->seq);
	if (!p->kind)
		KUNIT_EXPECT_PTR_EQ(test, log->obj[1], (const void *)&r->req.waiter);
	KUNIT_EXPECT_EQ(test, completion_done(&r->ran), !!p->kind);
	KUNIT_EXPECT_EQ(test, sem_count(&r->sem), p->kind == 1 ? 1U : 0U);
}

static struct kunit_case sem_trace_cases[] = {
	KUNIT_CASE_PARAM(sem_trace_test_grant, sem_trace_grants_gen_params),
	KUNIT_CASE_PARAM(sem_trace_test_cancel, sem_trace_cancels_gen_params),
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

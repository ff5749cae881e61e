// SPDX-License-Identifier: GPL-2.0
/* Input of the semaphore_async_up.cocci test: grant and request functions. */
#include <linux/semaphore.h>
#include <linux/workqueue.h>

struct req {
	struct semaphore *sem;
	struct sem_async async;
	struct sem_waiter waiter;
	int busy;
	int err;
};

int start_io(struct req *r);

/* Good: fails early on the status, releases the unit on every other path. */
static void good_work(struct sem_async *async, int status)
{
	struct req *r = container_of(async, struct req, async);

	if (status) {
		r->err = status;
		return;
	}
	if (r->busy) {
		up(r->sem);
		return;
	}
	r->err = start_io(r);
	up(r->sem);
}

/* Good: the status is compared with -ESHUTDOWN, without braces. */
static void good_work_shutdown(struct sem_async *async, int err)
{
	struct req *r = container_of(async, struct req, async);

	if (err == -ESHUTDOWN)
		return;
	start_io(r);
	up(r->sem);
}

/* Bad: an error path returns holding the unit. */
static void bad_work(struct sem_async *async, int status)
{
	struct req *r = container_of(async, struct req, async);

	if (status)
		return;
	if (start_io(r) < 0) {
		r->err = -EIO;
		return;
	}
	up(r->sem);
}

/* Bad: keeps the unit when busy, after a test of the status. */
static void bad_busy_work(struct sem_async *async, int status)
{
	struct req *r = container_of(async, struct req, async);

	if (status < 0)
		return;
	if (r->busy)
		return;
	up(r->sem);
}

/* Good: a grant function that checks its status argument. */
static void good_grant(struct sem_waiter *w, int status)
{
	struct req *r = container_of(w, struct req, waiter);

	if (status < 0)
		return;
	start_io(r);
	up(r->sem);
}

/* Bad: a grant function that keeps the unit when busy. */
static void bad_grant(struct sem_waiter *w, int status)
{
	struct req *r = container_of(w, struct req, waiter);

	if (status)
		return;
	if (r->busy)
		return;
	up(r->sem);
}

/* Not reported: hands the unit on (never calls up()), by design. */
static void keeps_unit(struct sem_waiter *w, int status)
{
	struct req *r = container_of(w, struct req, waiter);

	r->err = status;
}

/* Not a grant or request function: not checked. */
static void other(struct req *r)
{
	if (r->busy)
		return;
	up(r->sem);
}

void setup(struct req *r, struct workqueue_struct *wq)
{
	sem_async_init(&r->async, r->sem, wq, good_work);
	sem_async_init(&r->async, r->sem, wq, good_work_shutdown);
	sem_async_init(&r->async, r->sem, wq, bad_work);
	sem_async_init(&r->async, r->sem, wq, bad_busy_work);
	sem_waiter_init(&r->waiter, good_grant);
	sem_waiter_init(&r->waiter, bad_grant);
	sem_waiter_init(&r->waiter, keeps_unit);
	other(r);
}

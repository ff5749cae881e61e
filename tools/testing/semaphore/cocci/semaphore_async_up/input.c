// SPDX-License-Identifier: GPL-2.0
/* Input of the semaphore_async_up.cocci test: grant and work functions. */
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
static void good_work(struct work_struct *work)
{
	struct req *r = container_of(to_sem_async(work), struct req, async);
	int status = sem_async_status(&r->async);

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

/* Good: the status is tested directly. */
static void good_work_direct(struct work_struct *work)
{
	struct req *r = container_of(to_sem_async(work), struct req, async);

	if (sem_async_status(&r->async))
		return;
	start_io(r);
	up(r->sem);
}

/* Bad: an error path returns holding the unit. */
static void bad_work(struct work_struct *work)
{
	struct req *r = container_of(to_sem_async(work), struct req, async);
	int status;

	status = sem_async_status(&r->async);
	if (status)
		return;
	if (start_io(r) < 0) {
		r->err = -EIO;
		return;
	}
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

/* Not a grant or work function: not checked. */
static void other(struct req *r)
{
	if (r->busy)
		return;
	up(r->sem);
}

void setup(struct req *r)
{
	sem_async_init(&r->async, good_work);
	sem_async_init(&r->async, good_work_direct);
	sem_async_init(&r->async, bad_work);
	sem_waiter_init(&r->waiter, good_grant);
	sem_waiter_init(&r->waiter, bad_grant);
	sem_waiter_init(&r->waiter, keeps_unit);
	other(r);
}

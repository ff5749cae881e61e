/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the semaphore KUnit suites.  Only the classic API: the classic
 * suite also runs on kernels without the generic semaphore.
 */
#ifndef _LIB_TESTS_SEMAPHORE_KUNIT_H
#define _LIB_TESTS_SEMAPHORE_KUNIT_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

/* A semaphore with no free unit, to queue waiters on (not a completion). */
#define SEM_TEST_NO_UNITS	0

/* Upper bound of every wait in the suites, so that a bug fails, not hangs. */
#define SEM_TEST_WAIT		(5 * HZ)

enum sem_test_op {
	SEM_TEST_DOWN, SEM_TEST_INTERRUPTIBLE, SEM_TEST_KILLABLE, SEM_TEST_TIMEOUT,
};

/*
 * A kernel thread that calls one down() variant on @sem; with @hold, it
 * keeps the unit until @release, then up()s it.  Freed only once the
 * thread finished: a thread stuck in a broken semaphore is leaked.
 */
struct sem_test_thread {
	struct semaphore	*sem;
	enum sem_test_op	op;
	long			timeout;
	bool			hold, entered;
	int			ret, seq_no;
	atomic_t		*seq;
	struct completion	returned, release, done;
	struct task_struct	*task;
};

static int sem_test_threadfn(void *data)
{
	struct sem_test_thread *t = data;
	int ret = 0;

	allow_signal(SIGUSR1);
	allow_signal(SIGKILL);
	WRITE_ONCE(t->entered, true);
	if (t->op == SEM_TEST_DOWN)
		down(t->sem);
	else if (t->op == SEM_TEST_INTERRUPTIBLE)
		ret = down_interruptible(t->sem);
	else if (t->op == SEM_TEST_KILLABLE)
		ret = down_killable(t->sem);
	else
		ret = down_timeout(t->sem, t->timeout);
	if (!ret && t->seq)
		t->seq_no = atomic_inc_return(t->seq);
	t->ret = ret;
	complete(&t->returned);
	if (!ret && t->hold) {
		wait_for_completion_timeout(&t->release, SEM_TEST_WAIT);
		up(t->sem);
	}
	complete(&t->done);
	return 0;
}

/* Create the thread; it runs once woken up. */
static inline struct sem_test_thread *
sem_test_thread_create(struct kunit *test, struct semaphore *sem,
		       enum sem_test_op op, long timeout, bool hold)
{
	struct sem_test_thread *t = kzalloc(sizeof(*t), GFP_KERNEL);
	struct task_struct *task;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sem = sem;
	t->op = op;
	t->timeout = timeout;
	t->hold = hold;
	t->ret = 1;
	init_completion(&t->returned);
	init_completion(&t->release);
	init_completion(&t->done);
	task = kthread_create(sem_test_threadfn, t, "sem_test");
	if (IS_ERR(task)) {
		kfree(t);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
	}
	get_task_struct(task);
	t->task = task;
	return t;
}

/* True once the thread returned from its down() call. */
static inline bool sem_test_returned(struct sem_test_thread *t)
{
	return completion_done(&t->returned);
}

static inline bool sem_test_wait_returned(struct sem_test_thread *t)
{
	return wait_for_completion_timeout(&t->returned, SEM_TEST_WAIT);
}

/* Wait until the thread sleeps in down(): queued, its state set under the lock. */
static inline bool sem_test_wait_queued(struct sem_test_thread *t)
{
	unsigned long end = jiffies + SEM_TEST_WAIT;
	unsigned int state;

	while (time_before(jiffies, end)) {
		if (sem_test_returned(t))
			return false;
		state = READ_ONCE(t->task->__state);
		if (READ_ONCE(t->entered) &&
		    (state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)))
			return true;
		usleep_range(200, 400);
	}
	return false;
}

static inline struct sem_test_thread *
sem_test_thread_run_queued(struct kunit *test, struct semaphore *sem,
			   enum sem_test_op op, long timeout, bool hold)
{
	struct sem_test_thread *t;

	t = sem_test_thread_create(test, sem, op, timeout, hold);
	wake_up_process(t->task);
	KUNIT_EXPECT_TRUE_MSG(test, sem_test_wait_queued(t),
			      "thread did not block in down()");
	return t;
}

/*
 * Let the thread release its unit and end; one still in down() is given
 * units with up() until it leaves, else it is leaked.
 */
static inline void sem_test_thread_put(struct kunit *test,
				       struct sem_test_thread *t)
{
	int tries = 0;

	if (!t)
		return;
	complete(&t->release);
	while (!wait_for_completion_timeout(&t->done, HZ / 10)) {
		if (!sem_test_returned(t) && tries < 100) {
			up(t->sem);
			tries++;
			continue;
		}
		if (tries++ > 200) {
			KUNIT_FAIL(test, "semaphore test thread did not finish");
			return;
		}
	}
	put_task_struct(t->task);
	kfree(t);
}

/* Wait for @c at most SEM_TEST_WAIT: a stuck case fails, it does not hang. */
static inline bool sem_test_done(struct completion *c)
{
	return wait_for_completion_timeout(c, SEM_TEST_WAIT);
}

static inline void sem_test_destroy_wq(void *wq)
{
	destroy_workqueue(wq);
}

/* A workqueue for the case, ordered or unbound, drained when it ends. */
static inline struct workqueue_struct *sem_test_wq(struct kunit *test,
						   bool ordered)
{
	struct workqueue_struct *wq;

	wq = ordered ? alloc_ordered_workqueue("sem_test_ordered", 0) :
		       alloc_workqueue("sem_test_unbound", WQ_UNBOUND, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sem_test_destroy_wq, wq), 0);
	return wq;
}

/* A row of a parameter table: its name, and what the case varies. */
struct sem_test_param {
	const char	*desc;
	int		kind, arg;
	const char	*seq;		/* trace events expected */
};

/* A work item that keeps an ordered workqueue busy until released. */
struct sem_test_blocker {
	struct work_struct	work;
	struct completion	running, release;
};

static inline void sem_test_blocker_fn(struct work_struct *work)
{
	struct sem_test_blocker *b = container_of(work, struct sem_test_blocker,
						  work);

	complete(&b->running);
	wait_for_completion_timeout(&b->release, SEM_TEST_WAIT);
}

/* Release the workqueue (at the latest when the case ends). */
static inline void sem_test_unblock(void *blocker)
{
	struct sem_test_blocker *b = blocker;

	complete(&b->release);
	flush_work(&b->work);
}

static inline struct sem_test_blocker *sem_test_block(struct kunit *test,
						      struct workqueue_struct *wq)
{
	struct sem_test_blocker *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	INIT_WORK(&b->work, sem_test_blocker_fn);
	init_completion(&b->running);
	init_completion(&b->release);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sem_test_unblock,
							b), 0);
	queue_work(wq, &b->work);
	KUNIT_ASSERT_TRUE(test, sem_test_done(&b->running));
	return b;
}

#endif /* _LIB_TESTS_SEMAPHORE_KUNIT_H */

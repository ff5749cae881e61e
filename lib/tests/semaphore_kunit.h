/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the semaphore KUnit suites: kernel threads that take
 * a semaphore with one of the sleeping down() calls, and bounded waits
 * for them.  Only the classic semaphore API is used here, so that the
 * classic suite also runs on kernels without the generic semaphore.
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

/*
 * The initial count of a semaphore with no free unit.  The suites need
 * such semaphores to queue waiters on; they are not completions.
 */
#define SEM_TEST_NO_UNITS	0

/* Upper bound of every wait in the suites, so that a bug fails, not hangs. */
#define SEM_TEST_WAIT		(5 * HZ)

enum sem_test_op {
	SEM_TEST_DOWN,
	SEM_TEST_INTERRUPTIBLE,
	SEM_TEST_KILLABLE,
	SEM_TEST_TIMEOUT,
};

/*
 * A kernel thread that calls one down() variant on @sem.  If @hold is
 * set and the call succeeds, it keeps the unit until @release completes,
 * then calls up().  Allocated with kzalloc() and freed by
 * sem_test_thread_put() only once the thread has finished, so that a
 * thread stuck in a broken semaphore never touches freed memory.
 */
struct sem_test_thread {
	struct semaphore	*sem;
	enum sem_test_op	op;
	long			timeout;
	bool			hold;
	int			ret;
	int			seq_no;
	bool			entered;
	atomic_t		*seq;
	struct completion	returned;
	struct completion	release;
	struct completion	done;
	struct task_struct	*task;
};

static int sem_test_threadfn(void *data)
{
	struct sem_test_thread *t = data;
	int ret = 0;

	allow_signal(SIGUSR1);
	allow_signal(SIGKILL);

	WRITE_ONCE(t->entered, true);
	switch (t->op) {
	case SEM_TEST_DOWN:
		down(t->sem);
		break;
	case SEM_TEST_INTERRUPTIBLE:
		ret = down_interruptible(t->sem);
		break;
	case SEM_TEST_KILLABLE:
		ret = down_killable(t->sem);
		break;
	case SEM_TEST_TIMEOUT:
		ret = down_timeout(t->sem, t->timeout);
		break;
	}
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

/* Create the thread; it runs once sem_test_thread_start() is called. */
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

static inline void sem_test_thread_start(struct sem_test_thread *t)
{
	wake_up_process(t->task);
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

/*
 * Wait until the thread sleeps inside its down() call, that is, it is
 * queued on the semaphore: the down() family sets the task state after
 * queueing the waiter and before dropping the semaphore's lock.  Only a
 * sleeping state counts: a task being woken is in TASK_WAKING, which is
 * not TASK_RUNNING either.
 */
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
	sem_test_thread_start(t);
	KUNIT_EXPECT_TRUE_MSG(test, sem_test_wait_queued(t),
			      "thread did not block in down()");
	return t;
}

/*
 * Let a holding thread release its unit and wait for the thread to end.
 * A thread still stuck in down() is given units with up() until it
 * leaves; if it still does not finish it is leaked, not freed.
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

#endif /* _LIB_TESTS_SEMAPHORE_KUNIT_H */

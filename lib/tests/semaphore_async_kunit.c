// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the wait-entry API of the generic semaphore:
 * down_entry(), down_async(), sem_cancel(), sem_shutdown(), and their
 * interplay with the sleeping down() family.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched/task_stack.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "semaphore_kunit.h"

/* A down_entry() waiter that records how it was granted. */
struct sem_test_entry {
	struct sem_waiter	waiter;
	struct semaphore	*sem;
	atomic_t		calls;
	int			status;
	int			seq_no;
	atomic_t		*seq;
	bool			unit_free;	/* down_trylock() won in @grant */
	bool			hardirq;
	bool			release;	/* up() from the grant function */
	atomic_t		*depth;
	atomic_t		*max_depth;
};

static void sem_test_grant(struct sem_waiter *waiter, int status)
{
	struct sem_test_entry *e = container_of(waiter, struct sem_test_entry,
						waiter);
	int depth = 0;

	if (e->depth) {
		depth = atomic_inc_return(e->depth);
		if (depth > atomic_read(e->max_depth))
			atomic_set(e->max_depth, depth);
	}
	e->status = status;
	e->hardirq = in_hardirq();
	if (e->seq)
		e->seq_no = atomic_inc_return(e->seq);
	e->unit_free = !down_trylock(e->sem);
	if (e->unit_free)
		up(e->sem);
	if (e->release && !status)
		up(e->sem);
	if (e->depth)
		atomic_dec(e->depth);
	atomic_inc(&e->calls);
}

static void sem_test_entry_init(struct sem_test_entry *e, struct semaphore *sem)
{
	memset(e, 0, sizeof(*e));
	sem_waiter_init(&e->waiter, sem_test_grant);
	e->sem = sem;
	e->status = 1;
}

/* A free unit is taken at once; the grant function is not called. */
static void sem_async_test_immediate(struct kunit *test)
{
	struct sem_test_entry e;
	struct semaphore sem;

	sema_init(&sem, 1);
	sem_test_entry_init(&e, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	up(&sem);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
}

/* A queued entry is granted once, by up(), holding the semaphore. */
static void sem_async_test_queued(struct kunit *test)
{
	struct sem_test_entry e;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sem_test_entry_init(&e, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 0);
	up(&sem);
	/* The function ran inside up(), with the unit held. */
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, e.status, 0);
	KUNIT_EXPECT_FALSE(test, e.unit_free);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
}

/* Sleepers and asynchronous entries share one FIFO queue. */
static void sem_async_test_fifo_mixed(struct kunit *test)
{
	struct sem_test_thread *sleeper[2];
	struct sem_test_entry e[2];
	struct semaphore sem;
	atomic_t seq = ATOMIC_INIT(0);

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sleeper[0] = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0,
						false);
	sleeper[0]->seq = &seq;
	sem_test_entry_init(&e[0], &sem);
	e[0].seq = &seq;
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[0].waiter), -EINPROGRESS);
	sleeper[1] = sem_test_thread_run_queued(test, &sem,
						SEM_TEST_INTERRUPTIBLE, 0,
						false);
	sleeper[1]->seq = &seq;
	sem_test_entry_init(&e[1], &sem);
	e[1].seq = &seq;
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[1].waiter), -EINPROGRESS);

	/* Queue: sleeper 0, entry 0, sleeper 1, entry 1. */
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(sleeper[0]));
	KUNIT_EXPECT_EQ(test, atomic_read(&e[0].calls), 0);
	KUNIT_EXPECT_FALSE(test, sem_test_returned(sleeper[1]));

	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e[0].calls), 1);
	KUNIT_EXPECT_FALSE(test, sem_test_returned(sleeper[1]));
	KUNIT_EXPECT_EQ(test, atomic_read(&e[1].calls), 0);

	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(sleeper[1]));
	KUNIT_EXPECT_EQ(test, atomic_read(&e[1].calls), 0);

	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e[1].calls), 1);

	KUNIT_EXPECT_EQ(test, sleeper[0]->seq_no, 1);
	KUNIT_EXPECT_EQ(test, e[0].seq_no, 2);
	KUNIT_EXPECT_EQ(test, sleeper[1]->seq_no, 3);
	KUNIT_EXPECT_EQ(test, e[1].seq_no, 4);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, sleeper[0]);
	sem_test_thread_put(test, sleeper[1]);
}

/* A cancelled entry is never granted; the waiter behind it is. */
static void sem_async_test_cancel(struct kunit *test)
{
	struct sem_test_entry e[2];
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sem_test_entry_init(&e[0], &sem);
	sem_test_entry_init(&e[1], &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[0].waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[1].waiter), -EINPROGRESS);

	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &e[1].waiter), 0);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e[0].calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&e[1].calls), 0);
	/* Cancelling a granted entry says so, and changes nothing. */
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &e[0].waiter), -EALREADY);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e[1].calls), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);

	/* A removed entry can be queued again. */
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[1].waiter), -EINPROGRESS);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e[1].calls), 1);
	up(&sem);
}

/* Cancelling the head passes the next unit on to the next waiter. */
static void sem_async_test_cancel_head(struct kunit *test)
{
	struct sem_test_thread *sleeper;
	struct sem_test_entry head, next;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sem_test_entry_init(&head, &sem);
	sem_test_entry_init(&next, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &head.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &next.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &head.waiter), 0);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&next.calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&head.calls), 0);

	/* Same with a sleeper behind the cancelled head. */
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &head.waiter), -EINPROGRESS);
	sleeper = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0,
					     true);
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &head.waiter), 0);
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(sleeper));
	KUNIT_EXPECT_EQ(test, atomic_read(&head.calls), 0);
	sem_test_thread_put(test, sleeper);
	/* The sleeper released the unit of the first up(). */
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
}

#define SEM_TEST_RACE_LOOPS	10000

struct sem_test_racer {
	struct semaphore	*sem;
	atomic_t		go;
	atomic_t		ack;
	bool			stop;
	bool			stuck;
	struct completion	done;
};

static bool sem_test_spin_until(atomic_t *v, int val)
{
	unsigned long end = jiffies + SEM_TEST_WAIT;

	while (atomic_read_acquire(v) != val) {
		if (time_after(jiffies, end))
			return false;
		cpu_relax();
	}
	return true;
}

static int sem_test_racer_fn(void *data)
{
	struct sem_test_racer *r = data;
	int i;

	for (i = 1; ; i++) {
		if (!sem_test_spin_until(&r->go, i)) {
			r->stuck = true;
			break;
		}
		if (READ_ONCE(r->stop))
			break;
		up(r->sem);
		atomic_set_release(&r->ack, i);
	}
	complete(&r->done);
	return 0;
}

/*
 * sem_cancel() racing with up() on another CPU: each round settles
 * exactly once, and every unit is accounted for afterwards.  Both
 * outcomes must have happened, or the race was not tested.
 */
static void sem_async_test_cancel_race(struct kunit *test)
{
	struct sem_test_racer r = {};
	struct task_struct *task;
	struct sem_test_entry e;
	struct semaphore sem;
	unsigned int cpu, other;
	int i, ret, granted = 0, cancelled = 0, bad = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");

	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)),
			0);
	other = cpumask_any_but(cpu_online_mask, cpu);

	r.sem = &sem;
	init_completion(&r.done);
	task = kthread_create(sem_test_racer_fn, &r, "sem_racer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, other);
	wake_up_process(task);

	for (i = 1; i <= SEM_TEST_RACE_LOOPS; i++) {
		sema_init(&sem, SEM_TEST_NO_UNITS);
		sem_test_entry_init(&e, &sem);
		if (down_entry(&sem, &e.waiter) != -EINPROGRESS) {
			bad++;
			break;
		}
		atomic_set_release(&r.go, i);
		if (i & 1)
			udelay(i % 3);
		ret = sem_cancel(&sem, &e.waiter);
		if (!sem_test_spin_until(&r.ack, i)) {
			bad++;
			break;
		}
		if (ret == 0) {
			cancelled++;
			/* Not granted: the unit of up() is free. */
			if (atomic_read(&e.calls) != 0 || down_trylock(&sem))
				bad++;
		} else if (ret == -EALREADY) {
			granted++;
			/* Granted: the function ran once and holds the unit. */
			if (atomic_read(&e.calls) != 1 || e.status != 0 ||
			    !down_trylock(&sem))
				bad++;
			up(&sem);
			if (down_trylock(&sem))
				bad++;
		} else {
			bad++;
		}
		/* Exactly one unit existed, and it is taken now. */
		if (!down_trylock(&sem))
			bad++;
	}

	WRITE_ONCE(r.stop, true);
	atomic_set_release(&r.go, i);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&r.done,
							  2 * SEM_TEST_WAIT), 0UL);
	set_cpus_allowed_ptr(current, cpu_possible_mask);

	kunit_info(test, "%d rounds: %d granted, %d cancelled\n",
		   granted + cancelled, granted, cancelled);
	KUNIT_EXPECT_FALSE(test, r.stuck);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, granted + cancelled, SEM_TEST_RACE_LOOPS);
	KUNIT_EXPECT_GT(test, granted, 0);
	KUNIT_EXPECT_GT(test, cancelled, 0);
}

struct sem_test_irq {
	struct hrtimer		timer;
	struct semaphore	*sem;
};

static enum hrtimer_restart sem_test_irq_up(struct hrtimer *timer)
{
	up(container_of(timer, struct sem_test_irq, timer)->sem);
	return HRTIMER_NORESTART;
}

/* up() from a hard interrupt runs the grant function there. */
static void sem_async_test_hardirq(struct kunit *test)
{
	struct sem_test_irq irq;
	struct sem_test_entry e;
	struct semaphore sem;
	unsigned long end;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sem_test_entry_init(&e, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);

	irq.sem = &sem;
	hrtimer_init_on_stack(&irq.timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_HARD);
	irq.timer.function = sem_test_irq_up;
	hrtimer_start(&irq.timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	end = jiffies + SEM_TEST_WAIT;
	while (!atomic_read(&e.calls) && time_before(jiffies, end))
		usleep_range(500, 1000);
	hrtimer_cancel(&irq.timer);
	destroy_hrtimer_on_stack(&irq.timer);

	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, e.status, 0);
	KUNIT_EXPECT_TRUE(test, e.hardirq);
	KUNIT_EXPECT_FALSE(test, e.unit_free);
	up(&sem);
}

#define SEM_TEST_CHAIN	100

/*
 * Grant functions that call up() on the same semaphore: one up() grants
 * the whole chain in FIFO order without nesting grant functions.
 */
static void sem_async_test_reentrant(struct kunit *test)
{
	atomic_t seq = ATOMIC_INIT(0), depth = ATOMIC_INIT(0);
	atomic_t max_depth = ATOMIC_INIT(0);
	struct sem_test_entry *e;
	struct semaphore sem;
	int i, in_order = 0;

	e = kunit_kcalloc(test, SEM_TEST_CHAIN, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	sema_init(&sem, SEM_TEST_NO_UNITS);
	for (i = 0; i < SEM_TEST_CHAIN; i++) {
		sem_test_entry_init(&e[i], &sem);
		e[i].release = true;
		e[i].seq = &seq;
		e[i].depth = &depth;
		e[i].max_depth = &max_depth;
		KUNIT_EXPECT_EQ(test, down_entry(&sem, &e[i].waiter),
				-EINPROGRESS);
	}
	up(&sem);
	for (i = 0; i < SEM_TEST_CHAIN; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&e[i].calls), 1);
		if (e[i].seq_no == i + 1)
			in_order++;
	}
	KUNIT_EXPECT_EQ(test, in_order, SEM_TEST_CHAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&max_depth), 1);
	/* The last grant function released the only unit. */
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
}

/* A down_async() request and what its work function saw. */
struct sem_test_req {
	struct sem_async	req;
	struct semaphore	*sem;
	int			status;
	bool			unit_free;
	bool			release;
	struct completion	*hold;		/* wait for it, holding the unit */
	struct sem_test_req	*requeue;	/* down_async() from the work */
	struct workqueue_struct	*wq;
	int			requeue_ret;
	atomic_t		runs;
	struct completion	ran;
};

static void sem_test_work(struct work_struct *work)
{
	struct sem_test_req *r = container_of(to_sem_async(work),
					      struct sem_test_req, req);

	r->status = sem_async_status(&r->req);
	r->unit_free = !down_trylock(r->sem);
	if (r->unit_free)
		up(r->sem);
	if (r->requeue)
		r->requeue_ret = down_async(r->sem, &r->requeue->req, r->wq);
	if (r->hold)
		wait_for_completion_timeout(r->hold, SEM_TEST_WAIT);
	atomic_inc(&r->runs);
	if (!r->status && r->release)
		up(r->sem);
	/* Last access: the test may return once it sees this. */
	complete(&r->ran);
}

static void sem_test_req_destroy(void *req)
{
	sem_async_destroy_onstack(req);
}

/*
 * Requests of the tests live on the stack: annotated for debugobjects
 * (DEBUG_OBJECTS_WORK), and destroyed once the test case has ended.
 */
static void sem_test_req_init(struct kunit *test, struct sem_test_req *r,
			      struct semaphore *sem,
			      struct workqueue_struct *wq)
{
	memset(r, 0, sizeof(*r));
	if (object_is_on_stack(r)) {
		sem_async_init_onstack(&r->req, sem_test_work);
		KUNIT_EXPECT_EQ(test, kunit_add_action(test, sem_test_req_destroy,
						       &r->req), 0);
	} else {
		sem_async_init(&r->req, sem_test_work);
	}
	r->sem = sem;
	r->wq = wq;
	r->status = 1;
	r->release = true;
	init_completion(&r->ran);
}

static bool sem_test_req_wait(struct sem_test_req *r)
{
	return wait_for_completion_timeout(&r->ran, SEM_TEST_WAIT);
}

/* down_async(): at once when free, queued otherwise, on the given wq. */
static void sem_async_test_work(struct kunit *test)
{
	struct sem_test_req a, b;
	struct semaphore sem;

	sema_init(&sem, 1);
	sem_test_req_init(test, &a, &sem, system_wq);
	sem_test_req_init(test, &b, &sem, system_wq);
	a.release = false;
	KUNIT_EXPECT_EQ(test, down_async(&sem, &a.req, system_wq), 0);
	KUNIT_EXPECT_TRUE(test, sem_test_req_wait(&a));
	KUNIT_EXPECT_EQ(test, a.status, 0);
	KUNIT_EXPECT_FALSE(test, a.unit_free);

	KUNIT_EXPECT_EQ(test, down_async(&sem, &b.req, system_wq),
			-EINPROGRESS);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&b.runs), 0);
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_req_wait(&b));
	KUNIT_EXPECT_EQ(test, b.status, 0);
	KUNIT_EXPECT_FALSE(test, b.unit_free);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	up(&sem);
}

struct sem_test_blocker {
	struct work_struct	work;
	struct completion	release;
};

static void sem_test_blocker_fn(struct work_struct *work)
{
	struct sem_test_blocker *b = container_of(work, struct sem_test_blocker,
						  work);

	wait_for_completion_timeout(&b->release, SEM_TEST_WAIT);
}

/*
 * The work runs on the workqueue given: on an ordered workqueue blocked
 * by an earlier work item, it cannot run until that item finishes.
 */
static void sem_async_test_workqueue(struct kunit *test)
{
	struct workqueue_struct *wq;
	struct sem_test_blocker blocker;
	struct sem_test_req r;
	struct semaphore sem;

	wq = alloc_ordered_workqueue("sem_test_wq", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	INIT_WORK_ONSTACK(&blocker.work, sem_test_blocker_fn);
	init_completion(&blocker.release);
	queue_work(wq, &blocker.work);

	sema_init(&sem, 1);
	sem_test_req_init(test, &r, &sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, wq), 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 0);
	complete(&blocker.release);
	KUNIT_EXPECT_TRUE(test, sem_test_req_wait(&r));
	KUNIT_EXPECT_EQ(test, r.status, 0);
	destroy_workqueue(wq);
	destroy_work_on_stack(&blocker.work);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
}

/* A work function that calls down_async() on the semaphore it holds. */
static void sem_async_test_requeue(struct kunit *test)
{
	struct sem_test_req a, b;
	struct semaphore sem;

	sema_init(&sem, 1);
	sem_test_req_init(test, &a, &sem, system_wq);
	sem_test_req_init(test, &b, &sem, system_wq);
	a.requeue = &b;
	KUNIT_EXPECT_EQ(test, down_async(&sem, &a.req, system_wq), 0);
	KUNIT_EXPECT_TRUE(test, sem_test_req_wait(&a));
	KUNIT_EXPECT_EQ(test, a.requeue_ret, -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, sem_test_req_wait(&b));
	KUNIT_EXPECT_EQ(test, b.status, 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
}

/*
 * sem_shutdown() fails queued requests with -ESHUTDOWN through their
 * normal path (their work is queued), calls the grant functions of queued
 * entries, and refuses later requests.  It waits for nothing: the work of
 * the request that holds the unit still runs when it returns.  The owner
 * waits for the requests' work as for any work item, here with
 * flush_workqueue() and destroy_workqueue().
 */
static void sem_async_test_shutdown(struct kunit *test)
{
	DECLARE_COMPLETION_ONSTACK(hold);
	struct sem_test_req running, queued[2], late;
	struct sem_test_entry entry, late_entry;
	struct workqueue_struct *wq;
	struct semaphore sem;
	int i;

	wq = alloc_workqueue("sem_test_shutdown", WQ_UNBOUND, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	sema_init(&sem, 1);
	sem_test_req_init(test, &running, &sem, wq);
	running.hold = &hold;
	KUNIT_EXPECT_EQ(test, down_async(&sem, &running.req, wq), 0);
	for (i = 0; i < 2; i++) {
		sem_test_req_init(test, &queued[i], &sem, wq);
		KUNIT_EXPECT_EQ(test, down_async(&sem, &queued[i].req, wq),
				-EINPROGRESS);
	}
	sem_test_entry_init(&entry, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &entry.waiter), -EINPROGRESS);

	sem_shutdown(&sem);

	/* The grant function ran before sem_shutdown() returned ... */
	KUNIT_EXPECT_EQ(test, atomic_read(&entry.calls), 1);
	KUNIT_EXPECT_EQ(test, entry.status, -ESHUTDOWN);
	/* ... the queued requests were failed, their work queued ... */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, sem_async_status(&queued[i].req),
				-ESHUTDOWN);
	/* ... and nothing waited for the work that holds the unit. */
	KUNIT_EXPECT_EQ(test, atomic_read(&running.runs), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);

	sem_test_req_init(test, &late, &sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &late.req, wq), -ESHUTDOWN);
	sem_test_entry_init(&late_entry, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &late_entry.waiter),
			-ESHUTDOWN);

	/* The teardown: wait for the requests' work, then look. */
	complete(&hold);
	flush_workqueue(wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&running.runs), 1);
	KUNIT_EXPECT_EQ(test, running.status, 0);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&queued[i].runs), 1);
		KUNIT_EXPECT_EQ(test, queued[i].status, -ESHUTDOWN);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&late.runs), 0);
	destroy_workqueue(wq);

	/* The classic API still counts units: the running work released. */
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	up(&sem);

	/* sema_init() makes a fresh semaphore again. */
	sema_init(&sem, 1);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &late_entry.waiter), 0);
	up(&sem);
}

struct sem_test_shutdown_work {
	struct work_struct	work;
	struct semaphore	*sem;
	struct sem_test_req	*req;
	bool			pending;
};

static void sem_test_shutdown_fn(struct work_struct *work)
{
	struct sem_test_shutdown_work *s =
		container_of(work, struct sem_test_shutdown_work, work);

	sem_shutdown(s->sem);
	s->pending = work_pending(&s->req->req.work);
}

/*
 * sem_shutdown() from a work item of the ordered workqueue that the
 * failed request's work is queued on, behind it: it returns at once, and
 * the request's work runs once that work item has returned.
 */
static void sem_async_test_shutdown_from_work(struct kunit *test)
{
	struct sem_test_shutdown_work s;
	struct workqueue_struct *wq;
	struct sem_test_req r;
	struct semaphore sem;

	wq = alloc_ordered_workqueue("sem_test_shutdown_ordered", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	sema_init(&sem, SEM_TEST_NO_UNITS);
	sem_test_req_init(test, &r, &sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, wq), -EINPROGRESS);
	INIT_WORK_ONSTACK(&s.work, sem_test_shutdown_fn);
	s.sem = &sem;
	s.req = &r;
	s.pending = false;
	queue_work(wq, &s.work);
	KUNIT_EXPECT_TRUE(test, sem_test_req_wait(&r));
	flush_workqueue(wq);
	KUNIT_EXPECT_TRUE(test, s.pending);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	KUNIT_EXPECT_EQ(test, r.status, -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	destroy_workqueue(wq);
	destroy_work_on_stack(&s.work);
}

/*
 * The teardown recipe with cancel_work_sync(): after sem_shutdown(), the
 * work of a request that has not started is taken back as any work item's
 * would be.  The owner then holds what its grant gave: a unit when
 * sem_async_status() is 0, to give back with up(), and nothing after
 * -ESHUTDOWN.  Neither function runs.
 */
static void sem_async_test_shutdown_cancel_work(struct kunit *test)
{
	struct sem_test_req granted, failed;
	struct sem_test_blocker blocker;
	struct workqueue_struct *wq;
	struct semaphore sem;
	bool taken;
	int status;

	wq = alloc_ordered_workqueue("sem_test_teardown", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	INIT_WORK_ONSTACK(&blocker.work, sem_test_blocker_fn);
	init_completion(&blocker.release);
	queue_work(wq, &blocker.work);

	sema_init(&sem, 1);
	sem_test_req_init(test, &granted, &sem, wq);
	sem_test_req_init(test, &failed, &sem, wq);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &granted.req, wq), 0);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &failed.req, wq),
			-EINPROGRESS);
	sem_shutdown(&sem);
	KUNIT_EXPECT_TRUE(test, work_pending(&granted.req.work));
	KUNIT_EXPECT_TRUE(test, work_pending(&failed.req.work));

	taken = cancel_work_sync(&granted.req.work);
	status = sem_async_status(&granted.req);
	KUNIT_EXPECT_TRUE(test, taken);
	KUNIT_EXPECT_EQ(test, status, 0);
	if (taken && !status)
		up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);

	taken = cancel_work_sync(&failed.req.work);
	status = sem_async_status(&failed.req);
	KUNIT_EXPECT_TRUE(test, taken);
	KUNIT_EXPECT_EQ(test, status, -ESHUTDOWN);
	if (taken && !status)
		up(&sem);

	complete(&blocker.release);
	destroy_workqueue(wq);
	destroy_work_on_stack(&blocker.work);
	KUNIT_EXPECT_EQ(test, atomic_read(&granted.runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&failed.runs), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/* Misuse warns once and returns a defined error; nothing is corrupted. */
static void sem_async_test_misuse(struct kunit *test)
{
	struct sem_test_entry e, raw;
	struct semaphore sem, other;
	struct sem_test_req r;
	unsigned int max;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sema_init(&other, SEM_TEST_NO_UNITS);
	sem_test_entry_init(&e, &sem);

	/* Cancelling an entry that was never queued. */
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &e.waiter), -ENOENT);

	/* Queueing an entry twice: refused, and it is granted only once. */
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EBUSY);
	KUNIT_EXPECT_EQ(test, down_entry(&other, &e.waiter), -EBUSY);
	/* Cancelling it on the wrong semaphore. */
	KUNIT_EXPECT_EQ(test, sem_cancel(&other, &e.waiter), -EINVAL);
	up(&sem);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	KUNIT_EXPECT_EQ(test, down_trylock(&other), 1);

	/* An entry that was never initialised. */
	memset(&raw, 0, sizeof(raw));
	raw.sem = &sem;
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &raw.waiter), -EINVAL);
	KUNIT_EXPECT_EQ(test, sem_cancel(&sem, &raw.waiter), -EINVAL);
	memset(&raw.waiter, 0x5a, sizeof(raw.waiter));
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &raw.waiter), -EINVAL);

	/* A down_async() request not made by sem_async_init(). */
	sem_test_req_init(test, &r, &sem, system_wq);
	sem_waiter_init(&r.req.waiter, sem_test_grant);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq), -EINVAL);

	/*
	 * A corrupt request whose ->grant and state survived but not ->task:
	 * queued, up() would take it for a sleeper and lose the unit.
	 */
	sem_async_init_onstack(&r.req, sem_test_work);
	r.req.waiter.task = current;
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq), -EINVAL);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	r.req.waiter.task = NULL;
	if (sem_has_waiters(&sem))
		sem_async_cancel(&sem, &r.req);

	/*
	 * sema_init() beyond the largest count starts at the largest count,
	 * and up() there saturates instead of wrapping.
	 */
	sema_init(&sem, INT_MAX);
	max = sem_count(&sem);
	KUNIT_EXPECT_GT(test, max, 0U);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), max);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	sem_test_entry_init(&e, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), max - 1);
}

/*
 * sem_shutdown() with a sleeper still queued warns; the sleeper stays
 * queued, keeps its place and is woken by the next up(), while the
 * asynchronous entry behind it is failed.
 */
static void sem_async_test_shutdown_sleeper(struct kunit *test)
{
	struct sem_test_thread *sleeper;
	struct sem_test_entry e;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	sleeper = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0,
					     true);
	sem_test_entry_init(&e, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);

	sem_shutdown(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, e.status, -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, sem_test_returned(sleeper));
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&sem));

	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(sleeper));
	KUNIT_EXPECT_EQ(test, sleeper->ret, 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	sem_test_thread_put(test, sleeper);
	/* The sleeper gave its unit back. */
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

struct sem_test_freed {
	struct sem_waiter	waiter;
	atomic_t		calls;
	int			status;
};

static void sem_test_freed_grant(struct sem_waiter *waiter, int status)
{
	struct sem_test_freed *f = container_of(waiter, struct sem_test_freed,
						waiter);

	f->status = status;
	atomic_inc(&f->calls);
}

/*
 * CONFIG_DEBUG_SEMAPHORE: freeing a semaphore that has queued entries
 * reports it and fails the entries with -ESHUTDOWN; freeing a queued
 * entry reports it and takes it off the wait list, and the entries
 * behind it are granted as if it had been cancelled.
 */
static void sem_async_test_debug_free(struct kunit *test)
{
	struct sem_test_freed queued[2], *gone;
	struct sem_test_entry e;
	struct semaphore *sem, local;
	int i;

	if (!IS_ENABLED(CONFIG_DEBUG_SEMAPHORE))
		kunit_skip(test, "needs CONFIG_DEBUG_SEMAPHORE");

	sem = kmalloc(sizeof(*sem), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sem);
	sema_init(sem, SEM_TEST_NO_UNITS);
	for (i = 0; i < 2; i++) {
		memset(&queued[i], 0, sizeof(queued[i]));
		sem_waiter_init(&queued[i].waiter, sem_test_freed_grant);
		queued[i].status = 1;
		KUNIT_EXPECT_EQ(test, down_entry(sem, &queued[i].waiter),
				-EINPROGRESS);
	}
	kfree(sem);
	/*
	 * Asserted: without the fixups the rest of this test would free a
	 * queued entry for real and corrupt memory.
	 */
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, atomic_read(&queued[i].calls), 1);
		KUNIT_ASSERT_EQ(test, queued[i].status, -ESHUTDOWN);
	}

	/* A queued entry at the head, freed; the one behind moves up. */
	sema_init(&local, SEM_TEST_NO_UNITS);
	gone = kzalloc(sizeof(*gone), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, gone);
	sem_waiter_init(&gone->waiter, sem_test_freed_grant);
	KUNIT_EXPECT_EQ(test, down_entry(&local, &gone->waiter), -EINPROGRESS);
	sem_test_entry_init(&e, &local);
	KUNIT_EXPECT_EQ(test, down_entry(&local, &e.waiter), -EINPROGRESS);
	kfree(gone);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&local));
	up(&local);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, e.status, 0);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&local));
	up(&local);
	KUNIT_EXPECT_EQ(test, sem_count(&local), 1U);

	/* The only queued entry, freed: the semaphore has no waiters left. */
	KUNIT_EXPECT_EQ(test, down_trylock(&local), 0);
	gone = kzalloc(sizeof(*gone), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, gone);
	sem_waiter_init(&gone->waiter, sem_test_freed_grant);
	KUNIT_EXPECT_EQ(test, down_entry(&local, &gone->waiter), -EINPROGRESS);
	kfree(gone);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&local));
	up(&local);
	KUNIT_EXPECT_EQ(test, sem_count(&local), 1U);
}

/* The accessors for code outside lib/semaphore.c. */
static void sem_async_test_accessors(struct kunit *test)
{
	struct sem_test_entry e;
	struct semaphore sem;

	sema_init(&sem, 2);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 2U);
	KUNIT_EXPECT_FALSE(test, sem_is_locked(&sem));
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 0U);
	KUNIT_EXPECT_TRUE(test, sem_is_locked(&sem));

	sem_test_entry_init(&e, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, sem_has_waiters(&sem));
	up(&sem);
	KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	KUNIT_EXPECT_TRUE(test, sem_is_locked(&sem));
	up(&sem);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 2U);

	/* The shut-down mark is not a unit. */
	sem_shutdown(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 2U);

	/*
	 * A request: a wait entry, a work item and three words, 112 bytes on
	 * 64-bit without lock debugging (the work item is then 32 bytes).
	 */
	if (BITS_PER_LONG == 64 && sizeof(struct work_struct) == 32)
		KUNIT_EXPECT_EQ(test, sizeof(struct sem_async), 112);
}

/*
 * The holder hint of CONFIG_DETECT_HUNG_TASK_BLOCKER.  A request whose
 * work function records the hint while it holds the unit, and may keep
 * the unit for a while.
 */
struct sem_hint_req {
	struct sem_async	req;
	struct semaphore	*sem;
	unsigned long		hint;
	long			hold;		/* jiffies to keep the unit */
	struct completion	holding;
	struct completion	release;
	struct completion	ran;
};

static void sem_hint_work(struct work_struct *work)
{
	struct sem_hint_req *r = container_of(to_sem_async(work),
					      struct sem_hint_req, req);

	r->hint = sem_holder_hint(r->sem);
	complete(&r->holding);
	if (r->hold)
		wait_for_completion_timeout(&r->release, r->hold);
	if (!sem_async_status(&r->req))
		up(r->sem);
	complete(&r->ran);
}

/* On the test's stack: sem_async_destroy_onstack() when done. */
static void sem_hint_req_init(struct sem_hint_req *r, struct semaphore *sem)
{
	sem_async_init_onstack(&r->req, sem_hint_work);
	r->sem = sem;
	r->hint = 0;
	r->hold = 0;
	init_completion(&r->holding);
	init_completion(&r->release);
	init_completion(&r->ran);
}

/*
 * Once @r's work function ran: it saw itself as the holder, and its up()
 * cleared the hint.  Ends the request's life on the stack.
 */
static void sem_hint_req_check(struct kunit *test, struct sem_hint_req *r)
{
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&r->ran,
							    SEM_TEST_WAIT));
	flush_work(&r->req.work);
	KUNIT_EXPECT_EQ(test, r->hint, (unsigned long)sem_hint_work);
	KUNIT_EXPECT_EQ(test, sem_holder_hint(r->sem), 0UL);
	sem_async_destroy_onstack(&r->req);
}

/*
 * The hint names the task that took the unit, the work function of a
 * down_async() request or the grant function of a down_entry() entry
 * that holds it, the sleeper that up() handed it to; up() clears it.
 */
static void sem_async_test_holder_hint(struct kunit *test)
{
	struct sem_test_thread *t;
	struct sem_test_entry e;
	struct sem_hint_req r;
	struct semaphore sem;

	if (!IS_ENABLED(CONFIG_DETECT_HUNG_TASK_BLOCKER))
		kunit_skip(test, "needs CONFIG_DETECT_HUNG_TASK_BLOCKER");
	sema_init(&sem, 1);
	KUNIT_EXPECT_EQ(test, sem_holder_hint(&sem), 0UL);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, sem_holder_hint(&sem), (unsigned long)current);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_holder_hint(&sem), 0UL);

	/* A request granted by up(): its work function holds the unit. */
	down(&sem);
	sem_hint_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq),
			-EINPROGRESS);
	up(&sem);
	sem_hint_req_check(test, &r);

	/* Granted at once, too. */
	sem_hint_req_init(&r, &sem);
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_wq), 0);
	sem_hint_req_check(test, &r);

	/* An entry's grant function, which keeps the unit. */
	down(&sem);
	sem_test_entry_init(&e, &sem);
	KUNIT_EXPECT_EQ(test, down_entry(&sem, &e.waiter), -EINPROGRESS);
	up(&sem);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.calls), 1);
	KUNIT_EXPECT_EQ(test, sem_holder_hint(&sem), (unsigned long)sem_test_grant);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_holder_hint(&sem), 0UL);

	/* A sleeper that up() hands the unit to. */
	down(&sem);
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, sem_holder_hint(&sem), (unsigned long)t->task);
	sem_test_thread_put(test, t);
	KUNIT_EXPECT_EQ(test, sem_holder_hint(&sem), 0UL);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/*
 * A sleeper of the down() family publishes the semaphore it waits for,
 * for the hung-task report, and withdraws it on every way out: a grant,
 * a signal, a timeout.
 */
static void sem_async_test_blocker(struct kunit *test)
{
	struct sem_test_thread *t;
	struct semaphore sem;
	unsigned long holder;

	if (!IS_ENABLED(CONFIG_DETECT_HUNG_TASK_BLOCKER))
		kunit_skip(test, "needs CONFIG_DETECT_HUNG_TASK_BLOCKER");
	sema_init(&sem, 1);
	down(&sem);
	KUNIT_EXPECT_FALSE(test, sem_task_blocker(current, &holder));

	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	holder = 0;
	KUNIT_EXPECT_TRUE(test, sem_task_blocker(t->task, &holder));
	KUNIT_EXPECT_EQ(test, holder, (unsigned long)current);
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_FALSE(test, sem_task_blocker(t->task, &holder));
	sem_test_thread_put(test, t);

	/* Interrupted by a signal. */
	down(&sem);
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_INTERRUPTIBLE, 0,
				       false);
	KUNIT_EXPECT_TRUE(test, sem_task_blocker(t->task, &holder));
	send_sig(SIGUSR1, t->task, 0);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, -EINTR);
	KUNIT_EXPECT_FALSE(test, sem_task_blocker(t->task, &holder));
	sem_test_thread_put(test, t);

	/* A timeout, long enough to be seen waiting. */
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_TIMEOUT, HZ / 2,
				       false);
	KUNIT_EXPECT_TRUE(test, sem_task_blocker(t->task, &holder));
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, -ETIME);
	KUNIT_EXPECT_FALSE(test, sem_task_blocker(t->task, &holder));
	sem_test_thread_put(test, t);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

/*
 * The forced hang of "make hung": a task sleeps in down() for 10 s behind
 * a down_async() work function that keeps the unit, so that the hung-task
 * detector (its timeout shortened to 2 s) reports it and names the work
 * function.  The script checks the console; the case checks that the
 * task gets the unit once the holder lets go.  Off by default.
 */
static bool hung_demo;
module_param(hung_demo, bool, 0444);
MODULE_PARM_DESC(hung_demo, "run the forced hang of sem_async_test_hung_holder");

static void sem_async_test_hung_holder(struct kunit *test)
{
	struct sem_test_thread *t;
	struct sem_hint_req r;
	struct semaphore sem;

	if (!hung_demo)
		kunit_skip(test, "run by make hung (semaphore_async_kunit.hung_demo=1)");
	if (!IS_ENABLED(CONFIG_DETECT_HUNG_TASK_BLOCKER))
		kunit_skip(test, "needs CONFIG_DETECT_HUNG_TASK_BLOCKER");
	sema_init(&sem, 1);
	sem_hint_req_init(&r, &sem);
	r.hold = 30 * HZ;
	KUNIT_EXPECT_EQ(test, down_async(&sem, &r.req, system_unbound_wq), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&r.holding,
							    SEM_TEST_WAIT));
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, false);
	msleep(10000);
	KUNIT_EXPECT_FALSE(test, sem_test_returned(t));
	complete(&r.release);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, 0);
	sem_test_thread_put(test, t);
	flush_work(&r.req.work);
	sem_async_destroy_onstack(&r.req);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), 1U);
}

static struct kunit_case sem_async_cases[] = {
	KUNIT_CASE(sem_async_test_immediate),
	KUNIT_CASE(sem_async_test_queued),
	KUNIT_CASE(sem_async_test_fifo_mixed),
	KUNIT_CASE(sem_async_test_cancel),
	KUNIT_CASE(sem_async_test_cancel_head),
	KUNIT_CASE(sem_async_test_cancel_race),
	KUNIT_CASE(sem_async_test_hardirq),
	KUNIT_CASE(sem_async_test_reentrant),
	KUNIT_CASE(sem_async_test_work),
	KUNIT_CASE(sem_async_test_workqueue),
	KUNIT_CASE(sem_async_test_requeue),
	KUNIT_CASE(sem_async_test_shutdown),
	KUNIT_CASE(sem_async_test_shutdown_from_work),
	KUNIT_CASE(sem_async_test_shutdown_cancel_work),
	KUNIT_CASE(sem_async_test_misuse),
	KUNIT_CASE(sem_async_test_shutdown_sleeper),
	KUNIT_CASE(sem_async_test_debug_free),
	KUNIT_CASE(sem_async_test_accessors),
	KUNIT_CASE(sem_async_test_holder_hint),
	KUNIT_CASE(sem_async_test_blocker),
	KUNIT_CASE(sem_async_test_hung_holder),
	{}
};

static struct kunit_suite sem_async_suite = {
	.name = "semaphore_async",
	.test_cases = sem_async_cases,
};

kunit_test_suite(sem_async_suite);

MODULE_DESCRIPTION("KUnit tests for semaphore wait entries and down_async()");
MODULE_LICENSE("GPL");

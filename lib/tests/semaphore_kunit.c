// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for the classic semaphore contract: sema_init(),
 * DEFINE_SEMAPHORE(), down() and its variants, down_trylock() and up().
 * It uses only that API, so that the same suite runs on a kernel with the
 * old kernel/locking/semaphore.c and on one with lib/semaphore.c: passing
 * on both is how "callers see no change" is checked.  The comment above
 * each case names its rule.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugobjects.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/semaphore.h>

#include "semaphore_kunit.h"

static DEFINE_SEMAPHORE(sem_test_static, 2);

/* Rule: down_trylock() returns 0 when it takes a unit, 1 when none is free. */
static void sem_test_trylock(struct kunit *test)
{
	struct semaphore sem;

	sema_init(&sem, 1);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	up(&sem);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	up(&sem);
}

/* Rule: sema_init() and DEFINE_SEMAPHORE() start with the given number of units. */
static void sem_test_init(struct kunit *test)
{
	DEFINE_SEMAPHORE(sem3, 3);
	struct semaphore sem0;
	int i;

	sema_init(&sem0, SEM_TEST_NO_UNITS);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem0), 1);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, down_trylock(&sem3), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem3), 1);
	for (i = 0; i < 3; i++)
		up(&sem3);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem_test_static), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem_test_static), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem_test_static), 1);
	up(&sem_test_static);
	up(&sem_test_static);
}

/* Rule: every sleeping variant takes a free unit without sleeping. */
static void sem_test_free_units(struct kunit *test)
{
	struct semaphore sem;

	sema_init(&sem, 4);
	down(&sem);
	KUNIT_EXPECT_EQ(test, down_interruptible(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_killable(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_timeout(&sem, 1), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	up(&sem);
	up(&sem);
	up(&sem);
	up(&sem);
}

/* Rule: with n units, n holders proceed and the next one blocks until an up(). */
static void sem_test_counting(struct kunit *test)
{
	struct sem_test_thread *holder[3], *next;
	struct semaphore sem;
	int i;

	sema_init(&sem, 3);
	for (i = 0; i < 3; i++) {
		holder[i] = sem_test_thread_create(test, &sem, SEM_TEST_DOWN,
						   0, true);
		wake_up_process(holder[i]->task);
		KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(holder[i]));
	}
	next = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, sem_test_returned(next));
	complete(&holder[1]->release);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(next));
	for (i = 0; i < 3; i++)
		sem_test_thread_put(test, holder[i]);
	sem_test_thread_put(test, next);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
}

#define SEM_TEST_FIFO	5

/* Rule: waiters are granted the semaphore in the order they queued. */
static void sem_test_fifo(struct kunit *test)
{
	struct sem_test_thread *t[SEM_TEST_FIFO];
	struct semaphore sem;
	int i, j;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	for (i = 0; i < SEM_TEST_FIFO; i++)
		t[i] = sem_test_thread_run_queued(test, &sem,
						  i & 1 ? SEM_TEST_DOWN :
						  SEM_TEST_INTERRUPTIBLE,
						  0, false);
	for (i = 0; i < SEM_TEST_FIFO; i++) {
		up(&sem);
		KUNIT_EXPECT_TRUE_MSG(test, sem_test_wait_returned(t[i]),
				      "waiter %d not granted", i);
		KUNIT_EXPECT_EQ(test, t[i]->ret, 0);
		for (j = i + 1; j < SEM_TEST_FIFO; j++)
			KUNIT_EXPECT_FALSE_MSG(test, sem_test_returned(t[j]),
					       "waiter %d overtook waiter %d",
					       j, i);
	}
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	for (i = 0; i < SEM_TEST_FIFO; i++)
		sem_test_thread_put(test, t[i]);
}

/* Rule: once up() hands the unit to a queued waiter, nobody can steal it. */
static void sem_test_no_stealing(struct kunit *test)
{
	struct sem_test_thread *t;
	struct semaphore sem;
	int stolen;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	preempt_disable();
	up(&sem);
	stolen = !down_trylock(&sem);
	preempt_enable();
	KUNIT_EXPECT_FALSE_MSG(test, stolen, "down_trylock() stole the unit");
	if (stolen)
		up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, t);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
}

/* Rule: a signal ends down_interruptible() with -EINTR; no unit is lost. */
static void sem_test_interruptible(struct kunit *test)
{
	struct sem_test_thread *intr, *next;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	intr = sem_test_thread_run_queued(test, &sem, SEM_TEST_INTERRUPTIBLE,
					  0, false);
	next = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	send_sig(SIGUSR1, intr->task, 1);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(intr));
	KUNIT_EXPECT_EQ(test, intr->ret, -EINTR);
	KUNIT_EXPECT_FALSE(test, sem_test_returned(next));
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(next));
	KUNIT_EXPECT_EQ(test, next->ret, 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, next);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, intr);
}

/* Rule: down_killable() ignores ordinary signals, returns -EINTR on SIGKILL. */
static void sem_test_killable(struct kunit *test)
{
	struct sem_test_thread *t;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_KILLABLE, 0, false);
	send_sig(SIGUSR1, t->task, 1);
	msleep(50);
	KUNIT_EXPECT_FALSE_MSG(test, sem_test_returned(t),
			       "down_killable() returned on SIGUSR1");
	send_sig(SIGKILL, t->task, 1);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, -EINTR);
	up(&sem);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, t);
}

/* Rule: down_timeout() fails with -ETIME after its timeout, 0 if up() comes first. */
static void sem_test_timeout(struct kunit *test)
{
	struct sem_test_thread *t;
	struct semaphore sem;
	unsigned long start;
	long timeout = msecs_to_jiffies(100);
	int ret;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	start = jiffies;
	ret = down_timeout(&sem, timeout);
	KUNIT_EXPECT_EQ(test, ret, -ETIME);
	KUNIT_EXPECT_GE(test, (long)(jiffies - start), timeout);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_TIMEOUT,
				       SEM_TEST_WAIT, false);
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, t);
}

/* Rule: a waiter granted the unit as its timeout expires keeps the grant. */
static void sem_test_timeout_granted(struct kunit *test)
{
	struct sem_test_thread *t;
	long timeout = msecs_to_jiffies(100);
	struct semaphore sem;
	unsigned int cpu;

	/* The waiter shares this CPU, which spins past its timeout, then up(). */
	sema_init(&sem, SEM_TEST_NO_UNITS);
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)),
			0);
	t = sem_test_thread_create(test, &sem, SEM_TEST_TIMEOUT, timeout, true);
	kthread_bind(t->task, cpu);
	wake_up_process(t->task);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_queued(t));
	preempt_disable();
	mdelay(jiffies_to_msecs(timeout) + 50);
	up(&sem);
	preempt_enable();
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ_MSG(test, t->ret, 0,
			    "waiter granted at its timeout lost the grant");
	/* Exactly one unit exists, and the waiter holds it. */
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, t);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

struct sem_test_timer {
	struct hrtimer		timer;
	struct semaphore	*sem;
	bool			trylock, hardirq;
	int			ret;
	struct completion	fired;
};

static enum hrtimer_restart sem_test_timer_fn(struct hrtimer *timer)
{
	struct sem_test_timer *st = container_of(timer, struct sem_test_timer,
						 timer);

	st->hardirq = in_hardirq();
	if (st->trylock)
		st->ret = down_trylock(st->sem);
	else
		up(st->sem);
	complete(&st->fired);
	return HRTIMER_NORESTART;
}

static void sem_test_timer_fire(struct sem_test_timer *st,
				struct semaphore *sem, bool trylock, u64 ns)
{
	st->sem = sem;
	st->trylock = trylock;
	st->ret = -1;
	st->hardirq = false;
	init_completion(&st->fired);
	hrtimer_init_on_stack(&st->timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_HARD);
	st->timer.function = sem_test_timer_fn;
	hrtimer_start(&st->timer, ns_to_ktime(ns), HRTIMER_MODE_REL_HARD);
}

/* Wait for the timer to have fired, and retire it. */
static bool sem_test_timer_wait(struct sem_test_timer *st)
{
	bool fired = wait_for_completion_timeout(&st->fired, SEM_TEST_WAIT);

	hrtimer_cancel(&st->timer);
	destroy_hrtimer_on_stack(&st->timer);
	return fired;
}

/* Rule: a timeout racing with up() in an interrupt: units exact, whichever wins. */
static void sem_test_timeout_race(struct kunit *test)
{
	struct sem_test_timer st;
	struct sem_test_thread *t;
	struct semaphore sem;
	int i, granted = 0, timedout = 0;

	for (i = 0; i < 100; i++) {
		sema_init(&sem, SEM_TEST_NO_UNITS);
		t = sem_test_thread_create(test, &sem, SEM_TEST_TIMEOUT, 1,
					   false);
		wake_up_process(t->task);
		sem_test_timer_fire(&st, &sem, false,
				    (i % 20) * (TICK_NSEC / 8));
		KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
		KUNIT_EXPECT_TRUE(test, sem_test_timer_wait(&st));
		if (t->ret == 0) {
			granted++;
			KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
		} else {
			timedout++;
			KUNIT_EXPECT_EQ(test, t->ret, -ETIME);
			KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
			KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
		}
		sem_test_thread_put(test, t);
	}
	kunit_info(test, "granted %d, timed out %d\n", granted, timedout);
	KUNIT_EXPECT_GT(test, granted, 0);
	KUNIT_EXPECT_GT(test, timedout, 0);
}

/* Rule: up() from a hard interrupt wakes a sleeper. */
static void sem_test_up_hardirq(struct kunit *test)
{
	struct sem_test_timer st;
	struct sem_test_thread *t;
	struct semaphore sem;

	sema_init(&sem, SEM_TEST_NO_UNITS);
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, false);
	sem_test_timer_fire(&st, &sem, false, NSEC_PER_MSEC);
	KUNIT_EXPECT_TRUE(test, sem_test_timer_wait(&st));
	KUNIT_EXPECT_TRUE(test, st.hardirq);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_thread_put(test, t);
}

/* Rule: down_trylock() works from a hard interrupt, both ways. */
static void sem_test_trylock_hardirq(struct kunit *test)
{
	struct sem_test_timer st;
	struct semaphore sem;

	sema_init(&sem, 1);
	sem_test_timer_fire(&st, &sem, true, NSEC_PER_MSEC);
	KUNIT_EXPECT_TRUE(test, sem_test_timer_wait(&st));
	KUNIT_EXPECT_TRUE(test, st.hardirq);
	KUNIT_EXPECT_EQ(test, st.ret, 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
	sem_test_timer_fire(&st, &sem, true, NSEC_PER_MSEC);
	KUNIT_EXPECT_TRUE(test, sem_test_timer_wait(&st));
	KUNIT_EXPECT_EQ(test, st.ret, 1);
	up(&sem);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
}

#define SEM_TEST_STRESS_THREADS	4
#define SEM_TEST_STRESS_LOOPS	2000

struct sem_test_stress {
	struct semaphore	*sem;
	unsigned int		limit;
	atomic_t		*holders, *violations, *failures;
	struct completion	done;
};

static int sem_test_stress_fn(void *data)
{
	struct sem_test_stress *s = data;
	int i;

	for (i = 0; i < SEM_TEST_STRESS_LOOPS; i++) {
		if (down_timeout(s->sem, SEM_TEST_WAIT)) {
			atomic_inc(s->failures);
			break;
		}
		if (atomic_inc_return(s->holders) > s->limit)
			atomic_inc(s->violations);
		if (!(i % 16))
			cond_resched();
		else
			udelay(1);
		atomic_dec(s->holders);
		up(s->sem);
	}
	complete(&s->done);
	return 0;
}

/* Rule: never more than n holders at once, and every unit comes back. */
static void sem_test_counting_stress(struct kunit *test)
{
	struct sem_test_stress s[SEM_TEST_STRESS_THREADS];
	atomic_t holders = ATOMIC_INIT(0);
	atomic_t violations = ATOMIC_INIT(0);
	atomic_t failures = ATOMIC_INIT(0);
	struct semaphore sem;
	int i;

	sema_init(&sem, 2);
	for (i = 0; i < SEM_TEST_STRESS_THREADS; i++) {
		s[i].sem = &sem;
		s[i].limit = 2;
		s[i].holders = &holders;
		s[i].violations = &violations;
		s[i].failures = &failures;
		init_completion(&s[i].done);
		KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(sem_test_stress_fn,
							    &s[i],
							    "sem_stress")));
	}
	for (i = 0; i < SEM_TEST_STRESS_THREADS; i++)
		wait_for_completion(&s[i].done);
	KUNIT_EXPECT_EQ(test, atomic_read(&violations), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&failures), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 1);
}

/* Rule: the count stops at 2^30 - 1: sema_init() clamps, up() there is ignored (both warn). */
static void sem_test_count_limit(struct kunit *test)
{
#ifdef __SEM_COUNT_MAX
	struct semaphore sem;

	kunit_info(test, "warnings from sema_init() and up() follow\n");
	sema_init(&sem, INT_MAX);
	up(&sem);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), (unsigned int)__SEM_COUNT_MAX);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, sem_count(&sem), (unsigned int)__SEM_COUNT_MAX - 1);
#else
	kunit_skip(test, "no limit below UINT_MAX on this kernel");
#endif
}

/* Rule: 16 bytes on 64-bit, 12 on 32-bit (without lock debugging). */
static void sem_test_size(struct kunit *test)
{
	if (sizeof(raw_spinlock_t) != 4)
		kunit_skip(test, "raw_spinlock_t is %zu bytes (lock debugging or UP)",
			   sizeof(raw_spinlock_t));
	KUNIT_EXPECT_LE(test, sizeof(struct semaphore), BITS_PER_LONG == 64 ? 16 : 12);
}

/* Rule: (debug) a semaphore freed with a sleeper is reported; the sleeper still gets the unit. */
static void sem_test_debug_free(struct kunit *test)
{
	struct sem_test_thread *t;
	struct semaphore sem;

	if (!IS_ENABLED(CONFIG_DEBUG_SEMAPHORE) ||
	    !IS_BUILTIN(CONFIG_SEMAPHORE_KUNIT_TEST))
		kunit_skip(test, "needs CONFIG_DEBUG_SEMAPHORE, built in");
	sema_init(&sem, SEM_TEST_NO_UNITS);
	t = sem_test_thread_run_queued(test, &sem, SEM_TEST_DOWN, 0, true);
	kunit_info(test, "an ODEBUG report follows\n");
	/* As kfree() would, but the memory stays. */
	debug_check_no_obj_freed(&sem, sizeof(sem));
	KUNIT_EXPECT_FALSE(test, sem_test_returned(t));
	up(&sem);
	KUNIT_EXPECT_TRUE(test, sem_test_wait_returned(t));
	KUNIT_EXPECT_EQ(test, t->ret, 0);
	sem_test_thread_put(test, t);
}

static struct kunit_case sem_classic_cases[] = {
	KUNIT_CASE(sem_test_trylock),
	KUNIT_CASE(sem_test_init),
	KUNIT_CASE(sem_test_free_units),
	KUNIT_CASE(sem_test_counting),
	KUNIT_CASE(sem_test_fifo),
	KUNIT_CASE(sem_test_no_stealing),
	KUNIT_CASE(sem_test_interruptible),
	KUNIT_CASE(sem_test_killable),
	KUNIT_CASE(sem_test_timeout),
	KUNIT_CASE(sem_test_timeout_granted),
	KUNIT_CASE(sem_test_timeout_race),
	KUNIT_CASE(sem_test_up_hardirq),
	KUNIT_CASE(sem_test_trylock_hardirq),
	KUNIT_CASE(sem_test_counting_stress),
	KUNIT_CASE(sem_test_count_limit),
	KUNIT_CASE(sem_test_size),
	KUNIT_CASE(sem_test_debug_free),
	{}
};

static struct kunit_suite sem_classic_suite = {
	.name = "semaphore_classic",
	.test_cases = sem_classic_cases,
};

kunit_test_suite(sem_classic_suite);

MODULE_DESCRIPTION("KUnit tests for the classic semaphore API");
MODULE_LICENSE("GPL");

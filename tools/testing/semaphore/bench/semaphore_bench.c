// SPDX-License-Identifier: GPL-2.0
/*
 * Semaphore benchmark, built into the pristine and the patched kernel by
 * tools/testing/semaphore/bench.sh (it is not part of the series).  The
 * shared figures use only the classic API; the figures of wait entries
 * and down_async() are built with -DSEM_BENCH_ASYNC, on the patched tree.
 *
 * Each figure is a console line "semaphore_bench: <metric> <value>".  A
 * benchmark, not a test: the cases only check that the work was done.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#ifdef SEM_BENCH_ASYNC
#include <linux/semaphore_async.h>
#endif
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#define BENCH_PAIRS		200000
#define BENCH_ROUNDS		201
#define BENCH_CONTEND_MS	1000

static void bench_print(const char *metric, u64 total, u64 n)
{
	u64 x100 = div64_u64(total * 100, n);

	pr_info("semaphore_bench: %s %llu.%02llu\n", metric, x100 / 100,
		x100 % 100);
}

static int bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 bench_median(u64 *v, int n)
{
	sort(v, n, sizeof(*v), bench_cmp, NULL);
	return v[n / 2];
}

/* Uncontended pairs: one task, nobody else touches the semaphore. */
static void bench_single_pairs(struct kunit *test)
{
	struct semaphore sem;
	struct mutex mtx;
	u64 t0, t1;
	int i, fails = 0;

	sema_init(&sem, 1);
	mutex_init(&mtx);

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PAIRS; i++) {
		down(&sem);
		up(&sem);
	}
	t1 = ktime_get_ns();
	bench_print("down_up_pair_ns", t1 - t0, BENCH_PAIRS);

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PAIRS; i++) {
		fails += down_trylock(&sem);
		up(&sem);
	}
	t1 = ktime_get_ns();
	bench_print("trylock_up_pair_ns", t1 - t0, BENCH_PAIRS);

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PAIRS; i++) {
		mutex_lock(&mtx);
		mutex_unlock(&mtx);
	}
	t1 = ktime_get_ns();
	bench_print("mutex_pair_ns", t1 - t0, BENCH_PAIRS);

	KUNIT_EXPECT_EQ(test, fails, 0);
	KUNIT_EXPECT_EQ(test, down_trylock(&sem), 0);
}

/* Wake-up latency: from up() until the task sleeping in down() runs. */
struct bench_sleeper {
	struct semaphore	sem;
	struct completion	ready, woke;
	u64			t_woke;
	int			rounds;
};

static int bench_sleeper_fn(void *data)
{
	struct bench_sleeper *s = data;
	int i;

	for (i = 0; i < s->rounds; i++) {
		complete(&s->ready);
		down(&s->sem);
		s->t_woke = ktime_get_ns();
		complete(&s->woke);
	}
	return 0;
}

static void bench_latency_wakeup(struct kunit *test)
{
	struct bench_sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u64 *lat = kunit_kcalloc(test, BENCH_ROUNDS, sizeof(u64), GFP_KERNEL);
	struct task_struct *t;
	int i, done = 0;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, lat);
	sema_init(&s->sem, 0);
	init_completion(&s->ready);
	init_completion(&s->woke);
	s->rounds = BENCH_ROUNDS;
	t = kthread_run(bench_sleeper_fn, s, "sem_bench_sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));

	for (i = 0; i < BENCH_ROUNDS; i++) {
		if (!wait_for_completion_timeout(&s->ready, 10 * HZ))
			break;
		/* Let it reach down() and sleep there. */
		msleep(2);
		t0 = ktime_get_ns();
		up(&s->sem);
		if (!wait_for_completion_timeout(&s->woke, 10 * HZ))
			break;
		lat[i] = s->t_woke - t0;
		done++;
	}
	KUNIT_ASSERT_EQ(test, done, BENCH_ROUNDS);
	bench_print("wakeup_latency_ns", bench_median(lat, BENCH_ROUNDS), 1);
}

/* Contended hand-off: one thread per CPU, down(); critical section; up(). */
struct bench_contend {
	struct semaphore	sem;
	atomic_t		inside;
	bool			stop;
	int			violations;
	unsigned long		count[NR_CPUS];
};

struct bench_thread {
	struct bench_contend	*c;
	int			id;
	struct completion	done;
};

static int bench_contend_fn(void *data)
{
	struct bench_thread *bt = data;
	struct bench_contend *c = bt->c;

	while (!READ_ONCE(c->stop)) {
		down(&c->sem);
		if (atomic_inc_return(&c->inside) != 1)
			c->violations++;
		c->count[bt->id]++;
		atomic_dec(&c->inside);
		up(&c->sem);
	}
	complete(&bt->done);
	return 0;
}

static void bench_contended(struct kunit *test)
{
	int n = num_online_cpus(), i, started = 0;
	struct bench_contend *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct bench_thread *bt = kunit_kcalloc(test, n, sizeof(*bt), GFP_KERNEL);
	unsigned long total = 0, max = 0, min = ULONG_MAX;
	char name[40];
	u64 t0, t1;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, bt);
	sema_init(&c->sem, 1);
	down(&c->sem);
	for (i = 0; i < n; i++) {
		struct task_struct *t;

		bt[i].c = c;
		bt[i].id = i;
		init_completion(&bt[i].done);
		t = kthread_create(bench_contend_fn, &bt[i], "sem_bench/%d", i);
		if (IS_ERR(t))
			break;
		kthread_bind(t, i);
		wake_up_process(t);
		started++;
	}
	t0 = ktime_get_ns();
	up(&c->sem);
	msleep(BENCH_CONTEND_MS);
	WRITE_ONCE(c->stop, true);
	t1 = ktime_get_ns();
	for (i = 0; i < started; i++)
		wait_for_completion(&bt[i].done);
	KUNIT_ASSERT_EQ(test, started, n);
	KUNIT_EXPECT_EQ(test, c->violations, 0);

	for (i = 0; i < n; i++) {
		total += c->count[i];
		max = max(max, c->count[i]);
		min = min(min, c->count[i]);
	}
	snprintf(name, sizeof(name), "contended_%dthreads_ops_per_s", n);
	bench_print(name, (u64)total * NSEC_PER_SEC, t1 - t0);
	snprintf(name, sizeof(name), "fairness_%dthreads_max_over_min", n);
	bench_print(name, max, min ? min : 1);
}

#ifdef SEM_BENCH_ASYNC
/* Grant latency of wait entries and down_async(), patched tree only. */
struct bench_async {
	struct sem_waiter	waiter;
	struct sem_async	req;
	struct completion	ran;
	u64			t_ran;
	int			grants;
};

static void bench_grant_fn(struct sem_waiter *w, int status)
{
	struct bench_async *b = container_of(w, struct bench_async, waiter);

	b->t_ran = ktime_get_ns();
	b->grants++;
}

static void bench_work_fn(struct sem_async *req, int status)
{
	struct bench_async *b = container_of(req, struct bench_async, req);

	b->t_ran = ktime_get_ns();
	complete(&b->ran);
}

static void bench_latency_async(struct kunit *test)
{
	struct bench_async *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	u64 *lat = kunit_kcalloc(test, BENCH_ROUNDS, sizeof(u64), GFP_KERNEL);
	struct workqueue_struct *wq;
	struct semaphore sem;
	int i, done = 0;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, lat);
	sema_init(&sem, 0);
	sem_waiter_init(&b->waiter, bench_grant_fn);
	for (i = 0; i < BENCH_ROUNDS; i++) {
		KUNIT_ASSERT_FALSE(test, down_entry(&sem, &b->waiter));
		t0 = ktime_get_ns();
		up(&sem);
		lat[i] = b->t_ran - t0;
		/* The grant holds the unit: none is free. */
		KUNIT_ASSERT_EQ(test, down_trylock(&sem), 1);
	}
	KUNIT_ASSERT_EQ(test, b->grants, BENCH_ROUNDS);
	bench_print("grant_fn_latency_ns", bench_median(lat, BENCH_ROUNDS), 1);

	wq = alloc_workqueue("sem_bench", WQ_HIGHPRI, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	sem_async_init(&b->req, &sem, wq, bench_work_fn);
	for (i = 0; i < BENCH_ROUNDS; i++) {
		init_completion(&b->ran);
		/* Queued: the unit is held by the last round's function. */
		if (!down_async(&b->req) || !sem_has_waiters(&sem))
			break;
		t0 = ktime_get_ns();
		up(&sem);
		if (!wait_for_completion_timeout(&b->ran, 10 * HZ))
			break;
		lat[i] = b->t_ran - t0;
		sem_async_cancel_sync(&b->req);
		done++;
	}
	destroy_workqueue(wq);
	KUNIT_ASSERT_EQ(test, done, BENCH_ROUNDS);
	bench_print("async_work_latency_ns", bench_median(lat, BENCH_ROUNDS), 1);
}

/* up() and sem_waiter_cancel() with 1, 100 and 10,000 queued wait entries. */
static struct sem_waiter *bench_granted;

static void bench_grant_count(struct sem_waiter *w, int status)
{
	bench_granted = w;
}

static void bench_single_waiters(struct kunit *test)
{
	static const int sizes[] = { 1, 100, 10000 };
	struct sem_waiter *e;
	struct semaphore sem;
	char name[40];
	int s, i, r;

	e = kvcalloc(10000, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		int n = sizes[s];
		u64 up_ns = 0, cancel_ns = 0, t0;

		sema_init(&sem, 0);
		for (i = 0; i < n; i++) {
			sem_waiter_init(&e[i], bench_grant_count);
			KUNIT_ASSERT_FALSE(test, down_entry(&sem, &e[i]));
		}
		for (r = 0; r < 100; r++) {
			unsigned long flags;
			bool ret;

			/*
			 * Interrupts off around each timed call, so that no
			 * tick is counted in it.  Cancel the newest entry and
			 * queue it again.
			 */
			local_irq_save(flags);
			t0 = ktime_get_ns();
			ret = sem_waiter_cancel(&sem, &e[n - 1]);
			cancel_ns += ktime_get_ns() - t0;
			local_irq_restore(flags);
			KUNIT_ASSERT_TRUE(test, ret);
			KUNIT_ASSERT_FALSE(test, down_entry(&sem, &e[n - 1]));
			/* Grant the oldest; it queues again at the tail. */
			bench_granted = NULL;
			local_irq_save(flags);
			t0 = ktime_get_ns();
			up(&sem);
			up_ns += ktime_get_ns() - t0;
			local_irq_restore(flags);
			KUNIT_ASSERT_NOT_NULL(test, bench_granted);
			KUNIT_ASSERT_FALSE(test, down_entry(&sem, bench_granted));
		}
		snprintf(name, sizeof(name), "up_with_%d_waiters_ns", n);
		bench_print(name, up_ns, 100);
		snprintf(name, sizeof(name), "cancel_with_%d_waiters_ns", n);
		bench_print(name, cancel_ns, 100);
		for (i = 0; i < n; i++)
			sem_waiter_cancel(&sem, &e[i]);
		KUNIT_EXPECT_FALSE(test, sem_has_waiters(&sem));
	}
	kvfree(e);
}
/*
 * The uncontended down_async() against what a driver writes without it,
 * down() + queue_work(), for the same work function, which calls up();
 * sem_async_cancel_sync() and flush_work() wait for it each time.  The two loops alternate in blocks,
 * after one untimed block of each, and the median block counts: the first
 * loop after the boot, and a block that an interrupt or a kernel thread
 * lands in, cost hundreds of instructions more per pair.
 */
#define BENCH_PAIR_BLOCKS	11

struct bench_pair {
	struct sem_async	req;
	struct work_struct	work;
	struct semaphore	*sem;
};

static void bench_pair_async_fn(struct sem_async *req, int status)
{
	up(container_of(req, struct bench_pair, req)->sem);
}

static void bench_pair_plain_fn(struct work_struct *work)
{
	up(container_of(work, struct bench_pair, work)->sem);
}

static void bench_single_async_pair(struct kunit *test)
{
	struct bench_pair *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	u64 t0, t_async[BENCH_PAIR_BLOCKS], t_plain[BENCH_PAIR_BLOCKS];
	u64 async, plain;
	struct workqueue_struct *wq;
	struct semaphore sem;
	int i, block, fails = 0;

	KUNIT_ASSERT_NOT_NULL(test, b);
	wq = alloc_workqueue("sem_bench_pair", 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	sema_init(&sem, 1);
	b->sem = &sem;
	sem_async_init(&b->req, &sem, wq, bench_pair_async_fn);
	INIT_WORK(&b->work, bench_pair_plain_fn);

	/* Block -1 is the warm-up. */
	for (block = -1; block < BENCH_PAIR_BLOCKS; block++) {
		t0 = ktime_get_ns();
		for (i = 0; i < BENCH_ROUNDS; i++) {
			fails += !down_async(&b->req);
			sem_async_cancel_sync(&b->req);
		}
		if (block >= 0)
			t_async[block] = ktime_get_ns() - t0;
		t0 = ktime_get_ns();
		for (i = 0; i < BENCH_ROUNDS; i++) {
			down(&sem);
			queue_work(wq, &b->work);
			flush_work(&b->work);
		}
		if (block >= 0)
			t_plain[block] = ktime_get_ns() - t0;
	}
	destroy_workqueue(wq);
	KUNIT_ASSERT_EQ(test, fails, 0);
	KUNIT_ASSERT_EQ(test, sem_count(&sem), 1);
	async = bench_median(t_async, BENCH_PAIR_BLOCKS);
	plain = bench_median(t_plain, BENCH_PAIR_BLOCKS);
	bench_print("async_flush_pair_ns", async, BENCH_ROUNDS);
	bench_print("down_queue_flush_pair_ns", plain, BENCH_ROUNDS);
	bench_print("async_over_down_queue_x1000", async * 1000, plain);
}

/*
 * sem_async_cancel_sync() of a queued request, alone and with 1,000
 * granted requests of other semaphores pending behind a blocked ordered
 * workqueue: nothing it does depends on them.
 */
struct bench_other {
	struct semaphore	sem;
	struct sem_async	req;
};

static DECLARE_COMPLETION(bench_unblock);

static void bench_block_fn(struct work_struct *work)
{
	wait_for_completion(&bench_unblock);
}

static void bench_other_fn(struct sem_async *req, int status)
{
	if (!status)
		up(&container_of(req, struct bench_other, req)->sem);
}

static u64 bench_cancel_sync_once(struct kunit *test, struct sem_async *req)
{
	u64 *lat = kunit_kcalloc(test, BENCH_ROUNDS, sizeof(u64), GFP_KERNEL);
	int i, fails = 0;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, lat);
	for (i = 0; i < BENCH_ROUNDS; i++) {
		fails += !down_async(req);
		t0 = ktime_get_ns();
		fails += !sem_async_cancel_sync(req);
		lat[i] = ktime_get_ns() - t0;
	}
	KUNIT_EXPECT_EQ(test, fails, 0);
	return bench_median(lat, BENCH_ROUNDS);
}

static void bench_single_cancel_sync(struct kunit *test)
{
	struct bench_other *o = kunit_kcalloc(test, 1000, sizeof(*o),
					      GFP_KERNEL);
	struct sem_async *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	struct workqueue_struct *wq, *blocked;
	struct work_struct block;
	struct semaphore sem;
	u64 alone, busy;
	int i, fails = 0;

	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_NOT_NULL(test, req);
	wq = alloc_workqueue("sem_bench_cancel", 0, 0);
	blocked = alloc_ordered_workqueue("sem_bench_blocked", 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	KUNIT_ASSERT_NOT_NULL(test, blocked);
	sema_init(&sem, 0);
	sem_async_init(req, &sem, wq, bench_other_fn);

	alone = bench_cancel_sync_once(test, req);

	reinit_completion(&bench_unblock);
	INIT_WORK_ONSTACK(&block, bench_block_fn);
	queue_work(blocked, &block);
	for (i = 0; i < 1000; i++) {
		sema_init(&o[i].sem, 1);
		sem_async_init(&o[i].req, &o[i].sem, blocked, bench_other_fn);
		fails += !down_async(&o[i].req);
	}
	busy = bench_cancel_sync_once(test, req);
	complete(&bench_unblock);
	destroy_workqueue(blocked);
	destroy_work_on_stack(&block);
	destroy_workqueue(wq);
	for (i = 0; i < 1000; i++)
		fails += sem_count(&o[i].sem) != 1;
	KUNIT_ASSERT_EQ(test, fails, 0);
	bench_print("cancel_sync_queued_ns", alone, 1);
	bench_print("cancel_sync_queued_1000_pending_ns", busy, 1);
	bench_print("cancel_sync_busy_over_alone_x1000", busy * 1000, alone);
}
#endif /* SEM_BENCH_ASYNC */

static struct kunit_case bench_cases[] = {
	KUNIT_CASE(bench_single_pairs),
#ifdef SEM_BENCH_ASYNC
	KUNIT_CASE(bench_single_waiters),
	KUNIT_CASE(bench_latency_async),
	KUNIT_CASE(bench_single_async_pair),
	KUNIT_CASE(bench_single_cancel_sync),
#endif
	KUNIT_CASE(bench_latency_wakeup),
	KUNIT_CASE(bench_contended),
	{}
};

static struct kunit_suite bench_suite = {
	.name = "semaphore_bench",
	.test_cases = bench_cases,
};
kunit_test_suite(bench_suite);

MODULE_DESCRIPTION("Semaphore benchmark (tools/testing/semaphore/bench.sh)");
MODULE_LICENSE("GPL");

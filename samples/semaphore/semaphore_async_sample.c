// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample: completing requests that arrive in hard interrupt context with
 * down_async().
 *
 * A device has SAMPLE_SLOTS hardware slots, counted by a semaphore.
 * Requests arrive from its interrupt handler (here an hrtimer stands in
 * for the device interrupt), where nothing may sleep, so down() is not an
 * option and down_trylock() would have to be retried by hand.  Instead
 * the handler asks for a slot with down_async() and returns.  Each
 * request's function then runs on a workqueue holding its slot, in the
 * order the requests arrived, and gives the slot back with up().  On
 * removal, sem_shutdown() fails the requests still waiting for a slot:
 * their function runs all the same, with status -ESHUTDOWN and no slot.
 * sem_shutdown() waits for nothing; the driver then waits for the
 * requests' functions as for any work item (here destroy_workqueue(),
 * which drains the workqueue) before it frees them.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/semaphore_async.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define SAMPLE_SLOTS		2
#define SAMPLE_IRQ_PERIOD_NS	(50 * NSEC_PER_USEC)

struct sample_dev;

struct sample_req {
	struct sem_async	async;
	struct sample_dev	*dev;
	unsigned int		id;
	int			result;
};

struct sample_dev {
	struct semaphore	slots;
	struct workqueue_struct	*wq;
	struct hrtimer		irq;
	struct sample_req	*reqs;
	unsigned int		nr;
	unsigned int		submitted;
	unsigned int		hw_delay_us;
	atomic_t		in_flight;
	atomic_t		max_in_flight;
	atomic_t		finished;
	struct completion	all_finished;
};

static void sample_finish(struct sample_req *req, int result)
{
	struct sample_dev *dev = req->dev;

	req->result = result;
	if (atomic_inc_return(&dev->finished) == dev->nr)
		complete(&dev->all_finished);
}

/* The request's function: holds one slot, unless the device went away. */
static void sample_process(struct sem_async *async, int status)
{
	struct sample_req *req = container_of(async, struct sample_req, async);
	struct sample_dev *dev = req->dev;
	int n;

	if (status) {
		sample_finish(req, status);
		return;
	}

	n = atomic_inc_return(&dev->in_flight);
	if (n > atomic_read(&dev->max_in_flight))
		atomic_set(&dev->max_in_flight, n);
	/* Talk to the hardware through the slot. */
	usleep_range(dev->hw_delay_us, 2 * dev->hw_delay_us);
	atomic_dec(&dev->in_flight);

	up(&dev->slots);
	sample_finish(req, 0);
}

/* The interrupt handler: submits one request and must not sleep. */
static enum hrtimer_restart sample_irq(struct hrtimer *timer)
{
	struct sample_dev *dev = container_of(timer, struct sample_dev, irq);
	struct sample_req *req = &dev->reqs[dev->submitted++];

	/* Each request is submitted once: only a bug makes this fail. */
	if (WARN_ON_ONCE(!down_async(&req->async)))
		sample_finish(req, -EBUSY);

	if (dev->submitted == dev->nr)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(SAMPLE_IRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

static struct sample_dev *sample_dev_create(unsigned int nr,
					    unsigned int hw_delay_us)
{
	struct sample_dev *dev;
	unsigned int i;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return NULL;
	dev->reqs = kcalloc(nr, sizeof(*dev->reqs), GFP_KERNEL);
	dev->wq = alloc_workqueue("sem_sample", WQ_UNBOUND, 0);
	if (!dev->reqs || !dev->wq) {
		if (dev->wq)
			destroy_workqueue(dev->wq);
		kfree(dev->reqs);
		kfree(dev);
		return NULL;
	}
	sema_init(&dev->slots, SAMPLE_SLOTS);
	dev->nr = nr;
	dev->hw_delay_us = hw_delay_us;
	init_completion(&dev->all_finished);
	for (i = 0; i < nr; i++) {
		sem_async_init(&dev->reqs[i].async, &dev->slots, dev->wq,
			       sample_process);
		dev->reqs[i].dev = dev;
		dev->reqs[i].id = i;
		dev->reqs[i].result = 1;
	}
	hrtimer_init(&dev->irq, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	dev->irq.function = sample_irq;
	return dev;
}

static void sample_dev_start(struct sample_dev *dev)
{
	hrtimer_start(&dev->irq, ns_to_ktime(SAMPLE_IRQ_PERIOD_NS),
		      HRTIMER_MODE_REL_HARD);
}

/*
 * Device removal: stop the interrupt, fail what waits, then wait for the
 * function of every request (the ones being processed and the ones just
 * failed), and only then free the requests.
 */
static void sample_dev_remove(struct sample_dev *dev)
{
	hrtimer_cancel(&dev->irq);
	sem_shutdown(&dev->slots);
	/* sem_shutdown() did not wait: the workqueue is drained here. */
	destroy_workqueue(dev->wq);
	kfree(dev->reqs);
	kfree(dev);
}

/* How many requests finished with @result. */
static unsigned int sample_count(struct sample_dev *dev, int result)
{
	unsigned int i, n = 0;

	for (i = 0; i < dev->nr; i++)
		n += dev->reqs[i].result == result;
	return n;
}

static int __init semaphore_async_sample_init(void)
{
	struct sample_dev *dev = sample_dev_create(64, 100);

	if (!dev)
		return -ENOMEM;
	sample_dev_start(dev);
	if (!wait_for_completion_timeout(&dev->all_finished, 10 * HZ))
		pr_warn("semaphore_async_sample: requests did not finish\n");
	pr_info("semaphore_async_sample: %u of %u requests submitted from hard interrupt completed, at most %d of %d slots in use\n",
		sample_count(dev, 0), dev->nr, atomic_read(&dev->max_in_flight),
		SAMPLE_SLOTS);
	sample_dev_remove(dev);
	return 0;
}
module_init(semaphore_async_sample_init);

#if IS_ENABLED(CONFIG_KUNIT)
/* Every request submitted from the interrupt completes, within the slots. */
static void sample_test_complete(struct kunit *test)
{
	struct sample_dev *dev = sample_dev_create(200, 20);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	sample_dev_start(dev);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&dev->all_finished,
							  30 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, sample_count(dev, 0), 200U);
	KUNIT_EXPECT_LE(test, atomic_read(&dev->max_in_flight), SAMPLE_SLOTS);
	KUNIT_EXPECT_GE(test, atomic_read(&dev->max_in_flight), 1);
	sample_dev_remove(dev);
}

/*
 * Removal fails the waiting requests; the running ones finish.  The
 * functions of both run on the workqueue after sem_shutdown() returned:
 * wait for them before counting.
 */
static void sample_test_remove(struct kunit *test)
{
	struct sample_dev *dev = sample_dev_create(50, 20000);
	unsigned int ok, shut, i;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	sample_dev_start(dev);
	/* Let requests pile up behind the two slots. */
	for (i = 0; i < 1000 && READ_ONCE(dev->submitted) < 10; i++)
		usleep_range(1000, 2000);
	hrtimer_cancel(&dev->irq);
	/* The device goes away while requests wait for slots. */
	sem_shutdown(&dev->slots);
	drain_workqueue(dev->wq);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->in_flight), 0);
	ok = sample_count(dev, 0);
	shut = sample_count(dev, -ESHUTDOWN);
	kunit_info(test, "%u submitted: %u completed, %u failed by shutdown\n",
		   dev->submitted, ok, shut);
	KUNIT_EXPECT_EQ(test, ok + shut, dev->submitted);
	KUNIT_EXPECT_GT(test, shut, 0U);
	KUNIT_EXPECT_LE(test, atomic_read(&dev->max_in_flight), SAMPLE_SLOTS);
	sample_dev_remove(dev);
}

static struct kunit_case sample_cases[] = {
	KUNIT_CASE(sample_test_complete),
	KUNIT_CASE(sample_test_remove),
	{}
};

static struct kunit_suite sample_suite = {
	.name = "semaphore_async_sample",
	.test_cases = sample_cases,
};

kunit_test_suite(sample_suite);
#endif

MODULE_DESCRIPTION("Sample: requests from hard interrupt context completed with down_async()");
MODULE_LICENSE("GPL");

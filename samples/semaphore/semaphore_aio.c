// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample: a character device that serves asynchronous I/O through
 * down_async().
 *
 * The device has a few request slots ("slots", default 2), counted by a
 * semaphore; serving a request holds one slot for the request's service
 * time ("service_us", default 2000), which stands for the hardware.
 *
 * - read() and write() (a synchronous kiocb) sleep for a slot with
 *   down_interruptible().
 * - An asynchronous kiocb (io_submit(2), or io_uring, which issues
 *   non-blocking requests because the file is FMODE_NOWAIT) never sleeps
 *   on the semaphore: ->read_iter()/->write_iter() submit a down_async()
 *   request and return -EIOCBQUEUED.  Its function runs holding a slot,
 *   in the order the requests were submitted (the workqueue is ordered
 *   and down_async() grants in FIFO order), and starts the service; when
 *   the service time is over, a delayed work item on the same workqueue
 *   gives the slot back with up() and completes the kiocb with
 *   ki_complete().
 * - io_cancel(2) reaches semaio_cancel() through kiocb_set_cancel_fn():
 *   fs/aio.c calls it with the AIO context's lock held and interrupts
 *   off, so it uses sem_async_cancel(), which does not sleep.  A request
 *   still waiting for a slot is cancelled: taken off the semaphore's
 *   queue.  It completes with -ECANCELED; the kiocb cannot be completed
 *   there, because ki_complete() takes that same context lock, so the
 *   completion goes to the workqueue.  A request already granted a slot
 *   is not touched: its function runs or ran, the cancel returns -EAGAIN
 *   (io_cancel fails with EAGAIN) and the request completes normally.  io_destroy() and
 *   the exit of the submitting process cancel the same way.
 * - Removal (SEMAIO_IOC_REMOVE, as an unplug would, and module unload)
 *   marks the device removed, lets sleeping read()/write() callers
 *   through with -ENODEV, and calls sem_shutdown(): the function of every
 *   request still queued (or submitted while the removal began) runs
 *   with status -ESHUTDOWN and no slot, and completes the request with
 *   -ENODEV.  Requests in service finish their service and complete
 *   normally.  sem_shutdown() waits for none of this: removal waits until
 *   every request has completed, then for the workqueue, as for any work
 *   item.  Later requests get -ENODEV.  A queued kiocb holds a reference
 *   on the file and an open file holds the module, so rmmod cannot run
 *   while requests are queued: remove the device first, then close and
 *   rmmod.
 *
 * Requests of 0 bytes get -EINVAL, requests over SEMAIO_MAX_LEN bytes
 * -EMSGSIZE.  A read returns bytes (tag + i) & 0xff, where tag is the
 * file position the request was issued at; the position is the tag
 * that SEMAIO_IOC_ORDER reports and is not advanced.
 */
#include <linux/aio.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/semaphore_async.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "semaphore_aio.h"

static unsigned int slots = 2;
module_param(slots, uint, 0444);
MODULE_PARM_DESC(slots, "request slots, the semaphore's units (1-64)");

static unsigned int service_us = 2000;
module_param(service_us, uint, 0444);
MODULE_PARM_DESC(service_us, "service time of one request in microseconds");

struct semaio_dev {
	struct semaphore	slots;
	struct workqueue_struct	*wq;
	struct miscdevice	misc;
	struct mutex		remove_lock;	/* one removal at a time */
	wait_queue_head_t	idle;		/* live or sync_active fell */
	wait_queue_head_t	stall_wait;	/* stalled was cleared */
	unsigned long		service_jiffies;
	/* Everything below is under lock. */
	spinlock_t		lock;
	bool			stalled;
	bool			removed;
	struct list_head	stalled_list;
	unsigned int		sync_active;
	struct semaio_stats	stats;
	struct semaio_order	order;
};

static struct semaio_dev semaio;

struct semaio_req {
	struct sem_async	async;
	struct delayed_work	done;
	struct list_head	stalled;
	struct semaio_dev	*dev;
	struct kiocb		*iocb;
	struct page		**pages;	/* a read's pinned user pages */
	unsigned int		npages;
	size_t			offset;		/* of the data in pages[0] */
	size_t			len;
	loff_t			tag;
	long			result;
	bool			write;
	bool			holds;		/* holds a slot */
	u8			data[];		/* a write's data */
};

/* Under dev->lock: note that request TAG starts its service. */
static void semaio_log(struct semaio_dev *dev, loff_t tag)
{
	struct semaio_order *order = &dev->order;

	dev->stats.in_service++;
	if (order->count < SEMAIO_ORDER_MAX)
		order->tag[order->count++] = tag;
	else
		order->lost++;
}

static void semaio_fill(u8 *buf, size_t len, loff_t tag)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (tag + i) & 0xff;
}

/* A read's data goes to the user pages pinned at submission. */
static void semaio_copy_to_pages(struct semaio_req *req)
{
	size_t done = 0, offset = req->offset;
	unsigned int i;

	semaio_fill(req->data, req->len, req->tag);
	for (i = 0; i < req->npages && done < req->len; i++) {
		size_t n = min_t(size_t, PAGE_SIZE - offset, req->len - done);

		memcpy_to_page(req->pages[i], offset, req->data + done, n);
		done += n;
		offset = 0;
	}
}

/* Release a read's user pages, dirty if the device wrote to them. */
static void semaio_unpin(struct semaio_req *req, bool dirty)
{
	if (req->pages) {
		unpin_user_pages_dirty_lock(req->pages, req->npages, dirty);
		kvfree(req->pages);
		req->pages = NULL;
	}
}

/*
 * Process context, any CPU: complete an asynchronous request, giving back
 * its slot first if it holds one.
 */
static void semaio_complete(struct semaio_req *req)
{
	struct semaio_dev *dev = req->dev;
	struct kiocb *iocb = req->iocb;
	unsigned long flags;

	if (req->holds) {
		if (!req->write)
			semaio_copy_to_pages(req);
		req->result = req->len;
		spin_lock_irqsave(&dev->lock, flags);
		dev->stats.in_service--;
		dev->stats.served++;
		spin_unlock_irqrestore(&dev->lock, flags);
		up(&dev->slots);
	}
	/* Dirty before the completion, so that the data is seen written. */
	semaio_unpin(req, req->holds && !req->write);
	/* Counted out before the completion that the caller may act on. */
	spin_lock_irqsave(&dev->lock, flags);
	dev->stats.live--;
	spin_unlock_irqrestore(&dev->lock, flags);
	iocb->ki_complete(iocb, req->result);
	kfree(req);
	wake_up_all(&dev->idle);
}

/* The end of the service time, or the completion of a cancelled request. */
static void semaio_done(struct work_struct *work)
{
	semaio_complete(container_of(to_delayed_work(work), struct semaio_req,
				     done));
}

/*
 * The request's down_async() function, on the device's workqueue: runs
 * holding a slot (status 0) or after sem_shutdown() failed the request
 * (-ESHUTDOWN, no slot).  sem_shutdown() only queues the functions of the
 * requests it fails; it never calls this function itself, so this never
 * runs in the remover's context.
 */
static void semaio_serve(struct sem_async *async, int status)
{
	struct semaio_req *req = container_of(async, struct semaio_req, async);
	struct semaio_dev *dev = req->dev;
	unsigned long flags;
	bool removed;

	spin_lock_irqsave(&dev->lock, flags);
	dev->stats.queued--;
	if (status) {
		dev->stats.failed_shutdown++;
		spin_unlock_irqrestore(&dev->lock, flags);
		req->result = -ENODEV;
		semaio_complete(req);
		return;
	}
	removed = dev->removed;
	if (removed) {
		dev->stats.failed_removed++;
	} else {
		req->holds = true;
		semaio_log(dev, req->tag);
		if (dev->stalled)
			list_add_tail(&req->stalled, &dev->stalled_list);
		else
			queue_delayed_work(dev->wq, &req->done,
					   dev->service_jiffies);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	if (removed) {
		/* Granted after the removal: give the slot back, fail it. */
		up(&dev->slots);
		req->result = -ENODEV;
		semaio_complete(req);
	}
}

/*
 * io_cancel(2), io_destroy(2) or the exit of the submitter.  fs/aio.c
 * calls this with the context's ctx_lock held and interrupts disabled, so
 * it must not sleep and must not complete the kiocb (ki_complete() takes
 * ctx_lock): sem_async_cancel() does not sleep, and the completion of a
 * cancelled request is left to the workqueue.  The request is alive
 * here: it is freed only after ki_complete(), which first takes it off
 * the context's list under ctx_lock.
 */
static int semaio_cancel(struct kiocb *iocb)
{
	struct semaio_req *req = iocb->private;
	struct semaio_dev *dev = req->dev;
	unsigned long flags;
	int ret = 0;

	/* semaio_submit() calls down_async() and counts under dev->lock. */
	spin_lock_irqsave(&dev->lock, flags);
	if (sem_async_cancel(&req->async)) {
		/* Off the queue, before any grant: semaio_serve() won't run. */
		dev->stats.queued--;
		dev->stats.cancelled++;
		req->result = -ECANCELED;
		queue_delayed_work(dev->wq, &req->done, 0);
	} else {
		/*
		 * Granted: semaio_serve() runs or ran for it; or down_async()
		 * has not been called yet.  Either way aio takes the kiocb off its
		 * list all the same, so that request is not cancelled and
		 * completes normally.
		 */
		dev->stats.cancel_late++;
		ret = -EAGAIN;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static ssize_t semaio_submit(struct semaio_dev *dev, struct kiocb *iocb,
			     struct iov_iter *iter, bool write)
{
	bool nowait = iocb->ki_flags & IOCB_NOWAIT;
	gfp_t gfp = nowait ? GFP_NOWAIT | __GFP_NOWARN : GFP_KERNEL;
	size_t len = iov_iter_count(iter);
	struct semaio_req *req;
	unsigned long flags;
	bool removed, submitted;
	ssize_t n;

	req = kzalloc(struct_size(req, data, len), gfp);
	if (!req)
		return nowait ? -EAGAIN : -ENOMEM;
	if (write) {
		if (copy_from_iter(req->data, len, iter) != len) {
			kfree(req);
			return -EFAULT;
		}
	} else {
		n = iov_iter_extract_pages(iter, &req->pages, len, INT_MAX, 0,
					   &req->offset);
		if (n > 0)
			req->npages = DIV_ROUND_UP(req->offset + n, PAGE_SIZE);
		/* One contiguous buffer per read, pinned (user memory). */
		if (n != len || !iov_iter_extract_will_pin(iter)) {
			if (n > 0 && iov_iter_extract_will_pin(iter))
				unpin_user_pages(req->pages, req->npages);
			kvfree(req->pages);
			kfree(req);
			return n < 0 ? n : -EINVAL;
		}
	}
	req->dev = dev;
	req->iocb = iocb;
	req->len = len;
	req->tag = iocb->ki_pos;
	req->write = write;
	INIT_LIST_HEAD(&req->stalled);
	INIT_DELAYED_WORK(&req->done, semaio_done);
	sem_async_init(&req->async, &dev->slots, dev->wq, semaio_serve);
	iocb->private = req;

	/* Checked and counted in one step: removal waits for live == 0. */
	spin_lock_irqsave(&dev->lock, flags);
	removed = dev->removed;
	if (!removed)
		dev->stats.live++;
	spin_unlock_irqrestore(&dev->lock, flags);
	if (removed) {
		semaio_unpin(req, false);
		kfree(req);
		return -ENODEV;
	}

	/*
	 * Cancellable from here on (io_submit() only; io_uring has no
	 * cancel callback), and before down_async(), because the request
	 * may be granted, served and completed before down_async()
	 * returns.  dev->lock makes the cancel callback see the request
	 * either not yet submitted (sem_async_cancel() finds nothing) or
	 * submitted and counted.  On a shut-down semaphore down_async()
	 * accepts it too, and semaio_serve() fails it.
	 */
	kiocb_set_cancel_fn(iocb, semaio_cancel);
	spin_lock_irqsave(&dev->lock, flags);
	submitted = down_async(&req->async);
	if (submitted) {
		dev->stats.queued++;
		dev->stats.submitted++;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	/*
	 * Only a request already submitted is refused.  Complete the kiocb
	 * here rather than return an error and free the request: an
	 * io_cancel() may be in semaio_cancel() with it, and ki_complete()
	 * waits for that.
	 */
	if (WARN_ON_ONCE(!submitted)) {
		req->result = -EBUSY;
		semaio_complete(req);
	}
	return -EIOCBQUEUED;
}

static ssize_t semaio_sync(struct semaio_dev *dev, struct kiocb *iocb,
			   struct iov_iter *iter, bool write)
{
	size_t len = iov_iter_count(iter);
	unsigned long flags;
	ssize_t ret;
	u8 *buf;

	/* preadv2(RWF_NOWAIT): this path sleeps. */
	if (iocb->ki_flags & IOCB_NOWAIT)
		return -EAGAIN;
	buf = kmalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	/* Checked and counted in one step: removal waits for sync_active. */
	spin_lock_irqsave(&dev->lock, flags);
	if (dev->removed) {
		spin_unlock_irqrestore(&dev->lock, flags);
		kfree(buf);
		return -ENODEV;
	}
	dev->sync_active++;
	spin_unlock_irqrestore(&dev->lock, flags);

	if (down_trylock(&dev->slots)) {
		/* No free slot: this task sleeps on the device. */
		spin_lock_irqsave(&dev->lock, flags);
		dev->stats.sync_waiting++;
		dev->stats.sync_waiting_peak = max(dev->stats.sync_waiting_peak,
						   dev->stats.sync_waiting);
		spin_unlock_irqrestore(&dev->lock, flags);
		ret = down_interruptible(&dev->slots);
		spin_lock_irqsave(&dev->lock, flags);
		dev->stats.sync_waiting--;
		spin_unlock_irqrestore(&dev->lock, flags);
		if (ret)
			goto out;
	}

	spin_lock_irqsave(&dev->lock, flags);
	if (dev->removed) {
		dev->stats.failed_removed++;
		spin_unlock_irqrestore(&dev->lock, flags);
		up(&dev->slots);
		ret = -ENODEV;
		goto out;
	}
	semaio_log(dev, iocb->ki_pos);
	spin_unlock_irqrestore(&dev->lock, flags);

	ret = len;
	if (write) {
		if (copy_from_iter(buf, len, iter) != len)
			ret = -EFAULT;
	} else {
		semaio_fill(buf, len, iocb->ki_pos);
		if (copy_to_iter(buf, len, iter) != len)
			ret = -EFAULT;
	}
	/*
	 * The service: a stalled device holds the slot until released (a
	 * fatal signal ends the wait for this task, which then finishes).
	 */
	wait_event_killable(dev->stall_wait, !READ_ONCE(dev->stalled));
	fsleep(service_us);

	spin_lock_irqsave(&dev->lock, flags);
	dev->stats.in_service--;
	dev->stats.served++;
	spin_unlock_irqrestore(&dev->lock, flags);
	up(&dev->slots);
out:
	kfree(buf);
	spin_lock_irqsave(&dev->lock, flags);
	dev->sync_active--;
	spin_unlock_irqrestore(&dev->lock, flags);
	wake_up_all(&dev->idle);
	return ret;
}

static ssize_t semaio_rw(struct kiocb *iocb, struct iov_iter *iter,
			 bool write)
{
	struct semaio_dev *dev = &semaio;
	size_t len = iov_iter_count(iter);

	if (!len)
		return -EINVAL;
	if (len > SEMAIO_MAX_LEN)
		return -EMSGSIZE;
	if (is_sync_kiocb(iocb))
		return semaio_sync(dev, iocb, iter, write);
	return semaio_submit(dev, iocb, iter, write);
}

static ssize_t semaio_read_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	return semaio_rw(iocb, iter, false);
}

static ssize_t semaio_write_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	return semaio_rw(iocb, iter, true);
}

static int semaio_set_stall(struct semaio_dev *dev, bool stall)
{
	struct semaio_req *req, *next;
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	if (stall && dev->removed) {
		spin_unlock_irqrestore(&dev->lock, flags);
		return -ENODEV;
	}
	WRITE_ONCE(dev->stalled, stall);
	list_for_each_entry_safe(req, next, &dev->stalled_list, stalled) {
		if (stall)
			break;
		list_del_init(&req->stalled);
		queue_delayed_work(dev->wq, &req->done, dev->service_jiffies);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	if (!stall)
		wake_up_all(&dev->stall_wait);
	return 0;
}

static bool semaio_quiet(struct semaio_dev *dev, bool async_too)
{
	unsigned long flags;
	bool quiet;

	spin_lock_irqsave(&dev->lock, flags);
	quiet = !dev->sync_active && (!async_too || !dev->stats.live);
	spin_unlock_irqrestore(&dev->lock, flags);
	return quiet;
}

/*
 * Remove the device: later requests get -ENODEV, the queued ones are
 * failed with -ENODEV, the ones in service finish.  Returns once no
 * request is left and no work item of the device runs.  sem_shutdown()
 * waits for nothing, so the requests' functions are waited for as for
 * any work item: first through the count of live requests (the function
 * of each one, or the completion it queued, frees it), then with
 * flush_workqueue().
 * Sleepers in read()/write() must be gone before sem_shutdown() (it warns
 * about queued sleepers), so while there are any the device is unstalled
 * and the slots keep flowing: each sleeper, and each asynchronous request
 * queued ahead of one, gets its slot, sees the removal and gives the slot
 * back with -ENODEV.
 */
static int semaio_remove(struct semaio_dev *dev)
{
	unsigned long flags;

	mutex_lock(&dev->remove_lock);
	spin_lock_irqsave(&dev->lock, flags);
	if (dev->removed) {
		spin_unlock_irqrestore(&dev->lock, flags);
		mutex_unlock(&dev->remove_lock);
		return -ENODEV;
	}
	WRITE_ONCE(dev->removed, true);
	dev->stats.removed = 1;
	spin_unlock_irqrestore(&dev->lock, flags);

	if (!semaio_quiet(dev, false)) {
		semaio_set_stall(dev, false);
		wait_event(dev->idle, semaio_quiet(dev, false));
	}
	sem_shutdown(&dev->slots);
	semaio_set_stall(dev, false);
	wait_event(dev->idle, semaio_quiet(dev, true));
	/* The work items that completed the last requests may still return. */
	flush_workqueue(dev->wq);
	mutex_unlock(&dev->remove_lock);
	return 0;
}

static long semaio_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct semaio_dev *dev = &semaio;
	void __user *argp = (void __user *)arg;
	struct semaio_order *order;
	struct semaio_stats stats;
	unsigned long flags;
	u32 stall;
	int ret;

	switch (cmd) {
	case SEMAIO_IOC_STALL:
		if (get_user(stall, (u32 __user *)argp))
			return -EFAULT;
		if (stall > 1)
			return -EINVAL;
		return semaio_set_stall(dev, stall);
	case SEMAIO_IOC_STATS:
		spin_lock_irqsave(&dev->lock, flags);
		stats = dev->stats;
		spin_unlock_irqrestore(&dev->lock, flags);
		stats.free = sem_count(&dev->slots);
		return copy_to_user(argp, &stats, sizeof(stats)) ? -EFAULT : 0;
	case SEMAIO_IOC_ORDER:
		order = kmalloc(sizeof(*order), GFP_KERNEL);
		if (!order)
			return -ENOMEM;
		spin_lock_irqsave(&dev->lock, flags);
		*order = dev->order;
		dev->order.count = 0;
		dev->order.lost = 0;
		spin_unlock_irqrestore(&dev->lock, flags);
		ret = copy_to_user(argp, order, sizeof(*order)) ? -EFAULT : 0;
		kfree(order);
		return ret;
	case SEMAIO_IOC_REMOVE:
		return semaio_remove(dev);
	default:
		return -ENOTTY;
	}
}

static int semaio_open(struct inode *inode, struct file *file)
{
	/* io_uring then issues requests without punting them to a thread. */
	file->f_mode |= FMODE_NOWAIT;
	return 0;
}

static const struct file_operations semaio_fops = {
	.owner		= THIS_MODULE,
	.open		= semaio_open,
	.read_iter	= semaio_read_iter,
	.write_iter	= semaio_write_iter,
	.unlocked_ioctl	= semaio_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static int __init semaio_init(void)
{
	struct semaio_dev *dev = &semaio;
	int ret;

	if (!slots || slots > 64)
		return -EINVAL;
	sema_init(&dev->slots, slots);
	mutex_init(&dev->remove_lock);
	spin_lock_init(&dev->lock);
	init_waitqueue_head(&dev->idle);
	init_waitqueue_head(&dev->stall_wait);
	INIT_LIST_HEAD(&dev->stalled_list);
	dev->service_jiffies = usecs_to_jiffies(service_us);
	dev->stats.slots = slots;
	dev->wq = alloc_ordered_workqueue("semaphore_aio", 0);
	if (!dev->wq)
		return -ENOMEM;
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "semaphore_aio";
	dev->misc.fops = &semaio_fops;
	dev->misc.mode = 0666;
	ret = misc_register(&dev->misc);
	if (ret)
		destroy_workqueue(dev->wq);
	return ret;
}

static void __exit semaio_exit(void)
{
	struct semaio_dev *dev = &semaio;

	misc_deregister(&dev->misc);
	semaio_remove(dev);
	/* Waits for the last work item, so no code of ours runs after. */
	destroy_workqueue(dev->wq);
	WARN_ON(dev->stats.live || dev->stats.queued || dev->stats.in_service);
}

module_init(semaio_init);
module_exit(semaio_exit);
MODULE_DESCRIPTION("Sample: asynchronous I/O served through down_async()");
MODULE_LICENSE("GPL");

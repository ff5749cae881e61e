/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * The ioctls of the down_async() AIO sample device, /dev/semaphore_aio,
 * shared by the module (samples/semaphore/semaphore_aio.c) and its
 * selftest (tools/testing/selftests/semaphore/).
 */
#ifndef _SAMPLES_SEMAPHORE_AIO_H
#define _SAMPLES_SEMAPHORE_AIO_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* The largest request the device takes; larger ones get -EMSGSIZE. */
#define SEMAIO_MAX_LEN		4096
/* How many service records SEMAIO_IOC_ORDER returns at most. */
#define SEMAIO_ORDER_MAX	256

/**
 * struct semaio_stats - the device's counters (SEMAIO_IOC_STATS)
 * @slots: units of the slot semaphore (module parameter "slots")
 * @free: units free now, sem_count() of the slot semaphore
 * @queued: asynchronous requests waiting for a unit
 * @in_service: requests that hold a unit
 * @sync_waiting: tasks asleep in read()/write() waiting for a unit
 * @sync_waiting_peak: the most there ever were at once
 * @submitted: asynchronous requests accepted (returned -EIOCBQUEUED)
 * @served: requests served (asynchronous and synchronous)
 * @cancelled: asynchronous requests cancelled before their down_async()
 *	function started: still queued, or granted (or failed by removal)
 *	with the function not yet run
 * @cancel_late: cancel calls that came once the function had started, or
 *	before down_async() (no effect: the request completes normally)
 * @failed_shutdown: requests failed by sem_shutdown() at removal
 * @failed_removed: requests granted after removal, failed then
 * @live: asynchronous requests not yet completed (memory in use)
 * @removed: 1 once the device has been removed
 */
struct semaio_stats {
	__u32 slots;
	__u32 free;
	__u32 queued;
	__u32 in_service;
	__u32 sync_waiting;
	__u32 sync_waiting_peak;
	__u64 submitted;
	__u64 served;
	__u64 cancelled;
	__u64 cancel_late;
	__u64 failed_shutdown;
	__u64 failed_removed;
	__u32 live;
	__u32 removed;
};

/**
 * struct semaio_order - the order of service (SEMAIO_IOC_ORDER)
 * @count: records returned in @tag
 * @lost: records dropped because the log was full
 * @tag: the file position (ki_pos) of each request served, in the order
 *	service started; the log is emptied by the call
 */
struct semaio_order {
	__u32 count;
	__u32 lost;
	__u64 tag[SEMAIO_ORDER_MAX];
};

/* 1: requests in service hold their unit until 0 is set (a stalled device). */
#define SEMAIO_IOC_STALL	_IOW('S', 0x40, __u32)
#define SEMAIO_IOC_STATS	_IOR('S', 0x41, struct semaio_stats)
#define SEMAIO_IOC_ORDER	_IOR('S', 0x42, struct semaio_order)
/* Remove the device, as an unplug would: see semaphore_aio.c. */
#define SEMAIO_IOC_REMOVE	_IO('S', 0x43)

#endif /* _SAMPLES_SEMAPHORE_AIO_H */

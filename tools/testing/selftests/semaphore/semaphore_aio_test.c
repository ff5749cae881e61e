// SPDX-License-Identifier: GPL-2.0
/*
 * down_async() for AIO, end to end: requests from io_submit(2) and
 * io_uring travel through a kiocb to the semaphore of
 * samples/semaphore/semaphore_aio.c and back through ki_complete().
 *
 * Every case loads the module (finit_module(2), from $SEMAPHORE_AIO_KO,
 * ./semaphore_aio.ko or /semaphore_aio.ko) with its own parameters and
 * unloads it at the end, which must succeed with nothing left in use.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "semaphore_aio.h"

#define DEV_PATH	"/dev/semaphore_aio"
#define MOD_NAME	"semaphore_aio"
#define NREQ		64
#define SLOTS		2

/* --- the module --------------------------------------------------------- */

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int unload_module(void);

static int load_module(const char *params)
{
	char installed[300];
	const char *paths[4];
	struct utsname u;
	unsigned int i;
	int fd, ret;

	/* Left over from a case that failed: start afresh. */
	unload_module();
	paths[0] = getenv("SEMAPHORE_AIO_KO");
	paths[1] = "semaphore_aio.ko";
	paths[2] = "/semaphore_aio.ko";
	paths[3] = installed;
	uname(&u);
	snprintf(installed, sizeof(installed),
		 "/lib/modules/%s/kernel/samples/semaphore/semaphore_aio.ko",
		 u.release);
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (!paths[i])
			continue;
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ret = syscall(SYS_finit_module, fd, params, 0);
		close(fd);
		return ret ? -errno : 0;
	}
	return -ENOENT;
}

/*
 * The last reference to a file that a completion dropped in a kernel
 * thread goes a tick later (delayed fput), and with it the module's: retry
 * for up to 60 s on EAGAIN (the module is still in use).
 */
static int unload_module(void)
{
	double end = now_us() + 60e6;

	while (syscall(SYS_delete_module, MOD_NAME, O_NONBLOCK)) {
		if ((errno != EAGAIN && errno != EBUSY) || now_us() > end)
			return -errno;
		usleep(10000);
	}
	return 0;
}

static int get_stats(int fd, struct semaio_stats *st)
{
	return ioctl(fd, SEMAIO_IOC_STATS, st);
}

static int set_stall(int fd, __u32 on)
{
	return ioctl(fd, SEMAIO_IOC_STALL, &on);
}

/*
 * The down_async() functions of the requests granted at once run on the
 * device's workqueue: wait (up to 60 s) until N requests are in service, and
 * return the counters then.
 */
static int wait_in_service(int fd, unsigned int n, struct semaio_stats *st)
{
	double end = now_us() + 60e6;

	while (now_us() < end) {
		if (get_stats(fd, st))
			return -errno;
		if (st->in_service == n)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* The time each submission call took: mean and maximum. */
struct timing {
	double sum, max;
	int n;
};

static void timing_add(struct timing *tm, double start)
{
	double t = now_us() - start;

	tm->sum += t;
	tm->n++;
	if (t > tm->max)
		tm->max = t;
}

/* After 64 submissions behind two held slots: nothing served, none slept. */
static void expect_all_waiting(struct __test_metadata *_metadata, int fd,
			       struct semaio_stats *st)
{
	ASSERT_EQ(0, wait_in_service(fd, SLOTS, st));
	EXPECT_EQ(0, st->served);
	EXPECT_EQ(NREQ - SLOTS, st->queued);
	EXPECT_EQ(NREQ, st->submitted);
	EXPECT_EQ(0, st->free);
	EXPECT_EQ(0, st->sync_waiting_peak);
}

/* Threads of this process (io_uring's io-wq workers would be some). */
static int count_threads(void)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir("/proc/self/task");
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* --- io_submit(2) ------------------------------------------------------- */

static long io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, nr, ctx);
}

static long io_destroy(aio_context_t ctx)
{
	return syscall(SYS_io_destroy, ctx);
}

static long io_submit(aio_context_t ctx, long nr, struct iocb **iocbs)
{
	return syscall(SYS_io_submit, ctx, nr, iocbs);
}

static long io_cancel(aio_context_t ctx, struct iocb *iocb,
		      struct io_event *ev)
{
	return syscall(SYS_io_cancel, ctx, iocb, ev);
}

/* Wait for exactly NR events, at most 60 s. */
static long io_getevents_all(aio_context_t ctx, long nr, struct io_event *ev)
{
	struct timespec ts = { .tv_sec = 60 };
	long got = 0, n;

	while (got < nr) {
		n = syscall(SYS_io_getevents, ctx, nr - got, nr - got,
			    ev + got, &ts);
		if (n <= 0)
			return got ? got : n;
		got += n;
	}
	return got;
}

static void prep_iocb(struct iocb *cb, int fd, int opcode, void *buf,
		      size_t len, long long off, __u64 data)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = fd;
	cb->aio_lio_opcode = opcode;
	cb->aio_buf = (uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = off;
	cb->aio_data = data;
}

/* --- io_uring, raw system calls ----------------------------------------- */

struct uring {
	int fd;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int uring_init(struct uring *r, unsigned int entries)
{
	struct io_uring_params p = { 0 };
	void *sq, *cq;

	r->fd = syscall(SYS_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes +
		  p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -ENOMEM;
	r->sq_head = sq + p.sq_off.head;
	r->sq_tail = sq + p.sq_off.tail;
	r->sq_mask = sq + p.sq_off.ring_mask;
	r->sq_array = sq + p.sq_off.array;
	r->cq_head = cq + p.cq_off.head;
	r->cq_tail = cq + p.cq_off.tail;
	r->cq_mask = cq + p.cq_off.ring_mask;
	r->cqes = cq + p.cq_off.cqes;
	return 0;
}

/* Queue one request and submit it: returns what io_uring_enter() did. */
static int uring_submit(struct uring *r, int opcode, int fd, void *buf,
			unsigned int len, __u64 off, __u64 data)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = len;
	sqe->off = off;
	sqe->user_data = data;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return syscall(SYS_io_uring_enter, r->fd, 1, 0, 0, NULL, 0);
}

/* Reap exactly NR completions into CQES. */
static int uring_reap(struct uring *r, int nr, struct io_uring_cqe *cqes)
{
	int got = 0;

	while (got < nr) {
		unsigned int head = *r->cq_head;
		unsigned int tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);

		if (head == tail) {
			if (syscall(SYS_io_uring_enter, r->fd, 0, 1,
				    IORING_ENTER_GETEVENTS, NULL, 0) < 0 &&
			    errno != EINTR)
				return -errno;
			continue;
		}
		cqes[got++] = r->cqes[head & *r->cq_mask];
		__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	}
	return got;
}

/* --- the fixture -------------------------------------------------------- */

FIXTURE(semaio) {
	int fd;
	aio_context_t ctx;
	bool loaded;
};

FIXTURE_SETUP(semaio)
{
	self->fd = -1;
	self->ctx = 0;
	self->loaded = false;
	if (geteuid())
		SKIP(return, "needs root to load %s.ko", MOD_NAME);
}

FIXTURE_TEARDOWN(semaio)
{
	struct semaio_stats st;

	if (self->fd >= 0) {
		set_stall(self->fd, 0);
		if (!get_stats(self->fd, &st)) {
			EXPECT_EQ(0, st.live);
			EXPECT_EQ(0, st.queued);
			EXPECT_EQ(0, st.in_service);
		}
		close(self->fd);
	}
	if (self->ctx)
		io_destroy(self->ctx);
	if (self->loaded)
		EXPECT_EQ(0, unload_module()) TH_LOG("rmmod %s", MOD_NAME);
}

/*
 * Load the module with PARAMS, open the device and an AIO context.
 * Returns non-zero if the case is to be skipped.
 */
static int start(struct __test_metadata *_metadata,
		 struct _test_data_semaio *self, const char *params)
{
	int ret = load_module(params);

	if (ret == -ENOENT)
		SKIP(return 1, "%s.ko not found", MOD_NAME);
	ASSERT_EQ(0, ret) TH_LOG("loading %s.ko: %s", MOD_NAME, strerror(-ret));
	self->loaded = true;
	self->fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("%s: %s", DEV_PATH, strerror(errno));
	ASSERT_EQ(0, io_setup(256, &self->ctx));
	return 0;
}

/*
 * 64 writes while every slot is busy, through io_submit(): no call waits
 * for a slot (all 64 are submitted before a single request has finished,
 * and no task ever sleeps on the device), all complete, each with its own
 * result, served in submission order.
 */
TEST_F_TIMEOUT(semaio, aio_submit_no_wait, 300)
{
	static char buf[NREQ][NREQ];
	static struct iocb cbs[NREQ];
	struct io_event ev[NREQ];
	struct semaio_order order;
	struct semaio_stats st;
	struct timing tm = { 0 };
	double t;
	struct iocb *cbp;
	int i;

	if (start(_metadata, self, "slots=2 service_us=2000"))
		return;
	ASSERT_EQ(0, set_stall(self->fd, 1));
	for (i = 0; i < NREQ; i++) {
		prep_iocb(&cbs[i], self->fd, IOCB_CMD_PWRITE, buf[i], i + 1, i, i);
		cbp = &cbs[i];
		t = now_us();
		ASSERT_EQ(1, io_submit(self->ctx, 1, &cbp))
			TH_LOG("request %d: %s", i, strerror(errno));
		timing_add(&tm, t);
	}
	/* All 64 submitted; none served yet: the slots are held. */
	expect_all_waiting(_metadata, self->fd, &st);
	ksft_print_msg("aio: io_submit(): mean %.0f us, max %.0f us (service 2000 us)\n",
		       tm.sum / tm.n, tm.max);
	ksft_print_msg("aio: then %u queued, %u in service, %llu served, %u tasks asleep\n",
		       st.queued, st.in_service, (unsigned long long)st.served,
		       st.sync_waiting_peak);

	ASSERT_EQ(0, set_stall(self->fd, 0));
	ASSERT_EQ(NREQ, io_getevents_all(self->ctx, NREQ, ev));
	for (i = 0; i < NREQ; i++) {
		struct iocb *cb = (struct iocb *)(uintptr_t)ev[i].obj;

		EXPECT_EQ((long)cb->aio_nbytes, (long)ev[i].res)
			TH_LOG("request %llu", (unsigned long long)ev[i].data);
		EXPECT_EQ(cb->aio_data, ev[i].data);
	}
	ASSERT_EQ(0, ioctl(self->fd, SEMAIO_IOC_ORDER, &order));
	ASSERT_EQ(NREQ, order.count);
	for (i = 0; i < NREQ; i++)
		EXPECT_EQ(i, order.tag[i]) TH_LOG("service %d", i);
	ASSERT_EQ(0, get_stats(self->fd, &st));
	EXPECT_EQ(NREQ, st.served);
	EXPECT_EQ(SLOTS, st.free);
	EXPECT_EQ(0, st.sync_waiting_peak);
}

/* The same 64 writes through io_uring. */
TEST_F_TIMEOUT(semaio, uring_submit_no_wait, 300)
{
	static char buf[NREQ][NREQ];
	struct io_uring_cqe cqes[NREQ];
	struct semaio_order order;
	struct semaio_stats st;
	struct timing tm = { 0 };
	double t;
	bool seen[NREQ] = { 0 };
	struct uring r = { .fd = -1 };
	int i;

	if (start(_metadata, self, "slots=2 service_us=2000"))
		return;
	ASSERT_EQ(0, uring_init(&r, NREQ));
	ASSERT_EQ(0, set_stall(self->fd, 1));
	for (i = 0; i < NREQ; i++) {
		t = now_us();
		ASSERT_EQ(1, uring_submit(&r, IORING_OP_WRITE, self->fd, buf[i],
					  i + 1, i, i));
		timing_add(&tm, t);
	}
	expect_all_waiting(_metadata, self->fd, &st);
	/* Issued inline by this task: no io-wq worker was needed. */
	EXPECT_EQ(1, count_threads());
	ksft_print_msg("io_uring: io_uring_enter(): mean %.0f us, max %.0f us (service 2000 us)\n",
		       tm.sum / tm.n, tm.max);
	ksft_print_msg("io_uring: after the last: %u queued, %u in service, %llu served\n",
		       st.queued, st.in_service, (unsigned long long)st.served);

	ASSERT_EQ(0, set_stall(self->fd, 0));
	ASSERT_EQ(NREQ, uring_reap(&r, NREQ, cqes));
	for (i = 0; i < NREQ; i++) {
		__u64 id = cqes[i].user_data;

		ASSERT_GT(NREQ, id);
		EXPECT_FALSE(seen[id]);
		seen[id] = true;
		EXPECT_EQ((int)id + 1, cqes[i].res)
			TH_LOG("request %llu", (unsigned long long)id);
	}
	ASSERT_EQ(0, ioctl(self->fd, SEMAIO_IOC_ORDER, &order));
	ASSERT_EQ(NREQ, order.count);
	for (i = 0; i < NREQ; i++)
		EXPECT_EQ(i, order.tag[i]) TH_LOG("service %d", i);
	ASSERT_EQ(0, get_stats(self->fd, &st));
	EXPECT_EQ(SLOTS, st.free);
	close(r.fd);
}

/*
 * Asynchronous reads: the device's data in the caller's buffers, every
 * byte, each buffer across a page boundary (the pages are pinned at
 * submission and written at the end of the service), nothing beyond.
 */
TEST_F_TIMEOUT(semaio, aio_read_data, 120)
{
	struct iocb cbs[8], *cbp[8];
	unsigned char *area, *buf[8];
	long page = sysconf(_SC_PAGESIZE);
	struct io_event ev[8];
	int i, j, k, len;

	if (start(_metadata, self, "slots=2 service_us=1000"))
		return;
	area = mmap(NULL, 16 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	memset(area, 0xee, 16 * page);
	for (i = 0; i < 8; i++) {
		/* 100 + i bytes from 50 before a page end; the last 4096. */
		len = i == 7 ? SEMAIO_MAX_LEN : 100 + i;
		buf[i] = area + (2 * i + 1) * page - (i == 7 ? 100 : 50);
		prep_iocb(&cbs[i], self->fd, IOCB_CMD_PREAD, buf[i], len,
			  1000 + i, i);
		cbp[i] = &cbs[i];
	}
	ASSERT_EQ(8, io_submit(self->ctx, 8, cbp));
	ASSERT_EQ(8, io_getevents_all(self->ctx, 8, ev));
	for (i = 0; i < 8; i++) {
		j = ev[i].data;
		len = cbs[j].aio_nbytes;
		ASSERT_EQ(len, ev[i].res);
		for (k = 0; k < len; k++)
			ASSERT_EQ((1000 + j + k) & 0xff, buf[j][k])
				TH_LOG("read %d byte %d", j, k);
		EXPECT_EQ(0xee, buf[j][-1]);
		EXPECT_EQ(0xee, buf[j][len]);
	}
	munmap(area, 16 * page);
}

struct sync_writer {
	int fd, index;
	ssize_t ret;
	pthread_t thread;
};

static void *sync_write(void *arg)
{
	struct sync_writer *w = arg;
	char buf[16] = { 0 };

	w->ret = pwrite(w->fd, buf, sizeof(buf), w->index);
	return NULL;
}

/* Threads of this process asleep now (state S or D). */
static int tasks_asleep(void)
{
	char path[300], line[512], *p;
	struct dirent *d;
	int n = 0;
	DIR *dir;
	FILE *f;

	dir = opendir("/proc/self/task");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f)) {
			p = strrchr(line, ')');
			if (p && (p[2] == 'S' || p[2] == 'D'))
				n++;
		}
		fclose(f);
	}
	closedir(dir);
	return n;
}

/*
 * The synchronous baseline: 64 threads in blocking write() while every
 * slot is busy.  64 - SLOTS of them sleep on the semaphore at the peak,
 * against none for the asynchronous submitter of the cases above.
 */
TEST_F_TIMEOUT(semaio, sync_baseline, 300)
{
	static struct sync_writer w[NREQ];
	struct semaio_order order;
	struct semaio_stats st;
	int i, asleep, tries;

	if (start(_metadata, self, "slots=2 service_us=2000"))
		return;
	ASSERT_EQ(0, set_stall(self->fd, 1));
	for (i = 0; i < NREQ; i++) {
		w[i].fd = self->fd;
		w[i].index = i;
		ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, sync_write, &w[i]));
	}
	for (tries = 0; tries < 6000; tries++) {
		ASSERT_EQ(0, get_stats(self->fd, &st));
		if (st.sync_waiting == NREQ - SLOTS && st.in_service == SLOTS)
			break;
		usleep(10000);
	}
	/* A writer counted as waiting may not have gone to sleep yet. */
	for (tries = 0; tries < 500; tries++) {
		asleep = tasks_asleep();
		if (asleep >= NREQ)
			break;
		usleep(10000);
	}
	EXPECT_EQ(NREQ - SLOTS, st.sync_waiting);
	EXPECT_EQ(SLOTS, st.in_service);
	EXPECT_EQ(NREQ - SLOTS, st.sync_waiting_peak);
	/* The writers in service sleep too, waiting for the stalled device. */
	EXPECT_EQ(NREQ, asleep);
	ksft_print_msg("sync: %u of %d writers asleep on the semaphore at the peak\n",
		       st.sync_waiting_peak, NREQ);
	ksft_print_msg("sync: %d threads asleep in all, %u of them in service\n",
		       asleep, st.in_service);
	ASSERT_EQ(0, set_stall(self->fd, 0));
	for (i = 0; i < NREQ; i++) {
		pthread_join(w[i].thread, NULL);
		EXPECT_EQ(16, w[i].ret);
	}
	ASSERT_EQ(0, ioctl(self->fd, SEMAIO_IOC_ORDER, &order));
	EXPECT_EQ(NREQ, order.count);
	ASSERT_EQ(0, get_stats(self->fd, &st));
	EXPECT_EQ(NREQ, st.served);
	EXPECT_EQ(SLOTS, st.free);
	EXPECT_EQ(0, st.sync_waiting);
}

/*
 * io_cancel() on every second request of four, 1,000 times: exactly the
 * requests io_cancel() took (EINPROGRESS: still waiting for a slot)
 * complete with -ECANCELED and were not served; the ones already granted
 * a slot (EAGAIN) complete normally.  Both outcomes must occur.
 */
TEST_F_TIMEOUT(semaio, aio_cancel_loop, 600)
{
	long cancelled = 0, started = 0, finished = 0, k;
	struct iocb cbs[4], *cbp[4];
	struct io_event ev[4], cev;
	struct semaio_stats st;
	char buf[4][32];
	int expect[4];
	int iter, i;

	if (start(_metadata, self, "slots=2 service_us=2000"))
		return;
	for (iter = 0; iter < 1000; iter++) {
		for (i = 0; i < 4; i++) {
			prep_iocb(&cbs[i], self->fd, IOCB_CMD_PWRITE, buf[i],
				  8 + i, iter * 4 + i, i);
			cbp[i] = &cbs[i];
		}
		ASSERT_EQ(4, io_submit(self->ctx, 4, cbp));
		for (i = 0; i < 4; i++) {
			expect[i] = 8 + i;
			if (i % 2)
				continue;
			k = io_cancel(self->ctx, &cbs[i], &cev);
			ASSERT_EQ(-1, k);
			if (errno == EINPROGRESS) {
				expect[i] = -ECANCELED;
				cancelled++;
			} else if (errno == EAGAIN) {
				started++;
			} else {
				/* Completed before the call: not found. */
				ASSERT_EQ(EINVAL, errno);
				finished++;
			}
		}
		ASSERT_EQ(4, io_getevents_all(self->ctx, 4, ev));
		for (i = 0; i < 4; i++) {
			int id = ev[i].data;

			ASSERT_EQ(expect[id], ev[i].res)
				TH_LOG("iteration %d request %d", iter, id);
		}
	}
	ASSERT_EQ(0, get_stats(self->fd, &st));
	ksft_print_msg("cancel: io_cancel(): %ld before service, %ld in service, %ld finished\n",
		       cancelled, started, finished);
	ksft_print_msg("cancel: the device counted %llu cancelled, %llu late\n",
		       (unsigned long long)st.cancelled,
		       (unsigned long long)st.cancel_late);
	EXPECT_LT(0, cancelled);
	EXPECT_LT(0, started);
	EXPECT_EQ(cancelled, st.cancelled);
	EXPECT_EQ(started, st.cancel_late);
	EXPECT_EQ(4000 - cancelled, st.served);
	EXPECT_EQ(SLOTS, st.free);
	EXPECT_EQ(0, st.live);
}

/*
 * Stall the device and submit 34 writes of 16 bytes (tags 0-33) in one
 * io_submit(): two take the slots and stay in service, 32 queue.
 */
static void queue_behind_stall(struct __test_metadata *_metadata,
			       struct _test_data_semaio *self,
			       struct iocb cbs[34], char buf[34][16],
			       struct semaio_stats *st)
{
	struct iocb *cbp[34];
	int i;

	ASSERT_EQ(0, set_stall(self->fd, 1));
	for (i = 0; i < 34; i++) {
		prep_iocb(&cbs[i], self->fd, IOCB_CMD_PWRITE, buf[i], 16, i, i);
		cbp[i] = &cbs[i];
	}
	ASSERT_EQ(34, io_submit(self->ctx, 34, cbp));
	ASSERT_EQ(0, wait_in_service(self->fd, SLOTS, st));
}

/*
 * Removal with 32 requests queued behind two in service: sem_shutdown()
 * fails the 32 (-ENODEV, no slot held), the two finish, later requests
 * get -ENODEV, and the module then unloads (checked by the teardown).
 */
TEST_F_TIMEOUT(semaio, remove_with_queued, 300)
{
	static char buf[34][16];
	struct iocb cbs[34], cb, *one = &cb;
	struct io_event ev[34];
	struct semaio_stats st;
	int i, failed = 0, done = 0;

	if (start(_metadata, self, "slots=2 service_us=2000"))
		return;
	queue_behind_stall(_metadata, self, cbs, buf, &st);
	ASSERT_EQ(32, st.queued);
	ASSERT_EQ(0, ioctl(self->fd, SEMAIO_IOC_REMOVE));
	ASSERT_EQ(34, io_getevents_all(self->ctx, 34, ev));
	for (i = 0; i < 34; i++) {
		if (ev[i].data < SLOTS) {
			EXPECT_EQ(16, ev[i].res);
			done++;
		} else {
			EXPECT_EQ(-ENODEV, ev[i].res);
			failed++;
		}
	}
	EXPECT_EQ(32, failed);
	EXPECT_EQ(SLOTS, done);
	ASSERT_EQ(0, get_stats(self->fd, &st));
	EXPECT_EQ(32, st.failed_shutdown);
	EXPECT_EQ(1, st.removed);
	EXPECT_EQ(0, st.live);

	/* A request on a removed device. */
	prep_iocb(&cb, self->fd, IOCB_CMD_PWRITE, buf[0], 16, 0, 99);
	ASSERT_EQ(1, io_submit(self->ctx, 1, &one));
	ASSERT_EQ(1, io_getevents_all(self->ctx, 1, ev));
	EXPECT_EQ(-ENODEV, ev[0].res);
	EXPECT_EQ(-1, write(self->fd, buf[0], 16));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, ioctl(self->fd, SEMAIO_IOC_REMOVE));
	EXPECT_EQ(ENODEV, errno);
	ksft_print_msg("remove: %d queued failed with -ENODEV, %d in service finished\n",
		       failed, done);
}

struct destroyer {
	aio_context_t ctx;
	long ret;
};

static void *destroy_ctx(void *arg)
{
	struct destroyer *d = arg;

	d->ret = io_destroy(d->ctx);
	return NULL;
}

/*
 * close() and io_destroy() (as at the exit of the submitter) with 32
 * requests queued behind two in service: aio cancels every request
 * through the device's cancel callback (32 taken off the semaphore, the
 * two in service left alone), waits for the two, and the module
 * unloads.  The device is stalled until all 34 cancel calls were made,
 * so that no request is granted meanwhile, however slow the machine.
 */
TEST_F_TIMEOUT(semaio, destroy_with_queued, 300)
{
	static char buf[34][16];
	struct iocb cbs[34];
	struct destroyer d;
	struct semaio_stats st;
	pthread_t thread;
	double end;
	int fd2;

	if (start(_metadata, self, "slots=2 service_us=2000"))
		return;
	queue_behind_stall(_metadata, self, cbs, buf, &st);
	fd2 = open(DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	close(self->fd);
	/* The teardown unstalls through fd2 if anything below fails. */
	self->fd = fd2;
	d.ctx = self->ctx;
	self->ctx = 0;
	ASSERT_EQ(0, pthread_create(&thread, NULL, destroy_ctx, &d));
	end = now_us() + 60e6;
	do {
		usleep(10000);
		ASSERT_EQ(0, get_stats(fd2, &st));
	} while (st.cancelled + st.cancel_late < 34 && now_us() < end);
	EXPECT_EQ(32, st.cancelled);
	EXPECT_EQ(SLOTS, st.cancel_late);
	ASSERT_EQ(0, set_stall(fd2, 0));
	pthread_join(thread, NULL);
	EXPECT_EQ(0, d.ret);
	ASSERT_EQ(0, get_stats(fd2, &st));
	ksft_print_msg("destroy: %llu cancelled by io_destroy(), %llu served\n",
		       (unsigned long long)st.cancelled,
		       (unsigned long long)st.served);
	EXPECT_EQ(0, st.live);
	EXPECT_EQ(SLOTS, st.served);
	EXPECT_EQ(SLOTS, st.free);
}

/* Bad input: each gets its defined error and leaks nothing. */
TEST_F_TIMEOUT(semaio, bad_input, 120)
{
	static char buf[SEMAIO_MAX_LEN + 1];
	struct iocb cb, *one = &cb;
	struct io_event ev, cev;
	struct semaio_stats st;
	__u32 two = 2;

	if (start(_metadata, self, "slots=2 service_us=1000"))
		return;
	/* Zero length. */
	EXPECT_EQ(-1, write(self->fd, buf, 0));
	EXPECT_EQ(EINVAL, errno);
	prep_iocb(&cb, self->fd, IOCB_CMD_PWRITE, buf, 0, 0, 1);
	ASSERT_EQ(1, io_submit(self->ctx, 1, &one));
	ASSERT_EQ(1, io_getevents_all(self->ctx, 1, &ev));
	EXPECT_EQ(-EINVAL, ev.res);
	/* Oversized. */
	EXPECT_EQ(-1, write(self->fd, buf, SEMAIO_MAX_LEN + 1));
	EXPECT_EQ(EMSGSIZE, errno);
	EXPECT_EQ(-1, read(self->fd, buf, SEMAIO_MAX_LEN + 1));
	EXPECT_EQ(EMSGSIZE, errno);
	prep_iocb(&cb, self->fd, IOCB_CMD_PREAD, buf, SEMAIO_MAX_LEN + 1, 0, 2);
	ASSERT_EQ(1, io_submit(self->ctx, 1, &one));
	ASSERT_EQ(1, io_getevents_all(self->ctx, 1, &ev));
	EXPECT_EQ(-EMSGSIZE, ev.res);
	/* io_cancel() of a completed request. */
	prep_iocb(&cb, self->fd, IOCB_CMD_PWRITE, buf, 8, 0, 3);
	ASSERT_EQ(1, io_submit(self->ctx, 1, &one));
	ASSERT_EQ(1, io_getevents_all(self->ctx, 1, &ev));
	EXPECT_EQ(8, ev.res);
	EXPECT_EQ(-1, io_cancel(self->ctx, &cb, &cev));
	EXPECT_EQ(EINVAL, errno);
	/* A bad stall value and an unknown ioctl. */
	EXPECT_EQ(-1, ioctl(self->fd, SEMAIO_IOC_STALL, &two));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO('S', 0x7f)));
	EXPECT_EQ(ENOTTY, errno);
	/* A synchronous request still works. */
	EXPECT_EQ(8, write(self->fd, buf, 8));
	ASSERT_EQ(0, get_stats(self->fd, &st));
	EXPECT_EQ(0, st.live);
	EXPECT_EQ(SLOTS, st.free);
	EXPECT_EQ(2, st.served);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * semaphore_workload: the /init of the workload benchmark (workload.sh).
 *
 * Two real users of struct semaphore, timed in the guest's virtual time.
 * Under QEMU -icount shift=0,sleep=off one virtual nanosecond is one
 * guest instruction, so a figure repeats from boot to boot and the
 * pristine and the patched kernel are compared instruction for
 * instruction.
 *
 *  - printk storm: RECORDS records written to /dev/kmsg at KERN_DEBUG
 *    with console_loglevel 1, so that nothing reaches the console but
 *    every record still takes console_sem (down_trylock() and up()).
 *  - XFS metadata loop: FILES small files in DIRS directories of an XFS
 *    filesystem on a RAM disk (brd), created, stat()ed and unlinked,
 *    then syncfs(); every metadata buffer lock is xfs_buf::b_sema.
 *
 * Each workload runs twice (two figures) in the same state: the storm
 * after an untimed one that fills the log buffer, the XFS loop each time
 * on a fresh filesystem (RAM disks 0 and 1).  Then each runs once more at
 * a tenth of its size with the function profiler counting the calls of
 * the semaphore API, so that the saving per semaphore operation can be
 * checked against the microbenchmark.
 *
 * Output lines, read by workload.sh (a timed metric comes once per run):
 *   semaphore_workload: <metric> <value>
 * and "semaphore_workload: error: ..." on any failure; then power off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RECORDS		100000
#define FILES		10000
#define DIRS		4
#define IMAGE		"/xfs.map"
#define TRACING		"/tracing"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The semaphore API: every call of these is one semaphore operation. */
static const char * const sem_funcs[] = {
	"down", "down_interruptible", "down_killable", "down_trylock",
	"down_timeout", "up",
};

static void finish(int failed)
{
	printf("semaphore_workload: %s\n", failed ? "FAILED" : "done");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	exit(failed);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	printf("semaphore_workload: error: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(err));
	finish(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Write @val to @path; tracefs filters take one word per write(). */
static void put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	size_t done = 0, len = strlen(val);
	ssize_t n;

	if (fd < 0)
		die("open %s", path);
	while (done < len) {
		n = write(fd, val + done, len - done);
		if (n <= 0)
			die("write '%s' to %s", val + done, path);
		done += n;
	}
	close(fd);
}

static void report(const char *metric, double value)
{
	printf("semaphore_workload: %s %.2f\n", metric, value);
	fflush(stdout);
}

static void printk_storm(int records)
{
	char buf[80];
	int fd, i, len;

	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0)
		die("open /dev/kmsg");
	for (i = 0; i < records; i++) {
		len = snprintf(buf, sizeof(buf),
			       "<7>semaphore_workload: record %d\n", i);
		if (write(fd, buf, len) != len)
			die("write record %d to /dev/kmsg", i);
	}
	close(fd);
}

static void xfs_loop(int files)
{
	static const char data[100] = "semaphore_workload";
	char path[64];
	struct stat st;
	int fd, i;

	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "/mnt/d%d/f%d", i % DIRS, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create %s", path);
		if (write(fd, data, sizeof(data)) != sizeof(data))
			die("write %s", path);
		close(fd);
	}
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "/mnt/d%d/f%d", i % DIRS, i);
		if (stat(path, &st) || st.st_size != sizeof(data))
			die("stat %s", path);
	}
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "/mnt/d%d/f%d", i % DIRS, i);
		if (unlink(path))
			die("unlink %s", path);
	}
	fd = open("/mnt", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || syncfs(fd))
		die("syncfs /mnt");
	close(fd);
}

/*
 * The image of a fresh XFS filesystem, as its non-zero blocks: records
 * of a little-endian u64 offset, a u32 length and the data.  brd reads
 * the rest as zeroes.
 */
static void load_image(const char *dev)
{
	FILE *map = fopen(IMAGE, "r");
	unsigned char hdr[12];
	static char buf[1 << 20];
	uint64_t off;
	uint32_t len;
	int fd, i;

	fd = open(dev, O_WRONLY);
	if (!map || fd < 0)
		die("open %s or %s", IMAGE, dev);
	while (fread(hdr, sizeof(hdr), 1, map) == 1) {
		for (off = 0, i = 7; i >= 0; i--)
			off = off << 8 | hdr[i];
		len = hdr[8] | hdr[9] << 8 | hdr[10] << 16 |
		      (uint32_t)hdr[11] << 24;
		if (len > sizeof(buf) || fread(buf, len, 1, map) != 1)
			die("bad record at %llu in %s",
			    (unsigned long long)off, IMAGE);
		if (pwrite(fd, buf, len, off) != (ssize_t)len)
			die("write %s at %llu", dev,
			    (unsigned long long)off);
	}
	if (fsync(fd))
		die("fsync %s", dev);
	close(fd);
	fclose(map);
}

/* A fresh XFS from the image on RAM disk @n, mounted on /mnt. */
static void xfs_mount_fresh(int n)
{
	char dev[16], dir[16];
	int i;

	snprintf(dev, sizeof(dev), "/dev/ram%d", n);
	load_image(dev);
	if (mount(dev, "/mnt", "xfs", 0, NULL))
		die("mount xfs on %s", dev);
	for (i = 0; i < DIRS; i++) {
		snprintf(dir, sizeof(dir), "/mnt/d%d", i);
		if (mkdir(dir, 0755))
			die("mkdir %s", dir);
	}
}

static void profile_start(void)
{
	char filter[160] = "";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sem_funcs); i++) {
		strcat(filter, sem_funcs[i]);
		strcat(filter, " ");
	}
	put(TRACING "/set_ftrace_filter", filter);
	/* Enabling resets the counts. */
	put(TRACING "/function_profile_enabled", "1");
}

/* Stop the profiler; print each function's calls; return the sum. */
static long profile_stop(const char *what)
{
	char line[256], name[128];
	long hits, total = 0;
	FILE *f;

	put(TRACING "/function_profile_enabled", "0");
	f = fopen(TRACING "/trace_stat/function0", "r");
	if (!f)
		die("open the function profile");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %127s %ld", name, &hits) != 2)
			continue;
		printf("semaphore_workload: %s calls of %s: %ld\n",
		       what, name, hits);
		total += hits;
	}
	fclose(f);
	return total;
}

int main(void)
{
	long long t0;
	long ops;
	int run;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		die("mount /dev");
	mkdir("/proc", 0555);
	mkdir(TRACING, 0755);
	mkdir("/mnt", 0755);
	if (mount("proc", "/proc", "proc", 0, NULL))
		die("mount /proc");
	if (mount("tracefs", TRACING, "tracefs", 0, NULL))
		die("mount tracefs");
	printf("semaphore_workload: start\n");

	/*
	 * Nothing of the storm reaches the console.  The first storm fills
	 * the log buffer, so that the timed ones both overwrite records.
	 */
	put("/proc/sys/kernel/printk", "1");
	printk_storm(RECORDS);
	for (run = 1; run <= 2; run++) {
		t0 = now_ns();
		printk_storm(RECORDS);
		report("printk_ns_per_record",
		       (double)(now_ns() - t0) / RECORDS);
	}
	profile_start();
	printk_storm(RECORDS / 10);
	ops = profile_stop("printk");
	report("printk_sem_ops_per_record", (double)ops / (RECORDS / 10));
	put("/proc/sys/kernel/printk", "7");

	/* Each XFS run on a fresh filesystem: the runs repeat exactly. */
	for (run = 0; run <= 2; run++) {
		xfs_mount_fresh(run);
		if (run < 2) {
			t0 = now_ns();
			xfs_loop(FILES);
			report("xfs_ns_per_file",
			       (double)(now_ns() - t0) / FILES);
		} else {
			profile_start();
			xfs_loop(FILES / 10);
			ops = profile_stop("xfs");
			report("xfs_sem_ops_per_file",
			       (double)ops / (FILES / 10));
		}
		if (umount("/mnt"))
			die("umount /mnt");
	}
	finish(0);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the initramfs that aio.sh boots: mount /dev and /proc, run the
 * semaphore kselftest, then power the machine off.
 *
 * With /bin/busybox in the initramfs the kselftest runs as kselftests do,
 * through the runner that "make -C tools/testing/selftests install" put in
 * /kselftest (run_kselftest.sh -c semaphore); without it, the test program
 * runs alone.  The last line is "semaphore_aio_test: exit N".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define KSFT	"/kselftest"

/* Run argv[0] in a child, reap every child, return the first one's status. */
static int run(char *const argv[])
{
	int status = 1 << 8;
	pid_t pid, w;

	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (pid < 0) {
		perror("fork");
		return status;
	}
	while ((w = wait(&status)) != pid)
		if (w < 0 && errno != EINTR)
			break;
	return status;
}

int main(void)
{
	char *install[] = { "/bin/busybox", "--install", "-s", "/bin", NULL };
	char *runner[] = { "/bin/sh", KSFT "/run_kselftest.sh", "-c", "semaphore", NULL };
	char *alone[] = { KSFT "/semaphore/semaphore_aio_test", NULL };
	char *const *argv = alone;
	int status;

	mkdir("/dev", 0755);
	mkdir("/proc", 0555);
	mkdir("/tmp", 01777);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	/* What udev would add, for the runner's shell. */
	symlink("/proc/self/fd", "/dev/fd");
	symlink("/proc/self/fd/0", "/dev/stdin");
	symlink("/proc/self/fd/1", "/dev/stdout");
	symlink("/proc/self/fd/2", "/dev/stderr");
	setenv("PATH", "/bin:/sbin", 1);
	if (!access(install[0], X_OK) && !run(install))
		argv = runner;
	if (chdir(KSFT "/semaphore"))
		perror("chdir");
	status = run(argv);
	printf("semaphore_aio_test: exit %d\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fflush(stdout);
	tcdrain(STDOUT_FILENO);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the torture initramfs: sleep forever while locktorture runs in
 * the kernel; its shutdown_secs parameter powers the machine off.  No C
 * library: ppoll() with no descriptors and no timeout, called directly.
 */
#if defined(__x86_64__)
static void sleep_forever(void)
{
	register long r10 asm("r10") = 0;
	register long r8 asm("r8") = 0;
	long ret;

	asm volatile("syscall"
		     : "=a" (ret)
		     : "0" (271L), "D" (0L), "S" (0L), "d" (0L), "r" (r10), "r" (r8)
		     : "rcx", "r11", "memory");
}
#elif defined(__aarch64__)
static void sleep_forever(void)
{
	register long x8 asm("x8") = 73;
	register long x0 asm("x0") = 0;
	register long x1 asm("x1") = 0;
	register long x2 asm("x2") = 0;
	register long x3 asm("x3") = 0;
	register long x4 asm("x4") = 0;

	asm volatile("svc #0"
		     : "+r" (x0)
		     : "r" (x8), "r" (x1), "r" (x2), "r" (x3), "r" (x4)
		     : "memory");
}
#else
#error "torture init: add the ppoll() system call of this architecture"
#endif

void _start(void)
{
	for (;;)
		sleep_forever();
}

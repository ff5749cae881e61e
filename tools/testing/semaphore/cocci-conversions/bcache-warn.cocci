// SPDX-License-Identifier: GPL-2.0-only
// The io_mutex assertions need not crash the kernel.
virtual patch

@depends on patch@
expression E;
@@
- BUG_ON(sem_count(&E) != 1);
+ WARN_ON_ONCE(sem_count(&E) != 1);

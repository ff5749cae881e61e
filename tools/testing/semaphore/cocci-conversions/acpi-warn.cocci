// SPDX-License-Identifier: GPL-2.0-only
// Do not free a semaphore that still has waiters, and do not crash.
virtual patch

@depends on patch@
expression S;
@@
- BUG_ON(sem_has_waiters(S));
+ if (WARN_ON(sem_has_waiters(S)))
+	return AE_ERROR;

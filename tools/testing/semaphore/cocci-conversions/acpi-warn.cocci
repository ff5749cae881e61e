// SPDX-License-Identifier: GPL-2.0-only
// One-off: acpi_os_delete_semaphore() warns and fails instead of crashing
// when the semaphore still has waiters.
virtual patch

@depends on patch@
expression S;
@@
- BUG_ON(!list_empty(&S->wait_list));
+ if (WARN_ON(!list_empty(&S->wait_list)))
+	return AE_ERROR;

// SPDX-License-Identifier: GPL-2.0-only
// One-off: bcache warns instead of crashing when a btree node's io_mutex
// is held where it must be free.
virtual patch

@depends on patch@
expression E;
@@
- BUG_ON(E.count != 1);
+ WARN_ON_ONCE(E.count != 1);

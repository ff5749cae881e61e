// SPDX-License-Identifier: GPL-2.0-only
/// Find down(), down_interruptible(), down_killable() and down_timeout()
/// called while a spinlock taken in the same function is held: they may
/// sleep.  Use down_trylock() there, or down_entry() or down_async() to
/// be told when the semaphore is free, or take the semaphore first.
///
// Confidence: High
// Copyright: (C) 2026 Semaphore Series Developers.
// Comments: Only paths visible inside one function are checked.
// Options: --no-includes --include-headers

virtual context
virtual org
virtual report

@r exists@
expression L, S;
position p1, p;
@@
(
spin_lock@p1(L)
|
spin_lock_irq@p1(L)
|
spin_lock_bh@p1(L)
|
spin_lock_irqsave@p1(L, ...)
|
raw_spin_lock@p1(L)
|
raw_spin_lock_irq@p1(L)
|
raw_spin_lock_irqsave@p1(L, ...)
)
... when != spin_unlock(L)
    when != spin_unlock_irq(L)
    when != spin_unlock_bh(L)
    when != spin_unlock_irqrestore(L, ...)
    when != raw_spin_unlock(L)
    when != raw_spin_unlock_irq(L)
    when != raw_spin_unlock_irqrestore(L, ...)
(
down@p(S)
|
down_interruptible@p(S)
|
down_killable@p(S)
|
down_timeout@p(S, ...)
)

@depends on context && r@
position r.p;
expression S;
@@
(
* down@p(S)
|
* down_interruptible@p(S)
|
* down_killable@p(S)
|
* down_timeout@p(S, ...)
)

@script:python depends on org@
p << r.p;
p1 << r.p1;
@@
coccilib.org.print_todo(p[0], "sleeping down() under the spinlock taken on line %s" % p1[0].line)

@script:python depends on report@
p << r.p;
p1 << r.p1;
@@
coccilib.report.print_report(p[0], "sleeping down() under the spinlock taken on line %s" % p1[0].line)

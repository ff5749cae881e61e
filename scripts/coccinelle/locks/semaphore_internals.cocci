// SPDX-License-Identifier: GPL-2.0-only
/// Code outside lib/semaphore.c must not read or write the members of
/// struct semaphore.  Reads go through sem_count(), sem_is_locked() and
/// sem_has_waiters(); a write of the count becomes sema_init(), which must
/// then be checked by hand: it is only correct where nobody can be queued.
///
// Confidence: High
// Copyright: (C) 2026 Semaphore Series Developers.
// Comments: Needs type information: run with the headers that define the
// structures embedding the semaphore (make coccicheck does).
// Options: --include-headers --recursive-includes

virtual patch
virtual context
virtual org
virtual report

@r_patch depends on patch@
struct semaphore S;
struct semaphore *P;
expression V;
@@
(
- !list_empty(&S.wait_list)
+ sem_has_waiters(&S)
|
- !list_empty(&P->wait_list)
+ sem_has_waiters(P)
|
- list_empty(&S.wait_list)
+ !sem_has_waiters(&S)
|
- list_empty(&P->wait_list)
+ !sem_has_waiters(P)
|
- S.count == 0
+ sem_is_locked(&S)
|
- S.count <= 0
+ sem_is_locked(&S)
|
- P->count == 0
+ sem_is_locked(P)
|
- P->count <= 0
+ sem_is_locked(P)
|
- S.count = V
+ sema_init(&S, V)
|
- P->count = V
+ sema_init(P, V)
|
- S.count
+ sem_count(&S)
|
- P->count
+ sem_count(P)
)

@r_find depends on !patch@
struct semaphore S;
struct semaphore *P;
position p;
@@
(
* S.count@p
|
* P->count@p
|
* S.wait_list@p
|
* P->wait_list@p
|
* S.lock@p
|
* P->lock@p
)

@script:python depends on org@
p << r_find.p;
@@
coccilib.org.print_todo(p[0], "struct semaphore member used outside lib/semaphore.c")

@script:python depends on report@
p << r_find.p;
@@
coccilib.report.print_report(p[0], "struct semaphore member used outside lib/semaphore.c: use sem_count(), sem_is_locked() or sem_has_waiters()")

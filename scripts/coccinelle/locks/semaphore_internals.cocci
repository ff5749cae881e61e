// SPDX-License-Identifier: GPL-2.0-only
/// Code outside lib/semaphore.c must not read or write the members of
/// struct semaphore.  In patch mode, reads become sem_count(),
/// sem_is_locked() and sem_has_waiters().  Writes are only reported: the
/// right fix depends on what the code meant (sema_init() where nobody can
/// be queued, up() to give back a unit that is held).
///
/// Members are matched by type.  In macro bodies, where the type is
/// unknown, the semaphore members that the tree embeds are matched by
/// name (the list below).  Coccinelle does not parse the bodies of
/// TRACE_EVENT() and DECLARE_EVENT_CLASS(): fs/xfs/xfs_trace.h is
/// converted by hand.
///
// Confidence: High
// Comments: Needs type information for the typed rules: spatch must see
// the headers that define the structures embedding the semaphore.
// Options: --include-headers

virtual patch
virtual context
virtual org
virtual report

// Writes are left alone in patch mode; record where they are.
@r_write depends on patch@
struct semaphore S;
struct semaphore *P;
expression V;
position w;
@@
(
  S.count@w = V
|
  P->count@w = V
|
  S.count@w += V
|
  P->count@w += V
|
  S.count@w -= V
|
  P->count@w -= V
|
  S.count@w++
|
  P->count@w++
|
  S.count@w--
|
  P->count@w--
)

@r_patch depends on patch@
struct semaphore S;
struct semaphore *P;
position p != r_write.w;
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
- S.count@p
+ sem_count(&S)
|
- P->count@p
+ sem_count(P)
)

// Macro bodies carry no types: match the embedded semaphores by name.
@r_macro depends on patch@
expression E;
identifier fld = {b_sema};
@@
(
- ((E)->fld.count <= 0)
+ sem_is_locked(&(E)->fld)
|
- (E)->fld.count <= 0
+ sem_is_locked(&(E)->fld)
|
- E->fld.count
+ sem_count(&E->fld)
)

@r_context depends on context@
struct semaphore S;
struct semaphore *P;
expression E;
identifier fld = {b_sema};
@@
(
* S.count
|
* P->count
|
* S.wait_list
|
* P->wait_list
|
* S.first_waiter
|
* P->first_waiter
|
* S.lock
|
* P->lock
|
* E->fld.count
)

@r_find depends on org || report@
struct semaphore S;
struct semaphore *P;
expression E;
identifier fld = {b_sema};
position p;
@@
(
  S.count@p
|
  P->count@p
|
  S.wait_list@p
|
  P->wait_list@p
|
  S.first_waiter@p
|
  P->first_waiter@p
|
  S.lock@p
|
  P->lock@p
|
  E->fld.count@p
)

@script:python depends on org@
p << r_find.p;
@@
coccilib.org.print_todo(p[0], "struct semaphore member used outside lib/semaphore.c")

@script:python depends on report@
p << r_find.p;
@@
coccilib.report.print_report(p[0], "struct semaphore member used outside lib/semaphore.c: use sem_count(), sem_is_locked() or sem_has_waiters()")

// SPDX-License-Identifier: GPL-2.0-only
/// Find grant functions (sem_waiter_init()) and down_async() work
/// functions (sem_async_init()) that return early holding the semaphore:
/// the function calls up() on one path but an if branch before it
/// returns without up().  A grant with status 0 holds one unit, which
/// the function must give back or hand on; branches that test the grant
/// status (the status argument, or sem_async_status()) hold no unit and
/// are not reported.
///
// Confidence: Moderate
// Copyright: (C) 2026 Semaphore Series Developers.
// Comments: False positives are branches that hand the unit on to be
// released later, or call a helper that calls up().
// Options: --no-includes --include-headers

virtual context
virtual org
virtual report

@r@
identifier fn;
expression E;
@@
(
sem_async_init(E, fn)
|
sem_waiter_init(E, fn)
)

// Work functions: the variables that hold the grant status.
@wstatus@
identifier r.fn, st;
expression E;
@@
fn(...) {
<...
st = sem_async_status(E)
...>
}

@wstatus_decl@
identifier r.fn, st;
expression E;
type T;
@@
fn(...) {
...
T st = sem_async_status(E);
...
}

// Returns under a test of the grant status: no unit is held there.
@failed1@
identifier r.fn, w, gst;
type T;
position q;
@@
fn(T w, int gst) {
<...
if (<+... gst ...+>) {
  ...
  return@q ...;
}
...>
}

@failed2@
identifier r.fn, w, gst;
type T;
position q;
@@
fn(T w, int gst) {
<...
if (<+... gst ...+>)
  return@q ...;
...>
}

@failed3@
identifier r.fn;
identifier st = {wstatus.st, wstatus_decl.st};
position q;
@@
fn(...) {
<...
if (<+... st ...+>) {
  ...
  return@q ...;
}
...>
}

@failed4@
identifier r.fn;
identifier st = {wstatus.st, wstatus_decl.st};
position q;
@@
fn(...) {
<...
if (<+... st ...+>)
  return@q ...;
...>
}

@failed5@
identifier r.fn;
expression E;
position q;
@@
fn(...) {
<...
if (<+... sem_async_status(E) ...+>) {
  ...
  return@q ...;
}
...>
}

@failed6@
identifier r.fn;
expression E;
position q;
@@
fn(...) {
<...
if (<+... sem_async_status(E) ...+>)
  return@q ...;
...>
}

@err exists@
identifier r.fn;
expression S;
position p != {failed1.q, failed2.q, failed3.q, failed4.q, failed5.q, failed6.q};
position u;
@@
fn(...) {
... when != up(S)
    when any
if (...) {
  ... when != up(S)
  return@p ...;
}
... when != up(S)
    when any
  up@u(S);
...
}

@err1 exists@
identifier r.fn;
expression S;
position p != {failed1.q, failed2.q, failed3.q, failed4.q, failed5.q, failed6.q};
position u;
@@
fn(...) {
... when != up(S)
    when any
if (...)
  return@p ...;
... when != up(S)
    when any
  up@u(S);
...
}

@depends on context@
position p = {err.p, err1.p};
@@
* return@p ...;

@initialize:python@
@@
reported = set()

def once(p):
	key = (p[0].file, p[0].line, p[0].column)
	if key in reported:
		return False
	reported.add(key)
	return True

@script:python depends on org@
fn << r.fn;
p << err.p;
u << err.u;
@@
if once(p):
	coccilib.org.print_todo(p[0], "%s() returns holding the semaphore that it gives back with up() on line %s" % (fn, u[0].line))

@script:python depends on org@
fn << r.fn;
p << err1.p;
u << err1.u;
@@
if once(p):
	coccilib.org.print_todo(p[0], "%s() returns holding the semaphore that it gives back with up() on line %s" % (fn, u[0].line))

@script:python depends on report@
fn << r.fn;
p << err.p;
u << err.u;
@@
if once(p):
	coccilib.report.print_report(p[0], "%s() returns holding the semaphore that it gives back with up() on line %s" % (fn, u[0].line))

@script:python depends on report@
fn << r.fn;
p << err1.p;
u << err1.u;
@@
if once(p):
	coccilib.report.print_report(p[0], "%s() returns holding the semaphore that it gives back with up() on line %s" % (fn, u[0].line))

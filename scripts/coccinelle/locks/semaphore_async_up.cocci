// SPDX-License-Identifier: GPL-2.0-only
/// Find grant functions (sem_waiter_init()) and down_async() functions
/// (sem_async_init()) that return early holding the semaphore: the
/// function calls up() on one path but an if branch before it returns
/// without up().  Called with status 0, the function holds one unit,
/// which it must give back or hand on; branches that test the status
/// argument (-ESHUTDOWN: no unit) are not reported.
///
// Confidence: Moderate
// Comments: False positives are branches that hand the unit on to be
// released later, or call a helper that calls up().
// Options: --no-includes --include-headers

virtual context
virtual org
virtual report

@r@
identifier fn;
expression E, S, WQ;
@@
(
sem_async_init(E, S, WQ, fn)
|
sem_waiter_init(E, fn)
)

// Returns under a test of the status argument: no unit is held there.
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

@err exists@
identifier r.fn;
expression S;
position p != {failed1.q, failed2.q};
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
position p != {failed1.q, failed2.q};
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

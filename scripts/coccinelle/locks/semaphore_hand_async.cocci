// SPDX-License-Identifier: GPL-2.0-only
/// Find hand-rolled asynchronous acquisition: a failed down_trylock()
/// followed by queueing work, a delayed work or a timer to try again.
/// down_async() queues the work once the semaphore is granted, in FIFO
/// order with the other waiters, and without polling.
///
// Confidence: Moderate
// Comments: Some hits retry for reasons other than the semaphore, or
// need the semaphore from a context that down_async() does not serve;
// each needs reading before conversion.
// Options: --no-includes --include-headers

virtual context
virtual org
virtual report

@r@
expression S;
position p, q;
@@
if (down_trylock@p(S)) {
  ... when any
(
  queue_work@q(...)
|
  queue_delayed_work@q(...)
|
  mod_delayed_work@q(...)
|
  schedule_work@q(...)
|
  schedule_delayed_work@q(...)
|
  mod_timer@q(...)
|
  add_timer@q(...)
)
  ... when any
}

@depends on context@
position r.p;
expression S;
@@
* down_trylock@p(S)

@script:python depends on org@
p << r.p;
q << r.q;
@@
coccilib.org.print_todo(p[0], "down_trylock() retried through work or a timer (line %s): consider down_async()" % q[0].line)

@script:python depends on report@
p << r.p;
q << r.q;
@@
coccilib.report.print_report(p[0], "down_trylock() retried through work or a timer (line %s): consider down_async()" % q[0].line)

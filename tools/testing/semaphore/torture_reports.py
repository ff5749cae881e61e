#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Classify the reports on one torture console log: the series' or not.

Usage: torture_reports.py [-v] LOG

Cuts the console into report blocks (KCSAN, KASAN, KFENCE, lockdep and
the other "WARNING:"/"BUG:" reports, WARN and BUG splats, ODEBUG, Oops,
panic, hung tasks, RCU stalls, soft lockups) and decides for each one
whether it is about the series' code, by the frames and lines the block
names (OURS below).  Prints, tab-separated:

  errors  N                  reports that fail the run
  ours    N                  those of them that name the series' code
  first   HEADER             the first failing one, shortened (empty if
                             none): header, and the series' function it
                             names or its first frame in brackets
  foreign KIND FRAME COUNT HEADER
                             one line per other report, by kind and first
                             frame, counted over the log, in console order,
                             with the header line of the first one
  list    FRAME (COUNT), ... the foreign lines in short (empty if none)

With -v, also one line per block on standard error: its verdict, kind,
first frame, header and the line that made it the series'.

A report fails the run if it is the series' (a line of its block matches
OURS), or if it is of a kind that always fails (ALWAYS: ODEBUG, Oops and
BUG splats, panic, locktorture's "Fail: N" and "End of test: FAILURE",
torture.sh's own "no power-off" timeout).  Every other report is
foreign: it is listed, not counted.  torture.sh fails the run also when
"End of test: SUCCESS" is missing.
"""

import re
import sys

# The series' code.  A report block is "ours" when one of its lines matches
# one of these: functions of lib/semaphore.c, of its KUnit suites and
# sample, and locktorture's semaphore types, as frames (SYMBOL+0xOFF/0xSIZE,
# so that a symbol is matched whole: "up+0x" but not "up_read+0x" or
# "rwsem_down_write_slowpath+0x"), the series' files (WARN headers,
# "sleeping function called ... at FILE:LINE"), the lockdep class of a
# sema_init()ed semaphore's spinlock, and debugobjects' names for
# semaphores and wait entries.  locktorture's own functions
# (lock_torture_writer, torture_kthread_stopping, ...) are on the stack of
# every run and are deliberately not here; its semaphore types are
# (torture_sem_*, sem_torture_*).  Lines that cannot tell are never
# matched (see IGNORED).  "sem_" also names SysV IPC's ipc/sem.c; the
# torture kernels' /init makes no such call, and a report there would
# fail the run, the safe side.  Extend this list when the series grows.
_SUF = r'(?:\.\w+)*\+0x'        # .isra.0, .constprop.0, .cold; then +0x
OURS = [
    # sem_*, __sem_*: lib/semaphore.c, the suites (sem_test_*,
    # sem_async_test_*), locktorture's sem_torture_*
    r'\b_{0,2}sem_\w+' + _SUF,
    # locktorture's semaphore types: torture_sem_down, torture_sem_up, ...
    r'\btorture_sem_\w+' + _SUF,
    # down() and its variants, down_entry(), down_async(), __down_common()
    r'\b_{0,3}down(?:_(?:interruptible|killable|trylock|timeout|entry'
    r'|async|common))?' + _SUF,
    # up(), __up(), __up_slow()
    r'\b_{0,2}up(?:_slow)?' + _SUF,
    # the sample's module functions, and the suites' and sample's modules
    r'\bsemaphore_async_sample_\w+' + _SUF,
    r'\[semaphore_\w+\]',
    # the series' files
    r'\blib/semaphore\.c\b',
    r'\blib/tests/semaphore',
    r'\bsamples/semaphore/',
    # lockdep's class for the spinlock of every sema_init()ed semaphore
    r'\(semaphore->lock\)',
    # the workqueue core's reports name work functions without offsets:
    # a work function of the series that leaked a lock or atomic context,
    # or that is running on a stuck pool ("in-flight: PID:FUNC").  The
    # "Workqueue: WQ FUNC" line of a stack dump is not here: it only says
    # what the worker was running when something else was reported.
    r'last function: (?:_{0,2}sem_|torture_sem_)\w+',
    r'in-flight: .*\b\d+:(?:_{0,2}sem_|torture_sem_)\w+',
    # debugobjects: CONFIG_DEBUG_SEMAPHORE's two object types, or a hint
    # (the work function of a work_struct, ...) that is a sem_ function
    r'ODEBUG: .*object type: semaphore\b',
    r'ODEBUG: .*hint: _{0,2}sem_\w+',
]
OURS_RE = re.compile('|'.join('(?:%s)' % p for p in OURS))

# Lines of a block that are not evidence either way: unreliable "? func"
# stack entries (stale return addresses, and locktorture leaves up() and
# down() on every stack) and the irq-state history of the task.
IGNORED = re.compile(r'^\s*\? |^(?:irq event stamp|hardirqs last|softirqs last)')

# Report kinds that fail the run whatever the frames say.
ALWAYS = {'odebug', 'oops', 'panic', 'locktorture', 'timeout'}

# Header lines, by kind, tried in order on each console line (the printk
# time stamp removed).  Each starts a report block.  Not anchored, as a
# line may carry the end of an unterminated one before it; "WARNING:"
# and "BUG:" lines of no other kind are lockdep's or "bug", classified
# like the rest.
HEADERS = [
    ('cut', r'-+\[ cut here \]-+'),
    ('kcsan', r'BUG: KCSAN: '),
    ('kasan', r'BUG: KASAN: '),
    ('kfence', r'BUG: KFENCE: '),
    ('warn', r'WARNING: (?:CPU: \d+ PID: \d+ )?at '),
    ('odebug', r'ODEBUG: (?!selftest passed)'),
    ('oops', r'\bOops\b|Internal error: |kernel BUG at |BUG: unable to handle'
             r'|BUG: kernel NULL pointer|Unable to handle kernel'
             r'|general protection fault|BUG: stack guard page'),
    ('panic', r'(?<!end )Kernel panic - not syncing'),
    ('hung', r'blocked for more than \d+ seconds'),
    ('stall', r'detected (?:expedited )?stalls|self-detected stall'),
    ('lockup', r'soft lockup|hard LOCKUP|BUG: workqueue lockup'),
    ('lockdep', r'WARNING:|\[ BUG: |BUG: (?:sleeping function called'
                r'|scheduling while atomic|MAX_LOCK|key |looking up invalid)'
                r'|inconsistent lock state|INFO: trying to register non-static'),
    ('bug', r'BUG:'),
    # One-line reports: locktorture's failures and torture.sh's timeout.
    ('locktorture', r'End of test: FAILURE|Fail: [1-9]'),
    ('timeout', r'torture\.sh: no power-off after'),
]
HEADERS = [(k, re.compile(r)) for k, r in HEADERS]
ONE_LINE = {'locktorture', 'timeout'}
SANITIZERS = {'kcsan', 'kasan', 'kfence'}
SPLATS = {'cut', 'warn', 'oops', 'odebug'}
MAX_LINES = {'sanitizer': 250, 'splat': 150, 'other': 120}

PREFIX = re.compile(r'^\[\s*\d+\.\d+\](?:\[\s*[TC]\d+\])? ?')
RULER = re.compile(r'^={20,}$')
END_TRACE = re.compile(r'^---\[ end trace')
CALL_TRACE = re.compile(r'^Call [Tt]race:')
# Lines that continue a call trace: frames and <IRQ>/<TASK> markers are
# indented; x86 prints the registers of an interrupted context inside it.
TRACE_CONT = re.compile(r'^\s|^Call [Tt]race:|^(?:RIP|Code|RSP|RAX|RDX|RBP|R\d+'
                        r'|FS|CS|CR2|DR\d|PKRU|pc|lr|sp|x\d+|pstate)\s*:')
FRAME = re.compile(r'^\s+(?:\[<[0-9a-f]+>\] )?([A-Za-z_$][\w.$]*)\+0x[0-9a-f]+/0x')
RIP = re.compile(r'^(?:RIP: [0-9a-f]+:|pc : )([A-Za-z_$][\w.$]*)\+0x')
AT = re.compile(r', at: ([A-Za-z_$][\w.$]*)\+0x')
HEADER_SYM = [
    re.compile(r'BUG: K(?:CSAN|ASAN|FENCE): .*? in ([A-Za-z_$][\w.$]*)'),
    re.compile(r'WARNING: (?:CPU: \d+ PID: \d+ )?at (?:\S+:\d+ )?([A-Za-z_$][\w.$]*)'),
    re.compile(r'ODEBUG: .* hint: ([A-Za-z_$][\w.$]*)\+0x'),
]
# Frames of the reporting machinery, the scheduler, lockdep and the
# sanitizers, skipped when looking for the frame a report is about.
INFRA = re.compile(
    r'^(?:dump_stack\w*|show_stack\w*|sched_show_task|show_trace\w*'
    r'|__warn\w*|warn_\w+|report_bug|handle_bug|exc_\w+|asm_\w+'
    r'|do_error_trap|do_trap|print_\w+|__print_\w+|lockdep_\w+|__lock_\w+'
    r'|lock_acquire\w*|lock_release|lock_is_held\w*|lock_contended'
    r'|check_\w+|validate_chain|mark_lock\w*|register_lock_class'
    r'|look_up_lock_class|__might_\w+|might_\w+|__schedule|schedule\w*'
    r'|io_schedule\w*|preempt_schedule\w*|__switch_to\w*|context_switch'
    r'|__?kasan_\w+|kasan_\w+|__?kcsan_\w+|kcsan_\w+|__tsan_\w+|_raw_\w+'
    r'|do_raw_\w+|native_\w+|debug_\w+|__debug_\w+|nmi_\w+|__nmi\w*'
    r'|default_do_nmi|rcu_dump_\w+|rcu_sched_clock_irq|print_cpu_stall\w*'
    r'|watchdog_timer_fn|__hrtimer_run_queues|hrtimer_interrupt'
    r'|__sysvec_\w+|sysvec_\w+|update_process_times|tick_\w+|irq_exit\w*'
    r'|panic\w*|die\w*|__die\w*|page_fault_oops|do_user_addr_fault'
    r'|handle_page_fault|do_mem_abort|el1\w*|call_on_irq_stack'
    r'|do_interrupt_handler|wait_for_completion\w*|__wait_for_common'
    r'|do_wait_for_common|_{0,3}down_common)$')


class Block:
    """One report: its kind, header line and the lines that follow it."""

    def __init__(self, kind, line):
        self.kind = kind
        self.header = line
        self.lines = [line]
        self.in_trace = False
        # A cut-here block waits for its WARNING/BUG line; the lines in
        # between are the WARN message (ODEBUG's, for one).
        self.pending = kind == 'cut'

    def group(self):
        if self.kind in SANITIZERS:
            return 'sanitizer'
        return 'splat' if self.kind in SPLATS else 'other'

    def absorbs(self, kind, line):
        """Take a header line that belongs to this report; True if taken."""
        if self.pending:
            if kind in SANITIZERS or kind == 'cut':
                return False
            if kind == 'warn':
                self.pending = False
                if self.kind == 'cut':
                    self.kind, self.header = 'warn', line
            elif kind == 'oops':
                self.pending = False
                self.kind, self.header = 'oops', line
            elif kind == 'odebug':
                self.kind, self.header = 'odebug', line
            self.lines.append(line)
            return True
        # debugobjects' "object ... is on stack ..., but NOT annotated" is
        # printed before its WARN_ON(1).
        if self.kind == 'odebug' and kind == 'cut' and len(self.lines) == 1:
            self.pending = True
            self.lines.append(line)
            return True
        # One Oops: "BUG: unable to handle ...", then "Oops: ...".
        if self.kind == 'oops' and kind == 'oops':
            self.lines.append(line)
            return True
        return False

    def takes(self, line):
        """Take a line that is no header; False if it ends the block."""
        if self.kind == 'cut' and len(self.lines) == 1 and line.strip():
            self.header = line      # the WARN message, until its WARNING line
        g = self.group()
        if g == 'sanitizer':
            if RULER.match(line):
                return False
        elif g == 'splat':
            if END_TRACE.match(line):
                self.lines.append(line)
                return False
        else:
            if CALL_TRACE.search(line):
                self.in_trace = True
            elif self.in_trace and not TRACE_CONT.search(line):
                return False
            elif line.startswith('Showing all locks held'):
                return False
        if len(self.lines) >= MAX_LINES[g]:
            return False
        self.lines.append(line)
        return True

    def ours(self):
        """(line, what) for the first line that names the series' code,
        what being the function (or file, or object type) it names; the
        first such function that is not a wait loop or lockdep's if there
        is one.  None if no line does."""
        found = None
        for line in self.lines:
            if IGNORED.search(line):
                continue
            for m in OURS_RE.finditer(line):
                what = re.sub(r'(?:\.\w+)*\+0x$', '', m.group(0))
                what = re.sub(r'^.*[:\s]', '', what)   # "hint: ", "63:" ...
                if not INFRA.match(what):
                    return line, what
                found = found or (line, what)
        return found

    def frame(self):
        """The function the report is about."""
        for rx in HEADER_SYM:
            m = rx.search(self.header)
            if m and m.group(1) != '0x0':
                return m.group(1).split('.')[0]
        if self.kind == 'odebug':
            m = re.search(r'object type: (.*?)(?: hint:|$)', self.header)
            if m:
                return m.group(1)
        if self.kind == 'lockdep' and re.search(r'WARNING:|\[ BUG:', self.header):
            for line in self.lines:
                m = AT.search(line)
                if m:
                    return m.group(1).split('.')[0]
        if self.kind in ('stall', 'lockup', 'oops'):
            for line in self.lines:
                m = RIP.search(line)
                if m and not INFRA.match(m.group(1).split('.')[0]):
                    return m.group(1).split('.')[0]
        tracing = False
        for line in self.lines:
            if CALL_TRACE.search(line):
                tracing = True
            if not tracing or IGNORED.search(line):
                continue
            m = FRAME.search(line) or RIP.search(line)
            if m and not INFRA.match(m.group(1).split('.')[0]):
                return m.group(1).split('.')[0]
        m = re.search(r' at (\S+:\d+)', self.header)
        return m.group(1) if m else '?'

    def short(self, what=None):
        """The header without offsets, CPU/PID and addresses, plus what
        the report names of the series (or its first frame) when the
        header does not name it."""
        h = re.sub(r'\+0x[0-9a-f]+/0x[0-9a-f]+', '', self.header)
        h = re.sub(r'WARNING: CPU: \d+ PID: \d+ at ', 'WARNING at ', h)
        h = re.sub(r' object: [0-9a-fx]+', '', h)
        h = re.sub(r'\s+', ' ', h).strip()
        f = what or self.frame()
        if f != '?' and f not in h:
            h += ' [%s]' % f
        return h


def header_kind(line):
    for kind, rx in HEADERS:
        if rx.search(line):
            return kind
    return None


def blocks(lines):
    """Yield the report blocks of a console, in order.  A block runs from
    its header to the ruler that closes a KCSAN/KASAN/KFENCE report, the
    "---[ end trace" of a WARN, BUG or Oops, or the end of the first call
    trace of any other report (lockdep, hung task, stall, lockup), or to
    the next header that is not part of it, or MAX_LINES."""
    cur = None
    for raw in lines:
        line = PREFIX.sub('', raw.rstrip('\r\n'))
        kind = header_kind(line)
        if kind in ONE_LINE:
            yield Block(kind, line)
            continue
        if cur is not None:
            if kind is None:
                if not cur.takes(line):
                    yield cur
                    cur = None
                continue
            if cur.absorbs(kind, line):
                continue
            yield cur
            cur = None
        if kind is not None:
            cur = Block(kind, line)
    if cur is not None:
        yield cur


def classify(path, verbose=False):
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.readlines()
    errors = nours = 0
    first = ''
    foreign = {}
    for b in blocks(lines):
        if b.kind == 'cut':     # a cut-here line with nothing after it
            b.kind = 'warn'
        ours = b.ours()
        fails = ours is not None or b.kind in ALWAYS
        what = ours[1] if ours else None
        if verbose:
            print('%-7s %-11s %-24s %s%s' % (
                'ours' if ours else 'FAIL' if fails else 'foreign',
                b.kind, b.frame(), b.short(what)[:100],
                ('  <- ' + ours[0].strip()[:70]) if ours else ''),
                file=sys.stderr)
        if fails:
            errors += 1
            nours += ours is not None
            if not first:
                first = b.short(what)
            continue
        key = (b.kind, b.frame())
        if key in foreign:
            foreign[key][0] += 1
        else:
            foreign[key] = [1, re.sub(r'\s+', ' ', b.header).strip()]
    print('errors\t%d' % errors)
    print('ours\t%d' % nours)
    print('first\t%s' % first)
    for (kind, frame), (count, header) in foreign.items():
        print('foreign\t%s\t%s\t%d\t%s' % (kind, frame, count, header))
    print('list\t%s' % ', '.join('%s (%d)' % (frame, count)
                                 for (_, frame), (count, _) in foreign.items()))


def main(argv):
    verbose = False
    if argv and argv[0] == '-v':
        verbose = True
        argv = argv[1:]
    if len(argv) != 1:
        sys.exit('usage: torture_reports.py [-v] LOG')
    classify(argv[0], verbose)


if __name__ == '__main__':
    main(sys.argv[1:])

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The forced hang: boot the patched tree with the hung-task timeout at
# 2 s and semaphore_async_kunit.hung_demo=1, so that the KUnit case
# sem_async_test_hung_holder leaves a kernel thread in down() for 10 s
# behind a down_async() work function that keeps the unit.  PASS if the
# hung-task report on the console names that work function as the holder
# of the semaphore and the case itself passes.
#
# The timeout is a build option (CONFIG_DEFAULT_HUNG_TASK_TIMEOUT=2): the
# KUnit suites are built in and run before the sysctl.* arguments of the
# command line are applied.  It reuses build/ARCH of kunit.sh, which
# then rebuilds kernel/hung_task.o only.
#
# Usage: hung-holder.sh [ARCH]     (default x86_64)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
[ -f "$LINUX/Makefile" ] || die "$LINUX is missing: run make tree"
arch_row "$arch"
# shellcheck disable=SC2086
need_pkgs $arch_pkgs
bdir="$BUILD/$arch"
mkdir -p "$bdir" "$BUILD/logs"
log="$BUILD/logs/hung-$arch.log"
expect='INFO: task sem_test:[0-9]+ is blocked on a semaphore, last held by asynchronous holder sem_hint_work'

kunit_run_args "$arch" "$bdir" "$LINUX"
kargs+=(--kconfig_add=CONFIG_DEFAULT_HUNG_TASK_TIMEOUT=2
	--kernel_args=semaphore_async_kunit.hung_demo=1
	semaphore_async.sem_async_test_hung_holder)
say "hung: forced hang on $arch (build in $bdir, log in $log)"
rm -f "$bdir/kunit.json" "$bdir/test.log"
(cd "$LINUX" && python3 tools/testing/kunit/kunit.py "${kargs[@]}") > "$log" 2>&1
[ -f "$bdir/test.log" ] && cat "$bdir/test.log" >> "$log"

case_ok=$(RESULTS=/dev/null python3 "$HERE/kunit_results.py" "$bdir/kunit.json" \
	"hung-$arch" semaphore_async 2>/dev/null |
	grep -c '^PASS .*sem_async_test_hung_holder')
line=$(grep -m1 -oE "$expect" "$log")
if [ -n "$line" ] && [ "$case_ok" = 1 ]; then
	record PASS "hung/$arch" "$line"
else
	record FAIL "hung/$arch" "case passed: ${case_ok:-0}, report: ${line:-none}; see $log"
	rc=1
fi
grep -E 'blocked (for more than|on a semaphore)' "$log" | head -4 | sed 's/^/    /'
exit ${rc:-0}

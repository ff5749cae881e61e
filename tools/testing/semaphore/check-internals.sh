#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The search behind "no code outside lib/semaphore.c reads or writes the
# members of struct semaphore", on the patched tree:
#  1. make coccicheck MODE=report with semaphore_internals.cocci over the
#     whole tree (members matched by type);
#  2. Coccinelle does not parse TRACE_EVENT() bodies, so grep the trace
#     headers for the names that the tree gives struct semaphore members
#     and variables, followed by .count, .wait_list, .first_waiter or .lock.
# Either finding something outside lib/semaphore.c and
# include/linux/semaphore.h is a failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"
command -v spatch >/dev/null || need_pkgs coccinelle
mkdir -p "$BUILD/logs"
log="$BUILD/logs/check-internals.log"
rc=0

# verdict NAME WHAT-IF-CLEAN FINDINGS: one result, with the findings listed.
verdict() {
	if [ -z "$3" ]; then
		record PASS "internals/$1" "$2"
	else
		record FAIL "internals/$1" "$(echo "$3" | wc -l) findings"
		echo "$3" | sed 's/^/    /'
		rc=1
	fi
}

say "coccicheck: semaphore_internals.cocci over the whole tree (a few minutes)"
start=$(date +%s)
if ! make -C "$LINUX" coccicheck MODE=report J="$(nproc)" \
	COCCI=scripts/coccinelle/locks/semaphore_internals.cocci > "$log" 2>&1 ||
   ! grep -q 'files match' "$log"; then
	record FAIL internals/coccicheck "coccicheck did not run, see $log"
	rc=1
fi
secs=$(( $(date +%s) - start ))
hits=$(grep -E '^[^ ]+:[0-9]+:[0-9]+-[0-9]+: struct semaphore member' "$log" |
       grep -v -E '^(\./)?(lib/semaphore\.c|include/linux/semaphore\.h):' || true)
verdict coccicheck "no member access outside lib/semaphore.c ($secs s)" "$hits"

names=$(cd "$LINUX" && git grep -h -o -E 'struct semaphore[[:space:]]+\*?[a-z_][a-z0-9_]*' -- '*.c' '*.h' |
	awk '{print $3}' | tr -d '*' | sort -u | paste -sd'|')
trace=$(cd "$LINUX" && git grep -l -E 'TRACE_EVENT|DECLARE_EVENT_CLASS' -- '*.h' |
	xargs grep -n -E "\\b($names)(\\.|->)(count|wait_list|first_waiter|lock)\\b" 2>/dev/null |
	grep -v -E '^(lib/semaphore\.c|include/linux/semaphore\.h):' || true)
verdict trace-headers "no semaphore member in TRACE_EVENT headers" "$trace"
exit $rc

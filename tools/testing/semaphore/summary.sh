#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the totals of results.tsv and the closing "N passed, N failed"
# line; exit 1 if anything failed or nothing ran.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$RESULTS" ] || { echo "0 passed, 1 failed"; exit 1; }
pass=$(grep -c '^PASS' "$RESULTS")
fail=$(grep -c '^FAIL' "$RESULTS")
skip=$(grep -c '^SKIP' "$RESULTS")
if [ "$fail" -gt 0 ]; then
	echo "Failures:"
	grep '^FAIL' "$RESULTS" | sed 's/^/  /'
fi
if [ -d "$LINUX/.git" ]; then
	echo "Series: $(git -C "$LINUX" rev-list --count base..series 2>/dev/null) commits on $(git -C "$LINUX" log -1 --format=%s base 2>/dev/null) in $LINUX"
fi
echo
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The promise-to-test map (rulemap.py): every row of semaphore.rst's
# Lifetimes table has a KUnit case that names it, every name is a row.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$LINUX/Documentation/locking/semaphore.rst" ] || die "$LINUX is missing: run make tree"
out=$(python3 "$HERE/rulemap.py" "$LINUX") || rc=1
[ -n "$out" ] || record FAIL rulemap "rulemap.py printed nothing"
while IFS=$'\t' read -r verdict name detail; do
	record "$verdict" "$name" "$detail"
done <<<"$out"
exit ${rc:-0}

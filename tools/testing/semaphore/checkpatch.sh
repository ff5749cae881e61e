#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run scripts/checkpatch.pl --strict on every commit of the series (and
# of the base-tree fixes) in build/linux.  One result per commit.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"
# spdxcheck.py needs python3-ply: use Debian's python3, not another one
# that may come first in PATH.
export PATH="/usr/bin:$PATH"
# One type is ignored: MACRO_ARG_REUSE (a --strict CHECK).  The build-time
# range check of a constant count, __SEM_INIT_COUNT(n) in
# include/linux/semaphore.h, must name its argument in the check and in
# the value; the argument is an integer constant wherever it is checked,
# so it has no side effects to repeat.
ignore=MACRO_ARG_REUSE
rc=0
for c in $(git -C "$LINUX" rev-list --reverse base..series); do
	subject=$(git -C "$LINUX" log -1 --format=%s "$c")
	out=$(cd "$LINUX" && git format-patch -1 --stdout "$c" |
	      perl scripts/checkpatch.pl --strict --terse --show-types \
		--ignore "$ignore" - 2>&1)
	if [ $? -eq 0 ]; then
		record PASS "checkpatch/$(git -C "$LINUX" rev-parse --short "$c")" "$subject"
	else
		rc=1
		record FAIL "checkpatch/$(git -C "$LINUX" rev-parse --short "$c")" "$subject"
		echo "$out" | sed 's/^/    /'
	fi
done
exit $rc

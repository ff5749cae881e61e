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
# And UNKNOWN_COMMIT_ID: the base is made from a source tarball and has no
# upstream history, so checkpatch cannot look up the commit that a Fixes:
# tag names (patch 1 fixes b50455fab459, v4.8; checked by hand).
ignore+=,UNKNOWN_COMMIT_ID
# AVOID_BUG for the conversions of ACPI and bcache only: they keep the
# subsystems' BUG_ON()s and change only what the assertion reads;
# whether those should warn instead is for their maintainers.
keep_bug="ACPI: OSL: Use sem_has_waiters() when deleting a semaphore
bcache: Use sem_count() to check that io_mutex is free"

# FILE_PATH_CHANGES asks "does MAINTAINERS need updating?" for every new
# file of a commit that does not touch MAINTAINERS.  The answer is
# checked here instead: a commit that only adds files which an F: line
# of the MAINTAINERS of its parent already covers (get_maintainer.pl
# --sections names a section for each) needs no update, and the warning
# is ignored for it alone.
covered() {
	local c=$1 f added parent="$LINUX/.git/MAINTAINERS.parent"
	git -C "$LINUX" diff --quiet "$c^" "$c" -- MAINTAINERS || return 1
	added=$(git -C "$LINUX" diff --name-only --diff-filter=A "$c^" "$c")
	[ -n "$added" ] || return 1
	git -C "$LINUX" show "$c^:MAINTAINERS" > "$parent" || return 1
	for f in $added; do
		(cd "$LINUX" && perl scripts/get_maintainer.pl --nogit --nogit-fallback \
			--sections --mpath "$parent" -f "$f" 2>/dev/null) |
			grep -v -e '^THE REST' -e '^[A-Z]:' -e '^\s*$' | grep -q . ||
			return 1
	done
}

rc=0
for c in $(git -C "$LINUX" rev-list --reverse base..series); do
	subject=$(git -C "$LINUX" log -1 --format=%s "$c")
	types=$ignore
	covered "$c" && types+=",FILE_PATH_CHANGES"
	grep -qxF "$subject" <<< "$keep_bug" && types+=",AVOID_BUG"
	out=$(cd "$LINUX" && git format-patch -1 --stdout "$c" |
	      perl scripts/checkpatch.pl --strict --terse --show-types \
		--ignore "$types" - 2>&1)
	if [ $? -eq 0 ]; then
		record PASS "checkpatch/$(git -C "$LINUX" rev-parse --short "$c")" "$subject"
	else
		rc=1
		record FAIL "checkpatch/$(git -C "$LINUX" rev-parse --short "$c")" "$subject"
		echo "$out" | sed 's/^/    /'
	fi
done
exit $rc

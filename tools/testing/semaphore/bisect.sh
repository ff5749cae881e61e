#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bisectability: check out every commit of the semaphore series in turn
# (worktree build/bisect, one build directory build/bisect-x86_64, so each
# step is an incremental build), build it for x86_64 with the semaphore
# KUnit configuration, plus locktorture as a module (built, not loaded),
# and run the suites that exist at that commit.  One result per commit.
#
# BISECT_FROM=N (default 1) starts at the Nth commit of the series, so
# that a run cut short can be finished later; its first build is then a
# full one.  BISECT_TO=M (default the last) stops after the Mth.  COMMIT=N
# checks the Nth alone (BISECT_FROM=N BISECT_TO=N).  N is the number of
# the commit's patch file in series/ (0012-... is 12), as make tree and
# make bisect print it.  The build directory is kept: checking out a
# commit rebuilds what differs from the one checked before (an edit of
# lib/semaphore.c: minutes; a commit that changes <linux/semaphore.h>, or
# a jump across one: most of the kernel).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"
BISECT="$BUILD/bisect"
bdir="$BUILD/bisect-x86_64"
mkdir -p "$bdir" "$BUILD/logs"

rc=0
i=0
commits=$(git -C "$LINUX" rev-list --reverse fixed-base..series)
total=$(echo "$commits" | wc -w)
# commit_arg NAME VALUE LOW HIGH: VALUE, a commit number from LOW to HIGH.
commit_arg() {
	case $2 in
	'' | *[!0-9]*) die "$1 must be a commit number, $3 to $4" ;;
	esac
	[ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
		die "$1=$2: choose a commit from $3 to $4"
}
if [ -n "${COMMIT:-}" ]; then
	BISECT_FROM=$COMMIT
	BISECT_TO=$COMMIT
fi
from=${BISECT_FROM:-1}
commit_arg BISECT_FROM "$from" 1 "$total"
to=${BISECT_TO:-$total}
commit_arg BISECT_TO "$to" "$from" "$total"
for c in $commits; do
	i=$((i + 1))
	[ "$i" -lt "$from" ] && continue
	[ "$i" -gt "$to" ] && break
	subject=$(git -C "$LINUX" log -1 --format=%s "$c")
	short=$(git -C "$LINUX" rev-parse --short "$c")
	progress $((i - from + 1)) $((to - from + 1)) \
		"bisect commit $i of $total, $short $subject (log in $BUILD/logs/bisect-$i.log)"
	worktree_at "$BISECT" "$c"
	mapfile -t suites < <(tree_suites "$BISECT")
	log="$BUILD/logs/bisect-$i.log"
	rm -f "$bdir/kunit.json"
	kunit_config "$BISECT" "$bdir/semaphore.kunitconfig"
	# Before the classic suite exists (the driver fix first), build only.
	args=(--arch=x86_64 --build_dir="$bdir" --kunitconfig="$bdir/semaphore.kunitconfig"
	      --jobs="$(nproc)"
	      --kconfig_add=CONFIG_SMP=y --kconfig_add=CONFIG_MODULES=y
	      --kconfig_add=CONFIG_DEBUG_KERNEL=y
	      --kconfig_add=CONFIG_FTRACE=y
	      --kconfig_add=CONFIG_ENABLE_DEFAULT_TRACERS=y
	      --kconfig_add=CONFIG_LOCK_TORTURE_TEST=m)
	if [ ${#suites[@]} -eq 0 ]; then
		args=(build "${args[@]}")
	else
		args=(run "${args[@]}" --json="$bdir/kunit.json" --timeout=300
		      --qemu_args=-smp --qemu_args=2)
	fi
	(cd "$BISECT" && python3 tools/testing/kunit/kunit.py "${args[@]}") > "$log" 2>&1
	built=$?
	if [ ${#suites[@]} -eq 0 ]; then
		if [ $built -eq 0 ]; then
			record PASS "bisect/$i-$short" "$subject: builds (no suite yet)"
		else
			record FAIL "bisect/$i-$short" "$subject: does not build, see $log"
			rc=1
		fi
		continue
	fi
	if RESULTS=/dev/null python3 "$HERE/kunit_results.py" "$bdir/kunit.json" \
			"bisect-$i" "${suites[@]}" > "$log.results" 2>&1; then
		record PASS "bisect/$i-$short" "$subject: builds, ${suites[*]} pass"
	else
		record FAIL "bisect/$i-$short" "$subject: see $log"
		grep -E '^FAIL' "$log.results" | sed 's/^/    /'
		rc=1
	fi
done
exit $rc

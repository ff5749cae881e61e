#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test, the CI tier: every step in turn, each announced with its
# number, the time so far and what is left, and timed; a table of the
# step times and the total at the end.  A step that fails records FAIL
# lines (summary.sh prints them) and the run goes on.
#
# Environment: TEST_ARCHES (extra ports, default i386), TEST_TORTURE_ROWS
# and TEST_TORTURE_SECS (torture rows, default none), HERDTOOLS_SRC (the
# litmus step: see litmus.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

steps=()
step() { steps+=("$1"); }
step "tree"
step "kunit x86_64 pristine"
step "kunit x86_64 patched"
for a in ${TEST_ARCHES-i386}; do step "kunit $a patched"; done
[ -n "${TEST_TORTURE_ROWS:-}" ] && step "torture ${TEST_TORTURE_ROWS}"
step "aio x86_64"
step "checkpatch"
step "roundtrip"
step "pipeline-test"
step "patches"
step "kerneldoc"
step "cocci"
step "litmus"
step "rulemap"
step "torture-classify"
step "objcheck"
step "sparse"
step "mutations apply"

run_step() {
	set -- $1
	case $1 in
	tree) "$HERE/record-step.sh" tree bash -c \
		'"$0/mktree.sh" "$1" && "$0/pristine-tree.sh"' "$HERE" "$LINUX" ;;
	kunit) "$HERE/kunit.sh" "$2" "$3" ;;
	torture) shift; TORTURE_SECS=${TEST_TORTURE_SECS:-30} "$HERE/torture.sh" "$@" ;;
	aio) AIO_DEBUG=lockdep "$HERE/aio.sh" "$2" ;;
	patches) "$HERE/patches-check.sh" ;;
	cocci) "$HERE/cocci-test.sh" ;;
	mutations) "$HERE/mutate.sh" --check ;;
	*) "$HERE/$1.sh" ;;
	esac
}

start=$(date +%s)
times=()
n=${#steps[@]}
for ((i = 0; i < n; i++)); do
	t0=$(date +%s)
	left=nothing
	[ $((i + 1)) -lt "$n" ] && left=$(printf '%s, ' "${steps[@]:i+1}") && left=${left%, }
	echo "== make test [$((i + 1))/$n] ${steps[i]} (at $((t0 - start)) s; then: $left)"
	run_step "${steps[i]}"
	times+=("$(( $(date +%s) - t0 ))")
done
echo "== make test: step times (s)"
for ((i = 0; i < n; i++)); do
	printf '   %5d  %s\n' "${times[i]}" "${steps[i]}"
done
echo "make test: $(( $(date +%s) - start )) s in all"

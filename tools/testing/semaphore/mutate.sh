#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check of the KUnit suites: break lib/semaphore.c on purpose,
# one mutation at a time (mutations/*.patch; mkmut.py regenerates the
# down_async() ones after the code moved), and require that the suites
# catch it.  Each mutation is one result: PASS if at least one test
# failed (the tests that failed are listed), FAIL if the mutant passed.
#
# The mutants are built in a worktree of the series, build/mutant, for
# x86_64 in build/mutant-x86_64 (a full build first, then only
# lib/semaphore.c is rebuilt per mutation).
#
# Usage: mutate.sh [--check] [MUTATION...]
#        (names of mutations/*.patch, default all)
# --check: only that each mutation applies to the series' lib/semaphore.c,
# one result per mutation and no build (make test runs this, so that a
# change to lib/semaphore.c cannot leave a mutation behind unnoticed).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"
check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi

if [ $# -gt 0 ]; then
	patches=()
	for m in "$@"; do patches+=("$HERE/mutations/$m.patch"); done
else
	patches=("$HERE"/mutations/*.patch)
fi

if [ $check -eq 1 ]; then
	tmp=$(mktemp -d)
	mkdir -p "$tmp/lib"
	git -C "$LINUX" show series:lib/semaphore.c > "$tmp/lib/semaphore.c" ||
		die "no lib/semaphore.c at series"
	rc=0
	for p in "${patches[@]}"; do
		name=$(basename "$p" .patch)
		# --check writes nothing: every mutation sees the same file.
		if (cd "$tmp" && git apply --check "$p" 2>/dev/null); then
			record PASS "mutation-applies/$name" "applies to the series' lib/semaphore.c"
		else
			record FAIL "mutation-applies/$name" "does not apply to the series' lib/semaphore.c: refresh $p"
			rc=1
		fi
	done
	rm -rf "$tmp"
	exit $rc
fi

worktree_at "$MUTANT" series
rc=0
im=0
for p in "${patches[@]}"; do
	im=$((im + 1))
	name=$(basename "$p" .patch)
	[ -f "$p" ] || die "no mutation $name"
	git -C "$MUTANT" checkout -q -f --detach series
	if ! git -C "$MUTANT" apply "$p"; then
		record FAIL "mutation/$name" "does not apply to lib/semaphore.c"
		rc=1
		continue
	fi
	progress "$im" "${#patches[@]}" "mutation $name: $(head -n1 "$p")"
	tmp=$(mktemp)
	RESULTS=$tmp KUNIT_EXTRA="--timeout=300" "$HERE/kunit.sh" x86_64 mutant >/dev/null 2>&1
	caught=$(awk -F'\t' '$1 == "FAIL" { sub(/^kunit\/[^\/]*\//, "", $2); printf "%s ", $2 }' "$tmp")
	rm -f "$tmp"
	if [ -n "$caught" ]; then
		record PASS "mutation/$name" "caught by: $caught"
	else
		record FAIL "mutation/$name" "survived: every test passed (see $BUILD/logs/kunit-mutant-x86_64.log)"
		rc=1
	fi
done
git -C "$MUTANT" checkout -q -f --detach series
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a tree for one architecture out of tree and run the semaphore
# KUnit suites under QEMU with kunit.py.
#
# Usage: kunit.sh ARCH TREE     (TREE: patched, pristine or mutant)
# Environment: KUNIT_EXTRA (more kunit.py arguments), RESULTS.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
tree_kind=${2:-patched}
tree=$(tree_dir "$tree_kind")
[ -f "$tree/Makefile" ] || die "$tree is missing: run make tree"

arch_row "$arch"
# shellcheck disable=SC2086
need_pkgs $arch_pkgs

if [ "$tree_kind" = pristine ]; then
	bdir="$BUILD/pristine-$arch"
else
	bdir="$BUILD/$arch"
	[ "$tree_kind" = mutant ] && bdir="$BUILD/mutant-$arch"
fi
mapfile -t suites < <(tree_suites "$tree")
mkdir -p "$bdir" "$BUILD/logs"
log="$BUILD/logs/kunit-$tree_kind-$arch.log"

kunit_run_args "$arch" "$bdir" "$tree"
args=("${kargs[@]}")
# shellcheck disable=SC2206
args+=(${KUNIT_EXTRA:-})

say "kunit: $tree_kind tree, $arch (build in $bdir, log in $log)"
rm -f "$bdir/kunit.json"
start=$(date +%s)
(cd "$tree" && python3 tools/testing/kunit/kunit.py "${args[@]}") 2>&1 | tee "$log" |
	grep --line-buffered -E '^\[[0-9:]+\] (Building|Starting|Testing|Elapsed|Configuring|Populating|Generating|=+|\[(PASSED|FAILED|SKIPPED|CRASHED)\])|ERROR|error:' 
kunit_rc=${PIPESTATUS[0]}
echo "kunit.py exited with $kunit_rc after $(( $(date +%s) - start )) s"
# The whole console (kunit.py keeps only the last run's, in the build dir).
[ -f "$bdir/test.log" ] && cp "$bdir/test.log" "$BUILD/logs/console-$tree_kind-$arch.log"

python3 "$HERE/kunit_results.py" "$bdir/kunit.json" "$tree_kind-$arch" "${suites[@]}"
rc=$?
# A compiler warning in a file of the series fails the run, also where
# the configuration does not turn warnings into errors.  Not for mutants:
# a mutation may leave a helper unused, and only its tests must catch it.
ours=$(series_warnings_re)
warnings=$(grep -E "$ours" "$log" | sort -u)
if [ "$tree_kind" = mutant ]; then
	:
elif [ -z "$warnings" ]; then
	record PASS "kunit/$tree_kind-$arch/build-warnings" "none in the series' files"
else
	record FAIL "kunit/$tree_kind-$arch/build-warnings" "$(echo "$warnings" | wc -l) in the series' files, see $log"
	echo "$warnings" | head -5 | sed 's/^/    /'
	rc=1
fi
[ $kunit_rc -eq 0 ] || rc=1
exit $rc

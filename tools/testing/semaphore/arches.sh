#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, boot and test every port that kunit.py can boot under QEMU,
# pristine and patched, one after the other (kunit.sh per cell), then
# print one table and write it to $BUILD/arches.csv.
#
# Usage: arches.sh [ARCH...]      (default: every row of arches.txt)
# Environment: TREES (default "pristine patched").
#
# A cell that does not build, boot or pass stays in the table as failing,
# with the reason; nothing is skipped.  Exit status 1 if any cell failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ $# -gt 0 ]; then
	arches=("$@")
else
	mapfile -t arches < <(awk '!/^#/ && NF {print $1}' "$HERE/arches.txt")
fi
read -r -a trees <<<"${TREES:-pristine patched}"
csv="$BUILD/arches.csv"
rows="$BUILD/logs/arches.rows"
mkdir -p "$BUILD/logs"
: > "$rows"

# True if the sh4 cross compiler drops the compare that sets the T bit
# before a conditional branch: Debian 12's gcc-12-sh4-linux-gnu
# (12.2.0-13cross1) compiles "if (!a)" at -O1 and above into a branch on a
# stale T bit, so the zImage decompressor (and every other function)
# takes wrong branches and the kernel never boots.  See README, "Ports".
sh_gcc_broken() {
	command -v sh4-linux-gnu-gcc >/dev/null || return 1
	printf 'unsigned long a, b;\nunsigned long f(void)\n{ if (!a) a = b; return a; }\n' |
		sh4-linux-gnu-gcc -O2 -m4 -ml -x c -S -o - - 2>/dev/null |
		awk '/^f:/,/rts/' | grep -qE '[[:space:]](tst|cmp)' && return 1
	return 0
}

# cell ARCH TREE: run one cell, append one row to $rows:
# arch tree build_s boot passed failed skipped note (note last: it may be
# empty, and read splits on runs of tabs)
cell() {
	local arch=$1 tree=$2 log before label pass fail skip build boot note
	log="$BUILD/logs/kunit-$tree-$arch.log"
	label="kunit/$tree-$arch/"
	before=0
	[ -f "$RESULTS" ] && before=$(wc -l < "$RESULTS")
	"$HERE/kunit.sh" "$arch" "$tree"

	pass=$(tail -n +"$((before + 1))" "$RESULTS" | grep -c "^PASS	$label")
	fail=$(tail -n +"$((before + 1))" "$RESULTS" | grep -c "^FAIL	kunit/$tree-$arch")
	skip=$(tail -n +"$((before + 1))" "$RESULTS" | grep -c "^SKIP	$label")
	# kunit.py prints "Elapsed time: T total, C configuring, B building,
	# R running" only once it has built the kernel and run QEMU.
	build=$(sed -n 's/.*Elapsed time: .* \([0-9.]*\)s building.*/\1/p' "$log" | tail -1)
	build=${build%.*}
	if grep -q 'Elapsed time: .* running' "$log"; then
		if [ "$pass" -gt 0 ]; then
			boot=booted
		else
			boot="no KTAP output"
		fi
	else
		boot="build failed"
		note=$(grep -m1 -E 'error:|Error [0-9]' "$log" | sed 's/^.*\(error:.*\)/\1/' | cut -c1-60)
	fi
	if [ "$boot" = booted ] && [ "$fail" -gt 0 ]; then
		note="$fail failing cases"
	elif [ "$boot" = "no KTAP output" ]; then
		note=$(grep -m1 -E 'timed out|Could not find' "$log" | cut -c1-60)
		if [ "$arch" = sh ] && sh_gcc_broken; then
			note="sh4-linux-gnu-gcc drops T-bit compares (gcc bug)"
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" "$tree" "${build:--}" \
		"$boot" "$pass" "$fail" "$skip" "${note:-}" >> "$rows"
}

start=$(date +%s)
total=$(( ${#arches[@]} * ${#trees[@]} ))
i=0
for arch in "${arches[@]}"; do
	for tree in "${trees[@]}"; do
		i=$((i + 1))
		say "arches: [$i/$total] $arch, $tree tree ($(( ($(date +%s) - start) / 60 )) min so far)"
		cell "$arch" "$tree"
	done
done

{
	echo "arch,tree,build_s,boot,passed,failed,skipped,note"
	awk -F'\t' -v OFS=, '{gsub(/,/, ";", $8); print $1, $2, $3, $4, $5, $6, $7, $8}' "$rows"
} > "$csv"

echo
echo "Ports: one row per architecture (build time in seconds; boot; KUnit cases passed/failed, +skipped)"
printf '%-8s | %-26s | %-26s\n' arch pristine patched
printf '%-8s-+-%-26s-+-%-26s\n' -------- -------------------------- --------------------------
bad=0
for arch in "${arches[@]}"; do
	line=$(printf '%-8s' "$arch")
	for tree in pristine patched; do
		row=$(awk -F'\t' -v a="$arch" -v t="$tree" '$1 == a && $2 == t' "$rows")
		if [ -z "$row" ]; then
			line+=$(printf ' | %-26s' "not run")
			continue
		fi
		IFS=$'\t' read -r _ _ b boot p f sk note <<<"$row"
		[ "$boot" = booted ] && [ "$f" -eq 0 ] || bad=1
		line+=$(printf ' | %5ss %-9s %3s/%-3s +%s' "$b" "${boot:0:9}" "$p" "$f" "${sk:-0}")
		[ -n "$note" ] && line+=" ($note)"
	done
	echo "$line"
done
echo "Table written to $csv; $(( ($(date +%s) - start) / 60 )) min in all."
exit $bad

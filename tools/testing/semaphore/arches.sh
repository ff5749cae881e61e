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

# sh: Debian 12's sh4-linux-gnu-gcc (12.2.0) has GCC bug 106609 (it drops
# the compare that sets the T bit before a conditional branch, so the
# kernel never boots); sh-toolchain.sh builds a sound one from
# gcc-11-source into build/toolchains, and arch_row (lib.sh) uses it when
# it is there.  True if the sh cells are about to use the broken one.
sh_gcc_broken() {
	local_sh_toolchain && return 1
	command -v sh4-linux-gnu-gcc >/dev/null || return 1
	! "$HERE/sh-toolchain.sh" --check sh4-linux-gnu-gcc >/dev/null 2>&1
}
for arch in "${arches[@]}"; do
	[ "$arch" = sh ] || continue
	if local_sh_toolchain; then
		say "arches: sh cells use $(head -1 "$sh_toolchain/CHECKED")"
	else
		say "arches: no checked sh4 compiler in build/toolchains: the sh cells use Debian's, which cannot build a bootable kernel (GCC bug 106609); build one first with: make sh-toolchain (about 15 minutes on two cores)"
	fi
done

# The C files of the series, as objects, that sparse checks in each cell's
# own build directory when that port's KUnit configuration built them
# (kernel/locking/semaphore.o is the pristine tree's semaphore), and the
# files whose warnings count: sparse's findings in other files (arch
# headers) are the port's, not the series'.
SPARSE_OBJS=$(series_objs -- 'lib/*' 'samples/*' kernel/locking/semaphore.c)
SPARSE_FILES=$(series_warnings_re)

# sparse_cell ARCH TREE: make C=2 on those objects in the cell's build
# directory (incremental: only those objects are checked and recompiled),
# with the compiler of the caller's arch_row.
# Prints the number of sparse warnings in the series' files, or "-" when
# the cell built none of them, or "failed: why".
sparse_cell() {
	local arch=$1 tree_kind=$2 tree bdir log o objs=() checked n
	tree=$(tree_dir "$tree_kind")
	bdir="$BUILD/$arch"
	[ "$tree_kind" = pristine ] && bdir="$BUILD/pristine-$arch"
	for o in $SPARSE_OBJS; do
		[ -f "$tree/${o%.o}.c" ] && [ -f "$bdir/$o" ] && objs+=("$o")
	done
	if [ ${#objs[@]} -eq 0 ]; then
		echo "-"
		return
	fi
	command -v sparse >/dev/null || need_pkgs sparse >&2
	log="$BUILD/logs/sparse-$tree_kind-$arch.log"
	if ! make -C "$tree" O="$bdir" ARCH="$arch" ${arch_cross:+CROSS_COMPILE="$arch_cross"} \
		-j"$(nproc)" C=2 CHECK="$HERE/sparse-wrap.sh" "${objs[@]}" > "$log" 2>&1; then
		echo "failed: make C=2, see ${log#"$REPO"/}"
		return
	fi
	checked=0
	for o in "${objs[@]}"; do
		grep -qE "^  CHECK .*/${o%.o}\.c\$" "$log" && checked=$((checked + 1))
	done
	if [ "$checked" -ne ${#objs[@]} ]; then
		echo "failed: sparse checked $checked of ${#objs[@]} files, see ${log#"$REPO"/}"
		return
	fi
	# The same warning in a header counts once, however many files include it.
	n=$(grep -E "$SPARSE_FILES" "$log" | sort -u | wc -l)
	echo "$n"
}

# cell ARCH TREE: run one cell, append one row to $rows:
# arch tree build_s boot passed failed skipped sparse compiler note (note
# last: it may be empty, and read splits on runs of tabs)
cell() {
	local arch=$1 tree=$2 log before label pass fail skip build boot sp compiler note=
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
			note="sh4-linux-gnu-gcc drops T-bit compares (GCC bug 106609; make sh-toolchain)"
		fi
	fi
	arch_row "$arch"
	sp=-
	[ "$boot" != "build failed" ] && sp=$(sparse_cell "$arch" "$tree")
	compiler="gcc $("${arch_cross}gcc" -dumpfullversion 2>/dev/null)"
	[ "$compiler" = "gcc " ] && compiler=-
	[ -n "$arch_toolchain" ] && compiler+=" ($arch_toolchain)"
	if [ "$arch" = sh ] && [ -z "$note" ]; then
		note="compiler: $compiler"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" "$tree" "${build:--}" \
		"$boot" "$pass" "$fail" "$skip" "$sp" "$compiler" "${note:-}" >> "$rows"
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

# sparse: a patched cell fails when it has more warnings in the series'
# files than the pristine cell of the same port (run in this same run).
sparse_verdict() {
	local arch=$1 tree=$2 sp=$3 psp
	case "$sp" in
	failed*) echo "sparse $sp"; return 1 ;;
	esac
	[ "$tree" = patched ] || return 0
	psp=$(awk -F'\t' -v a="$arch" '$1 == a && $2 == "pristine" {print $8}' "$rows")
	if [ -z "$psp" ]; then
		echo "sparse not compared: no pristine cell in this run"
		return 0
	fi
	[ "$psp" = - ] && psp=0
	case "$psp" in
	failed*) echo "sparse: pristine cell failed"; return 1 ;;
	esac
	if [ "$sp" -gt "$psp" ]; then
		echo "sparse: $sp warnings, pristine $psp"
		return 1
	fi
	return 0
}

echo
echo "Ports: one row per architecture (build time in seconds; boot; KUnit cases passed/failed,"
echo "+skipped; sp: sparse warnings in the series' files)"
printf '%-8s | %-33s | %-33s\n' arch pristine patched
printf '%-8s-+-%-33s-+-%-33s\n' -------- --------------------------------- ---------------------------------
bad=0
verdicts="$BUILD/logs/arches.verdicts"
: > "$verdicts"
for arch in "${arches[@]}"; do
	line=$(printf '%-8s' "$arch")
	for tree in pristine patched; do
		row=$(awk -F'\t' -v a="$arch" -v t="$tree" '$1 == a && $2 == t' "$rows")
		if [ -z "$row" ]; then
			line+=$(printf ' | %-33s' "not run")
			continue
		fi
		IFS=$'\t' read -r _ _ b boot p f sk sp _ note <<<"$row"
		ok=1
		[ "$boot" = booted ] && [ "$f" -eq 0 ] || ok=0
		# The KUnit cases are results already (kunit.sh); sparse too.
		# "-": nothing was checked (the build failed, which fails the
		# cell, or it built none of the series' objects): a skip, not a
		# pass.
		v=
		if [ "$sp" = - ]; then
			record SKIP "arches/sparse/$tree-$arch" "nothing checked: $boot"
		elif v=$(sparse_verdict "$arch" "$tree" "$sp"); then
			record PASS "arches/sparse/$tree-$arch" "$sp warnings in the series' files${v:+; $v}"
		else
			ok=0
			record FAIL "arches/sparse/$tree-$arch" "$v"
		fi
		[ -n "$v" ] && note="${note:+$note; }$v"
		[ $ok -eq 1 ] || bad=1
		printf '%s\t%s\t%s\t%s\n' "$arch" "$tree" "$ok" "$note" >> "$verdicts"
		line+=$(printf ' | %5ss %-9s %3s/%-3s +%s sp %-3s' "$b" "${boot:0:9}" "$p" "$f" "${sk:-0}" "${sp:0:3}")
		[ -n "$note" ] && line+=" ($note)"
	done
	echo "$line"
done

{
	echo "arch,tree,build_s,boot,passed,failed,skipped,sparse,compiler,pass,note"
	awk -F'\t' -v OFS=, 'NR == FNR {ok[$1 "/" $2] = $3; nt[$1 "/" $2] = $4; next}
		{gsub(/,/, ";", $9); n = nt[$1 "/" $2]; gsub(/,/, ";", n)
		 print $1, $2, $3, $4, $5, $6, $7, $8, $9, ok[$1 "/" $2], n}' "$verdicts" "$rows"
} > "$csv"
echo "Table written to $csv; $(( ($(date +%s) - start) / 60 )) min in all."
exit $bad

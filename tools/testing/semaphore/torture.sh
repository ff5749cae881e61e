#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run locktorture's semaphore types on the patched tree under QEMU and
# check the console: build one kernel per row (architecture and debug
# configuration), boot it once per torture type with locktorture on the
# kernel command line, and fail a run on any lockdep, KASAN or KCSAN
# report, WARN, BUG, hung task, RCU stall or soft lockup that names the
# series' code, on any ODEBUG report, Oops or panic, and on any
# locktorture failure.  Reports that name no code of the series (the
# base kernel's own, such as a KCSAN race in process_one_work) do not
# fail the run; they are listed per run and in
# $BUILD/logs/torture-foreign.tsv.  The classifier is torture_reports.py
# (its OURS list says what "the series' code" is);
# torture-classify-test.sh tests it.
#
# Usage: torture.sh [ROW...]   ROW: ARCH-CONFIG, ARCH x86_64 or arm64,
#                              CONFIG lockdep, kasan or kcsan
#                              (default: every row of $rows_all)
# Environment: TORTURE_SECS (seconds per type, default 300), TORTURE_TYPES
# (default: all six), TORTURE_JOBS (QEMU runs at once, default 1), RESULTS.
#
# rcutorture's kvm.sh needs KVM, which these machines do not have, so the
# kernels are booted here with QEMU in TCG mode, two CPUs each.  Every
# row's kernel is built first, one after the other; then the runs, up to
# TORTURE_JOBS at a time.  A run lasts TORTURE_SECS whatever the load, so
# parallel runs shorten the wall time and lower the acquisition counts.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

rows_all="x86_64-lockdep arm64-lockdep x86_64-kasan arm64-kasan x86_64-kcsan"
types_all="sem_binary sem_counting sem_trylock sem_intr sem_async sem_mixed"
secs=${TORTURE_SECS:-300}
njobs=${TORTURE_JOBS:-1}
read -r -a types <<<"${TORTURE_TYPES:-$types_all}"
if [ $# -gt 0 ]; then rows=("$@"); else read -r -a rows <<<"$rows_all"; fi
if ! [[ $secs =~ ^[0-9]+$ ]] || [ "$secs" -lt 10 ]; then
	die "TORTURE_SECS must be a number of seconds, at least 10"
fi
if ! [[ $njobs =~ ^[0-9]+$ ]] || [ "$njobs" -lt 1 ]; then
	die "TORTURE_JOBS must be a number, at least 1"
fi

tree=$(tree_dir patched)
[ -f "$tree/kernel/locking/locktorture.c" ] || die "$tree is missing: run make tree"
grep -q '"sem_mixed"' "$tree/kernel/locking/locktorture.c" ||
	die "$tree has no semaphore torture types"
mkdir -p "$BUILD/logs"
table="$BUILD/logs/torture.rows"
foreign_tsv="$BUILD/logs/torture-foreign.tsv"
: > "$table"

# build_kernel ARCH CONFIG DIR: the torture kernel of one row, in DIR.
# The initramfs is remade only when init.c changed, so that an unchanged
# tree does not relink the kernel.
build_kernel() {
	local arch=$1 config=$2 dir=$3 args list
	mkdir -p "$dir/initramfs"
	if [ "$HERE/torture/init.c" -nt "$dir/initramfs/init" ]; then
		"${arch_cross}gcc" -static -nostdlib -ffreestanding \
			-fno-stack-protector -O2 -o "$dir/initramfs/init" \
			"$HERE/torture/init.c" || return 1
	fi
	list="dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
file /init $dir/initramfs/init 0755 0 0"
	[ "$(cat "$dir/initramfs.list" 2>/dev/null)" = "$list" ] ||
		printf '%s\n' "$list" > "$dir/initramfs.list"
	args=(build --arch="$arch" --build_dir="$dir" --jobs="$(nproc)"
	      --kunitconfig="$HERE/torture/base.config"
	      --kunitconfig="$HERE/torture/$config.config"
	      --kconfig_add="CONFIG_INITRAMFS_SOURCE=\"$dir/initramfs.list\"")
	[ -n "$arch_cross" ] && args+=(--cross_compile="$arch_cross")
	(cd "$tree" && python3 tools/testing/kunit/kunit.py "${args[@]}")
}

# boot DIR TYPE LOG: one torture run (arch_setup first); QEMU is stopped
# once the kernel powers off, or after the run's time and a margin for the
# boot.
boot() {
	local dir=$1 type=$2 log=$3 cmdline limit
	cmdline="console=$console rdinit=/init panic=-1"
	cmdline+=" locktorture.torture_type=$type locktorture.shutdown_secs=$secs"
	cmdline+=" locktorture.stat_interval=$(( secs < 60 ? 10 : 60 ))"
	# Readers beyond the unit count, so that the count is checked.
	[ "$type" = sem_counting ] && cmdline+=" locktorture.nreaders_stress=8"
	limit=$((secs + 300))
	qemu_boot "$log" "$limit" torture.sh "$dir/$image" "" "$cmdline" -smp 2
	return 0
}

# The console's reports (lockdep, KASAN, KCSAN, WARN, BUG, ODEBUG, Oops,
# panic, hung tasks, stalls, lockups; locktorture's "Fail: N" and "End of
# test: FAILURE"; the "no power-off" line above) are classified by
# torture_reports.py: a report fails the run if a frame or line of it
# names the series' code (the OURS list at the top of that script), or
# if it is an ODEBUG report, an Oops, a panic or one of the one-line
# failures.  Any other report is foreign: listed, not failing.
classify="$HERE/torture_reports.py"

# check TYPE LOG: print "acquisitions errors verdict note foreign" for one
# run (tab-separated; note "-" when there is none, foreign the list of
# foreign reports, "FRAME (COUNT), ..."), and write the foreign reports
# to LOG.foreign (kind, first frame, count, header).
check() {
	local type=$1 log=$2 writes reads out errors note foreign verdict=PASS held
	writes=$(sed -n 's/.*Writes: *Total: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	reads=$(sed -n 's/.*Reads : *Total: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	if out=$(python3 "$classify" "$log"); then
		errors=$(sed -n 's/^errors\t//p' <<<"$out")
		note=$(sed -n 's/^first\t//p' <<<"$out" | cut -c1-90)
		foreign=$(sed -n 's/^list\t//p' <<<"$out")
		sed -n 's/^foreign\t//p' <<<"$out" > "$log.foreign"
	else
		errors=1 note="torture_reports.py failed on the console" foreign=
		: > "$log.foreign"
	fi
	if ! grep -q 'End of test: SUCCESS' "$log"; then
		verdict=FAIL
		[ -n "$note" ] || note="no 'End of test: SUCCESS' line"
	fi
	[ "${errors:-1}" -gt 0 ] && verdict=FAIL
	# sem_counting checks the count only if the readers did fill it:
	# "sem_counting: at most HELD of UNITS units held by readers at once".
	if [ "$type" = sem_counting ] && [ $verdict = PASS ]; then
		held=$(sed -n 's/.*sem_counting: at most \([0-9]* of [0-9]*\) units.*/\1/p' "$log")
		if [ -z "$held" ] || [ "${held% of *}" != "${held#* of }" ]; then
			verdict=FAIL
			note="readers held at most ${held:-?} units at once"
		fi
	fi
	echo "$(( ${writes:-0} + ${reads:-0} ))	${errors:-1}	$verdict	${note:--}	$foreign"
}

# run_one ROW TYPE: boot one run and write its table row to a file.
run_one() {
	local row=$1 type=$2 log acq errors verdict note foreign
	arch_setup "${row%%-*}"
	log="$BUILD/logs/torture-$row-$type.log"
	boot "$BUILD/torture-$row" "$type" "$log"
	IFS=$'\t' read -r acq errors verdict note foreign < <(check "$type" "$log")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$type" "$row" "$secs" "$acq" \
		"$errors" "$verdict" "$note" "$foreign" > "$log.row"
	[ "$note" = - ] && note=
	say "torture: $type on $row: $verdict, $acq acquisitions, $errors errors${note:+ ($note)}${foreign:+; foreign reports, not failing: $foreign}"
}

start=$(date +%s)
built=()
for row in "${rows[@]}"; do
	arch=${row%%-*}
	config=${row#*-}
	if [ ! -f "$HERE/torture/$config.config" ] || [ "$arch" = "$row" ]; then
		die "unknown row '$row' (ARCH-CONFIG, CONFIG one of lockdep kasan kcsan)"
	fi
	if [ "$config" = kcsan ] && [ "$arch" != x86_64 ]; then
		die "KCSAN rows run on x86_64 only"
	fi
	arch_setup "$arch"
	# shellcheck disable=SC2086
	need_pkgs $arch_pkgs
	dir="$BUILD/torture-$row"
	blog="$BUILD/logs/torture-build-$row.log"
	say "torture: building $row in $dir (log in $blog; $(( ($(date +%s) - start) / 60 )) min so far)"
	if build_kernel "$arch" "$config" "$dir" > "$blog" 2>&1; then
		built+=("$row")
		continue
	fi
	grep -m3 -E 'error|ERROR' "$blog"
	for type in "${types[@]}"; do
		printf '%s\t%s\t%s\t-\t-\tFAIL\tbuild failed\n' "$type" "$row" "$secs" \
			> "$BUILD/logs/torture-$row-$type.log.row"
	done
done

nruns=$(( ${#built[@]} * ${#types[@]} ))
say "torture: ${#built[@]} kernels built; $nruns runs of $secs s, $njobs at a time"
irun=0
for row in "${built[@]}"; do
	for type in "${types[@]}"; do
		rm -f "$BUILD/logs/torture-$row-$type.log.row" \
			"$BUILD/logs/torture-$row-$type.log.foreign"
		while [ "$(jobs -rp | wc -l)" -ge "$njobs" ]; do
			wait -n
		done
		irun=$((irun + 1))
		progress "$irun" "$nruns" "torture: $type on $row for $secs s (console in $BUILD/logs/torture-$row-$type.log)"
		run_one "$row" "$type" &
	done
done
wait

printf 'row\ttype\treport\tfirst frame\tcount\theader\n' > "$foreign_tsv"
for row in "${rows[@]}"; do
	for type in "${types[@]}"; do
		f="$BUILD/logs/torture-$row-$type.log.row"
		if [ ! -s "$f" ]; then
			printf '%s\t%s\t%s\t-\t-\tFAIL\tno result\n' "$type" "$row" "$secs" > "$f"
		fi
		cat "$f" >> "$table"
		IFS=$'\t' read -r _ _ _ acq errors verdict note foreign < "$f"
		[ "$note" = - ] && note=
		record "$verdict" "torture/$row/$type" "$acq acquisitions, $errors errors${note:+: $note}${foreign:+; foreign (not failing): $foreign}"
		f="$BUILD/logs/torture-$row-$type.log.foreign"
		[ -s "$f" ] && sed "s/^/$row\t$type\t/" "$f" >> "$foreign_tsv"
	done
done
for row in "${built[@]}"; do
	for type in "${types[@]}"; do
		grep -h -m1 -E "^(\[[ 0-9.]*\] )?$type: (acquired|at most)" \
			"$BUILD/logs/torture-$row-$type.log" 2>/dev/null |
			sed "s/^\[[ 0-9.]*\] /  $row /"
	done
done

echo
printf '%-13s %-15s %5s %13s %6s  %s\n' type config secs acquisitions errors result
awk -F'\t' '{printf "%-13s %-15s %5s %13s %6s  %s%s\n", $1, $2, $3, $4, $5, $6, ($7 == "" || $7 == "-" ? "" : "  (" $7 ")")}' "$table"
if awk -F'\t' '$8 != "" {found = 1} END {exit !found}' "$table"; then
	echo "foreign reports (not the series' code, not counted; $foreign_tsv):"
	awk -F'\t' '$8 != "" {printf "  %-13s %-15s %s\n", $1, $2, $8}' "$table"
fi
passed=$(awk -F'\t' '$6 == "PASS"' "$table" | wc -l)
failed=$(awk -F'\t' '$6 != "PASS"' "$table" | wc -l)
echo "torture: $passed passed, $failed failed in $(( ($(date +%s) - start) / 60 )) min"
[ "$failed" -eq 0 ]

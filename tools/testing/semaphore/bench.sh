#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The semaphore benchmark: build the pristine and the patched kernel with
# the same benchmark code (bench/semaphore_bench.c, a KUnit suite that
# prints figures), boot each under QEMU, and print one table of pristine,
# patched and patched/pristine per architecture.  A benchmark, not a test:
# it records no results in results.tsv.
#
# Usage: bench.sh [ARCH...]        (default: x86_64 arm64)
# Environment: BENCH_RUNS (runs of each multi-CPU figure, default 3),
# BENCH_WORKLOADS (0: leave out the real workloads of workload.sh).
#
# Single-thread figures (uncontended pairs, up()/cancel with queued
# waiters, grant latency) run under QEMU -icount shift=0, where time is
# counted in guest instructions, so reruns agree; they are run twice and
# the spread is printed.  Wake-up latency, contended throughput and
# fairness need real concurrency (-smp 2 and -smp 4 under multi-threaded
# TCG): median of BENCH_RUNS runs, with the spread (max-min)/median.
# On arm64 the single-thread figures are taken again with -cpu cortex-a57
# (metrics ending in _llsc): kunit.py's -cpu max has LSE atomics, the
# Cortex-A57 has none, so the same kernel runs its LL/SC sequences; the
# boot logs must show LSE detected in the first and not in the second.
# Last, the real workloads of workload.sh (printk storm, XFS metadata
# loop) add their rows to the same table.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ $# -gt 0 ]; then arches=("$@"); else arches=(x86_64 arm64); fi
runs=${BENCH_RUNS:-3}
csv="$BUILD/bench.csv"
raw="$BUILD/logs/bench.raw"
mkdir -p "$BUILD/logs"
: > "$raw"

[ -d "$LINUX/.git" ] || die "$LINUX is missing: run make tree"

# bench_tree KIND: a worktree of build/linux with the benchmark added.
bench_tree() {
	local kind=$1 dir="$BUILD/bench-$1" rev
	rev=$([ "$kind" = pristine ] && echo pristine-kunit || echo series)
	worktree_at "$dir" "$rev" >&2
	# -p: the repository file's time, so an unchanged benchmark is not
	# compiled again.
	cp -p "$HERE/bench/semaphore_bench.c" "$dir/lib/tests/semaphore_bench.c"
	{
		echo 'obj-$(CONFIG_KUNIT) += semaphore_bench.o'
		[ "$kind" = patched ] &&
			echo 'CFLAGS_semaphore_bench.o += -DSEM_BENCH_ASYNC'
	} >> "$dir/lib/tests/Makefile"
	echo "$dir"
}

cat > "$BUILD/bench.kunitconfig" <<'EOF'
CONFIG_KUNIT=y
CONFIG_SMP=y
CONFIG_NR_CPUS=8
EOF

# run_bench KIND ARCH TAG FILTER QEMU_ARGS...: one boot, figures to $raw,
# each metric's name followed by $SFX if set.
run_bench() {
	local kind=$1 arch=$2 tag=$3 filter=$4 tree bdir log sfx=${SFX:-}
	shift 4
	tree="$BUILD/bench-$kind"
	bdir="$BUILD/bench-$kind-$arch"
	arch_row "$arch"
	log="$BUILD/logs/bench-$kind-$arch-$tag.log"
	local args=(exec --arch="$arch" --build_dir="$bdir" --timeout=600
		    --raw_output=all)
	[ -n "$arch_cross" ] && args+=(--cross_compile="$arch_cross")
	local q
	for q in "$@"; do args+=(--qemu_args="$q"); done
	(cd "$tree" && python3 tools/testing/kunit/kunit.py "${args[@]}" "$filter") \
		> "$log" 2>&1
	grep -o 'semaphore_bench: [a-z0-9_]* [0-9.]*' "$log" |
		awk -v k="$kind" -v a="$arch" -v t="$tag" -v s="$sfx" \
			'{print a "\t" k "\t" t "\t" $2 s "\t" $3}' >> "$raw"
	if ! grep -q 'semaphore_bench: ' "$log"; then
		echo "bench: no figures from $kind $arch $tag; see $log" >&2
		failed=1
	elif grep -qE '^ *not ok [0-9]+ bench_' "$log"; then
		echo "bench: a benchmark case failed in $kind $arch $tag; see $log" >&2
		failed=1
	fi
}
failed=0

start=$(date +%s)
nsteps=$(( 3 * ${#arches[@]} ))
istep=0
# Build everything first, so that no build runs beside a measurement.
for kind in pristine patched; do
	tree=$(bench_tree "$kind")
	for arch in "${arches[@]}"; do
		arch_row "$arch"
		# shellcheck disable=SC2086
		need_pkgs $arch_pkgs
		bdir="$BUILD/bench-$kind-$arch"
		istep=$((istep + 1))
		progress "$istep" "$nsteps" "bench: building $kind for $arch in $bdir (log in $BUILD/logs/bench-$kind-$arch-build.log)"
		args=(build --arch="$arch" --build_dir="$bdir" --jobs="$(nproc)"
		      --kunitconfig="$BUILD/bench.kunitconfig")
		[ -n "$arch_cross" ] && args+=(--cross_compile="$arch_cross")
		(cd "$tree" && python3 tools/testing/kunit/kunit.py "${args[@]}") \
			> "$BUILD/logs/bench-$kind-$arch-build.log" 2>&1 ||
			die "bench: $kind $arch does not build; see $BUILD/logs/bench-$kind-$arch-build.log"
	done
done

# Then measure, pristine and patched alternately, so that a drift of the
# machine affects both alike.
for arch in "${arches[@]}"; do
	istep=$((istep + 1))
	progress "$istep" "$nsteps" "bench: measuring on $arch (logs in $BUILD/logs/bench-*-$arch-*.log)"
	for i in 1 2; do
		for kind in pristine patched; do
			run_bench "$kind" "$arch" "icount$i" 'semaphore_bench.bench_single*' \
				-icount shift=0
		done
	done
	if [ "$arch" = arm64 ]; then
		# kunit.py boots arm64 with -cpu max, which has LSE: the
		# boot-time alternatives run the LSE atomics.  A Cortex-A57
		# has none: the same kernel then runs the LL/SC sequences.
		for kind in pristine patched; do
			SFX=_llsc run_bench "$kind" "$arch" llsc \
				'semaphore_bench.bench_single*' \
				-icount shift=0 -cpu cortex-a57
		done
		lse_max=$(grep -c 'detected: LSE atomic' "$BUILD/logs/bench-patched-arm64-icount1.log")
		lse_a57=$(grep -c 'detected: LSE atomic' "$BUILD/logs/bench-patched-arm64-llsc.log")
		echo "bench: arm64 'CPU features: detected: LSE atomic instructions': $lse_max in the -cpu max boot, $lse_a57 in the cortex-a57 boot"
		if [ "$lse_max" -eq 0 ] || [ "$lse_a57" -ne 0 ]; then
			echo "bench: the arm64 boots do not run the atomics they should" >&2
			failed=1
		fi
	fi
	for i in $(seq "$runs"); do
		for kind in pristine patched; do
			run_bench "$kind" "$arch" "smp2-$i" 'semaphore_bench.bench_[lc]*' \
				-smp 2
			run_bench "$kind" "$arch" "smp4-$i" 'semaphore_bench.bench_contended' \
				-smp 4
		done
	done
done

# The real workloads (workload.sh), pristine against patched, as rows
# of the same table.
if [ "${BENCH_WORKLOADS:-1}" != 0 ]; then
	WORKLOAD_RAW="$raw" "$HERE/workload.sh" "${arches[@]}" || failed=1
fi

python3 "$HERE/bench_table.py" "$raw" "$csv"
echo "bench: $(( ($(date +%s) - start) / 60 )) min; figures in $csv, logs in $BUILD/logs/bench-*.log"
if [ "$failed" -ne 0 ]; then
	echo "bench: some runs gave no figures or a failing case (above)" >&2
	exit 1
fi

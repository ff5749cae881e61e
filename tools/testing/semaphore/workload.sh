#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real workloads, pristine against patched: build both kernels with
# workload/workload.config, boot each under QEMU with one CPU and
# -icount shift=0,sleep=off (one virtual nanosecond per guest
# instruction: the figures repeat exactly), with an initramfs whose /init
# is workload/semaphore_workload.c, and collect its figures:
#   printk_ns_per_record    100,000 records to /dev/kmsg, none printed
#                           (console_sem: down_trylock() and up())
#   xfs_ns_per_file         create, stat and unlink of 10,000 files on
#                           a fresh XFS on brd (xfs_buf::b_sema)
#   *_sem_ops_per_*         calls of the semaphore API per record or
#                           file, counted by the function profiler in a
#                           separate, smaller run
# A benchmark, not a test: it records no results in results.tsv.
#
# Each timed figure comes twice per boot, in the same state, and each
# kernel boots twice (n=4): the spread is what the figures do not repeat.
#
# Usage: workload.sh [ARCH...]    (x86_64, arm64; default both)
# Environment: WORKLOAD_RAW (append the raw figures to this file, as
# bench.sh does, instead of printing a table of their own),
# WORKLOAD_TIMEOUT (seconds per boot, default 1200).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ $# -gt 0 ]; then arches=("$@"); else arches=(x86_64 arm64); fi
limit=${WORKLOAD_TIMEOUT:-1200}
raw=${WORKLOAD_RAW:-}
own_table=
if [ -z "$raw" ]; then
	raw="$BUILD/logs/workload.raw"
	own_table=1
	: > "$raw"
fi
mkdir -p "$BUILD/logs"
need_pkgs xfsprogs
failed=0
start=$(date +%s)

# The XFS image: a fresh 128 MiB filesystem, kept as its non-zero 4 KiB
# blocks (see load_image() in semaphore_workload.c).  mkfs.xfs refuses
# filesystems under 300 MB unless it runs for fstests (TEST_DIR set).
img="$BUILD/workload-xfs.img"
map="$BUILD/workload-xfs.map"
rm -f "$img"
truncate -s 128M "$img"
TEST_DIR=$BUILD TEST_DEV=$img QA_CHECK_FS=1 mkfs.xfs -q -f "$img" ||
	die "workload: mkfs.xfs failed"
python3 - "$img" "$map" <<'EOF' || die "workload: cannot write $map"
import struct
import sys
bs = 4096
zero = bytes(bs)
with open(sys.argv[1], 'rb') as img, open(sys.argv[2], 'wb') as out:
    off = 0
    run, run_off = b'', 0
    while True:
        blk = img.read(bs)
        if not blk or blk == zero or len(run) >= 1 << 20:
            if run:
                out.write(struct.pack('<QI', run_off, len(run)) + run)
            run = b''
        if not blk:
            break
        if blk != zero:
            if not run:
                run_off = off
            run += blk
        off += len(blk)
EOF
rm -f "$img"

# build_kernel KIND ARCH: the workload kernel of KIND in BDIR.
build_kernel() {
	local kind=$1 arch=$2 tree bdir blog
	tree=$(tree_dir "$kind")
	bdir="$BUILD/workload-$kind-$arch"
	blog="$BUILD/logs/workload-build-$kind-$arch.log"
	say "workload: building $kind for $arch in $bdir"
	local args=(build --arch="$arch" --build_dir="$bdir" --jobs="$(nproc)"
		    --kunitconfig="$HERE/workload/workload.config")
	[ -n "$arch_cross" ] && args+=(--cross_compile="$arch_cross")
	(cd "$tree" && python3 tools/testing/kunit/kunit.py "${args[@]}") \
		> "$blog" 2>&1 ||
		die "workload: $kind $arch does not build; see $blog"
}

# run_workload KIND ARCH BOOT: one boot; its figures to $raw, tagged
# bootBOOT-runN.
run_workload() {
	local kind=$1 arch=$2 boot=$3 bdir log cpio
	bdir="$BUILD/workload-$kind-$arch"
	cpio="$BUILD/workload-$arch.cpio"
	log="$BUILD/logs/workload-$kind-$arch.log"
	say "workload: $kind on $arch (console in $log)"
	qemu_boot "$log" "$limit" workload.sh "$bdir/$image" "$cpio" \
		"console=$console rdinit=/init panic=-1 printk.devkmsg=on nokaslr brd.rd_nr=3 brd.rd_size=131072" \
		-smp 1 -icount shift=0,sleep=off
	sed -e 's/\r$//' "$log" | grep -E '^semaphore_workload: [a-z_]+ [0-9.]+$' |
		awk -v k="$kind" -v a="$arch" -v b="$boot" \
			'{n[$2]++; print a "\t" k "\tboot" b "-run" n[$2] "\t" $2 "\t" $3}' >> "$raw"
	if ! grep -q '^semaphore_workload: done' "$log"; then
		echo "workload: $kind on $arch did not finish:" >&2
		grep -E 'semaphore_workload: error|no power-off|Kernel panic|BUG|WARNING' "$log" | head -5 >&2
		failed=1
	fi
	grep -E '^semaphore_workload: (printk|xfs) calls' "$log" | sed 's/\r$//; s/^/  /'
}

for arch in "${arches[@]}"; do
	arch_setup "$arch"
	libc=libc6-dev
	[ -n "$arch_cross" ] && libc=libc6-dev-arm64-cross
	# shellcheck disable=SC2086
	need_pkgs $arch_pkgs $libc
	build_kernel pristine "$arch"
	build_kernel patched "$arch"

	dir="$BUILD/workload-$arch-initramfs"
	mkdir -p "$dir"
	"${arch_cross}gcc" -static -O2 -Wall -Werror -o "$dir/init" \
		"$HERE/workload/semaphore_workload.c" ||
		die "workload: cannot build semaphore_workload for $arch"
	initramfs_cpio "$(tree_dir patched)" "$BUILD/workload-$arch.cpio" \
		"file /init $dir/init 0755 0 0" "file /xfs.map $map 0644 0 0" ||
		die "workload: gen_init_cpio failed"

	# Pristine and patched alternately, twice.
	for i in 1 2; do
		for kind in pristine patched; do
			run_workload "$kind" "$arch" "$i"
		done
	done
done

if [ -n "$own_table" ]; then
	python3 "$HERE/bench_table.py" "$raw" "$BUILD/workload.csv"
	echo "workload: figures in $BUILD/workload.csv"
fi
echo "workload: $(( ($(date +%s) - start) / 60 )) min; logs in $BUILD/logs/workload-*.log"
if [ "$failed" -ne 0 ]; then
	echo "workload: some boots gave no figures (above)" >&2
	exit 1
fi

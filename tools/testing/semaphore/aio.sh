#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# down_async() for AIO, end to end: build the patched kernel with the
# debug options of the torture rows (lockdep, KASAN, debug objects of
# semaphores and work items, atomic-sleep checks, hung-task and lockup
# detectors) and the AIO sample device as a module, build and install the
# kselftest tools/testing/selftests/semaphore statically ("make -C
# tools/testing/selftests TARGETS=semaphore install"), boot the kernel
# under QEMU (2 CPUs) with an initramfs that holds the installed kselftest,
# the module and aio/init.c as /init (which runs run_kselftest.sh with
# busybox on x86_64, the test alone elsewhere, and powers off), and collect
# the TAP results: one results.tsv line per case, one for the kselftest
# runner's verdict, and one for the console, which fails on any
# WARNING, BUG, ODEBUG, lockdep, KASAN or other report
# (torture_reports.py cuts them out; here every report fails).
#
# Usage: aio.sh ARCH    ARCH x86_64 (default) or arm64
# Environment: AIO_DEBUG ("lockdep kasan", the default, or a subset:
# which debug fragments of tools/testing/semaphore/torture/ to add),
# AIO_TIMEOUT (seconds for the boot, default 1200), RESULTS.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
debug=${AIO_DEBUG:-lockdep kasan}
limit=${AIO_TIMEOUT:-1200}
arch_setup "$arch"
libc="libc6-dev busybox-static"
[ -n "$arch_cross" ] && libc=libc6-dev-arm64-cross
# shellcheck disable=SC2086
need_pkgs $arch_pkgs $libc

tree=$(tree_dir patched)
src=tools/testing/selftests/semaphore/semaphore_aio_test.c
[ -f "$tree/$src" ] || die "$tree has no $src: run make tree"
dir="$BUILD/aio-$arch"
log="$BUILD/logs/aio-$arch.log"
blog="$BUILD/logs/aio-build-$arch.log"
rm -rf "$dir/initramfs"
mkdir -p "$dir/initramfs" "$BUILD/logs"
start=$(date +%s)

fail_all() {
	record FAIL "aio/$arch/build" "$1"
	exit 1
}

# The kernel, with the module.  The initramfs is a separate cpio given to
# QEMU with -initrd, because it holds a module of this very build.
configs=(--kunitconfig="$HERE/aio/aio.config")
for d in $debug; do
	[ -f "$HERE/torture/$d.config" ] || die "AIO_DEBUG: no torture/$d.config"
	configs+=(--kunitconfig="$HERE/torture/$d.config")
done
say "aio: building the $arch kernel ($debug) in $dir (log in $blog)"
args=(build --arch="$arch" --build_dir="$dir" --jobs="$(nproc)" "${configs[@]}")
[ -n "$arch_cross" ] && args+=(--cross_compile="$arch_cross")
if ! (cd "$tree" && python3 tools/testing/kunit/kunit.py "${args[@]}") > "$blog" 2>&1; then
	grep -m3 -E 'error|ERROR' "$blog"
	fail_all "kernel build failed (see $blog)"
fi
ko="$dir/samples/semaphore/semaphore_aio.ko"
[ -f "$ko" ] || fail_all "no $ko after the build"

say "aio: building the kselftest and the initramfs"
ksft="$dir/initramfs/kselftest"
kargs=(-C "$tree/tools/testing/selftests" TARGETS=semaphore O="$dir/kselftest"
       INSTALL_PATH="$ksft" USERLDFLAGS=-static USERCFLAGS=-Werror)
[ -n "$arch_cross" ] && kargs+=(ARCH="$arch" CROSS_COMPILE="$arch_cross")
if ! make "${kargs[@]}" install >> "$blog" 2>&1 ||
   ! "${arch_cross}gcc" -static -O2 -Wall -Werror -o "$dir/initramfs/init" \
		"$HERE/aio/init.c" >> "$blog" 2>&1; then
	tail -5 "$blog"
	fail_all "kselftest build failed (see $blog)"
fi
[ -x "$ksft/semaphore/semaphore_aio_test" ] || fail_all "no kselftest in $ksft"
list=("file /init $dir/initramfs/init 0755 0 0" "file /semaphore_aio.ko $ko 0644 0 0"
      "dir /bin 0755 0 0")
[ -z "$arch_cross" ] && list+=("file /bin/busybox /bin/busybox 0755 0 0")
while read -r d; do
	list+=("dir /${d#"$dir/initramfs/"} 0755 0 0")
done < <(find "$ksft" -type d)
while read -r f; do
	list+=("file /${f#"$dir/initramfs/"} $f $(stat -c %a "$f") 0 0")
done < <(find "$ksft" -type f)
initramfs_cpio "$tree" "$dir/initramfs.cpio" "${list[@]}" >> "$blog" 2>&1 ||
	fail_all "gen_init_cpio failed (see $blog)"

say "aio: booting $arch under QEMU (console in $log)"
qemu_boot "$log" "$limit" aio.sh "$dir/$image" "$dir/initramfs.cpio" \
	"console=$console rdinit=/init panic=-1" -smp 2

# The console without carriage returns and without the timestamps of
# kernel lines (a TAP line can follow a kernel message's timestamp).  The
# kselftest runner prefixes the test's output with "# " and reports the
# test as one TAP line of its own: take the runner's line apart, and the
# test's lines without the prefix.
sed -e 's/\r$//' -e 's/^\[[ 0-9.]*\] //' "$log" > "$dir/console.raw"
runner=$(grep -E '^(not )?ok [0-9]+ selftests: semaphore: ' "$dir/console.raw")
if [ -n "$runner" ]; then
	grep -vE '^(not )?ok [0-9]+ selftests: |^1\.\.[0-9]+$' "$dir/console.raw" |
		sed 's/^# //' > "$dir/console"
	if [[ $runner == ok* ]]; then
		record PASS "aio/$arch/kselftest-runner" "$runner"
	else
		record FAIL "aio/$arch/kselftest-runner" "$runner"
	fi
else
	cp "$dir/console.raw" "$dir/console"
	[ -n "$arch_cross" ] ||
		record FAIL "aio/$arch/kselftest-runner" "run_kselftest.sh reported nothing ($log)"
fi
# The TAP lines of the harness, and its messages (figures).
grep -E '^(not )?ok [0-9]+ ' "$dir/console" > "$dir/tap"
echo "aio: $arch, the selftest's TAP results and messages:"
grep -E '^(ok|not ok) [0-9]+ |^# (aio|io_uring|sync|cancel|remove|destroy|Totals|PASSED|FAILED)|^semaphore_aio_test: exit' "$dir/console" | sed 's/^/  /'
cases=0
while read -r line; do
	name=$(sed -E 's/^(not )?ok [0-9]+ ([^ #]+).*/\2/' <<<"$line")
	cases=$((cases + 1))
	if [[ $line == not\ ok* ]]; then
		record FAIL "aio/$arch/$name" "see $log"
	elif [[ $line == *"# SKIP"* ]]; then
		record SKIP "aio/$arch/$name" "${line#*# SKIP }"
	else
		record PASS "aio/$arch/$name"
	fi
done < "$dir/tap"
# The plan ("1..N") against the results seen: a hang or a line cut by
# kernel messages on the console must not go unnoticed.
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$dir/console" | head -1)
if [ "$cases" -eq 0 ] || [ "$cases" != "${plan:-}" ]; then
	record FAIL "aio/$arch/selftest" "$cases results for a plan of ${plan:-?} cases ($log)"
else
	record PASS "aio/$arch/selftest" "$cases of $plan cases reported"
fi

# Every report on the console fails, ours or not.
if out=$(python3 "$HERE/torture_reports.py" "$log"); then
	errors=$(sed -n 's/^errors\t//p' <<<"$out")
	nforeign=$(grep -c '^foreign' <<<"$out")
	first=$(sed -n 's/^first\t//p' <<<"$out")
	[ -n "$first" ] || first=$(sed -n 's/^list\t//p' <<<"$out")
	total=$(( ${errors:-0} + nforeign ))
	if grep -q 'no power-off after' "$log"; then
		record FAIL "aio/$arch/console" "no power-off after $limit s, see $log"
	elif [ "$total" -eq 0 ]; then
		record PASS "aio/$arch/console" "no WARNING, BUG, ODEBUG, lockdep or KASAN report"
	else
		record FAIL "aio/$arch/console" "$total reports: ${first:0:100}; see $log"
	fi
else
	record FAIL "aio/$arch/console" "torture_reports.py failed on $log"
fi
say "aio: $arch done in $(( ($(date +%s) - start) / 60 )) min"

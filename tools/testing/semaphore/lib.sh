# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
#
# Shared shell helpers of the semaphore pipeline.  Sourced, not run.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE="$REPO/tools/testing/semaphore"
BUILD=${BUILD:-$REPO/build}
LINUX="$BUILD/linux"
PRISTINE="$BUILD/pristine"
MUTANT="$BUILD/mutant"
RESULTS=${RESULTS:-$BUILD/results.tsv}

# The kernel's own Makefiles must not see this project's make variables.
unset MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }
say() { echo "== $*"; }

# progress I N WHAT: step I of N of a long target, with the time since
# the script started and how many steps are left.
PROGRESS_START=$(date +%s)
progress() {
	local t=$(( $(date +%s) - PROGRESS_START ))
	say "[$1/$2] $3 ($((t / 60)) min $((t % 60)) s so far; $(( $2 - $1 )) left after this)"
}

# record STATUS NAME [DETAIL]: one line of results.tsv (PASS/FAIL/SKIP).
record() {
	mkdir -p "$(dirname "$RESULTS")"
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$RESULTS"
	printf '%-4s %s %s\n' "$1" "$2" "${3:-}"
}

# need_pkgs PKG...: install the Debian packages that are missing, as
# root; not root, print the apt-get line and fail before the target does
# anything.  Without dpkg (not Debian) nothing is checked or installed:
# deps.sh says what the packages are for.
need_pkgs() {
	local missing=() p
	if ! command -v dpkg >/dev/null; then
		echo "== not Debian: not checking for the equivalents of $* (make deps LIST=1)" >&2
		return 0
	fi
	for p in "$@"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "$(basename "$0"): error: need root to install ${missing[*]}; run" >&2
		echo "  sudo apt-get update && sudo apt-get install --no-install-recommends ${missing[*]}" >&2
		echo "then this target again" >&2
		exit 1
	fi
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

# The two forward patch stacks, as quilt keeps them: DIR/series lists
# the git format-patch files of DIR in order.  A line PRISTINE_MARK in
# series/series follows the last commit of the pristine test tree.
BASE_FIXES="$HERE/base-fixes"
SERIES="$HERE/series"
PRISTINE_MARK="# pristine-kunit"

# stack_patches DIR [marks]: the patches DIR/series lists, one per line
# (comments and blank lines skipped); with "marks", PRISTINE_MARK too.
stack_patches() {
	local line
	[ -f "$1/series" ] || return 0
	while IFS= read -r line; do
		if [ "$line" = "$PRISTINE_MARK" ]; then
			[ "${2:-}" = marks ] && echo "$line"
			continue
		fi
		line=${line%%#*}
		line=${line//[[:space:]]/}
		[ -n "$line" ] && echo "$line"
	done < "$1/series"
	return 0
}

# series_mirror TREE [REV]: the files that the repository holds in their
# final form: every file the series (fixed-base..REV, default series)
# adds, and every file it changes that the repository has.
series_mirror() {
	local st f
	git -C "$1" diff --name-status --no-renames fixed-base "${2:-series}" |
	while read -r st f; do
		case $st in
		A) echo "$f" ;;
		M) [ -f "$REPO/$f" ] && echo "$f" ;;
		esac
	done
	return 0
}

# The series' files come from build/linux's git, so that no script keeps a
# list of them.
# series_files [--from REV] [--filter ACDM] [PATHSPEC...]: the files of
# REV..series (default fixed-base) with a status in the filter (default
# added, modified or deleted).
series_files() {
	local from=fixed-base filter=AMD
	while :; do
		case ${1:-} in
		--from) from=$2; shift 2 ;;
		--filter) filter=$2; shift 2 ;;
		*) break ;;
		esac
	done
	git -C "$LINUX" diff --name-only --no-renames --diff-filter="$filter" \
		"$from" series -- "$@"
}

# commit_of_subject TREE REV SUBJECT: the first commit of fixed-base..REV
# in the tree TREE whose subject is SUBJECT; nothing if none.  awk reads
# to the end: an early exit would kill git log with SIGPIPE (status 141
# under pipefail).
commit_of_subject() {
	git -C "$1" log --reverse --format='%H%x09%s' "fixed-base..$2" |
		awk -F'\t' -v s="$3" '$2 == s && !n++ { print $1 }'
}

# series_objs [series_files arguments]: the kernel objects of those of
# the files that are C sources (the selftest in tools/ is not one).
series_objs() {
	series_files "$@" | grep -v '^tools/' | grep '\.c$' | sed 's/\.c$/.o/'
	return 0
}

# series_warnings_re: an extended regular expression for the compiler's
# and sparse's "FILE:LINE[:COL]: warning|error:" lines in the series' own
# files: the ones it adds or deletes, and the ones the repository holds.
series_warnings_re() {
	local alt
	alt=$({ series_files --filter AD -- '*.c' '*.h'; series_mirror "$LINUX"; } |
		grep -v '^tools/' | grep -E '\.[ch]$' | sort -u | sed 's/[.]/\\./g' | paste -sd'|')
	echo "(^|/)($alt):[0-9]+(:[0-9]+)?: (warning|error):"
}

# worktree_at DIR REV: DIR as a clean worktree of build/linux at REV: made
# if missing (or if it belongs to another repository), else checked out
# and cleaned.  Build directories are elsewhere (O=), so this keeps builds
# incremental.
worktree_at() {
	local dir=$1 rev=$2
	git -C "$LINUX" worktree prune
	if ! git -C "$dir" rev-parse --git-dir >/dev/null 2>&1 ||
	   [ "$(git -C "$dir" rev-parse --path-format=absolute --git-common-dir)" != "$LINUX/.git" ]; then
		rm -rf "$dir"
		git -C "$LINUX" worktree add -q -f --detach "$dir" "$rev"
	else
		git -C "$dir" checkout -q -f --detach "$rev"
		git -C "$dir" clean -q -f -d -x
	fi
}

# arch_row ARCH: read the row of ARCH in arches.txt into arch_cross (the
# cross-compile prefix, empty for the native compiler), arch_pkgs (the
# compiler and QEMU packages) and arch_smp (QEMU's -smp value, empty for
# none).  Dies on an architecture that arches.txt does not list.
arch_row() {
	local row cross gccpkg qemupkgs smp
	row=$(awk -v a="$1" '!/^#/ && $1 == a' "$HERE/arches.txt")
	[ -n "$row" ] || die "unknown ARCH '$1'; known: $(awk '!/^#/ && NF {printf "%s ", $1}' "$HERE/arches.txt")"
	read -r _ cross gccpkg qemupkgs smp <<<"$row"
	arch_cross=${cross#-}
	arch_pkgs="$gccpkg ${qemupkgs//,/ }"
	arch_smp=${smp#-}
	arch_toolchain=
	if [ "$1" = sh ] && local_sh_toolchain; then
		arch_cross="$sh_toolchain/bin/sh4-linux-gnu-"
		arch_pkgs="binutils-sh4-linux-gnu ${qemupkgs//,/ }"
		arch_toolchain=${sh_toolchain#"$REPO"/}
	fi
}

# local_sh_toolchain: true if sh-toolchain.sh has built and checked an sh4
# compiler in build/toolchains (Debian 12's own has GCC bug 106609); its
# directory (the newest GCC if several) is then in sh_toolchain.
local_sh_toolchain() {
	local d
	sh_toolchain=
	for d in $(ls -d "$BUILD"/toolchains/gcc-*-sh4 2>/dev/null | sort -V); do
		[ -f "$d/CHECKED" ] && [ -x "$d/bin/sh4-linux-gnu-gcc" ] && sh_toolchain=$d
	done
	[ -n "$sh_toolchain" ]
}

# The tree for TREE=patched|pristine.
tree_dir() {
	case "$1" in
	patched) echo "$LINUX" ;;
	pristine) echo "$PRISTINE" ;;
	mutant) echo "$MUTANT" ;;
	*) die "TREE must be patched, pristine or mutant, not '$1'" ;;
	esac
}

# initramfs_cpio TREE OUT ENTRY...: the initramfs OUT, made with TREE's
# usr/gen_init_cpio from a /dev with a console and the gen_init_cpio
# list ENTRY lines; the tool and the list are kept beside OUT.
initramfs_cpio() {
	local tree=$1 out=$2
	shift 2
	gcc -O2 -o "$out.gen_init_cpio" "$tree/usr/gen_init_cpio.c" || return 1
	printf '%s\n' "dir /dev 0755 0 0" "nod /dev/console 0600 0 0 c 5 1" \
		"$@" > "$out.list"
	"$out.gen_init_cpio" "$out.list" > "$out"
}

# qemu_wait PID LOG LIMIT WHO: wait until the QEMU of PID, whose console
# is LOG, has powered off, halted or panicked, at most LIMIT seconds (then
# "WHO: no power-off after LIMIT s, stopped QEMU" goes to LOG), and stop it.
qemu_wait() {
	local pid=$1 log=$2 limit=$3 who=$4 waited=0
	while kill -0 "$pid" 2>/dev/null; do
		if grep -qE 'reboot: (Power down|System halted)|System halted|Kernel panic' "$log"; then
			sleep 2
			break
		fi
		if [ "$waited" -ge "$limit" ]; then
			echo "$who: no power-off after $limit s, stopped QEMU" >> "$log"
			break
		fi
		sleep 5
		waited=$((waited + 5))
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# qemu_boot LOG LIMIT WHO KERNEL INITRD APPEND QEMU_ARG...: boot KERNEL
# (with INITRD unless empty) under the QEMU of arch_setup, 1 GiB, the
# console in LOG, the extra QEMU_ARGs (-smp, -icount) after the
# architecture's own, and wait for the power-off (qemu_wait).
qemu_boot() {
	local log=$1 limit=$2 who=$3 kernel=$4 initrd=$5 append=$6
	shift 6
	local args=(-nodefaults -m 1024 "$@" "${qemu_args[@]}" -kernel "$kernel")
	[ -n "$initrd" ] && args+=(-initrd "$initrd")
	: > "$log"
	"$qemu" "${args[@]}" -append "$append" \
		-no-reboot -nographic -serial stdio </dev/null > "$log" 2>&1 &
	qemu_wait $! "$log" "$limit" "$who"
}

# Per architecture: the arches.txt row (arch_cross, arch_pkgs), and
# QEMU, kernel image, console and QEMU arguments as kunit.py's
# qemu_configs have them.
arch_setup() {
	case "$1" in
	x86_64)
		qemu="qemu-system-x86_64"; image=arch/x86/boot/bzImage
		console=ttyS0; qemu_args=() ;;
	arm64)
		qemu="qemu-system-aarch64"; image=arch/arm64/boot/Image.gz
		console=ttyAMA0; qemu_args=(-machine virt -cpu "max,pauth-impdef=on") ;;
	*) die "unknown QEMU architecture '$1' here (x86_64 or arm64)" ;;
	esac
	arch_row "$1"
}

# tree_suites DIR: the semaphore KUnit suites that the tree in DIR has,
# one per line (the pristine tree has only the classic suite; the first
# commit of the series, a driver fix, none).
tree_suites() {
	[ -f "$1/lib/tests/semaphore_kunit.c" ] && echo semaphore_classic
	[ -f "$1/lib/tests/semaphore_async_kunit.c" ] && echo semaphore_async
	[ -f "$1/lib/tests/semaphore_entry_kunit.c" ] && echo semaphore_entry
	[ -f "$1/lib/tests/semaphore_trace_kunit.c" ] && echo semaphore_trace
	[ -d "$1/samples/semaphore" ] && echo semaphore_async_sample
	true
}

# kunit_config TREE OUT: write to OUT the kunitconfig of the semaphore
# suites (kunit.config) for TREE, without the series' options (SEMAPHORE,
# SAMPLES) that TREE's lib/Kconfig.debug and samples/Kconfig lack.
kunit_config() {
	local line sym
	: > "$2"
	while read -r line; do
		[[ $line == CONFIG_* ]] || continue
		sym=${line%%=*}
		sym=${sym#CONFIG_}
		[ "$sym" = SAMPLES ] && sym=SAMPLE_SEMAPHORE_ASYNC
		if [[ $sym == *SEMAPHORE* ]] &&
		   ! grep -qsx "config $sym" "$1/lib/Kconfig.debug" "$1/samples/Kconfig"; then
			continue
		fi
		echo "$line" >> "$2"
	done < "$HERE/kunit.config"
}

# kunit_run_args ARCH BDIR TREE: kunit.py's "run" arguments for the
# semaphore suites of TREE on ARCH (arch_row read already), building in
# BDIR, into the array kargs.
kunit_run_args() {
	kunit_config "$3" "$2/semaphore.kunitconfig"
	kargs=(run --arch="$1" --build_dir="$2" --kunitconfig="$2/semaphore.kunitconfig"
	       --jobs="$(nproc)" --json="$2/kunit.json" --timeout=300)
	[ -n "$arch_cross" ] && kargs+=(--cross_compile="$arch_cross")
	if [ -n "$arch_smp" ]; then
		kargs+=(--kconfig_add=CONFIG_SMP=y --qemu_args=-smp
			--qemu_args="$arch_smp")
	fi
	# Tracepoints for the semaphore_trace suite, where the port has them.
	# 6.12's m68k, alpha and 32-bit sparc (kunit.py's sparc) have no
	# TRACING_SUPPORT (sparc32 lacks STACKTRACE_SUPPORT): kunit.py would
	# refuse the configuration there, so the trace cases skip instead.
	case $1 in
	m68k | alpha | sparc) ;;
	*) kargs+=(--kconfig_add=CONFIG_FTRACE=y
		   --kconfig_add=CONFIG_ENABLE_DEFAULT_TRACERS=y) ;;
	esac
}

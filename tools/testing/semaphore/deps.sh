#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deps [TARGET=...]: check, before any work, everything the targets
# about to run need, from one table (below), ports included.  Every target
# runs it first with its own name (the Makefile passes make's goals).
#
# Debian 12 or Ubuntu 24.04 (apt), as root: installs what is missing.  Not
# root: prints one sudo apt-get line with all of it and fails, so the
# target stops before its first build.  Elsewhere: checks the commands,
# names the packages, and fails if one is missing (the container path of
# README.md runs everything in Debian 12).  make deps LIST=1 prints the
# table and installs nothing.
#
# Usage: deps.sh [TARGET...]   (default all: plain make)
# Environment: LIST, ARCH, TEST_ARCHES, BENCH_ARCHES, ARCHES, TORTURE_ROWS,
# TEST_TORTURE_ROWS, HERDTOOLS_SRC, KERNEL_SRC.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# spatch's Python scripting (report and org modes) loads libpython3.N,
# which coccinelle only recommends.
libpython=libpython3.$(python3 -c 'import sys; print(sys.version_info.minor)' 2>/dev/null || echo 11)
base=(make gcc git perl python3 flex bison bc libelf-dev libssl-dev cpio
      kmod rsync xz-utils python3-ply python3-git coccinelle "$libpython"
      qemu-system-x86)
tarball=/usr/src/linux-source-6.12.tar.xz
herd_pkgs=$(sed -n '/^HERD_PKGS=(/,/)/p' "$HERE/litmus.sh" | tr -d '()\t' |
	    sed 's/^HERD_PKGS=//' | paste -sd' ')
all_ports=$(awk '!/^#/ && NF { printf "%s ", $1 }' "$HERE/arches.txt")
torture_rows="x86_64-lockdep arm64-lockdep x86_64-kasan arm64-kasan x86_64-kcsan"

# The table: TARGET, then the packages it needs beyond the base set, then
# (after "ports:") the ports it builds and boots.  "herd" stands for
# herd7's build packages (litmus.sh), needed while herd7 is not built and
# HERDTOOLS_SRC is set.  Keep in step with the scripts' need_pkgs calls.
table() {
	local torture=${TORTURE_ROWS:-$torture_rows} t_test=${TEST_TORTURE_ROWS:-}
	cat <<EOF
all		ports: x86_64
test		sparse libc6-dev busybox-static herd ports: x86_64 ${TEST_ARCHES-i386} $(rows_ports "$t_test")
tree		ports:
writeback	ports:
kunit		ports: ${ARCH:-x86_64}
aio		$(aio_pkgs "${ARCH:-x86_64}") ports: ${ARCH:-x86_64}
arches		sparse ports: ${ARCHES:-$all_ports}
bench		libc6-dev libc6-dev-arm64-cross xfsprogs ports: ${BENCH_ARCHES:-x86_64 arm64}
workload	libc6-dev libc6-dev-arm64-cross xfsprogs ports: ${BENCH_ARCHES:-x86_64 arm64}
torture		ports: $(rows_ports "$torture")
mutation	ports: x86_64
bisect		ports: x86_64
sparse		sparse ports:
checkpatch	ports:
kerneldoc	ports:
patches		ports:
cocci		ports:
internals	ports:
objcheck	ports:
htmldocs	python3-sphinx python3-sphinx-rtd-theme ports:
litmus		herd ports:
sh-toolchain	gcc-11-source binutils-sh4-linux-gnu libgmp-dev libmpfr-dev libmpc-dev file ports:
EOF
}
rows_ports() { local r; for r in $1; do printf '%s ' "${r%%-*}"; done; }
aio_pkgs() { if [ "$1" = x86_64 ]; then echo libc6-dev busybox-static; else echo libc6-dev-arm64-cross; fi; }

# pkgs_of TARGET: the packages TARGET needs, the base set and ports included.
pkgs_of() {
	local line extra ports a
	line=$(table | awk -v t="$1" '$1 == t { $1 = ""; print }')
	[ -n "$line" ] || die "unknown target '$1'; known: $(table | awk '{ printf "%s ", $1 }')"
	extra=${line%%ports:*}
	ports=${line#*ports:}
	printf '%s\n' "${base[@]}"
	[ -n "${KERNEL_SRC:-}" ] || echo linux-source-6.12
	for a in $extra; do
		if [ "$a" = herd ]; then
			herd_needed && printf '%s\n' $herd_pkgs
		else
			echo "$a"
		fi
	done
	for a in $ports; do
		arch_row "$a"
		printf '%s\n' $arch_pkgs
	done
}
herd_needed() {
	[ -n "${LIST:-}" ] && return 0
	! command -v herd7 >/dev/null && [ ! -x "$BUILD/herdtools7/bin/herd7" ] &&
		[ -n "${HERDTOOLS_SRC:-}" ]
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(all)
# Goals that are not in the table (help, clean, deps itself) need nothing.
known=$(table | awk '{ print $1 }')
wanted=()
for t in "${targets[@]}"; do
	grep -qx -- "$t" <<<"$known" && wanted+=("$t")
	[ "$t" = deps ] || grep -qx -- "$t" <<<"$known" ||
		case $t in help | clean | reset-results) ;; *) die "unknown target '$t'" ;; esac
done

if [ -n "${LIST:-}" ]; then
	echo "Every target needs (the base set):"
	echo "${base[*]} linux-source-6.12" | fold -s -w 76 | sed 's/ *$//; s/^/  /'
	echo "  (linux-source-6.12 only without KERNEL_SRC=; with ARCH, TEST_ARCHES,"
	echo "  BENCH_ARCHES, ARCHES, TORTURE_ROWS as you would pass them to the target)"
	echo "Beyond it, per target (make deps TARGET=NAME checks one):"
	for t in $known; do
		extra=$(pkgs_of "$t" | { grep -vxF -f <(printf '%s\n' "${base[@]}" linux-source-6.12) || true; } |
			awk '!seen[$0]++' | paste -sd' ')
		printf '  %-13s%s\n' "$t" "${extra:--}" | fold -s -w 78 |
			sed 's/ *$//; 2,$s/^/               /'
	done
	echo "  (herd7's packages, $(awk '{ print $1 }' <<<"$herd_pkgs") to $(awk '{ print $NF }' <<<"$herd_pkgs"), only while herd7 is"
	echo "  not built and HERDTOOLS_SRC is set)"
	exit 0
fi

mapfile -t need < <(for t in "${wanted[@]}"; do pkgs_of "$t"; done | awk '!seen[$0]++')
[ ${#need[@]} -gt 0 ] || exit 0

os=$(. /etc/os-release 2>/dev/null; echo "${ID:-unknown} ${VERSION_ID:-}")
case ${os%% *} in
debian | ubuntu) ;;
*) os="other $os" ;;
esac
if [ "${os%% *}" = other ] || ! command -v dpkg >/dev/null; then
	missing=()
	for c in make gcc perl flex bison bc cpio rsync xz git python3 spatch \
		 qemu-system-x86_64; do
		command -v "$c" >/dev/null || missing+=("$c")
	done
	command -v gcc >/dev/null &&
		! printf '#include <gelf.h>\n#include <openssl/ssl.h>\n' |
			gcc -E -x c - >/dev/null 2>&1 && missing+=("gelf.h/openssl/ssl.h")
	[ -n "${KERNEL_SRC:-}" ] || [ -f "$tarball" ] || [ -f "$LINUX/.git/semaphore-base.stamp" ] ||
		missing+=("a base tree (KERNEL_SRC=DIR)")
	if [ ${#missing[@]} -eq 0 ]; then
		echo "deps: ${os#other }: the base commands are there; not checked: ${need[*]}"
		exit 0
	fi
	cat <<EOF
deps: ${os#other } is neither Debian nor Ubuntu: nothing is installed.
Install the equivalents of these Debian packages:
EOF
	echo "${need[*]}" | fold -s -w 76 | sed 's/ *$//; s/^/  /'
	echo "or run everything in a Debian 12 container (README.md, \"Your own machine\")."
	echo "deps: error: missing: ${missing[*]}" >&2
	exit 1
fi
case $os in
"debian 12" | "ubuntu 24.04") ;;
*) echo "deps: $os: the package names are Debian 12's; tested there only" ;;
esac
if [ "${os%% *}" = ubuntu ] && [ -z "${KERNEL_SRC:-}" ] &&
   [ ! -f "$LINUX/.git/semaphore-base.stamp" ]; then
	die "Ubuntu has no linux-source-6.12: set KERNEL_SRC= to a 6.12 tree (git checkout or unpacked)"
fi

missing=()
for p in "${need[@]}"; do
	[ "$p" = linux-source-6.12 ] && [ -f "$LINUX/.git/semaphore-base.stamp" ] && continue
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: everything ${wanted[*]} needs is installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: error: ${wanted[*]} needs ${#missing[@]} packages that are not installed; run" >&2
	echo "  sudo apt-get update && sudo apt-get install --no-install-recommends ${missing[*]}" >&2
	if [[ " ${missing[*]} " == *" linux-source-6.12 "* ]]; then
		echo "(or leave out linux-source-6.12 and set KERNEL_SRC= to a 6.12 tree)" >&2
	fi
	echo "then make ${wanted[*]} again; nothing was done" >&2
	exit 1
fi
need_pkgs "${missing[@]}"
echo "deps: installed what ${wanted[*]} needs"

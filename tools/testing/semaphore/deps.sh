#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deps: install what every target needs on Debian 12, from Debian's
# archive only (every target runs this first).  A target that needs more
# (cross compilers, other QEMU binaries, sparse, ...) installs it when it
# runs (need_pkgs in lib.sh).  make deps LIST=1 lists all of it and
# installs nothing.
#
# As root on Debian: installs what is missing.  Not root: prints the
# sudo apt-get line and fails.  Not on Debian: prints what the packages
# are for, checks for the commands, and fails if one is missing or there
# is no base tree (KERNEL_SRC).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(make gcc git perl python3 flex bison bc libelf-dev libssl-dev cpio
      kmod rsync xz-utils python3-ply python3-git coccinelle qemu-system-x86)
[ -n "${KERNEL_SRC:-}" ] || pkgs+=(linux-source-6.12)
tarball=/usr/src/linux-source-6.12.tar.xz

# What single targets install, as their need_pkgs calls have it (keep in
# step); each port's compiler and QEMU come from arches.txt.
list_pkgs() {
	echo "Always (make deps, which every target runs first):"
	echo "${pkgs[*]}" | fold -s -w 76 | sed 's/ *$//; s/^/  /'
	[ -n "${KERNEL_SRC:-}" ] || echo "  (linux-source-6.12 only without KERNEL_SRC=)"
	echo "Per target, installed when it runs:"
	echo "  each port it boots (make kunit/aio ARCH=..., torture, bench, arches: all):"
	awk '!/^#/ && NF { p = $3 " " $4; gsub(/,/, " ", p); printf "    %-8s %s\n", $1, p }' \
		"$HERE/arches.txt"
	echo "  make test:    sparse libc6-dev; ports x86_64 and TEST_ARCHES (default i386)"
	echo "  make aio:     libc6-dev busybox-static (x86_64), libc6-dev-arm64-cross (arm64)"
	echo "  make bench, make workload: libc6-dev libc6-dev-arm64-cross xfsprogs;"
	echo "                ports x86_64 arm64 (BENCH_ARCHES)"
	echo "  make sparse, make arches: sparse"
	echo "  make htmldocs: python3-sphinx python3-sphinx-rtd-theme"
	if [ -f "$HERE/litmus.sh" ]; then
		echo "  make litmus (and make test), to build herd7 from HERDTOOLS_SRC once:"
		sed -n '/^HERD_PKGS=(/,/)/p' "$HERE/litmus.sh" | tr -d '()\t' |
			sed 's/^HERD_PKGS=//' | paste -sd' ' | fold -s -w 72 |
			sed 's/ *$//; s/^/                /'
	fi
	echo "  make sh-toolchain: gcc-11-source binutils-sh4-linux-gnu libgmp-dev"
	echo "                libmpfr-dev libmpc-dev file (sh then uses binutils-sh4-linux-gnu"
	echo "                and this compiler instead of gcc-sh4-linux-gnu)"
}

if [ -n "${LIST:-}" ]; then
	list_pkgs
	exit 0
fi

os=$(. /etc/os-release 2>/dev/null; echo "${ID:-unknown} ${VERSION_ID:-}")
if [ "${os%% *}" != debian ] || ! command -v dpkg >/dev/null; then
	missing=()
	for c in make gcc perl flex bison bc cpio rsync xz git python3 spatch \
		 qemu-system-x86_64; do
		command -v "$c" >/dev/null || missing+=("$c")
	done
	command -v gcc >/dev/null &&
		! printf '#include <gelf.h>\n#include <openssl/ssl.h>\n' |
			gcc -E -x c - >/dev/null 2>&1 && missing+=("gelf.h/openssl/ssl.h")
	[ -n "${KERNEL_SRC:-}" ] || [ -f "$tarball" ] ||
		missing+=("a base tree (KERNEL_SRC=DIR)")
	python3 -c 'import ply, git' 2>/dev/null ||
		echo "deps: warning: python3 lacks ply or git: checkpatch's SPDX check needs them"
	if [ ${#missing[@]} -eq 0 ]; then
		echo "deps: not Debian ($os): the commands are there, packages not checked"
		exit 0
	fi
	cat <<EOF
deps: this is not Debian ($os in /etc/os-release): nothing is installed.
The pipeline names Debian 12's packages; install the equivalents of:
  make gcc perl flex bison bc   a C compiler and the kernel's build tools,
  cpio kmod rsync xz-utils      with the headers of libelf and OpenSSL
  libelf-dev libssl-dev         (and the compilers of the ports you test)
  git python3 python3-ply       git, kunit.py and the checks
  python3-git
  qemu-system-x86               qemu-system-x86_64 (boots x86_64 and i386)
  coccinelle                    spatch (make cocci, make internals, make test)
  sparse                        make sparse, make test
  linux-source-6.12             none: set KERNEL_SRC= to a 6.12 tree
Other targets need more: make deps LIST=1.  Or run everything in a Debian
12 container (README.md, "Your own machine").
EOF
	echo "deps: error: missing: ${missing[*]}" >&2
	exit 1
fi
[ "${os#* }" = 12 ] || echo "deps: Debian ${os#* }: the pipeline is tested on Debian 12 only"

missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" -ne 0 ]; then
	echo "deps: error: not root, and missing: ${missing[*]}; install them with" >&2
	echo "  sudo apt-get update && sudo apt-get install --no-install-recommends ${missing[*]}" >&2
	if [[ " ${missing[*]} " == *" linux-source-6.12 "* ]]; then
		echo "(or leave out linux-source-6.12 and set KERNEL_SRC= to a 6.12 tree)" >&2
	fi
	echo "then run make again; make deps LIST=1 lists what other targets need" >&2
	exit 1
fi
need_pkgs "${pkgs[@]}"
echo "dependencies present (other targets install more when they run: make deps LIST=1)"

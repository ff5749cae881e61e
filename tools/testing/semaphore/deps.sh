#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the pipeline needs on Debian 12, from Debian's archive only.
# Cross compilers and other QEMU binaries are installed by kunit.sh when
# an architecture needs them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(make gcc git perl python3 flex bison bc libelf-dev libssl-dev cpio
      kmod rsync xz-utils python3-ply python3-git coccinelle qemu-system-x86)
[ -n "${KERNEL_SRC:-}" ] || pkgs+=(linux-source-6.12)
need_pkgs "${pkgs[@]}"
echo "dependencies present"

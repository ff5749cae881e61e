#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check out the pristine test tree (the base, the base-tree fixes and the
# classic KUnit suite: tag pristine-kunit of build/linux) as a git
# worktree in build/pristine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

git -C "$LINUX" rev-parse -q --verify pristine-kunit >/dev/null ||
	die "build/linux has no pristine-kunit tag: run make tree"
worktree_at "$PRISTINE" pristine-kunit
echo "pristine test tree: $(git -C "$PRISTINE" log --oneline -1)"

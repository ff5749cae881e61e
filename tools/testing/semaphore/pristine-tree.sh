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
git -C "$LINUX" worktree prune
if ! git -C "$PRISTINE" rev-parse --git-dir >/dev/null 2>&1 ||
   [ "$(git -C "$PRISTINE" rev-parse --path-format=absolute --git-common-dir)" != "$LINUX/.git" ]; then
	rm -rf "$PRISTINE"
	say "checking out the pristine test tree in $PRISTINE"
	git -C "$LINUX" worktree add -q -f --detach "$PRISTINE" pristine-kunit
else
	git -C "$PRISTINE" checkout -q -f --detach pristine-kunit
	git -C "$PRISTINE" clean -q -f -d -x
fi
echo "pristine test tree: $(git -C "$PRISTINE" log --oneline -1)"

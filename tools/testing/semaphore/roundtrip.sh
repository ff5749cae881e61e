#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The round trip of the series' storage, without a kernel build, on a copy
# of the repository and a scratch tree that shares build/linux's objects:
#  1. writeback.sh of build/linux as make tree left it changes nothing,
#     and mktree.sh of the copy gives the same commit ids;
#  2. a hunk moves between two commits as a person would move it (git
#     rebase -i, "edit" the earlier commit, take the hunk, continue);
#     writeback.sh then mktree.sh give a series whose final state is
#     build/linux's, with the hunk in its new commit and nowhere else.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

git -C "$LINUX" rev-parse -q --verify series >/dev/null || die "no build/linux: run make tree"
tmp=$(mktemp -d "$BUILD/roundtrip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
copy=$tmp/repo
scratch=$tmp/linux
log=$tmp/log
fail() { record FAIL "roundtrip/$1" "$2"; [ -s "$log" ] && sed 's/^/    /' "$log" | tail -20; exit 1; }

mkdir -p "$copy"
(cd "$REPO" && git ls-files -z -co --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -x -C "$copy"
(cd "$copy" && git init -q && git add -A && git -c user.name=rt -c user.email=rt@example.org commit -q -m copy) ||
	fail copy "cannot copy the repository"
st="$copy/tools/testing/semaphore"

# 1. Unchanged in, unchanged out, same ids.
DEST=$copy "$st/writeback.sh" "$LINUX" >"$log" 2>&1 || fail writeback "writeback.sh failed"
if [ -n "$(git -C "$copy" status --porcelain)" ]; then
	git -C "$copy" status --short > "$log"
	fail writeback "writing back the unchanged tree changed the repository"
fi
BASE_FROM=$LINUX "$st/mktree.sh" "$scratch" >"$log" 2>&1 || fail rebuild "mktree.sh of the copy failed"
[ "$(git -C "$scratch" rev-parse series)" = "$(git -C "$LINUX" rev-parse series)" ] ||
	fail rebuild "mktree.sh of the written-back series gave other commit ids"
record PASS roundtrip/same-ids

# 2. Move the fs/xfs/xfs_trace.h hunk of the xfs commit into the commit
# before it.
from="xfs: Use the semaphore accessors for b_sema"
file=fs/xfs/xfs_trace.h
commit_of() { commit_of_subject "$scratch" series "$1"; }
donor=$(commit_of "$from")
[ -n "$donor" ] || fail move "no commit \"$from\" in the series"
to=$(git -C "$scratch" log -1 --format=%s "$donor^")
git -C "$scratch" diff --quiet "$donor^" "$donor" -- "$file" && fail move "$from does not change $file"
(
	cd "$scratch" || exit 1
	export GIT_AUTHOR_NAME=rt GIT_AUTHOR_EMAIL=rt@example.org
	export GIT_COMMITTER_NAME=rt GIT_COMMITTER_EMAIL=rt@example.org
	GIT_SEQUENCE_EDITOR="sed -i '1s/^pick /edit /'" \
		git rebase -q -i "$donor~2" &&
	git checkout "$donor" -- "$file" &&
	git commit -q --amend --no-edit &&
	git rebase --continue
) >"$log" 2>&1 || fail move "git rebase -i did not move the hunk"
DEST=$copy "$st/writeback.sh" "$scratch" >"$log" 2>&1 || fail move "writeback.sh of the edited tree failed"
[ -z "$(git -C "$copy" status --porcelain -- ':!tools/testing/semaphore/series')" ] ||
	fail move "writing back a moved hunk changed more than series/"
BASE_FROM=$LINUX "$st/mktree.sh" "$scratch" >"$log" 2>&1 || fail move "mktree.sh after the move failed"
[ "$(git -C "$scratch" rev-parse 'series^{tree}')" = "$(git -C "$LINUX" rev-parse 'series^{tree}')" ] ||
	fail move "the final state changed"
[ "$(git -C "$scratch" log --format=%s fixed-base..series)" = "$(git -C "$LINUX" log --format=%s fixed-base..series)" ] ||
	fail move "the commits' subjects changed"
new_to=$(commit_of "$to")
new_donor=$(commit_of "$from")
git -C "$scratch" diff --quiet "$new_to^" "$new_to" -- "$file" && fail move "\"$to\" did not get the hunk"
git -C "$scratch" diff --quiet "$new_donor^" "$new_donor" -- "$file" || fail move "\"$from\" kept the hunk"
record PASS roundtrip/move-hunk

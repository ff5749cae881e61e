#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write an edited tree back into the repository: the commits of
# base..fixed-base and fixed-base..HEAD become the patch stacks
# base-fixes/ and series/ (git format-patch files and their "series"
# file), and the series' final files are copied into the repository.
#
# The workflow: edit build/linux with git (git rebase -i fixed-base,
# git commit --fixup=<commit> then git rebase -i --autosquash), commit
# everything, then run this (make writeback).  make tree then rebuilds
# the same commits from the repository, with the fixed committer dates
# of mktree.sh.
#
# Usage: writeback.sh [TREE] (default build/linux)
# Environment: DEST (the repository to write into; default this one).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=${1:-$LINUX}
dest=${DEST:-$REPO}
dest=$(cd "$dest" && pwd)

git -C "$tree" rev-parse -q --verify fixed-base >/dev/null ||
	die "$tree has no tag fixed-base: not a tree made by make tree"
[ -d "$tree/.git/rebase-merge" ] || [ -d "$tree/.git/rebase-apply" ] &&
	die "$tree: a rebase or git am is in progress; finish it first"
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "$tree has uncommitted changes; commit them (or git stash) first"
git -C "$tree" merge-base --is-ancestor fixed-base HEAD ||
	die "$tree: HEAD does not contain fixed-base; rebase onto it"

# The pristine test tree ends at the commit with the subject of the
# commit tagged pristine-kunit (a rebase leaves the tag on the old one).
pristine_at=
if [ "$(git -C "$tree" rev-list --count fixed-base..pristine-kunit)" -gt 0 ]; then
	subject=$(git -C "$tree" log -1 --format=%s pristine-kunit)
	pristine_at=$(commit_of_subject "$tree" HEAD "$subject")
	[ -n "$pristine_at" ] ||
		die "no commit of fixed-base..HEAD has the subject of the pristine-kunit commit (\"$subject\")"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# export RANGE DIR: RANGE as format-patch files and a series file in DIR,
# with the pristine mark after $pristine_at.
export_stack() {
	local range=$1 out=$2 c i=0 p name
	mkdir -p "$out"
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		echo "# Applied in this order by mktree.sh (git am); written by writeback.sh."
	} > "$out/series"
	for c in $(git -C "$tree" rev-list --reverse --no-merges "$range"); do
		i=$((i + 1))
		p=$(git -C "$tree" format-patch --full-index --no-signature \
			--zero-commit --no-numbered --start-number="$i" \
			-o "$out" -1 "$c")
		name=$(basename "$p")
		echo "$name" >> "$out/series"
		[ "$c" = "$pristine_at" ] && echo "$PRISTINE_MARK" >> "$out/series"
	done
	return 0
}

export_stack base..fixed-base "$tmp/base-fixes"
export_stack fixed-base..HEAD "$tmp/series"

for d in base-fixes series; do
	target="$dest/tools/testing/semaphore/$d"
	rm -rf "$target"
	mv "$tmp/$d" "$target"
done

# The final files: copy what the series now gives, and remove what it
# added before but no longer does.
REPO=$dest series_mirror "$tree" HEAD > "$tmp/mirror"
while read -r f; do
	mkdir -p "$(dirname "$dest/$f")"
	git -C "$tree" show "HEAD:$f" > "$dest/$f"
done < "$tmp/mirror"
built=$(cat "$tree/.git/semaphore-built" 2>/dev/null || true)
if [ -n "$built" ] && git -C "$tree" rev-parse -q --verify "$built^{commit}" >/dev/null; then
	git -C "$tree" diff --name-only --no-renames --diff-filter=A fixed-base "$built" |
	while read -r f; do
		grep -qxF "$f" "$tmp/mirror" || rm -f "$dest/$f"
	done
fi

# What mktree.sh may now rebuild over: these commits are in the repository.
git -C "$tree" rev-parse HEAD > "$tree/.git/semaphore-written"
n=$(git -C "$tree" rev-list --count fixed-base..HEAD)
say "wrote $n commits to tools/testing/semaphore/series/ and $(wc -l < "$tmp/mirror") final files; next: make tree"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make patches as a sender would run it, checked without mailing: with
# FROM="A B <a@b.example>", every patch and both cover letters must be from
# and signed off by that identity only, the series' cover letter must be
# marked v3 and carry the changelog, the cut point and the RFC note.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

who="A B <a@b.example>"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail() { record FAIL "patches/$1" "$2"; sed 's/^/    /' "$log" | tail -20; exit 1; }

dir="$BUILD/patches-check"
PATCHES_OUT=$dir FROM=$who "$HERE/patches.sh" >"$log" 2>&1 || fail run "patches.sh failed"
n=0
for f in "$dir"/*/*.patch; do
	n=$((n + 1))
	grep -qxF "From: $who" "$f" || { echo "$f" > "$log"; fail from "a patch is not From: $who"; }
	case $f in */0000-cover-letter.patch) continue ;; esac
	grep -q '^Signed-off-by: ' "$f" || { echo "$f" > "$log"; fail signed "a patch has no Signed-off-by"; }
	if grep '^Signed-off-by: ' "$f" | grep -vqxF "Signed-off-by: $who"; then
		echo "$f" > "$log"
		fail signed "a patch is signed off by someone else"
	fi
done
if grep -l 'semaphore-dev@example.org' "$dir"/*/*.patch > "$log"; then
	fail placeholder "the placeholder identity is left in"
fi
cover="$dir/semaphore/0000-cover-letter.patch"
total=$(git -C "$LINUX" rev-list --count fixed-base..series)
# Part 1 ends before the commit whose header first declares down_entry().
part1=0
for c in $(git -C "$LINUX" rev-list --reverse fixed-base..series); do
	git -C "$LINUX" cat-file -e "$c:include/linux/semaphore_async.h" 2>/dev/null && break
	part1=$((part1 + 1))
done
for want in "Subject: [PATCH v4 00/$total]" "Changes since v3:" "Part 1, patches 1-$part1," \
	    "Part 2, patches $((part1 + 1))-$total, is an RFC" "Why not what exists" "The base"; do
	grep -qF "$want" "$cover" || { : > "$log"; fail cover "the cover letter lacks \"$want\""; }
done
record PASS patches/from-and-cover "$n files from and signed off by $who; cover letter v4 with changelog, cut point and RFC note"

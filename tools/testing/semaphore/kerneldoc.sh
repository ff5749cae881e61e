#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel-doc -none -Wall on every C source or header that the
# series adds or changes: one result per file.  A file the series adds
# must have no warning; a file it changes must not have more than the
# same file before the series (fixed-base).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
while read -r f; do
	[ -f "$LINUX/$f" ] || continue
	out=$(cd "$LINUX" && perl scripts/kernel-doc -none -Wall "$f" 2>&1)
	n=$(printf '%s' "$out" | grep -c 'warning' || true)
	before=0
	if git -C "$LINUX" cat-file -e "fixed-base:$f" 2>/dev/null; then
		mkdir -p "$tmp/$(dirname "$f")"
		git -C "$LINUX" show "fixed-base:$f" > "$tmp/$f"
		before=$(cd "$LINUX" && perl scripts/kernel-doc -none -Wall "$tmp/$f" 2>&1 |
			grep -c 'warning' || true)
	fi
	if [ "$n" -le "$before" ]; then
		record PASS "kernel-doc/$f" "$n warnings (before the series: $before)"
	else
		record FAIL "kernel-doc/$f" "$n warnings, before the series $before"
		printf '%s\n' "$out" | sed 's/^/    /'
		rc=1
	fi
done < <(git -C "$LINUX" diff --name-only --diff-filter=AM fixed-base..series -- '*.c' '*.h')
exit $rc

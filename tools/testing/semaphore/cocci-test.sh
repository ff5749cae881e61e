#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the semantic patches: for each directory cocci/NAME/, run
# scripts/coccinelle/locks/NAME.cocci on input.c and require exactly
#   input.patched.c  in patch mode (if present), and
#   expected.report  in report mode (if present; lines sorted, file names
#                    without directory).
# The inputs also hold code that the scripts must not touch or report.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

command -v spatch >/dev/null || need_pkgs coccinelle
rc=0
for d in "$HERE"/cocci/*/; do
	name=$(basename "$d")
	script="$REPO/scripts/coccinelle/locks/$name.cocci"
	[ -f "$script" ] || { record FAIL "cocci/$name" "no $script"; rc=1; continue; }
	tmp=$(mktemp -d)
	cp "$d/input.c" "$tmp/input.c"
	if [ -f "$d/input.patched.c" ]; then
		spatch --very-quiet -D patch --sp-file "$script" --include-headers \
			"$tmp/input.c" -o "$tmp/patched.c" >"$tmp/log" 2>&1
		[ -f "$tmp/patched.c" ] || cp "$tmp/input.c" "$tmp/patched.c"
		if diff -u "$d/input.patched.c" "$tmp/patched.c" >"$tmp/diff"; then
			record PASS "cocci/$name/patch"
		else
			record FAIL "cocci/$name/patch" "output differs from input.patched.c"
			sed 's/^/    /' "$tmp/diff" "$tmp/log"
			rc=1
		fi
	fi
	for mode in report org; do
		[ -f "$d/expected.$mode" ] || continue
		(cd "$tmp" && spatch --very-quiet -D "$mode" --sp-file "$script" input.c 2>&1) |
			sort > "$tmp/$mode"
		if diff -u "$d/expected.$mode" "$tmp/$mode" >"$tmp/diff"; then
			record PASS "cocci/$name/$mode"
		else
			record FAIL "cocci/$name/$mode" "output differs from expected.$mode"
			sed 's/^/    /' "$tmp/diff"
			rc=1
		fi
	done
	rm -rf "$tmp"
done
exit $rc

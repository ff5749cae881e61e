#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile every C file that the series touches, for x86_64, in
# configurations that enable them (two: omapfb and omapdrm exclude each
# other).  One result per object.  Uses build/objcheck-{a,b}.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"

. "$HERE/objcheck.conf"

rc=0
for c in a b; do
	out="$BUILD/objcheck-$c"
	mkdir -p "$out" "$BUILD/logs"
	log="$BUILD/logs/objcheck-$c.log"
	say "objcheck $c: configuring $out"
	objcheck_configure "$LINUX" "$out" "$c" > "$log" 2>&1 || { record FAIL "objcheck/$c" "configuration failed, see $log"; rc=1; continue; }
	for o in ${opts[$c]}; do
		grep -q "^CONFIG_$o=[ym]" "$out/.config" ||
			{ record FAIL "objcheck/$c/CONFIG_$o" "not enabled by olddefconfig"; rc=1; }
	done
	say "objcheck $c: compiling ${objs[$c]}"
	for o in ${objs[$c]}; do
		if make -C "$LINUX" O="$out" ARCH=x86_64 -j"$(nproc)" "$o" >> "$log" 2>&1 &&
		   ! grep -q "^[^ ]*${o%.o}\.c:[0-9]*:[0-9]*: warning" "$log"; then
			record PASS "objcheck/$o"
		else
			record FAIL "objcheck/$o" "see $log"
			rc=1
		fi
	done
done
exit $rc

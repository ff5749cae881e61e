#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make htmldocs SPHINXDIRS=locking (python3-sphinx from Debian): the
# locking book, with Documentation/locking/semaphore.rst and the
# kernel-doc of the semaphore, must build with no warning that names a
# file of the series.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

need_pkgs python3-sphinx python3-sphinx-rtd-theme
[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"
out="$BUILD/htmldocs"
log="$BUILD/logs/htmldocs.log"
mkdir -p "$out" "$BUILD/logs"
say "htmldocs: make htmldocs SPHINXDIRS=locking (log in $log)"
if ! make -C "$LINUX" O="$out" SPHINXDIRS=locking htmldocs > "$log" 2>&1; then
	record FAIL htmldocs "make htmldocs failed, see $log"
	exit 1
fi
ours=$(series_files | sed 's/[.]/[.]/g' | paste -sd'|')
bad=$(grep -iE 'warning|error' "$log" | grep -E "$ours" || true)
if [ ! -f "$out/Documentation/output/locking/semaphore.html" ]; then
	record FAIL htmldocs "semaphore.html was not written, see $log"
	exit 1
elif [ -n "$bad" ]; then
	record FAIL htmldocs "warnings from the series' files, see $log"
	echo "$bad" | sed 's/^/    /'
	exit 1
fi
record PASS htmldocs "locking/semaphore.html, no warning from the series' files"

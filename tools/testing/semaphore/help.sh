#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make help: the targets' table of README.md (between the <!-- targets -->
# marks), as text.  README.md is the one place that describes them.
. "$(dirname "$0")/lib.sh"
echo "The two commands: make (build x86_64 and run the KUnit suites), make test (CI)."
echo "Other targets (README.md, \"Other targets\"):"
sed -n '/^<!-- targets -->$/,/^<!-- \/targets -->$/p' "$REPO/README.md" |
	sed 's/\\|/\x01/g' |
	awk -F'|' 'NR > 3 && NF > 3 {
		for (i = 2; i <= 4; i++) {
			gsub(/`/, "", $i); gsub(/^ +| +$/, "", $i); gsub(/\x01/, "|", $i)
		}
		printf "  %s\n      %s%s\n", $2, $3, ($4 == "" ? "" : " (" $4 ")")
	}'

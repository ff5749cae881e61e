#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record-step.sh NAME COMMAND...: run COMMAND and record PASS or FAIL for
# it in results.tsv; exit with its status.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

name=$1; shift
start=$(date +%s)
"$@"
rc=$?
if [ $rc -eq 0 ]; then
	record PASS "$name" "($(( $(date +%s) - start )) s)"
else
	record FAIL "$name" "exit $rc"
fi
exit $rc

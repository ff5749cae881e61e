#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test of torture.sh's report classifier, torture_reports.py, without a
# kernel: each console snippet in torture/fixtures/ (written from the
# kernel's report formats) must give the expected number of failing
# reports, how many of them are the series', the list of foreign reports
# ("first frame (count)", console order) and, where given, a word of the
# note on the first failing report.  One line per fixture, PASS or FAIL
# and its name; recorded in results.tsv when RESULTS is set (make test).
# A fixture without an expectation here fails.
set -uo pipefail
results_set=${RESULTS+set}
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || need_pkgs python3
fixtures="$HERE/torture/fixtures"
rc=0
declare -A seen

result() {
	if [ -n "$results_set" ]; then
		record "$@"
	else
		printf '%-4s %s %s\n' "$1" "$2" "${3:-}"
	fi
}

# check NAME ERRORS OURS FOREIGN [NOTE] [FILE]: classify FILE (default
# fixtures/NAME.log) and compare.
check() {
	local name=$1 errors=$2 ours=$3 foreign=$4 note=${5:-} file=${6:-$fixtures/$1.log}
	local out got_errors got_ours got_foreign got_first why=
	seen[$name]=1
	if ! out=$(python3 "$HERE/torture_reports.py" "$file" 2>&1); then
		result FAIL "torture-classify/$name" "torture_reports.py failed: $(tail -1 <<<"$out")"
		rc=1
		return
	fi
	got_errors=$(sed -n 's/^errors\t//p' <<<"$out")
	got_ours=$(sed -n 's/^ours\t//p' <<<"$out")
	got_foreign=$(sed -n 's/^list\t//p' <<<"$out")
	got_first=$(sed -n 's/^first\t//p' <<<"$out")
	[ "$got_errors" = "$errors" ] || why+=" errors $got_errors, not $errors;"
	[ "$got_ours" = "$ours" ] || why+=" ours $got_ours, not $ours;"
	[ "$got_foreign" = "$foreign" ] || why+=" foreign '$got_foreign', not '$foreign';"
	if [ -n "$note" ] && [[ $got_first != *"$note"* ]]; then
		why+=" note '$got_first' lacks '$note';"
	fi
	if [ -z "$why" ]; then
		result PASS "torture-classify/$name" "${got_first:-${got_foreign:+foreign: $got_foreign}}"
	else
		result FAIL "torture-classify/$name" "${why# }"
		rc=1
	fi
}

#     fixture                       errors ours foreign                 note
check kcsan-process_one_work        0 0 "process_one_work (1)"
check kcsan-sem_async_workfn        1 1 "" "sem_async_workfn"
check lockdep-circular-sem_shutdown 1 1 "" "circular locking dependency detected [sem_shutdown]"
check warn-lib-semaphore            1 1 "" "WARNING at lib/semaphore.c"
check warn-workqueue                0 0 "check_flush_dependency (1)"
check odebug-semaphore              1 1 "" "object type: semaphore"
# an ODEBUG report fails the run even when it names no code of the series
check odebug-work-foreign           1 0 "" "object type: work_struct hint: vmstat_update"
check hung-down                     1 1 "" "blocked for more than 122 seconds. [down]"
# locktorture's own frames and stale "? up+0x" entries are not the series'
check warn-torture-writer           0 0 "hrtimer_start_range_ns (1)"
# an Oops and its panic fail the run, whoever's code they are in
check oops-foreign                  2 0 "" "[refresh_cpu_vm_stats]"
# a whole console: two KCSAN reports counted as one entry, a hung task
# whose "Showing all locks held" list (torture_sem_*, down) is not its
# block, "Fail: 0" lines that are no failure
check mixed                         0 0 "process_one_work (2), __flush_work (1)"
# the same console as the serial port gives it, with CR LF line ends
tmp=$(mktemp)
sed 's/$/\r/' "$fixtures/mixed.log" > "$tmp"
check mixed-crlf                    0 0 "process_one_work (2), __flush_work (1)" "" "$tmp"
rm -f "$tmp"

for f in "$fixtures"/*.log; do
	name=$(basename "$f" .log)
	if [ -z "${seen[$name]:-}" ]; then
		result FAIL "torture-classify/$name" "no expectation in $(basename "$0")"
		rc=1
	fi
done
exit $rc

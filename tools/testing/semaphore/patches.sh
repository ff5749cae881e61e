#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the series to mail: git format-patch of build/linux into
# $BUILD/patches/, the base-tree fixes (base..fixed-base) and the
# semaphore series (fixed-base..series) as two series, each with a cover
# letter, each patch with the To:/Cc: lines of scripts/get_maintainer.pl.
#
# The patches are from and signed off by the sender: FROM="Name <mail>",
# else git's user.name and user.email; without either, the placeholder
# identity of the commits stays, with a warning.  The semaphore series
# is marked v4 (SERIES_VERSION).
#
# The cover letter of the semaphore series is cover-letter.txt with the
# port table and the benchmark table: build/arches.csv and build/bench.csv
# when make arches / make bench have run in this build directory, the
# copies recorded in tools/testing/semaphore/recorded/ otherwise (a clean
# clone); the letter says which.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$LINUX/.git" ] || die "$LINUX is missing: run make tree"
out=${PATCHES_OUT:-$BUILD/patches}
placeholder="Semaphore Series Developers <semaphore-dev@example.org>"
from=${FROM:-}
if [ -z "$from" ] && name=$(git config user.name) && mail=$(git config user.email); then
	from="$name <$mail>"
fi
if [ -z "$from" ]; then
	from=$placeholder
	echo "patches: warning: no FROM=\"Name <mail>\" and no git user.name/user.email:" \
		"the patches are from and signed off by the placeholder $from" >&2
fi
[[ $from =~ ^[^\<\>]+\ \<[^\<\>@\ ]+@[^\<\>@\ ]+\>$ ]] ||
	die "FROM must read \"Name <user@example.org>\", not \"$from\""
from_mail=${from##*<}
from_mail=${from_mail%>}
version=${SERIES_VERSION:-4}
rm -rf "$out"
mkdir -p "$out"

# Recipients of one patch file: maintainers and reviewers, then lists.
recipients() {
	(cd "$LINUX" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--norolestats --no-multiline --separator=', ' "$@" "$1") 2>/dev/null
}

# add_headers FILE TO CC: put To:/Cc: before the blank line that ends the
# mail headers.
add_headers() {
	local f=$1 to=$2 cc=$3
	awk -v to="$to" -v cc="$cc" '
		!done && /^$/ {
			if (to != "") print "To: " to
			if (cc != "") print "Cc: " cc
			done = 1
		}
		{ print }' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
}

# uniq_list "A, B, A, ": each address once, in first-seen order.
uniq_list() {
	echo "$1" | tr ',' '\n' | sed 's/^ *//' | awk 'NF && !s[$0]++' |
		paste -sd, | sed 's/,/, /g'
}

# csv_table FILE: a CSV file as aligned text columns, "-" for an empty
# cell (no quoted commas in our tables).
csv_table() {
	awk -F, -v OFS=, '{ for (i = 1; i <= NF; i++) if ($i == "") $i = "-"; print }' "$1" |
		column -t -s, | sed 's/^/  /; s/ *$//'
}

# table NAME TARGET: the table of build/NAME.csv, or of the recorded copy.
table() {
	local name=$1 target=$2
	if [ -f "$BUILD/$name.csv" ]; then
		echo "  (measured by $target in this build directory)"
		echo
		csv_table "$BUILD/$name.csv"
	elif [ -f "$HERE/recorded/$name.csv" ]; then
		echo "  (recorded: tools/testing/semaphore/recorded/$name.csv, see its README)"
		echo
		csv_table "$HERE/recorded/$name.csv"
	else
		die "no $name table: neither $BUILD/$name.csv nor $HERE/recorded/$name.csv"
	fi
}

# sign FILE: the sender instead of the placeholder in From:,
# Signed-off-by: and a cover letter's shortlog ("Name (N):").
sign() {
	FROM_ID=$from PLACEHOLDER=$placeholder python3 - "$1" <<'EOF'
import os, re, sys
path = sys.argv[1]
who, old = os.environ['FROM_ID'], os.environ['PLACEHOLDER']
text = open(path).read()
head, sep, body = text.partition('\n\n')
head = head.replace('From: ' + old, 'From: ' + who)
body = body.replace('Signed-off-by: ' + old, 'Signed-off-by: ' + who)
if path.endswith('/0000-cover-letter.patch'):
    name = re.escape(old.split(' <')[0])
    body = re.sub('^' + name + r'( \(\d+\):)$', who.split(' <')[0] + r'\1',
                  body, flags=re.M)
open(path, 'w').write(head + sep + body)
EOF
}

# series NAME RANGE SUBJECT BODY_FILE PREFIX
series() {
	local name=$1 range=$2 subject=$3 body=$4 prefix=$5 dir="$out/$1" f all_to="" all_cc=""
	local n
	n=$(git -C "$LINUX" rev-list --count "$range")
	[ "$n" -gt 0 ] || { say "patches: $name: no commits in $range"; return 0; }
	git -C "$LINUX" -c user.name="${from% <*}" -c user.email="$from_mail" \
		format-patch -q --cover-letter --thread=shallow \
		--base="${range%%..*}" --subject-prefix="$prefix" -o "$dir" "$range" ||
		die "git format-patch $range failed"
	for f in "$dir"/0*.patch; do
		sign "$f"
		case "$f" in */0000-cover-letter.patch) continue ;; esac
		local to cc
		to=$(recipients "$f" --m --r --no-l)
		cc=$(recipients "$f" --no-m --no-r --l)
		add_headers "$f" "$to" "$cc"
		all_to+="${to:+$to, }"
		all_cc+="${cc:+$cc, }"
	done
	all_to=$(uniq_list "$all_to")
	all_cc=$(uniq_list "$all_cc")
	f="$dir/0000-cover-letter.patch"
	python3 - "$f" "$subject" "$body" <<'EOF'
import sys
path, subject, body = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
text = open(path).read()
text = text.replace('*** SUBJECT HERE ***', subject, 1)
text = text.replace('*** BLURB HERE ***', body.rstrip('\n'), 1)
open(path, 'w').write(text)
EOF
	add_headers "$f" "$all_to" "$all_cc"
	if grep -q '\*\*\* .* HERE \*\*\*' "$f"; then
		die "$f still holds a format-patch placeholder"
	fi
	say "patches: $name: $n patches and a cover letter in $dir"
	ls "$dir" | sed 's/^/  /'
}

fixes_body=$(mktemp)
cat > "$fixes_body" <<'EOF'
Debian's 6.12.118 does not build for two of the architectures that
kunit.py boots under QEMU.  These two fixes make alpha and 32-bit sparc
build again; they are independent of the semaphore series that follows
and are sent apart from it.  The base-commit below is that source tree
committed as it is (Linux 6.12.118 with Debian's patches), not a commit
of the stable tree.
EOF
series fixes base..fixed-base \
	"Build fixes for alpha and 32-bit sparc" "$fixes_body" PATCH

body=$(mktemp)
{
	sed -n '/^---8<---$/,$p' "$HERE/cover-letter.txt" | sed '1d'
	echo
	echo "Ports (make arches: build seconds, boot, KUnit cases passed/failed/skipped,"
	echo "sparse warnings in the series' files, compiler, pass):"
	echo
	table arches "make arches"
	echo
	echo "Benchmark (make bench under QEMU; ns, operations per second or a ratio;"
	echo "ratio = patched / pristine; single-thread and workload ns are guest"
	echo "instructions under -icount; _llsc: arm64 -cpu cortex-a57, without LSE;"
	echo "printk_*, xfs_*: the real workloads of workload.sh, per record or file):"
	echo
	table bench "make bench"
} > "$body"
series semaphore fixed-base..series \
	"$(sed -n 's/^Subject: //p' "$HERE/cover-letter.txt")" "$body" "PATCH v$version"
say "patches: from and signed off by $from"
if [ "$from" != "$placeholder" ] &&
   left=$(grep -rl -e "${placeholder% <*}" -e "${placeholder#*<}" "$out"); then
	die "the placeholder identity is left in: $left"
fi
rm -f "$fixes_body" "$body"

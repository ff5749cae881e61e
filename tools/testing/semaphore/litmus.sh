#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make litmus: the semaphore's ordering claims, checked by herd7 against
# the Linux-kernel memory model of build/linux (tools/memory-model).  Each
# test of Documentation/litmus-tests/semaphore/ declares its verdict in a
# comment line "Result: Never|Sometimes|Always" (DATARACE after it if the
# model must flag a data race), as the LKMM's own tests do; the verdict of
# "herd7 -conf linux-kernel.cfg" must be that one, judged as
# tools/memory-model/scripts/judgelitmus.sh judges it (a test with no
# execution at all fails too).  One result per test, then:
#   litmus/twins     every claim (Result: Never) NAME.litmus has at least
#                    one negative twin NAME-weak[-WHAT].litmus: the same
#                    test (same exists clause) with a barrier or an
#                    acquire/release weakened, declared Sometimes, so that
#                    a claim that cannot fail is caught;
#   litmus/comments  every test names the code it models (FILE:FUNCTION()).
#
# herd7: the one on PATH, else the one built before in build/herdtools7,
# else built there (once, 5 minutes on 2 cores) from HERDTOOLS_SRC, a
# herdtools7 source tarball or directory (7.56.1 or later; .ci/run sets
# it to shared/tools/herdtools7-*.tar.gz).  With neither, the tier is
# recorded as skipped.
#
# Usage: litmus.sh [TEST.litmus...] (default: all of them)
# Environment: HERDTOOLS_SRC, LITMUS_TIMEOUT (seconds per test, 600).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TESTS="$REPO/Documentation/litmus-tests/semaphore"
MODEL="$LINUX/tools/memory-model"
HERD_DIR="$BUILD/herdtools7"
OUT="$BUILD/litmus"
BUILD_LOG="$BUILD/logs/herdtools7-build.log"
LITMUS_TIMEOUT=${LITMUS_TIMEOUT:-600}
HERD_PKGS=(ocaml-nox ocaml-dune menhir libmenhir-ocaml-dev ocaml-findlib
	   libzarith-ocaml-dev)

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
start=$(now)

# build_herd SRC: herdtools7's herd7 from SRC (tarball or directory) into
# $HERD_DIR, with a wrapper bin/herd7 that sets HERDLIB.  The wrapper is
# written last: an interrupted build is redone next time.
build_herd() {
	local src=$1 tree="$HERD_DIR/src" t0
	t0=$(now)
	need_pkgs "${HERD_PKGS[@]}"
	rm -rf "$HERD_DIR"
	mkdir -p "$tree" "$(dirname "$BUILD_LOG")"
	if [ -d "$src" ]; then
		tar -C "$src" --exclude=./_build -cf - . | tar -x -C "$tree"
	else
		tar -xf "$src" -C "$tree" --strip-components=1
	fi || { echo "cannot unpack $src" > "$BUILD_LOG"; return 1; }
	[ -f "$tree/herd/dune" ] || { echo "$src is not a herdtools7 source tree" > "$BUILD_LOG"; return 1; }
	say "building herd7 from $src in $HERD_DIR (once; about 5 min on 2 cores; log $BUILD_LOG)"
	(
		cd "$tree" &&
		sh ./version-gen.sh /usr/local &&
		dune build -j "$(nproc)" --profile release herd/herd.exe
	) > "$BUILD_LOG" 2>&1 || return 1
	mkdir -p "$HERD_DIR/bin"
	cat > "$HERD_DIR/bin/herd7.tmp" <<-EOF
	#!/bin/sh
	# herd7 of $src, built by litmus.sh
	HERDLIB="$tree/herd/libdir" exec "$tree/_build/default/herd/herd.exe" "\$@"
	EOF
	chmod +x "$HERD_DIR/bin/herd7.tmp"
	"$HERD_DIR/bin/herd7.tmp" -version >/dev/null 2>&1 || return 1
	mv "$HERD_DIR/bin/herd7.tmp" "$HERD_DIR/bin/herd7"
	echo "$src" > "$HERD_DIR/SOURCE"
	say "herd7 built in $(secs "$t0" "$(now)") s"
}

# The herd7 to use, in $herd.
herd=
if command -v herd7 >/dev/null; then
	herd=$(command -v herd7)
elif [ -x "$HERD_DIR/bin/herd7" ]; then
	herd="$HERD_DIR/bin/herd7"
elif [ -n "${HERDTOOLS_SRC:-}" ]; then
	if [ ! -e "$HERDTOOLS_SRC" ]; then
		record FAIL litmus "HERDTOOLS_SRC=$HERDTOOLS_SRC does not exist"
		exit 1
	fi
	if ! build_herd "$HERDTOOLS_SRC"; then
		tail -20 "$BUILD_LOG" 2>/dev/null | sed 's/^/    /'
		record FAIL litmus "herd7 did not build from HERDTOOLS_SRC=$HERDTOOLS_SRC (log: $BUILD_LOG)"
		exit 1
	fi
	herd="$HERD_DIR/bin/herd7"
else
	record SKIP litmus "no herd7: neither herd7 on PATH nor HERDTOOLS_SRC=<herdtools7 tarball or source directory> (e.g. shared/tools/herdtools7-7.57.tar.gz) to build it into $HERD_DIR"
	exit 0
fi
say "herd7: $herd ($("$herd" -version 2>/dev/null | head -1))"

[ -f "$MODEL/linux-kernel.cfg" ] || {
	record FAIL litmus "no memory model in $MODEL: run make tree"
	exit 1
}

# Result comment, exists clause and header name of a test.
declared() { grep -m1 '^[( ]\* Result: ' "$1" | awk '{ print $3 }'; }
exists_clause() {
	sed -n '/^[[:space:]]*exists/,$p' "$1" | sed 's/(\*.*\*)//g' |
		tr -s ' \t\n' ' ' | sed 's/ $//'
}

if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=("$TESTS"/*.litmus)
	[ -e "${tests[0]}" ] || { record FAIL litmus "no tests in $TESTS"; exit 1; }
fi
mkdir -p "$OUT"
rc=0
n=${#tests[@]}
i=0
states_all=0
for f in "${tests[@]}"; do
	i=$((i + 1))
	f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
	name=$(basename "$f" .litmus)
	progress "$i" "$n" "$name"
	out="$OUT/$name.litmus.out"
	t0=$(now)
	(cd "$MODEL" && timeout "$LITMUS_TIMEOUT" "$herd" -conf linux-kernel.cfg "$f") > "$out" 2>&1
	hrc=$?
	t=$(secs "$t0" "$(now)")
	want=$(declared "$f")
	obs=$(grep -m1 '^Observation ' "$out")
	read -r _ _ got pos neg <<<"$obs"
	states=$(awk '/^States / { print $2; exit }' "$out")
	racy=
	grep -q '^Flag data-race$' "$out" && racy=1
	racy_want=
	grep -m1 '^[( ]\* Result: ' "$f" | grep -q DATARACE && racy_want=1
	header=$(awk 'NF { print $2; exit }' "$f")
	why=
	if [ $hrc -eq 124 ]; then
		why="timed out after $LITMUS_TIMEOUT s"
	elif [ -z "$obs" ]; then
		why="herd7 failed: $(grep -v '^$' "$out" | head -1)"
	elif [ -z "$want" ]; then
		why="no \"Result:\" comment"
	elif [ "$header" != "$name" ]; then
		why="the test is named $header, its file $name.litmus"
	elif [ "$pos" = 0 ] && [ "$neg" = 0 ]; then
		why="no execution at all (a deadlock or an impossible filter)"
	elif [ -n "$racy" ] && [ -z "$racy_want" ]; then
		why="unexpected data race"
	elif [ -z "$racy" ] && [ -n "$racy_want" ]; then
		why="predicted data race not flagged"
	elif [ "$got" != "$want" ]; then
		why="herd7 says $got ($pos of $((pos + neg)) executions), the test declares $want"
	fi
	states_all=$((states_all + ${states:-0}))
	if [ -z "$why" ]; then
		record PASS "litmus/$name" "$got, $states states, $t s"
	else
		record FAIL "litmus/$name" "$why (output: $out)"
		rc=1
	fi
done

# Each claim its twin, each twin its claim and the claim's outcome.
if [ $# -eq 0 ]; then
	problems=()
	claims=0 twins=0
	for f in "${tests[@]}"; do
		name=$(basename "$f" .litmus)
		if [[ $name =~ ^(.+)-weak(-[A-Za-z0-9+]+)?$ ]]; then
			twins=$((twins + 1))
			claim="$TESTS/${BASH_REMATCH[1]}.litmus"
			[ "$(declared "$f")" = Sometimes ] ||
				problems+=("$name: a twin must declare Sometimes")
			if [ ! -f "$claim" ]; then
				problems+=("$name: no claim ${BASH_REMATCH[1]}.litmus")
			elif [ "$(exists_clause "$f")" != "$(exists_clause "$claim")" ]; then
				problems+=("$name: its exists clause is not its claim's")
			fi
		else
			claims=$((claims + 1))
			[ "$(declared "$f")" = Never ] ||
				problems+=("$name: a claim must declare Never")
			compgen -G "$TESTS/$name-weak*.litmus" >/dev/null ||
				problems+=("$name: no negative twin $name-weak[-WHAT].litmus")
		fi
	done
	if [ ${#problems[@]} -eq 0 ]; then
		record PASS litmus/twins "$claims claims, $twins negative twins"
	else
		record FAIL litmus/twins "$(IFS=';'; echo "${problems[*]}" | sed 's/;/; /g')"
		rc=1
	fi
	missing=()
	for f in "${tests[@]}"; do
		grep -qE '(lib|kernel)/[a-z_/]+\.c:[a-z_0-9]+\(\)' "$f" ||
			missing+=("$(basename "$f")")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		record PASS litmus/comments "every test names the functions it models"
	else
		record FAIL litmus/comments "no FILE.c:FUNCTION() named in ${missing[*]}"
		rc=1
	fi
fi
say "litmus: $n tests, $states_all states, $(secs "$start" "$(now)") s (herd7 outputs in $OUT)"
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse (make C=2) over every C file the series touches, on the pristine
# tree and on the patched tree, x86_64, in the configurations of
# objcheck.sh.  Prints both counts; fails if the patched tree has more
# sparse warnings than the pristine one in those files, or any in a file
# the series adds.
#
# Build directories: build/objcheck-{a,b} (patched, shared with
# objcheck.sh) and build/sparse-pristine-{a,b}.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

command -v sparse >/dev/null || need_pkgs sparse
[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"
[ -d "$PRISTINE" ] || die "build/pristine is missing: run make tree"

# The configurations are objcheck.sh's; the pristine tree has the old
# semaphore and no async suite or sample.
. "$HERE/objcheck.conf"
# The objects that the pristine test tree does not have.
new_objs=$(series_objs --from pristine-kunit --filter A)
new_objs=${new_objs//$'\n'/ }

# sparse_count TREE_DIR OUT CONFIG OBJS...: warnings per object on stdout
# as "OBJ COUNT"; the configuration is made if missing.
sparse_count() {
	local tree=$1 out=$2 c=$3 o log
	shift 3
	log="$BUILD/logs/sparse-$(basename "$out").log"
	mkdir -p "$out" "$BUILD/logs"
	: > "$log"
	if [ ! -f "$out/.config" ]; then
		objcheck_configure "$tree" "$out" "$c" >> "$log" 2>&1 || die "configuring $out failed, see $log"
	fi
	for o in "$@"; do
		local before after
		before=$(wc -l < "$log")
		make -C "$tree" O="$out" ARCH=x86_64 -j"$(nproc)" C=2 "$o" >> "$log" 2>&1 ||
			{ echo "$o build-failed"; continue; }
		after=$(tail -n +"$((before + 1))" "$log" |
			grep -E ':[0-9]+:[0-9]+: (warning|error):' | grep -vc '\[-W')
		echo "$o $after"
	done
}

rc=0
total_p=0
total_q=0
for c in a b; do
	pobjs=()
	qobjs=()
	for o in ${objs[$c]}; do
		qobjs+=("$o")
		case " $new_objs " in *" $o "*) continue ;; esac
		pobjs+=("$o")
	done
	[ "$c" = a ] && pobjs+=(kernel/locking/semaphore.o)
	say "sparse $c: pristine tree"
	declare -A pcount=()
	while read -r o n; do
		pcount[$o]=$n
	done < <(sparse_count "$PRISTINE" "$BUILD/sparse-pristine-$c" "$c" "${pobjs[@]}")
	say "sparse $c: patched tree"
	while read -r o n; do
		p=${pcount[$o]:-}
		if [ "$o" = lib/semaphore.o ]; then
			p=${pcount[kernel/locking/semaphore.o]:-}
		fi
		printf '  %-48s pristine %-4s patched %s\n' "$o" "${p:--}" "$n"
		if [ "$n" = build-failed ]; then
			record FAIL "sparse/$o" "does not build with C=2, see $BUILD/logs/sparse-objcheck-$c.log"
			rc=1
		elif [ -z "$p" ] && [ "$n" -gt 0 ]; then
			record FAIL "sparse/$o" "$n sparse warnings in a new file, see $BUILD/logs/sparse-objcheck-$c.log"
			rc=1
		elif [ -n "$p" ] && [ "$p" != build-failed ] && [ "$n" -gt "$p" ]; then
			record FAIL "sparse/$o" "$n sparse warnings, pristine $p; see $BUILD/logs/sparse-objcheck-$c.log"
			rc=1
		else
			record PASS "sparse/$o" "pristine ${p:--}, patched $n"
		fi
		[ "$n" != build-failed ] && total_q=$((total_q + n))
		[ -n "$p" ] && [ "$p" != build-failed ] && total_p=$((total_p + p))
	done < <(sparse_count "$LINUX" "$BUILD/objcheck-$c" "$c" "${qobjs[@]}")
	unset pcount
done
echo "sparse warnings in the touched files: pristine $total_p, patched $total_q"
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test's pipeline step: what the workstation promises, checked
# without a kernel build, on a scratch tree made from build/linux's base.
#
#   pipeline/remembered-base  without KERNEL_SRC, a tree made from another
#                             base keeps it and its commits not written back
#   pipeline/unwritten-commit a rebuild refuses while "series" holds commits
#                             not written back, and names writeback and FORCE=1
#   pipeline/new-file         ... and a new (ignored) or a changed file
#   pipeline/changed-file
#   pipeline/base-change      a different KERNEL_SRC refuses without FORCE=1
#   pipeline/written-back     commits that make writeback wrote are rebuilt over
#   pipeline/force            FORCE=1 discards on purpose
#   pipeline/clean            make clean refuses over a commit not written back
#   pipeline/deps-nonroot     make test as a user who is not root, with
#                             packages missing: one sudo line that names all
#                             of them, and nothing built
#   pipeline/patches-from     make patches FROM= leaves no placeholder identity
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$LINUX/.git/semaphore-base.stamp" ] || die "$LINUX is missing: run make tree"
tmp=$(mktemp -d "$BUILD/pipeline.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
scratch="$tmp/linux"
out="$tmp/out"

check() {	# NAME DETAIL: PASS if the last command succeeded
	local ok=$? name=$1 detail=$2
	if [ $ok -eq 0 ]; then
		record PASS "pipeline/$name"
	else
		record FAIL "pipeline/$name" "$detail (output: $(tail -4 "$out" | paste -sd' '))"
	fi
}
mktree() { env -u KERNEL_SRC -u BASE_FROM -u FORCE "$@" "$HERE/mktree.sh" "$scratch" > "$out" 2>&1; }
sgit() { git -C "$scratch" "$@"; }
head_is() { local h; h=$(sgit rev-parse -q --verify HEAD) && [ -n "$1" ] && [ "$h" = "$1" ]; }
says() { grep -q -- "$1" "$out"; }
inputs_changed() { echo changed > "$scratch/.git/semaphore-series.stamp"; }
edit_commit() {
	echo "/* $1 */" >> "$scratch/lib/semaphore.c"
	sgit -c user.name=Dev -c user.email=dev@example.org commit -q -a -m "$1"
	sgit rev-parse HEAD
}

say "pipeline: a scratch tree from the base of $LINUX"
if ! BASE_FROM=$LINUX "$HERE/mktree.sh" "$scratch" > "$out" 2>&1; then
	record FAIL pipeline/scratch "mktree.sh with BASE_FROM failed: $(tail -3 "$out" | paste -sd' ')"
	exit 0
fi

# A new shell: no KERNEL_SRC, no BASE_FROM, and Debian's tarball is not
# there (as for a tree made from the developer's own KERNEL_SRC).
base_id=$(cat "$scratch/.git/semaphore-base.stamp")
mine=$(edit_commit "work not written back")
mktree TARBALL="$tmp/gone.tar.xz"
rc=$?
[ $rc -eq 0 ] && head_is "$mine" && says "not written back" &&
	[ "$(cat "$scratch/.git/semaphore-base.stamp")" = "$base_id" ]
check remembered-base "a run without KERNEL_SRC did not keep the tree and its commit"

inputs_changed
mktree
rc=$?
[ $rc -ne 0 ] && head_is "$mine" && says "make writeback" && says "FORCE=1"
check unwritten-commit "a rebuild over a commit not written back did not refuse"

sgit reset -q --hard "$(cat "$scratch/.git/semaphore-built")"
echo "new" > "$scratch/lib/semaphore_new.c"
mktree
rc=$?
[ $rc -ne 0 ] && [ -f "$scratch/lib/semaphore_new.c" ]
check new-file "a rebuild over a new file did not refuse"
rm -f "$scratch/lib/semaphore_new.c"

echo "/* changed */" >> "$scratch/lib/semaphore.c"
mktree
rc=$?
[ $rc -ne 0 ] && grep -q "changed \*/" "$scratch/lib/semaphore.c"
check changed-file "a rebuild over a changed file did not refuse"
sgit checkout -q -- lib/semaphore.c

mkdir -p "$tmp/other-base"
touch "$tmp/other-base/Makefile"
built=$(sgit rev-parse HEAD)
mktree KERNEL_SRC="$tmp/other-base"
rc=$?
[ $rc -ne 0 ] && head_is "$built" && says "another base"
check base-change "a different KERNEL_SRC did not refuse"

mine=$(edit_commit "written back")
echo "$mine" > "$scratch/.git/semaphore-written"
inputs_changed
mktree
rc=$?
[ $rc -eq 0 ] && head_is "$(cat "$scratch/.git/semaphore-built")" && ! head_is "$mine"
check written-back "a rebuild over written-back commits did not happen"

edit_commit "discarded" >/dev/null
echo "/* dirty */" >> "$scratch/lib/semaphore.c"
mktree FORCE=1 BASE_FROM="$LINUX"
rc=$?
[ $rc -eq 0 ] && head_is "$(cat "$scratch/.git/semaphore-built")" &&
	[ -z "$(sgit status --porcelain)" ]
check force "FORCE=1 did not rebuild"
rm -rf "$scratch"

# make clean over a tree with a commit not written back.
mkdir -p "$tmp/cb/linux"
git -C "$tmp/cb/linux" init -q
git -C "$tmp/cb/linux" -c user.name=Dev -c user.email=dev@example.org commit -q --allow-empty -m built
git -C "$tmp/cb/linux" rev-parse HEAD > "$tmp/cb/linux/.git/semaphore-built"
git -C "$tmp/cb/linux" -c user.name=Dev -c user.email=dev@example.org commit -q --allow-empty -m mine
make -C "$REPO" --no-print-directory clean BUILD="$tmp/cb" > "$out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ -d "$tmp/cb/linux/.git" ] && says "make writeback"
check clean "make clean deleted a tree with a commit not written back"

# make test as nobody, every package missing (a dpkg that knows none).
copy="$tmp/repo"
mkdir -p "$copy" "$tmp/bin" "$tmp/nb"
git -C "$REPO" ls-files -z | (cd "$REPO" && xargs -0 tar -cf - --) | tar -x -C "$copy"
printf '#!/bin/sh\nexit 1\n' > "$tmp/bin/dpkg"
chmod 755 "$tmp/bin/dpkg" "$tmp"
chmod -R a+rX "$copy"
chown 65534:65534 "$tmp/nb"
setpriv --reuid=65534 --regid=65534 --clear-groups env -u KERNEL_SRC -u RESULTS \
	PATH="$tmp/bin:$PATH" HOME="$tmp/nb" make -C "$copy" test BUILD="$tmp/nb" > "$out" 2>&1
rc=$?
line=$(grep 'sudo apt-get install' "$out" || true)
[ $rc -ne 0 ] && [ "$(grep -c 'sudo apt-get install' "$out")" -eq 1 ] &&
	[[ $line == *" busybox-static"* && $line == *" sparse"* && $line == *" qemu-system-x86"* &&
	   $line == *" libc6-dev"* && $line == *" coccinelle"* ]] && [ ! -e "$tmp/nb/linux" ]
check deps-nonroot "make test as nobody did not stop with one full sudo line"

PATCHES_OUT="$tmp/patches" FROM="Jane Developer <jane@example.com>" \
	"$HERE/patches.sh" > "$out" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -rq -e "Semaphore Series Developers" -e "semaphore-dev@example.org" \
	"$tmp/patches" && [ "$(grep -l '^Jane Developer ([0-9]*):$' "$tmp"/patches/*/0000-cover-letter.patch |
	wc -l)" -eq 2 ]
check patches-from "make patches FROM= left the placeholder identity"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn a pristine kernel tree into the patched one, as a git repository:
# the pristine base as one commit, then the base-tree fixes, then the
# semaphore series, one commit per directory of
# tools/testing/semaphore/{base-fixes,series}/.
#
# A commit directory holds:
#   message     the commit message (subject, body, Signed-off-by)
#   remove      paths to delete, one per line (optional)
#   copy        repository paths to copy into the tree, one per line
#   *.patch     diffs, applied in name order with git apply: for
#               Makefiles, Kconfig, MAINTAINERS and doc indexes, and for
#               a later change to a file that an earlier commit copies
#               (the repository holds each file in its final form, so a
#               copy made by an earlier commit gets the later diffs that
#               touch it applied in reverse)
#   spatch      semantic patches to apply, one per line: a .cocci file
#               (in the commit directory, or a repository path) followed
#               by the tree files to apply it to; every file must change
# Commits of base-fixes/ repair the base tree itself (a port that does
# not build); they come before the series and end at tag "fixed-base".
#
#   pristine    marks commits that also make up the pristine test tree
#               (base, base-tree fixes and the classic KUnit suite); they
#               come first, and every base-fixes commit counts as one
#
# Usage: mktree.sh TREE_DIR
# Environment: KERNEL_SRC (a kernel source directory; default: Debian's
# /usr/src/linux-source-6.12.tar.xz), FORCE=1 to rebuild from scratch.
#
# The result is deterministic: the same inputs give the same commit ids.
# A stamp of the inputs makes a second run with nothing changed a no-op.

set -euo pipefail

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
HERE="$REPO/tools/testing/semaphore"
TREE=${1:?usage: mktree.sh TREE_DIR}
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KERNEL_SRC=${KERNEL_SRC:-}

AUTHOR="Semaphore Series Developers <semaphore-dev@example.org>"
export GIT_AUTHOR_NAME="${AUTHOR% <*}" GIT_COMMITTER_NAME="${AUTHOR% <*}"
export GIT_AUTHOR_EMAIL=semaphore-dev@example.org
export GIT_COMMITTER_EMAIL=semaphore-dev@example.org
# Fixed dates, one second apart, so that commit ids are reproducible.
EPOCH=1767225600

die() { echo "mktree: error: $*" >&2; exit 1; }
say() { echo "mktree: $*"; }

git_tree() { git -C "$TREE" -c core.autocrlf=false "$@"; }

commit_at() {
	local n=$1; shift
	GIT_AUTHOR_DATE="@$((EPOCH + n)) +0000" \
	GIT_COMMITTER_DATE="@$((EPOCH + n)) +0000" git_tree commit -q "$@"
}

# Identify the base, to know when it changed.
if [ -n "$KERNEL_SRC" ]; then
	[ -f "$KERNEL_SRC/Makefile" ] || die "KERNEL_SRC=$KERNEL_SRC is not a kernel tree"
	KERNEL_SRC=$(cd "$KERNEL_SRC" && pwd)
	if git -C "$KERNEL_SRC" rev-parse HEAD >/dev/null 2>&1; then
		base_id="git:$KERNEL_SRC:$(git -C "$KERNEL_SRC" rev-parse HEAD)"
	else
		base_id="dir:$KERNEL_SRC:$(stat -c %Y "$KERNEL_SRC/Makefile")"
	fi
else
	[ -f "$TARBALL" ] || die "$TARBALL not found: install linux-source-6.12 (make deps) or set KERNEL_SRC"
	base_id="tar:$TARBALL:$(stat -c %s:%Y "$TARBALL")"
fi

# Every input of the series: its directories and the files they copy.
inputs_hash() {
	{
		echo "$base_id"
		cat "$HERE/mktree.sh"
		for d in "$HERE"/base-fixes/*/ "$HERE"/series/*/; do
			[ -d "$d" ] || continue
			echo "== $d"
			(cd "$d" && for f in *; do echo "-- $f"; cat "$f"; done)
			if [ -f "$d/copy" ]; then
				while read -r f; do
					[ -n "$f" ] || continue
					echo "-- copy $f"
					cat "$REPO/$f" 2>/dev/null || echo "MISSING $f"
				done < "$d/copy"
			fi
		done
		for f in "$HERE"/base-fixes/*/spatch "$HERE"/series/*/spatch; do
			[ -f "$f" ] || continue
			while read -r script _; do
				[ -n "$script" ] || continue
				cat "$(dirname "$f")/$script" "$REPO/$script" 2>/dev/null
			done < "$f"
		done
		true
	} | sha256sum | cut -d' ' -f1
}

stamp=$(inputs_hash)
stamp_file="$TREE/.git/semaphore-series.stamp"
if [ -z "${FORCE:-}" ] && [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] &&
   [ -z "$(git_tree status --porcelain 2>/dev/null)" ]; then
	say "tree $TREE is up to date ($(git_tree rev-list --count base..HEAD) commits on the base)"
	exit 0
fi

# The pristine base, as one commit tagged "base".  Reused if unchanged.
base_stamp="$TREE/.git/semaphore-base.stamp"
if [ -n "${FORCE:-}" ] || [ ! -f "$base_stamp" ] || [ "$(cat "$base_stamp")" != "$base_id" ]; then
	say "preparing the pristine base in $TREE from ${KERNEL_SRC:-$TARBALL}"
	rm -rf "$TREE"
	mkdir -p "$TREE"
	if [ -n "$KERNEL_SRC" ]; then
		if git -C "$KERNEL_SRC" rev-parse HEAD >/dev/null 2>&1; then
			git -C "$KERNEL_SRC" archive --format=tar HEAD | tar -x -C "$TREE"
		else
			tar -C "$KERNEL_SRC" --exclude=.git -cf - . | tar -x -C "$TREE"
		fi
	else
		tar -xf "$TARBALL" -C "$TREE" --strip-components=1
	fi
	version=$(make -s -C "$TREE" kernelversion 2>/dev/null || echo unknown)
	say "base is Linux $version; committing it (takes a minute)"
	git_tree init -q -b base-tree
	git_tree config core.autocrlf false
	git_tree config gc.auto 0
	git_tree add -A -f .
	commit_at 0 -m "Linux $version (pristine base)" \
		-m "Unpacked from ${KERNEL_SRC:-$TARBALL}."
	git_tree tag -f base >/dev/null
	echo "$base_id" > "$base_stamp"
fi

# Re-applying rewrites every file the series touches.  Remember their
# modification times, so that files that end up unchanged keep them and
# the kernel builds in build/<arch> do not recompile for nothing.
old_head=$(git_tree rev-parse -q --verify series || true)
mtimes="$TREE/.git/semaphore-mtimes"
: > "$mtimes"
if [ -n "$old_head" ]; then
	git_tree diff --name-only base "$old_head" | while read -r f; do
		[ -f "$TREE/$f" ] && printf '%s\t%s\n' "$(stat -c %Y "$TREE/$f")" "$f"
	done > "$mtimes"
fi

say "applying the series on the base"
git_tree checkout -q -f -B series base
git_tree clean -q -f -d -x
git_tree tag -d pristine-kunit >/dev/null 2>&1 || true
# "fixed-base": the base with the base-tree fixes, where the semaphore
# series itself starts (the base when there are no fixes).
git_tree tag -f fixed-base >/dev/null

all_dirs=()
for d in "$HERE"/base-fixes/*/ "$HERE"/series/*/; do
	[ -d "$d" ] && all_dirs+=("${d%/}")
done

# unpatch_later DIR FILE: FILE was just copied into the tree in its final
# form by the commit of DIR; undo, newest first, what the diffs of later
# commits change in it, so that each commit holds the file as it was then.
unpatch_later() {
	local d=$1 f=$2 i p
	for ((i = ${#all_dirs[@]} - 1; i >= 0; i--)); do
		[ "${all_dirs[i]}" = "$d" ] && break
		for p in $(ls -r "${all_dirs[i]}"/*.patch 2>/dev/null); do
			grep -qxF "+++ b/$f" "$p" || continue
			if ! git_tree apply -R --include="$f" --whitespace=nowarn "$p" \
					2>"$TREE/.git/apply.err"; then
				cat "$TREE/.git/apply.err" >&2
				die "$(basename "$d"): cannot take $(basename "${all_dirs[i]}")/$(basename "$p") back out of $f"
			fi
		done
	done
}

n=0
seen_non_pristine=
apply_commit() {
	local d=$1 name subject f p
	name=$(basename "$d")
	[ -f "$d/message" ] || die "$name: no message file"
	subject=$(head -n1 "$d/message")
	n=$((n + 1))
	printf 'mktree: [%2d] %s\n' "$n" "$subject"

	if [ -f "$d/remove" ]; then
		while read -r f; do
			[ -n "$f" ] || continue
			[ -e "$TREE/$f" ] || die "$name: cannot remove $f: not in the tree"
			git_tree rm -q -- "$f"
		done < "$d/remove"
	fi
	if [ -f "$d/copy" ]; then
		while read -r f; do
			[ -n "$f" ] || continue
			[ -f "$REPO/$f" ] || die "$name: $f is not in the repository"
			mkdir -p "$(dirname "$TREE/$f")"
			cp "$REPO/$f" "$TREE/$f"
			unpatch_later "$d" "$f"
			# Forced: Debian's tree ignores everything new.
			git_tree add -f -- "$f"
		done < "$d/copy"
	fi
	for p in "$d"/*.patch; do
		[ -f "$p" ] || continue
		if ! git_tree apply --index --whitespace=nowarn "$p" 2>"$TREE/.git/apply.err"; then
			cat "$TREE/.git/apply.err" >&2
			die "$name: $(basename "$p") does not apply to this tree"
		fi
	done
	if [ -f "$d/spatch" ]; then
		local script files
		while read -r script files; do
			[ -n "$script" ] || continue
			if [ -f "$d/$script" ]; then
				p="$d/$script"
			elif [ -f "$REPO/$script" ]; then
				p="$REPO/$script"
			else
				die "$name: semantic patch $script not found"
			fi
			local paths=()
			for f in $files; do
				[ -f "$TREE/$f" ] || die "$name: $f (for $script) is not in the tree"
				paths+=("$f")
			done
			[ ${#paths[@]} -gt 0 ] || die "$name: no files for $script"
			if ! (cd "$TREE" && spatch --very-quiet -D patch --sp-file "$p" \
					--include-headers --in-place "${paths[@]}") \
					>"$TREE/.git/spatch.log" 2>&1; then
				cat "$TREE/.git/spatch.log" >&2
				die "$name: spatch $script failed"
			fi
			for f in "${paths[@]}"; do
				git_tree diff --quiet -- "$f" &&
					die "$name: $script did not change $f"
			done
		done < "$d/spatch"
	fi

	git_tree add -u .
	git_tree diff --cached --quiet && die "$name: the commit is empty"
	commit_at "$n" -F "$d/message"

	if [ -f "$d/pristine" ] || [[ $d == */base-fixes/* ]]; then
		[ -z "$seen_non_pristine" ] || die "$name: pristine commits must come first"
		git_tree tag -f pristine-kunit >/dev/null
		if [[ $d == */base-fixes/* ]]; then
			git_tree tag -f fixed-base >/dev/null
		fi
	else
		seen_non_pristine=1
	fi
}

for d in "${all_dirs[@]}"; do
	apply_commit "$d"
done

if [ -n "$old_head" ]; then
	while IFS=$'\t' read -r t f; do
		if [ -f "$TREE/$f" ] &&
		   [ "$(git_tree rev-parse -q --verify "$old_head:$f")" = \
		     "$(git_tree rev-parse -q --verify "HEAD:$f")" ]; then
			touch -m -d "@$t" "$TREE/$f"
		fi
	done < "$mtimes"
fi

git_tree rev-parse -q --verify pristine-kunit >/dev/null ||
	die "no commit is marked pristine: the pristine test tree is undefined"
echo "$stamp" > "$stamp_file"
say "done: $(git_tree rev-list --count base..HEAD) commits on the base; pristine test tree is tag pristine-kunit"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn a pristine kernel tree into the patched one, as a git repository:
# the pristine base as one commit (tag "base"), the base-tree fixes (tag
# "fixed-base"), then the semaphore series, branch "series".
#
# Both are forward patch stacks as quilt keeps them: a directory of
# git format-patch files and a file "series" that lists them in order
# (base-fixes/series, series/series); git am applies them.  A line
# "# pristine-kunit" in series/series follows the last commit of the
# pristine test tree (base, base-tree fixes and the classic KUnit suite).
# The repository also holds the series' files in their final form (see
# series_mirror in lib.sh); after applying, they must equal the tree's.
#
# To change a commit: edit build/linux with git (rebase -i, commit
# --fixup and autosquash), then run writeback.sh (make writeback), which
# writes the stacks and the final files back.
#
# Nothing here loses work.  The tree remembers its base (.git/semaphore-
# base.stamp): without KERNEL_SRC or BASE_FROM it is kept, whatever made
# it.  Before it rewrites a tree, this refuses if the tree holds work that
# is not in the repository: uncommitted or untracked changes, a rebase or
# git am in progress, or a HEAD or branch "series" that is neither the
# commit it built (.git/semaphore-built) nor the one writeback.sh wrote
# back (.git/semaphore-written); and it refuses a different base.
# FORCE=1 rebuilds anyway, from scratch.
#
# Usage: mktree.sh TREE_DIR [--check]  (--check: only refuse, for make clean)
# Environment: KERNEL_SRC (a kernel source directory; default: the base
# the tree has, else Debian's /usr/src/linux-source-6.12.tar.xz),
# BASE_FROM (a tree made by this script whose base to reuse), FORCE=1.
#
# The result is deterministic: the same inputs give the same commit ids
# (the committer and its dates are fixed; the author comes from each
# patch).  A stamp of the inputs makes a second run with nothing
# changed a no-op.

set -euo pipefail

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
HERE="$REPO/tools/testing/semaphore"
TREE=${1:?usage: mktree.sh TREE_DIR}
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KERNEL_SRC=${KERNEL_SRC:-}
BASE_FROM=${BASE_FROM:-}
. "$HERE/lib.sh"

# The base commit's author, and the committer of every commit.
IDENT_NAME="Semaphore Series Developers"
IDENT_EMAIL=semaphore-dev@example.org
export GIT_COMMITTER_NAME="$IDENT_NAME" GIT_COMMITTER_EMAIL=$IDENT_EMAIL
# Fixed dates, one second apart, so that commit ids are reproducible.
EPOCH=1767225600

die() { echo "mktree: error: $*" >&2; exit 1; }
say() { echo "mktree: $*"; }

git_tree() { git -C "$TREE" -c core.autocrlf=false "$@"; }

# changed_files: TREE's changed and new files; --ignored, as Debian's
# .gitignore ignores every new file ("/*"); kunit.py's bytecode aside.
changed_files() {
	git_tree status --porcelain --ignored 2>/dev/null |
		grep -v -e '__pycache__/' -e '\.pyc$'
}

# unwritten: print what in $TREE a rebuild would lose; false if nothing.
unwritten() {
	local found=0 built written ref c n
	[ -d "$TREE/.git" ] || return 1
	built=$(cat "$TREE/.git/semaphore-built" 2>/dev/null || true)
	written=$(cat "$TREE/.git/semaphore-written" 2>/dev/null || true)
	if [ -d "$TREE/.git/rebase-merge" ] || [ -d "$TREE/.git/rebase-apply" ]; then
		echo "  a rebase or git am in progress"
		found=1
	fi
	n=$(changed_files | wc -l)
	if [ "$n" -ne 0 ]; then
		echo "  $n changed or new files or directories (git -C $TREE status --ignored)"
		found=1
	fi
	for ref in HEAD series; do
		c=$(git_tree rev-parse -q --verify "$ref^{commit}" 2>/dev/null) || continue
		[ "$c" = "$built" ] || [ "$c" = "$written" ] && continue
		if [ -n "$built" ] && git_tree merge-base --is-ancestor "$c" "$built"; then
			continue	# behind what was built: nothing of its own
		fi
		echo "  $ref is $(git_tree log -1 --format='%h ("%s")' "$c"), not written back$(
			[ -n "$built" ] && printf ': %s commits since the tree was built' \
			  "$(git_tree rev-list --count "$built..$c" 2>/dev/null || echo some)")"
		found=1
	done
	[ "$found" -eq 1 ]
}

# refuse WHY: stop before losing work or a base, naming both ways on.
refuse() {
	echo "mktree: refusing to rebuild $TREE: $1" >&2
	if [ -n "${2:-}" ]; then
		printf '%s\n' "$2" >&2
	fi
	cat >&2 <<EOT
To keep the work: make writeback (writes build/linux's commits into the
repository; commit or stash uncommitted changes first, finish a rebase).
To discard it on purpose: make tree FORCE=1${3:+ $3}.
EOT
	exit 1
}

# mktree.sh TREE --check (make clean): only refuse if TREE holds work.
if [ "${2:-}" = --check ]; then
	if [ -z "${FORCE:-}" ] && what=$(unwritten); then
		echo "refusing to delete $TREE: it holds work that is not in the repository" >&2
		echo "$what" >&2
		echo "make writeback keeps it; make clean FORCE=1 deletes it" >&2
		exit 1
	fi
	exit 0
fi

# Identify the base, to know when it changed.
base_stamp="$TREE/.git/semaphore-base.stamp"
remembered=
if [ -z "$KERNEL_SRC" ] && [ -z "$BASE_FROM" ] && [ -f "$base_stamp" ]; then
	# The remembered base: a new shell without KERNEL_SRC keeps it.  To
	# rebuild from scratch (FORCE=1), the source it names, if still there.
	remembered=$(cat "$base_stamp")
	src=$(cut -d: -f2 <<<"$remembered")
	case $remembered in
	git:* | dir:*) [ -f "$src/Makefile" ] && KERNEL_SRC=$src ;;
	tar:*) [ -f "$src" ] && TARBALL=$src ;;
	esac
fi
if [ -n "$remembered" ] && [ -z "${FORCE:-}" ]; then
	base_id=$remembered
elif [ -n "$KERNEL_SRC" ]; then
	[ -f "$KERNEL_SRC/Makefile" ] || die "KERNEL_SRC=$KERNEL_SRC is not a kernel tree"
	KERNEL_SRC=$(cd "$KERNEL_SRC" && pwd)
	if git -C "$KERNEL_SRC" rev-parse HEAD >/dev/null 2>&1; then
		base_id="git:$KERNEL_SRC:$(git -C "$KERNEL_SRC" rev-parse HEAD)"
	else
		base_id="dir:$KERNEL_SRC:$(stat -c %Y "$KERNEL_SRC/Makefile")"
	fi
elif [ -n "$BASE_FROM" ]; then
	[ -f "$BASE_FROM/.git/semaphore-base.stamp" ] ||
		die "BASE_FROM=$BASE_FROM is not a tree made by mktree.sh"
	base_id=$(cat "$BASE_FROM/.git/semaphore-base.stamp")
else
	[ -f "$TARBALL" ] || die "$TARBALL not found: install linux-source-6.12 (make deps) or set KERNEL_SRC"
	base_id="tar:$TARBALL:$(stat -c %s:%Y "$TARBALL")"
fi

# Every input: the two stacks and the final files.
inputs_hash() {
	{
		echo "$base_id"
		cat "$HERE/mktree.sh" "$HERE/lib.sh"
		for d in "$BASE_FIXES" "$SERIES"; do
			echo "== $d"
			cat "$d/series"
			stack_patches "$d" | while read -r p; do cat "$d/$p"; done
		done
		# The final files (the project's own files aside).
		git -C "$REPO" ls-files -z --cached --others --exclude-standard -- \
			':!tools/testing/semaphore' ':!README.md' ':!Makefile' \
			':!.ci' ':!.gitignore' 2>/dev/null |
			sort -z | xargs -0 -r sha256sum 2>/dev/null
		true
	} | sha256sum | cut -d' ' -f1
}

stamp=$(inputs_hash)
stamp_file="$TREE/.git/semaphore-series.stamp"
if [ -z "${FORCE:-}" ] && [ -f "$base_stamp" ] && [ "$(cat "$base_stamp")" != "$base_id" ]; then
	refuse "it was made from another base" \
	       "  its base:  $(cat "$base_stamp")
  requested: $base_id
Without KERNEL_SRC the tree keeps its base." \
	       "${KERNEL_SRC:+KERNEL_SRC=$KERNEL_SRC}"
fi
# Nothing to do: the inputs are those the tree was built from, and it is
# clean on branch "series".  Commits of its own on "series" stay: the
# targets then build them as they are.
if [ -z "${FORCE:-}" ] && [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] &&
   [ ! -d "$TREE/.git/rebase-merge" ] && [ ! -d "$TREE/.git/rebase-apply" ] &&
   [ -z "$(changed_files)" ] &&
   [ "$(git_tree rev-parse -q --verify HEAD 2>/dev/null)" = \
     "$(git_tree rev-parse -q --verify series 2>/dev/null)" ]; then
	say "tree $TREE is up to date ($(git_tree rev-list --count base..HEAD) commits on the base)"
	if what=$(unwritten); then
		say "note: it holds commits not written back, which the targets use:"
		echo "$what"
		say "make writeback puts them into the repository"
	fi
	exit 0
fi
if [ -z "${FORCE:-}" ] && what=$(unwritten); then
	refuse "it holds work that is not in the repository" "$what"
fi

# The pristine base, as one commit tagged "base".  Reused if unchanged.
if [ -n "${FORCE:-}" ] || [ ! -f "$base_stamp" ] || [ "$(cat "$base_stamp")" != "$base_id" ]; then
	rm -rf "$TREE"
	mkdir -p "$TREE"
	if [ -n "$BASE_FROM" ] && [ -z "$KERNEL_SRC" ]; then
		say "reusing the base of $BASE_FROM"
		git clone -q --shared --no-checkout "$BASE_FROM" "$TREE"
		git_tree config core.autocrlf false
		git_tree config gc.auto 0
		git_tree checkout -q -f -B base-tree base
		git_tree remote remove origin
		git_tree for-each-ref --format='%(refname:short)' refs/heads |
			grep -vx base-tree | xargs -r git -C "$TREE" branch -q -D
		echo "$base_id" > "$base_stamp"
	else
		say "preparing the pristine base in $TREE from ${KERNEL_SRC:-$TARBALL}"
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
		GIT_AUTHOR_NAME="$IDENT_NAME" GIT_AUTHOR_EMAIL=$IDENT_EMAIL \
		GIT_AUTHOR_DATE="@$EPOCH +0000" GIT_COMMITTER_DATE="@$EPOCH +0000" \
			git_tree commit -q -m "Linux $version (pristine base)" \
			-m "Unpacked from ${KERNEL_SRC:-$TARBALL}."
		git_tree tag -f base >/dev/null
		echo "$base_id" > "$base_stamp"
	fi
fi

# Re-applying rewrites every file the series touches.  Remember their
# modification times, so that files that end up unchanged keep them and
# the kernel builds in build/<arch> do not recompile for nothing.
old_head=$(git_tree rev-parse -q --verify series || true)
mtimes="$TREE/.git/semaphore-mtimes"
: > "$mtimes"
if [ -n "$old_head" ]; then
	git_tree diff --name-only base "$old_head" | while read -r f; do
		if [ -f "$TREE/$f" ]; then
			printf '%s\t%s\n' "$(stat -c %Y "$TREE/$f")" "$f"
		fi
	done > "$mtimes"
fi

say "applying the series on the base"
git_tree am --abort >/dev/null 2>&1 || true
git_tree rebase --abort >/dev/null 2>&1 || true
git_tree checkout -q -f -B series base
git_tree clean -q -f -d -x
git_tree tag -d pristine-kunit >/dev/null 2>&1 || true
# "fixed-base": the base with the base-tree fixes, where the semaphore
# series itself starts (the base when there are no fixes).
git_tree tag -f fixed-base >/dev/null

# not_needed PATCH: why the base fix PATCH, which does not apply, is not
# needed on this tree (it is already in, or the lines it removes are not
# there); fails if it is needed.
not_needed() {
	local p=$1 f line
	if git_tree apply --check -R "$p" 2>/dev/null; then
		echo "already applied"
		return 0
	fi
	for f in $(sed -n 's|^+++ b/||p' "$p"); do
		[ -f "$TREE/$f" ] || continue
		while IFS= read -r line; do
			grep -qxF -- "$line" "$TREE/$f" && return 1
		done < <(awk -v f="$f" '/^\+\+\+ b\// { cur = substr($0, 7) }
			cur == f && /^-/ && !/^--- / { print substr($0, 2) }' "$p")
	done
	echo "what it changes is not in this tree"
}

n=0
k=0
kf=0
# apply STACK PATCH: git am one patch, committed at a fixed date.  A base
# fix that this tree does not need is skipped with a note.  Series
# commits are numbered as BISECT_FROM and the series file number them,
# base fixes apart ("fix N").
apply() {
	local d=$1 p=$2 subject why label
	n=$((n + 1))
	if [ "$d" = "$BASE_FIXES" ]; then
		kf=$((kf + 1))
		label="fix $kf"
	else
		k=$((k + 1))
		label=$(printf '%2d' "$k")
	fi
	subject=$(awk '/^Subject: / { s = $0; while ((getline l) > 0 && l ~ /^[ \t]/) s = s l
		sub(/^Subject: (\[PATCH[^]]*\] )?/, "", s); print s; exit }' "$d/$p")
	printf 'mktree: [%s] %s\n' "$label" "$subject"
	if ! GIT_COMMITTER_DATE="@$((EPOCH + n)) +0000" \
	     git_tree am -q --whitespace=nowarn "$d/$p" >"$TREE/.git/am.log" 2>&1; then
		git_tree am --abort >/dev/null 2>&1 || true
		if [ "$d" = "$BASE_FIXES" ] && why=$(not_needed "$d/$p"); then
			say "     skipped: this tree does not need it ($why)"
			n=$((n - 1))
			return 0
		fi
		cat "$TREE/.git/am.log" >&2
		die "$(basename "$d")/$p does not apply to this tree (the files and hunks that failed are above)"
	fi
}

while read -r p; do
	apply "$BASE_FIXES" "$p"
	git_tree tag -f fixed-base >/dev/null
	git_tree tag -f pristine-kunit >/dev/null
done < <(stack_patches "$BASE_FIXES")
while read -r p; do
	if [ "$p" = "$PRISTINE_MARK" ]; then
		git_tree tag -f pristine-kunit >/dev/null
		continue
	fi
	apply "$SERIES" "$p"
done < <(stack_patches "$SERIES" marks)

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
	die "no \"$PRISTINE_MARK\" line in series/series: the pristine test tree is undefined"

# The final files in the repository must be the series' own.
stale=$(series_mirror "$TREE" | while read -r f; do
	cmp -s "$REPO/$f" "$TREE/$f" || echo "$f"
done)
if [ -n "$stale" ]; then
	echo "mktree: the repository's final files differ from what the series gives:" >&2
	sed 's/^/  /' <<<"$stale" >&2
	die "edit the commits in $TREE and run make writeback (see README.md)"
fi
git_tree rev-parse HEAD > "$TREE/.git/semaphore-built"
echo "$stamp" > "$stamp_file"
say "done: $(git_tree rev-list --count base..HEAD) commits on the base; pristine test tree is tag pristine-kunit"

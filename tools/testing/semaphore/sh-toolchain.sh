#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sh-toolchain.sh [--check GCC] [gcc-N-source]
#
# Build a bare sh4-linux-gnu C compiler (gcc and libgcc, no C library:
# a kernel needs none) from a Debian GCC source package with Debian's
# sh4 binutils, into build/toolchains/gcc-N-sh4/, once.  A second run
# finds the checked compiler and returns at once.
#
# Why: Debian 12's only sh4 cross compiler (gcc-12-sh4-linux-gnu 12.2.0)
# has GCC bug 106609: it deletes the compare before a conditional branch
# on the T bit, so an sh kernel built with it cannot boot.  GCC 11 is
# before the regression.  Every compiler this script builds is checked
# against the reproducer of that bug and refused (left in place, marked
# bad, not used) when it fails; --check GCC runs the same check on any
# compiler (for example the broken /usr/bin/sh4-linux-gnu-gcc).
#
# The source is the upstream tarball that the Debian package ships
# (/usr/src/gcc-N/gcc-*.tar.*), configured as the kernel.org crosstool
# compilers are (C only, --without-headers, no shared libgcc, no threads)
# with Debian's sh4 defaults (--with-cpu=sh4, multilibs m4 and m4-nofpu).
# Debian's own patches are not applied: they concern the Debian native
# and multiarch builds, not a bare cross compiler.
#
# Takes about 15 minutes on two cores (tools/testing/semaphore/RESULTS.md, "Ports"); never run it
# while a kernel builds.  Log: build/logs/sh-toolchain-gcc-N.log.

. "$(dirname "$0")/lib.sh"

TARGET=sh4-linux-gnu

# check_compiler GCC: compile the GCC 106609 reproducer at -O1, -O2 and -Os
# with the kernel's sh4 flags and require a T-bit-setting instruction (tst
# or cmp/...) in f() before its conditional branch.  Prints the assembly of
# each failing variant; returns 1 if any fails.
check_compiler() {
	local cc=$1 dir opt flags bad=0 asm
	dir=$(mktemp -d)
	cat > "$dir/repro.c" <<-'EOF'
	unsigned long a, b;
	unsigned long f(void)
	{
		if (!a)
			a = b;
		return a;
	}
	EOF
	for flags in "-m4" "-m4-nofpu"; do
		for opt in -O1 -O2 -Os; do
			if ! "$cc" $flags $opt -S -o "$dir/repro.s" "$dir/repro.c" 2> "$dir/err"; then
				echo "check: $cc $flags $opt does not compile:"; cat "$dir/err"
				bad=1
				continue
			fi
			# The body of f: from its label to .size; the line numbers
			# of its first compare and of its first conditional branch.
			asm=$(awk '/^f:/ {p = 1} p {print} /\.size[ \t]+f,/ {p = 0}' "$dir/repro.s")
			read -r cmp br < <(echo "$asm" | awk '
				/^[ \t]+(tst|cmp\/[a-z]+)[ \t]/ && !c {c = NR}
				/^[ \t]+b[tf]([\/.]s)?[ \t]/ && !b {b = NR}
				END {print c + 0, b + 0}')
			if [ "$br" -eq 0 ]; then
				echo "check: FAIL $flags $opt: no conditional branch in f() (cannot judge):"
			elif [ "$cmp" -eq 0 ] || [ "$cmp" -gt "$br" ]; then
				echo "check: FAIL $flags $opt: conditional branch with no tst/cmp before it (GCC bug 106609):"
			else
				echo "check: ok   $flags $opt: tst/cmp on line $cmp of f(), before its branch on line $br"
				continue
			fi
			echo "$asm" | sed 's/^/    /'
			bad=1
		done
	done
	rm -rf "$dir"
	return $bad
}

if [ "${1:-}" = --check ]; then
	[ -n "${2:-}" ] || die "usage: $0 --check GCC"
	echo "== check of $2 ($("$2" --version | head -1)) against GCC bug 106609"
	check_compiler "$2"
	exit
fi

PKG=${1:-gcc-11-source}
case "$PKG" in
gcc-[0-9]*-source) ;;
*) die "usage: $0 [--check GCC] [gcc-N-source], not '$PKG'" ;;
esac
VER=${PKG#gcc-}
VER=${VER%-source}
PREFIX="$BUILD/toolchains/gcc-$VER-sh4"
GCC="$PREFIX/bin/$TARGET-gcc"
LOG="$BUILD/logs/sh-toolchain-gcc-$VER.log"

# As Debian configures its sh4 compiler: SH4 by default, and the kernel's
# -m4-nofpu as a multilib, so that the libgcc the kernel links has no FPU
# instructions.
CONFIGURE_ARGS=(--target=$TARGET --prefix="$PREFIX"
	--with-as=/usr/bin/$TARGET-as --with-ld=/usr/bin/$TARGET-ld
	--with-cpu=sh4 --with-multilib-list=m4,m4-nofpu
	--enable-languages=c --without-headers --disable-shared
	--disable-threads --disable-nls
	--disable-libssp --disable-libquadmath --disable-libgomp
	--disable-libatomic --disable-libsanitizer --disable-libitm
	--disable-libvtv --disable-libstdcxx --disable-decimal-float
	--disable-werror)

if [ -f "$PREFIX/BAD" ] && [ "$(cat "$PREFIX/CONFIGURE_ARGS" 2>/dev/null)" != "${CONFIGURE_ARGS[*]}" ]; then
	echo "sh-toolchain: $PREFIX failed the check with other configure options: building again"
	rm -rf "$PREFIX"
fi
if [ -x "$GCC" ] && [ -f "$PREFIX/CHECKED" ]; then
	echo "sh-toolchain: $GCC is built and checked ($(head -1 "$PREFIX/CHECKED"))"
	exit 0
fi
if [ -f "$PREFIX/BAD" ]; then
	echo "sh-toolchain: $GCC was built and FAILED the check:"
	cat "$PREFIX/BAD"
	exit 1
fi

start=$(date +%s)
step() { echo "== sh-toolchain: $* ($(( $(date +%s) - start )) s)"; }

need_pkgs "$PKG" binutils-sh4-linux-gnu libgmp-dev libmpfr-dev libmpc-dev \
	xz-utils file
tarball=$(ls /usr/src/gcc-"$VER"/gcc-*.tar.* 2>/dev/null | head -1)
[ -n "$tarball" ] || die "$PKG has no tarball in /usr/src/gcc-$VER"
mkdir -p "$BUILD/logs" "$BUILD/toolchains"
: > "$LOG"

SRC="$BUILD/toolchains/src-gcc-$VER"
OBJ="$BUILD/toolchains/obj-gcc-$VER-sh4"
if [ ! -x "$SRC/configure" ]; then
	step "unpacking $tarball"
	rm -rf "$SRC"
	mkdir -p "$SRC"
	tar -xf "$tarball" -C "$SRC" --strip-components=1 >> "$LOG" 2>&1 ||
		die "cannot unpack $tarball (log: $LOG)"
fi
echo "$(basename "$tarball") from $PKG $(dpkg-query -W -f='${Version}' "$PKG")" > "$SRC/ORIGIN"

rm -rf "$PREFIX"
# An interrupted build goes on where it stopped (make is incremental);
# other configure options start again.
if [ -f "$OBJ/config.status" ] &&
   [ "$(cat "$OBJ/CONFIGURE_ARGS" 2>/dev/null)" = "${CONFIGURE_ARGS[*]}" ]; then
	step "configured before in $OBJ: going on"
else
	step "configure (log: $LOG)"
	rm -rf "$OBJ"
	mkdir -p "$OBJ"
	(cd "$OBJ" && "$SRC/configure" "${CONFIGURE_ARGS[@]}" \
		--with-pkgversion="semaphore sh-toolchain, $(cat "$SRC/ORIGIN")" \
		CFLAGS="-O2 -g0" CXXFLAGS="-O2 -g0") >> "$LOG" 2>&1 ||
		die "configure failed (log: $LOG)"
	echo "${CONFIGURE_ARGS[*]}" > "$OBJ/CONFIGURE_ARGS"
fi

step "build gcc, make -j$(nproc) all-gcc"
make -C "$OBJ" -j"$(nproc)" all-gcc MAKEINFO=true >> "$LOG" 2>&1 ||
	die "all-gcc failed (log: $LOG)"
step "build libgcc, make -j$(nproc) all-target-libgcc"
make -C "$OBJ" -j"$(nproc)" all-target-libgcc MAKEINFO=true >> "$LOG" 2>&1 ||
	die "all-target-libgcc failed (log: $LOG)"
step "install into $PREFIX"
# Debian's -dfsg tarball lacks the GFDL manuals, and installing regenerates
# doc/tm.texi ("genhooks: No place specified to document hook ..."): the
# stamp says it is done, as no manual is installed here.
touch "$OBJ/gcc/s-tm-texi"
make -C "$OBJ" install-gcc install-target-libgcc MAKEINFO=true >> "$LOG" 2>&1 ||
	die "install failed (log: $LOG)"
# The kernel calls $(CROSS_COMPILE)as, ld, objcopy...: the same prefix as gcc.
for tool in /usr/bin/$TARGET-*; do
	[ -e "$PREFIX/bin/$(basename "$tool")" ] || ln -s "$tool" "$PREFIX/bin/"
done

echo "${CONFIGURE_ARGS[*]}" > "$PREFIX/CONFIGURE_ARGS"
step "check against GCC bug 106609"
if ! check_compiler "$GCC" > "$PREFIX/check.txt"; then
	cat "$PREFIX/check.txt"
	cp "$PREFIX/check.txt" "$PREFIX/BAD"
	die "$GCC fails the reproducer: refused (marked $PREFIX/BAD)"
fi
cat "$PREFIX/check.txt"
echo "$("$GCC" --version | head -1); built in $(( $(date +%s) - start )) s on $(nproc) cores" > "$PREFIX/CHECKED"
rm -rf "$OBJ"
step "done: $GCC"

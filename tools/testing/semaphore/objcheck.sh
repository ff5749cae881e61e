#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile every C file that the series touches, for x86_64, in
# configurations that enable them (two: omapfb and omapdrm exclude each
# other).  One result per object.  Uses build/objcheck-{a,b}.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$LINUX/.git" ] || die "build/linux is missing: run make tree"

# config name, options, objects
declare -A opts objs
opts[a]="COMPILE_TEST OF XFS_FS MD BCACHE USB USB_TMC DRM DRM_OMAP SOUND SND SND_SOC I2C SND_SOC_ALL_CODECS SND_SOC_NAU8825 ACPI KUNIT SEMAPHORE_KUNIT_TEST SAMPLES SAMPLE_SEMAPHORE_ASYNC FTRACE FUNCTION_TRACER EVENT_TRACING"
objs[a]="lib/semaphore.o lib/tests/semaphore_kunit.o lib/tests/semaphore_async_kunit.o samples/semaphore/semaphore_async_sample.o fs/xfs/xfs_buf.o fs/xfs/xfs_trace.o drivers/acpi/osl.o drivers/md/bcache/btree.o drivers/usb/class/usbtmc.o drivers/gpu/drm/omapdrm/dss/dsi.o sound/soc/codecs/nau8825.o"
opts[b]="COMPILE_TEST OF FB FB_DEVICE GPIOLIB FB_OMAP2 FB_OMAP2_DSS_DSI"
objs[b]="drivers/video/fbdev/omap2/omapfb/dss/dsi.o"

rc=0
for c in a b; do
	out="$BUILD/objcheck-$c"
	mkdir -p "$out" "$BUILD/logs"
	log="$BUILD/logs/objcheck-$c.log"
	say "objcheck $c: configuring $out"
	{
		make -C "$LINUX" O="$out" ARCH=x86_64 defconfig &&
		"$LINUX/scripts/config" --file "$out/.config" $(for o in ${opts[$c]}; do echo --enable "$o"; done) &&
		make -C "$LINUX" O="$out" ARCH=x86_64 olddefconfig
	} > "$log" 2>&1 || { record FAIL "objcheck/$c" "configuration failed, see $log"; rc=1; continue; }
	for o in ${opts[$c]}; do
		grep -q "^CONFIG_$o=[ym]" "$out/.config" ||
			{ record FAIL "objcheck/$c/CONFIG_$o" "not enabled by olddefconfig"; rc=1; }
	done
	say "objcheck $c: compiling ${objs[$c]}"
	for o in ${objs[$c]}; do
		if make -C "$LINUX" O="$out" ARCH=x86_64 -j"$(nproc)" "$o" >> "$log" 2>&1 &&
		   ! grep -q "^[^ ]*${o%.o}\.c:[0-9]*:[0-9]*: warning" "$log"; then
			record PASS "objcheck/$o"
		else
			record FAIL "objcheck/$o" "see $log"
			rc=1
		fi
	done
done
exit $rc

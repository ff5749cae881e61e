#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sparse as CHECK for arches.sh: Debian 12's sparse 0.6.4 refuses the
# RISC-V -march strings that the kernel passes (rv64imac_zicsr_zifencei:
# "invalid argument to '-march'").  The extensions after the base ISA
# mean nothing to sparse, so drop them; every other argument is passed
# as it is.
for a in "$@"; do
	shift
	case "$a" in
	-march=rv*_*) a=${a%%_*} ;;
	esac
	set -- "$@" "$a"
done
exec sparse "$@"

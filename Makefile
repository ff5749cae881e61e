# SPDX-License-Identifier: GPL-2.0
#
# One generic semaphore for Linux, with asynchronous acquisition.
#
# This repository holds the series; the targets below turn a pristine
# kernel tree into the patched one and test it.  README.md describes the
# targets and variables ("make help" prints its table).

ARCH		?= x86_64
TREE		?= patched
BUILD		?= $(CURDIR)/build
T		:= tools/testing/semaphore

export BUILD KERNEL_SRC HERDTOOLS_SRC
# Our ARCH and TREE are for the scripts, not for the kernel's Makefiles.
unexport ARCH TREE

RESULTS		:= $(BUILD)/results.tsv
# make test: besides x86_64, one 32-bit port (i386: the 12-byte layout),
# patched tree; make arches runs every port.
TEST_ARCHES	?= i386
ARCHES		?=
BENCH_ARCHES	?= x86_64 arm64
# make torture: seconds per type and the rows (ARCH-CONFIG).  make test
# runs the rows of TEST_TORTURE_ROWS (default none, for CI's budget) for
# TEST_TORTURE_SECS per type; make torture runs every row, 300 s per type.
TORTURE_SECS	?= 300
TORTURE_ROWS	?=
TORTURE_JOBS	?= 1
TEST_TORTURE_ROWS ?=
TEST_TORTURE_SECS ?= 30
export RESULTS

.PHONY: all test tree kunit arches bench checkpatch kerneldoc sparse \
	bisect patches htmldocs writeback mutation cocci objcheck internals torture \
	aio sh-toolchain deps clean reset-results workload help litmus

# Prepare build/linux and build/pristine, recording the step as a result.
RECORD_TREE	= $(T)/record-step.sh tree $(T)/mktree.sh $(BUILD)/linux && \
		  $(T)/pristine-tree.sh

all: reset-results deps
	@$(RECORD_TREE); \
	$(T)/kunit.sh x86_64 patched; \
	$(T)/summary.sh

test: reset-results deps
	@TEST_ARCHES="$(TEST_ARCHES)" TEST_TORTURE_ROWS="$(TEST_TORTURE_ROWS)" \
	TEST_TORTURE_SECS="$(TEST_TORTURE_SECS)" $(T)/test.sh; \
	$(T)/summary.sh

tree: deps
	@$(T)/mktree.sh $(BUILD)/linux && $(T)/pristine-tree.sh

# Write build/linux's commits back (see mktree.sh), then rebuild it.
writeback: deps
	@$(T)/writeback.sh && $(T)/mktree.sh $(BUILD)/linux && $(T)/pristine-tree.sh

kunit: reset-results tree
	@$(T)/kunit.sh $(ARCH) $(TREE); $(T)/summary.sh


arches: reset-results tree
	@$(T)/arches.sh $(ARCHES); $(T)/summary.sh

# Not part of make test (too long for CI): build it once, by hand.
sh-toolchain:
	@$(T)/sh-toolchain.sh

# A benchmark, not a test: no results, no closing line.
bench: tree
	@$(T)/bench.sh $(BENCH_ARCHES)

# The real workloads alone (make bench runs them too).
workload: tree
	@$(T)/workload.sh $(BENCH_ARCHES)

checkpatch: reset-results tree
	@$(T)/checkpatch.sh; $(T)/summary.sh

kerneldoc: reset-results tree
	@$(T)/kerneldoc.sh; $(T)/summary.sh

sparse: reset-results tree
	@$(T)/sparse.sh; $(T)/summary.sh

bisect: reset-results tree
	@$(T)/bisect.sh; $(T)/summary.sh

patches: tree
	@$(T)/patches.sh

htmldocs: reset-results tree
	@$(T)/htmldocs.sh; $(T)/summary.sh

mutation: reset-results tree
	@$(T)/mutate.sh $(MUTATIONS); $(T)/summary.sh

cocci: reset-results deps
	@$(T)/cocci-test.sh; $(T)/summary.sh

objcheck: reset-results tree
	@$(T)/objcheck.sh; $(T)/summary.sh

internals: reset-results tree
	@$(T)/check-internals.sh; $(T)/summary.sh

torture: reset-results tree
	@TORTURE_SECS=$(TORTURE_SECS) TORTURE_JOBS=$(TORTURE_JOBS) \
		$(T)/torture.sh $(TORTURE_ROWS); $(T)/summary.sh

aio: reset-results tree
	@$(T)/aio.sh $(ARCH); $(T)/summary.sh

# herd7 on the litmus tests of Documentation/litmus-tests/semaphore; needs
# only build/linux's memory model (make tree if it is missing), and herd7 on
# PATH or HERDTOOLS_SRC=<herdtools7 tarball or directory> to build it once.
LKMM_CFG	:= $(BUILD)/linux/tools/memory-model/linux-kernel.cfg
$(LKMM_CFG):
	@$(MAKE) --no-print-directory tree

litmus: reset-results | $(LKMM_CFG)
	@$(T)/litmus.sh; $(T)/summary.sh

# The targets' table of README.md, as text.
help:
	@$(T)/help.sh

# What the goals of this make need, checked before any of them starts
# (make deps TARGET=test checks one target; LIST=1 prints the table).
deps:
	@ARCH="$(ARCH)" TEST_ARCHES="$(TEST_ARCHES)" BENCH_ARCHES="$(BENCH_ARCHES)" \
	ARCHES="$(ARCHES)" TORTURE_ROWS="$(TORTURE_ROWS)" \
	TEST_TORTURE_ROWS="$(TEST_TORTURE_ROWS)" \
	$(T)/deps.sh $(or $(TARGET),$(filter-out deps,$(MAKECMDGOALS)),all)

reset-results:
	@mkdir -p $(BUILD) && rm -f $(RESULTS)

# Not over work that build/linux holds and the repository does not.
clean:
	@$(T)/mktree.sh $(BUILD)/linux --check
	rm -rf $(BUILD)

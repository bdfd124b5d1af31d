# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of rdma_cm.ko, iw_cm.ko and rdma_ucm.ko, plus the
# project's checks.  `make` builds the modules against KDIR (Debian's
# 6.1 headers by default); `make check` is the single test command,
# `make bench` and `make soak` the speed figures and the long runs,
# `make profile` instruction counts of one command, stock against ours.

DEB_KVER := $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 2>/dev/null | \
	sed -n 's/^linux-headers-\([^ ]*\).*/\1/p')
KVER ?= $(if $(DEB_KVER),$(DEB_KVER),$(shell uname -r))
KDIR ?= /usr/src/linux-headers-$(KVER)
SRC_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
BUILD ?= $(CURDIR)/.build
# Directory holding ib_core's private core_priv.h, mad_priv.h and
# restrack.h from the same 6.1 source as KDIR.  They complete the types
# the exported symbols' CRCs are computed over.
IBPRIV ?= $(BUILD)/ibpriv
SELFTESTS := $(CURDIR)/tools/testing/selftests/rdma_cm

PRIV_HDRS := core_priv.h mad_priv.h restrack.h
KBUILD_ARGS := -C $(KDIR) M=$(CURDIR) IBPRIV=$(IBPRIV)

.PHONY: all modules clean install sparse checkpatch symvers-check \
	check run ulp bench soak profile deps print-kver deb series \
	series-check

all: modules

$(IBPRIV)/.done: $(SRC_TARBALL)
	@mkdir -p $(IBPRIV)
	tar -C $(IBPRIV) --strip-components=4 -xf $(SRC_TARBALL) \
		$(addprefix linux-source-6.1/drivers/infiniband/core/,$(PRIV_HDRS))
	@touch $@

modules: $(IBPRIV)/.done
	$(MAKE) $(KBUILD_ARGS) modules

install: modules
	$(MAKE) $(KBUILD_ARGS) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	rm -rf $(BUILD)

# Static checks against the Debian headers.
sparse: $(IBPRIV)/.done
	$(MAKE) $(KBUILD_ARGS) C=2 modules

$(BUILD)/checkpatch/.done: $(SRC_TARBALL)
	@mkdir -p $(BUILD)/checkpatch
	tar -C $(BUILD)/checkpatch --strip-components=1 -xf $(SRC_TARBALL) \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

checkpatch: $(BUILD)/checkpatch/.done
	git ls-files --cached --others --exclude-standard -- '*.c' '*.h' | \
		xargs -r $(BUILD)/checkpatch/scripts/checkpatch.pl \
		--strict --no-tree --terse --show-types -f

symvers-check: modules
	$(SELFTESTS)/symvers-check.sh $(CURDIR)/Module.symvers $(KDIR)/Module.symvers

# rdma-cm-dkms_<version>_all.deb in $(BUILD)/deb (DEB_VERSION to choose
# the version).
deb:
	scripts/dkms/mkdeb.sh $(BUILD)/deb $(DEB_VERSION)

deps:
	$(SELFTESTS)/qemu/install-deps.sh

check:
	$(SELFTESTS)/qemu/check.sh

run:
	$(SELFTESTS)/qemu/check.sh --run

# Every kernel ULP test over rxe and siw, on ours and on stock.
ulp:
	$(SELFTESTS)/qemu/check.sh --ulp

# Speed (stock against ours in one boot) and long runs; not in check.
bench:
	$(SELFTESTS)/qemu/perf.sh bench

soak:
	$(SELFTESTS)/qemu/perf.sh soak

profile:
	$(SELFTESTS)/qemu/perf.sh profile

# The in-tree patch series against linux-source-6.1, checkpatch'ed per
# patch; series-check builds it patch by patch in a built test kernel
# (KCACHE: a directory with src/ and obj/, as qemu/build-kernel.sh
# makes them).
SERIES := $(BUILD)/series

series: $(BUILD)/checkpatch/.done
	scripts/series/mkseries.py $(SRC_TARBALL) $(SERIES)
	@for p in $(SERIES)/patches/00*.patch; do \
		case $$p in */0000-cover-letter.patch) continue ;; esac; \
		$(BUILD)/checkpatch/scripts/checkpatch.pl --strict --no-tree \
			--terse --show-types $$p || exit 1; \
	done

series-check: series
	@test -n "$(KCACHE)" || { echo "series-check: set KCACHE" >&2; exit 1; }
	scripts/series/check-series.sh $(KCACHE) $(SERIES)/patches

print-kver:
	@echo $(KVER)

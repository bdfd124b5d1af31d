// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_cm's device-independent units, compiled a second time into
 * rdma_cm_kunit.ko so that its suites can call them.
 *
 * Out-of-tree build glue: rdma_cm.ko exports exactly the symbols of the
 * 6.1 ABI (symvers-check.sh fails on any extra export, namespaced or
 * not), so the internals the tests need cannot be exported to the test
 * module.  These units keep no
 * state that rdma_cm.ko shares (the port space table a test uses is its
 * own), so a private copy tests the same code without reaching into the
 * loaded rdma_cm.
 */
#include "cma_addr.c"
#include "cma_hdr.c"
#include "cma_opt.c"
#include "cma_ps.c"
#include "cma_roce_net.c"
#include "cma_state.c"

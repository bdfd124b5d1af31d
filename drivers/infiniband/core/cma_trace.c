// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* rdma_cm's tracepoints (cma_trace.h), instantiated once for the module. */
#define CREATE_TRACE_POINTS
#include "cma_trace.h"

# SPDX-License-Identifier: GPL-2.0
#
# ucma_fuzz: random and malformed rdma_cm commands from 4 threads in two
# network namespaces on 4 files (MIGRATE_ID between them, so ids of both
# namespaces share files; close() under use) over the transport's
# device.  Pass: the fuzzer ends by itself with exit code 0 and "0 check
# failures"; the kernel log is checked for KASAN/lockdep/WARN/kmemleak by
# the harness as for every test.  The differential run against stock is
# in make soak.
#
#   ucma_fuzz          a short run with a fixed seed
#   ucma_fuzz_removal  the same while `rdma link delete` removes the device
#                      (DEVICE_REMOVAL against commands, migrations and
#                      closes); the device is created again afterwards
#
# RDMACM_FUZZ_SEED, RDMACM_FUZZ_COMMANDS change the seed (default 1) and
# the number of commands of ucma_fuzz (default 20000).
#
# Stock (rxe and siw): passes, with -x answer_own, which the fuzzer gets
# on a stock rdma_cm.  Without it, on rxe, the fuzzer sooner or later
# accepts or rejects the active side of its own connection while the
# request is outstanding (or answers a request twice), and stock rdma_cm
# leaves ib_cm waiting for the request's (reply's) retries: close() of
# the file then takes 60-100 s, hours with a large ACK_TIMEOUT
# (tests/cm_probe.sh, answer_active).  Our rdma_cm refuses those answers,
# so on it the fuzzer runs without the option: a bug we fixed.

UCMA_FUZZ_SEED=${RDMACM_FUZZ_SEED:-1}

# Extra fuzzer options for the stack loaded now.
ucma_fuzz_args() {
	[ "$(mod_origin rdma_cm)" = ours ] || echo "-x answer_own"
}

# Build the fuzzer into the case directory; false (with a skip or a
# failure recorded) when it cannot run.
ucma_fuzz_build() {
	tool_build ucma_fuzz ucma_fuzz.c "$T_DIR" -pthread
}

ucma_fuzz_ok() {
	expect_rc fuzz 0
	expect_out fuzz ' 0 check failures$'
	label "$(grep -m1 -o '[0-9]* commands (.*) in [0-9.]* s' fuzz.out)"
}

test_ucma_fuzz() {
	ucma_fuzz_build || return
	# the fuzzer stops by itself after -T seconds or a stuck command
	# shellcheck disable=SC2046	# words on purpose
	run fuzz 150 "$T_DIR/ucma_fuzz" -s "$UCMA_FUZZ_SEED" \
		-n "${RDMACM_FUZZ_COMMANDS:-20000}" -t 4 -f 4 -N 2 -a "$ADDR" \
		-T "$(tmo 100)" $(ucma_fuzz_args)
	ucma_fuzz_ok
}

test_ucma_fuzz_removal() {
	ucma_fuzz_build || return
	# shellcheck disable=SC2046	# words on purpose
	# 45 s (scaled) of commands, the device deleted after 15: make soak
	# has the long runs.
	bg fuzz 150 "$T_DIR/ucma_fuzz" -s "$((UCMA_FUZZ_SEED + 1))" \
		-n 10000000 -t 4 -f 4 -a "$ADDR" -T "$(tmo 15)" $(ucma_fuzz_args)
	sleep "$(tmo 5)"
	run delete 60 rdma link delete "$DEV"
	expect_rc delete 0
	dev_exists "$DEV" && fail "$DEV still exists after rdma link delete"
	wait_bg fuzz 120
	ucma_fuzz_ok
	# the transport's later tests need the device back
	setup_transport "$T" || fail "cannot create $DEV again"
}

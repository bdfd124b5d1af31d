# SPDX-License-Identifier: GPL-2.0
#
# rdma_server / rdma_client: the synchronous API (rdma_getaddrinfo,
# rdma_create_ep, rdma_get_request with MIGRATE_ID to a private channel,
# blocking rdma_connect, SEND/RECV, rdma_disconnect waiting for
# DISCONNECTED).  Pass (stock, both): "rdma_client: end 0" and
# "rdma_server: end 0".

test_rdma_server_client() {
	local port=7331

	bg server 120 rdma_server -p "$port"
	wait_ready server
	run client 120 rdma_client -s "$ADDR" -p "$port"
	wait_bg server 60
	expect_rc client 0
	expect_rc server 0
	expect_out client '^rdma_client: end 0$'
	expect_out server '^rdma_server: end 0$'
}

# SPDX-License-Identifier: GPL-2.0
#
# riostream: rsockets over RC with riomap/riowrite (RDMA WRITE into mapped
# memory), data verified.  Pass (stock, both): exit 0 on both sides, one
# "custom ..." result line each, no "data verification failed".

test_riostream() {
	local port=7341 opts=(-S 4096 -C 100 -I 10 -T v)

	bg server 180 riostream -p "$port" "${opts[@]}"
	wait_ready server
	run client 180 riostream -s "$ADDR" -p "$port" "${opts[@]}"
	wait_bg server 60
	local n
	for n in server client; do
		expect_rc "$n" 0
		expect_out "$n" '^custom '
		expect_no_out "$n" 'data verification failed|[Ee]rror|[Ff]ail'
	done
}

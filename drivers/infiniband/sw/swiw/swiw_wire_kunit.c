// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: swiw's header sizes, control words, pad and CRC against the
 * values siw puts on the wire, and every 16-bit control word a peer
 * could send.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "swiw_wire.c"

/* Control words of last segments as siw sends them. */
static void swiw_ctrl_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_WRITE, true), 0xc140);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_WRITE, false), 0x8140);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_READ_REQ, true), 0x4141);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_READ_RESP, true), 0xc142);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_SEND, true), 0x4143);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_SEND, false), 0x0143);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_SEND_INV, true), 0x4144);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_SEND_SE, true), 0x4145);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_SEND_SE_INV, true), 0x4146);
	KUNIT_EXPECT_EQ(test, swiw_ctrl(SWIW_OP_TERMINATE, true), 0x4147);
}

static void swiw_hdr_len_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0xc140), 16);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x8142), 16);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4143), 20);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x0146), 20);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4141), 48);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4147), 24);
	/* DDP version 0 and 2, RDMAP version 0 and 2. */
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4043), -EPROTO);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4243), -EPROTO);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4103), -EPROTO);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4183), -EPROTO);
	/* Tagged SEND, untagged WRITE, opcodes past TERMINATE. */
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0xc143), -EPROTO);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4140), -EPROTO);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x4148), -EPROTO);
	KUNIT_EXPECT_EQ(test, swiw_hdr_len(0x414f), -EPROTO);
}

/* Every control word: a known header or -EPROTO, and nothing else. */
static void swiw_hdr_len_all_test(struct kunit *test)
{
	unsigned int ctrl, ok = 0;

	for (ctrl = 0; ctrl <= 0xffff; ctrl++) {
		int len = swiw_hdr_len(ctrl);
		unsigned int op = ctrl & SWIW_CTRL_OP_MASK;
		/* Reserved bits are the peer's business; L is free. */
		u16 base = ctrl & ~(SWIW_CTRL_L | 0x3c00 | 0x0030);

		if (len == -EPROTO)
			continue;
		KUNIT_ASSERT_TRUE(test, len == 16 || len == 20 || len == 24 ||
				  len == 48);
		KUNIT_ASSERT_LE(test, op, (unsigned int)SWIW_OP_MAX);
		KUNIT_ASSERT_EQ(test, base,
				swiw_ctrl(op, false) & ~SWIW_CTRL_L);
		ok++;
	}
	/* 8 opcodes, L either way, 4 + 2 reserved bits free. */
	KUNIT_EXPECT_EQ(test, ok, 8U * 2 * 64);
}

static void swiw_pad_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, swiw_pad(14), 0U);
	KUNIT_EXPECT_EQ(test, swiw_pad(18), 0U);
	KUNIT_EXPECT_EQ(test, swiw_pad(19), 3U);
	KUNIT_EXPECT_EQ(test, swiw_pad(20), 2U);
	KUNIT_EXPECT_EQ(test, swiw_pad(21), 1U);
	KUNIT_EXPECT_EQ(test, swiw_pad(65535), 3U);
}

/* CRC32c("123456789") is 0xe3069283; siw sends it 83 92 06 e3. */
static void swiw_crc_test(struct kunit *test)
{
	static const u8 want[] = { 0x83, 0x92, 0x06, 0xe3 };
	u32 crc = SWIW_CRC_INIT;
	__le32 wire;

	crc = swiw_crc_update(crc, "1234", 4);
	crc = swiw_crc_update(crc, "56789", 5);
	wire = swiw_crc_final(crc);
	KUNIT_EXPECT_EQ(test, memcmp(&wire, want, sizeof(want)), 0);
}

static struct kunit_case swiw_wire_cases[] = {
	KUNIT_CASE(swiw_ctrl_test),
	KUNIT_CASE(swiw_hdr_len_test),
	KUNIT_CASE(swiw_hdr_len_all_test),
	KUNIT_CASE(swiw_pad_test),
	KUNIT_CASE(swiw_crc_test),
	{}
};

static struct kunit_suite swiw_wire_suite = {
	.name = "swiw_wire",
	.test_cases = swiw_wire_cases,
};

kunit_test_suites(&swiw_wire_suite);

MODULE_DESCRIPTION("KUnit tests for swiw's wire format");
MODULE_LICENSE("Dual BSD/GPL");

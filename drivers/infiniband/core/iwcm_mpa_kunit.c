// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests of the MPA frame codec and negotiation, and a fuzzer: random and mutated
 * frames, each in a buffer of exactly its size (KASAN sees any read past
 * it), fed whole and in random pieces as a socket would deliver them.
 *
 * Out-of-tree build glue: iw_cm.ko exports only the symbols of the 6.1
 * ABI and the IW_HOST namespace (symvers-check.sh fails on any other),
 * so the codec is compiled a second time into this module (it keeps no
 * state).
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "iwcm_mpa.c"

static unsigned int fuzz_iters = 20000;
module_param(fuzz_iters, uint, 0444);
MODULE_PARM_DESC(fuzz_iters, "frames the MPA fuzz case tries (default 20000)");

static unsigned long fuzz_seed = 0x5044;
module_param(fuzz_seed, ulong, 0444);
MODULE_PARM_DESC(fuzz_seed, "seed of the MPA fuzz case");

static const u8 mpa_pdata[] = "private data of the consumer";

static void mpa_frame_eq(struct kunit *test, const struct iwcm_mpa_frame *a,
			 const struct iwcm_mpa_frame *b)
{
	KUNIT_EXPECT_EQ(test, a->rev, b->rev);
	KUNIT_EXPECT_EQ(test, a->markers, b->markers);
	KUNIT_EXPECT_EQ(test, a->crc, b->crc);
	KUNIT_EXPECT_EQ(test, a->reject, b->reject);
	KUNIT_EXPECT_EQ(test, a->enhanced, b->enhanced);
	KUNIT_EXPECT_EQ(test, a->large, b->large);
	KUNIT_EXPECT_EQ(test, a->p2p, b->p2p);
	KUNIT_EXPECT_EQ(test, a->rtr, b->rtr);
	KUNIT_EXPECT_EQ(test, a->ird, b->ird);
	KUNIT_EXPECT_EQ(test, a->ord, b->ord);
	KUNIT_ASSERT_EQ(test, a->pdata_len, b->pdata_len);
	KUNIT_EXPECT_EQ(test, memcmp(a->pdata, b->pdata, a->pdata_len), 0);
}

/* A revision 1 request as siw sends it without MPA v2. */
static void mpa_v1_request_test(struct kunit *test)
{
	static const u8 wire[] = {
		'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
		'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
		0x40, 1, 0, 3, 'a', 'b', 'c',
	};
	struct iwcm_mpa_frame f = {
		.rev = 1, .crc = true, .pdata = "abc", .pdata_len = 3,
	}, d;
	u8 buf[IWCM_MPA_FRAME_MAX];

	KUNIT_ASSERT_EQ(test, iwcm_mpa_encode(buf, sizeof(buf), IWCM_MPA_REQ,
					      &f), (int)sizeof(wire));
	KUNIT_EXPECT_EQ(test, memcmp(buf, wire, sizeof(wire)), 0);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_frame_len(wire, sizeof(wire),
						 IWCM_MPA_REQ),
			(int)sizeof(wire));
	KUNIT_ASSERT_EQ(test, iwcm_mpa_decode(wire, sizeof(wire), IWCM_MPA_REQ,
					      &d), 0);
	mpa_frame_eq(test, &f, &d);
}

/* Revision 2 with the IRD/ORD word: every flag lands on its bit. */
static void mpa_v2_reply_test(struct kunit *test)
{
	static const u8 word[] = { 0xc0, 0x10, 0x40, 0x07 };
	struct iwcm_mpa_frame f = {
		.rev = 2, .crc = true, .reject = true, .enhanced = true,
		.p2p = true, .rtr = IWCM_MPA_RTR_SEND | IWCM_MPA_RTR_READ,
		.ird = 0x10, .ord = 7,
		.pdata = mpa_pdata, .pdata_len = sizeof(mpa_pdata),
	}, d;
	u8 buf[IWCM_MPA_FRAME_MAX];
	int len;

	len = iwcm_mpa_encode(buf, sizeof(buf), IWCM_MPA_REP, &f);
	KUNIT_ASSERT_EQ(test, len, IWCM_MPA_HDR_LEN + IWCM_MPA_V2_LEN +
			(int)sizeof(mpa_pdata));
	KUNIT_EXPECT_EQ(test, memcmp(buf, "MPA ID Rep Frame", 16), 0);
	KUNIT_EXPECT_EQ(test, buf[16], 0x70);
	KUNIT_EXPECT_EQ(test, buf[17], 2);
	KUNIT_EXPECT_EQ(test, buf[18], 0);
	KUNIT_EXPECT_EQ(test, buf[19], IWCM_MPA_V2_LEN + sizeof(mpa_pdata));
	KUNIT_EXPECT_EQ(test, memcmp(buf + 20, word, sizeof(word)), 0);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_decode(buf, len, IWCM_MPA_REP, &d), 0);
	mpa_frame_eq(test, &f, &d);

	/* The same frame is no request. */
	KUNIT_EXPECT_EQ(test, iwcm_mpa_decode(buf, len, IWCM_MPA_REQ, &d),
			-EBADMSG);
}

/*
 * siw's bit for "takes FPDUs longer than MULPDU" (0x08 of the flags
 * byte, reserved in RFC 5044): read, written, and in use only when both
 * frames carry it.
 */
static void mpa_large_test(struct kunit *test)
{
	static const u8 wire[] = {
		'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
		'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
		0x48, 1, 0, 0,
	};
	struct iwcm_mpa_local me = { .rev = 1, .large = true };
	u8 *buf = kunit_kmalloc(test, IWCM_MPA_FRAME_MAX, GFP_KERNEL);
	struct iwcm_mpa_frame req, rep, d;
	struct iwcm_mpa_result res;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_decode(wire, sizeof(wire), IWCM_MPA_REQ,
					      &d), 0);
	KUNIT_EXPECT_TRUE(test, d.large);
	KUNIT_EXPECT_TRUE(test, d.crc);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_encode(buf, IWCM_MPA_FRAME_MAX,
					      IWCM_MPA_REQ, &d),
			(int)sizeof(wire));
	KUNIT_EXPECT_EQ(test, memcmp(buf, wire, sizeof(wire)), 0);

	/* A responder that does not take them says nothing: not used. */
	KUNIT_ASSERT_EQ(test, iwcm_mpa_answer(&d, &(struct iwcm_mpa_local){},
					      NULL, 0, &rep, &res), 0);
	KUNIT_EXPECT_FALSE(test, rep.large);
	KUNIT_EXPECT_FALSE(test, res.large);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_answer(&d, &me, NULL, 0, &rep, &res), 0);
	KUNIT_EXPECT_TRUE(test, rep.large);
	KUNIT_EXPECT_TRUE(test, res.large);

	/* The initiator's side: the reply's bit alone does not do it. */
	KUNIT_ASSERT_EQ(test, iwcm_mpa_request(&(struct iwcm_mpa_local){
						.rev = 1 }, NULL, 0, &req), 0);
	KUNIT_EXPECT_FALSE(test, req.large);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_reply(&req, &rep, &me, &res), 0);
	KUNIT_EXPECT_FALSE(test, res.large);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_request(&me, NULL, 0, &req), 0);
	KUNIT_EXPECT_TRUE(test, req.large);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_reply(&req, &rep, &me, &res), 0);
	KUNIT_EXPECT_TRUE(test, res.large);
	rep.large = false;
	KUNIT_ASSERT_EQ(test, iwcm_mpa_reply(&req, &rep, &me, &res), 0);
	KUNIT_EXPECT_FALSE(test, res.large);
}

/* A wrong key is seen at its first wrong byte; a right one waits. */
static void mpa_key_test(struct kunit *test)
{
	u8 buf[IWCM_MPA_HDR_LEN];
	size_t i, len;

	memcpy(buf, "MPA ID Req Frame", 16);
	memset(buf + 16, 0, 4);
	for (len = 0; len < IWCM_MPA_HDR_LEN; len++)
		KUNIT_EXPECT_EQ(test, iwcm_mpa_frame_len(buf, len,
							 IWCM_MPA_REQ),
				-EAGAIN);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_frame_len(buf, sizeof(buf),
						 IWCM_MPA_REQ),
			IWCM_MPA_HDR_LEN);
	for (i = 0; i < IWCM_MPA_KEY_LEN; i++) {
		buf[i] ^= 0x20;
		for (len = 0; len <= IWCM_MPA_HDR_LEN; len++)
			KUNIT_EXPECT_EQ_MSG(test,
					    iwcm_mpa_frame_len(buf, len,
							       IWCM_MPA_REQ),
					    len > i ? -EBADMSG : -EAGAIN,
					    "key byte %zu, %zu bytes in", i, len);
		buf[i] ^= 0x20;
	}
	/* "Req" and "Rep" differ in byte 9 only. */
	KUNIT_EXPECT_EQ(test, iwcm_mpa_frame_len(buf, 9, IWCM_MPA_REP),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_frame_len(buf, 10, IWCM_MPA_REP),
			-EBADMSG);
}

static void mpa_pdata_limit_test(struct kunit *test)
{
	static const u16 lens[] = { 513, 0x1000, 0x8000, 0xffff };
	u8 buf[IWCM_MPA_HDR_LEN];
	int i;

	memcpy(buf, "MPA ID Rep Frame", 16);
	buf[16] = 0;
	buf[17] = 1;
	put_unaligned_be16(512, buf + 18);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_frame_len(buf, sizeof(buf),
						 IWCM_MPA_REP),
			IWCM_MPA_FRAME_MAX);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		put_unaligned_be16(lens[i], buf + 18);
		KUNIT_EXPECT_EQ(test, iwcm_mpa_frame_len(buf, sizeof(buf),
							 IWCM_MPA_REP),
				-EMSGSIZE);
	}
}

/* Decoding wants exactly one frame: not less, not more. */
static void mpa_decode_len_test(struct kunit *test)
{
	struct iwcm_mpa_frame f = {
		.rev = 1, .pdata = "xyz", .pdata_len = 3,
	}, d;
	u8 buf[IWCM_MPA_FRAME_MAX];
	int len, l;

	len = iwcm_mpa_encode(buf, sizeof(buf), IWCM_MPA_REQ, &f);
	KUNIT_ASSERT_GT(test, len, 0);
	for (l = 0; l < len; l++)
		KUNIT_EXPECT_EQ(test, iwcm_mpa_decode(buf, l, IWCM_MPA_REQ, &d),
				-EBADMSG);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_decode(buf, len + 1, IWCM_MPA_REQ, &d),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_decode(buf, len, IWCM_MPA_REQ, &d), 0);
}

/* H in revision 2 needs its word; in revision 1 it is a reserved bit. */
static void mpa_enhanced_test(struct kunit *test)
{
	u8 buf[IWCM_MPA_HDR_LEN + 3];
	struct iwcm_mpa_frame d;
	int pd;

	memcpy(buf, "MPA ID Req Frame", 16);
	buf[16] = 0x10 | 0x0f;
	for (pd = 0; pd < IWCM_MPA_V2_LEN; pd++) {
		buf[17] = 2;
		put_unaligned_be16(pd, buf + 18);
		KUNIT_EXPECT_EQ(test, iwcm_mpa_decode(buf, IWCM_MPA_HDR_LEN + pd,
						      IWCM_MPA_REQ, &d),
				-EBADMSG);
		buf[17] = 1;
		KUNIT_ASSERT_EQ(test, iwcm_mpa_decode(buf, IWCM_MPA_HDR_LEN + pd,
						      IWCM_MPA_REQ, &d), 0);
		KUNIT_EXPECT_FALSE(test, d.enhanced);
		KUNIT_EXPECT_EQ(test, d.pdata_len, pd);
		KUNIT_EXPECT_FALSE(test, d.markers || d.crc || d.reject);
	}
}

static void mpa_encode_invalid_test(struct kunit *test)
{
	static const struct iwcm_mpa_frame bad[] = {
		{ .rev = 0 },
		{ .rev = 3 },
		{ .rev = 1, .enhanced = true },
		{ .rev = 2, .enhanced = true, .rtr = IWCM_MPA_RTR_READ },
		{ .rev = 2, .enhanced = true, .p2p = true, .rtr = 0x08 },
		{ .rev = 2, .p2p = true },
		{ .rev = 2, .ird = 1 },
		{ .rev = 2, .enhanced = true, .ird = 0x4000 },
		{ .rev = 2, .enhanced = true, .ord = 0xffff },
		{ .rev = 1, .pdata_len = IWCM_MPA_PDATA_MAX + 1 },
		{ .rev = 2, .enhanced = true,
		  .pdata_len = IWCM_MPA_PDATA_MAX - IWCM_MPA_V2_LEN + 1 },
	};
	static u8 pdata[IWCM_MPA_PDATA_MAX + 1];
	u8 buf[IWCM_MPA_FRAME_MAX];
	struct iwcm_mpa_frame f;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		f = bad[i];
		f.pdata = pdata;
		KUNIT_EXPECT_EQ_MSG(test, iwcm_mpa_encode(buf, sizeof(buf),
							  IWCM_MPA_REQ, &f),
				    -EINVAL, "case %d", i);
	}
	f = (struct iwcm_mpa_frame){ .rev = 1, .pdata = pdata, .pdata_len = 8 };
	KUNIT_EXPECT_EQ(test, iwcm_mpa_encode(buf, IWCM_MPA_HDR_LEN + 7,
					      IWCM_MPA_REQ, &f), -ENOSPC);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_encode(buf, IWCM_MPA_HDR_LEN + 8,
					      IWCM_MPA_REQ, &f),
			IWCM_MPA_HDR_LEN + 8);
	f.pdata_len = IWCM_MPA_PDATA_MAX;
	KUNIT_EXPECT_EQ(test, iwcm_mpa_encode(buf, sizeof(buf), IWCM_MPA_REQ,
					      &f), IWCM_MPA_FRAME_MAX);
}

static const struct iwcm_mpa_local mpa_plain = {
	.ird = 4, .ird_max = 8, .ord = 4,
};

static void mpa_request_test(struct kunit *test)
{
	struct iwcm_mpa_local me = mpa_plain;
	struct iwcm_mpa_frame req;

	KUNIT_ASSERT_EQ(test, iwcm_mpa_request(&me, mpa_pdata, 5, &req), 0);
	KUNIT_EXPECT_EQ(test, req.rev, 2);
	KUNIT_EXPECT_TRUE(test, req.enhanced);
	KUNIT_EXPECT_FALSE(test, req.p2p || req.crc || req.markers);
	KUNIT_EXPECT_EQ(test, req.rtr, 0);
	KUNIT_EXPECT_EQ(test, req.ird, 4);
	KUNIT_EXPECT_EQ(test, req.ord, 4);
	KUNIT_EXPECT_EQ(test, req.pdata_len, 5);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_request(&me, mpa_pdata,
					       IWCM_MPA_PDATA_MAX - 3, &req),
			-EINVAL);

	/* A READ RTR needs an ORD slot; nothing left to offer is an error. */
	me.p2p = true;
	me.rtr = IWCM_MPA_RTR_READ | IWCM_MPA_RTR_WRITE;
	me.ord = 0;
	KUNIT_ASSERT_EQ(test, iwcm_mpa_request(&me, NULL, 0, &req), 0);
	KUNIT_EXPECT_TRUE(test, req.p2p);
	KUNIT_EXPECT_EQ(test, req.rtr, IWCM_MPA_RTR_WRITE);
	me.rtr = IWCM_MPA_RTR_READ;
	KUNIT_EXPECT_EQ(test, iwcm_mpa_request(&me, NULL, 0, &req), -EINVAL);
	me.ord = 1;
	KUNIT_EXPECT_EQ(test, iwcm_mpa_request(&me, NULL, 0, &req), 0);
	KUNIT_EXPECT_EQ(test, req.rtr, IWCM_MPA_RTR_READ);

	/*
	 * Revision 1: no IRD/ORD word, so 512 bytes of private data, and
	 * no RTR to start a peer-to-peer connection with.
	 */
	me = mpa_plain;
	me.rev = 1;
	me.crc = true;
	KUNIT_ASSERT_EQ(test, iwcm_mpa_request(&me, mpa_pdata, 5, &req), 0);
	KUNIT_EXPECT_EQ(test, req.rev, 1);
	KUNIT_EXPECT_TRUE(test, req.crc);
	KUNIT_EXPECT_FALSE(test, req.enhanced || req.p2p || req.markers);
	KUNIT_EXPECT_EQ(test, req.pdata_len, 5);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_request(&me, mpa_pdata,
					       IWCM_MPA_PDATA_MAX, &req), 0);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_request(&me, mpa_pdata,
					       IWCM_MPA_PDATA_MAX + 1, &req),
			-EINVAL);
	me.p2p = true;
	me.rtr = IWCM_MPA_RTR_WRITE;
	KUNIT_EXPECT_EQ(test, iwcm_mpa_request(&me, NULL, 0, &req), -EINVAL);

	/* Counts over 14 bits are capped, not wrapped into the flags. */
	me = mpa_plain;
	me.ird = 0xffff;
	me.ord = 0x4000;
	KUNIT_ASSERT_EQ(test, iwcm_mpa_request(&me, NULL, 0, &req), 0);
	KUNIT_EXPECT_EQ(test, req.ird, IWCM_MPA_IRD_ORD_MAX);
	KUNIT_EXPECT_EQ(test, req.ord, IWCM_MPA_IRD_ORD_MAX);
}

static void mpa_check_request_test(struct kunit *test)
{
	struct iwcm_mpa_frame req = { .rev = 1 };
	int rev;

	for (rev = 0; rev < 256; rev++) {
		req.rev = rev;
		KUNIT_EXPECT_EQ(test, iwcm_mpa_check_request(&req),
				rev == 1 || rev == 2 ? 0 : -EPROTONOSUPPORT);
	}
	req.rev = 2;
	req.markers = true;
	KUNIT_EXPECT_EQ(test, iwcm_mpa_check_request(&req), -EOPNOTSUPP);
}

/* Revision 1: the reply echoes it, CRC if either wants it, no word. */
static void mpa_answer_v1_test(struct kunit *test)
{
	struct iwcm_mpa_frame req = { .rev = 1 }, rep;
	struct iwcm_mpa_local me = mpa_plain;
	struct iwcm_mpa_result res;
	int c;

	for (c = 0; c < 4; c++) {
		req.crc = c & 1;
		me.crc = c & 2;
		KUNIT_ASSERT_EQ(test, iwcm_mpa_answer(&req, &me, mpa_pdata, 3,
						      &rep, &res), 0);
		KUNIT_EXPECT_EQ(test, rep.rev, 1);
		KUNIT_EXPECT_FALSE(test, rep.enhanced || rep.reject);
		KUNIT_EXPECT_EQ(test, rep.crc, c != 0);
		KUNIT_EXPECT_EQ(test, res.crc, c != 0);
		KUNIT_EXPECT_EQ(test, res.ird, me.ird);
		KUNIT_EXPECT_EQ(test, res.ord, me.ord);
		KUNIT_EXPECT_EQ(test, rep.pdata_len, 3);
	}
	KUNIT_EXPECT_EQ(test, iwcm_mpa_answer(&req, &me, mpa_pdata,
					      IWCM_MPA_PDATA_MAX, &rep, &res),
			0);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_answer(&req, &me, mpa_pdata,
					      IWCM_MPA_PDATA_MAX + 1, &rep,
					      &res), -EINVAL);
}

/* The responder's ORD down to the peer's IRD, its IRD up to its ORD. */
static void mpa_answer_ird_ord_test(struct kunit *test)
{
	struct iwcm_mpa_frame req = {
		.rev = 2, .enhanced = true, .ird = 4, .ord = 8,
	}, rep;
	struct iwcm_mpa_local me = { .ird = 2, .ird_max = 16, .ord = 16 };
	struct iwcm_mpa_result res;

	KUNIT_ASSERT_EQ(test, iwcm_mpa_answer(&req, &me, NULL, 0, &rep, &res),
			0);
	KUNIT_EXPECT_EQ(test, res.ord, 4);
	KUNIT_EXPECT_EQ(test, res.ird, 8);
	KUNIT_EXPECT_EQ(test, rep.ord, 4);
	KUNIT_EXPECT_EQ(test, rep.ird, 8);
	KUNIT_EXPECT_TRUE(test, rep.enhanced);
	KUNIT_EXPECT_FALSE(test, rep.p2p || res.p2p);

	/* Raised only as far as it can be; the initiator cuts its ORD. */
	me.ird_max = 6;
	KUNIT_ASSERT_EQ(test, iwcm_mpa_answer(&req, &me, NULL, 0, &rep, &res),
			0);
	KUNIT_EXPECT_EQ(test, res.ird, 6);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_answer(&req, &me, mpa_pdata,
					      IWCM_MPA_PDATA_MAX - 3, &rep,
					      &res), -EINVAL);
}

static void mpa_answer_rtr_test(struct kunit *test)
{
	static const struct {
		u8 offered, takes;
		u16 req_ord, ird;
		u8 picked;
	} cases[] = {
		{ IWCM_MPA_RTR_ALL, IWCM_MPA_RTR_ALL, 1, 1, IWCM_MPA_RTR_WRITE },
		{ IWCM_MPA_RTR_READ | IWCM_MPA_RTR_SEND, IWCM_MPA_RTR_ALL,
		  1, 0, IWCM_MPA_RTR_READ },	/* IRD raised to 1 */
		{ IWCM_MPA_RTR_READ | IWCM_MPA_RTR_SEND, IWCM_MPA_RTR_ALL,
		  0, 0, IWCM_MPA_RTR_SEND },	/* no IRD for the READ */
		{ IWCM_MPA_RTR_READ, IWCM_MPA_RTR_ALL, 0, 0, 0 },
		{ IWCM_MPA_RTR_SEND, IWCM_MPA_RTR_WRITE | IWCM_MPA_RTR_READ,
		  1, 1, 0 },
		{ IWCM_MPA_RTR_WRITE, IWCM_MPA_RTR_WRITE, 0, 0,
		  IWCM_MPA_RTR_WRITE },
	};
	struct iwcm_mpa_frame req = { .rev = 2, .enhanced = true, .p2p = true,
				      .ird = 1 }, rep;
	struct iwcm_mpa_local me = { .ord = 1 };
	struct iwcm_mpa_result res;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		req.rtr = cases[i].offered;
		req.ord = cases[i].req_ord;
		me.rtr = cases[i].takes;
		me.ird = cases[i].ird;
		me.ird_max = 1;
		ret = iwcm_mpa_answer(&req, &me, NULL, 0, &rep, &res);
		if (!cases[i].picked) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -EPROTO, "case %d", i);
			continue;
		}
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, res.rtr, cases[i].picked, "case %d", i);
		KUNIT_EXPECT_EQ(test, rep.rtr, res.rtr);
		KUNIT_EXPECT_TRUE(test, rep.p2p && res.p2p);
	}
}

static void mpa_reject_test(struct kunit *test)
{
	struct iwcm_mpa_frame req = { .rev = 2, .enhanced = true, .crc = true,
				      .markers = true, .ird = 3 }, rep, d;
	u8 buf[IWCM_MPA_FRAME_MAX];
	int len;

	KUNIT_ASSERT_EQ(test, iwcm_mpa_reject(&req, mpa_pdata, 7, &rep), 0);
	KUNIT_EXPECT_TRUE(test, rep.reject && rep.crc && rep.enhanced);
	KUNIT_EXPECT_FALSE(test, rep.markers || rep.p2p);
	KUNIT_EXPECT_EQ(test, rep.ird + rep.ord + rep.rtr, 0);
	len = iwcm_mpa_encode(buf, sizeof(buf), IWCM_MPA_REP, &rep);
	KUNIT_ASSERT_EQ(test, len, IWCM_MPA_HDR_LEN + IWCM_MPA_V2_LEN + 7);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf + IWCM_MPA_HDR_LEN), 0);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_decode(buf, len, IWCM_MPA_REP, &d), 0);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_reply(&req, &d, &mpa_plain,
					     &(struct iwcm_mpa_result){}),
			-ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, memcmp(d.pdata, mpa_pdata, 7), 0);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_reject(&req, mpa_pdata,
					      IWCM_MPA_PDATA_MAX - 3, &rep),
			-EINVAL);
}

/* Replies an initiator must not take. */
static void mpa_reply_bad_test(struct kunit *test)
{
	struct iwcm_mpa_local me = { .ird = 2, .ird_max = 4, .ord = 2,
				     .p2p = true, .rtr = IWCM_MPA_RTR_READ |
							 IWCM_MPA_RTR_WRITE };
	struct iwcm_mpa_frame req, rep, good = {
		.rev = 2, .enhanced = true, .p2p = true,
		.rtr = IWCM_MPA_RTR_WRITE, .ird = 2, .ord = 2,
	}, plain_req;
	struct iwcm_mpa_result res;

	KUNIT_ASSERT_EQ(test, iwcm_mpa_request(&me, NULL, 0, &req), 0);
	KUNIT_EXPECT_EQ(test, iwcm_mpa_reply(&req, &good, &me, &res), 0);
	KUNIT_EXPECT_EQ(test, res.rtr, IWCM_MPA_RTR_WRITE);

/* The error, and the TERMINATE the responder gets for it. */
#define BAD(field, value, err, term_code) do {				\
		rep = good;						\
		rep.field = value;					\
		KUNIT_EXPECT_EQ_MSG(test, iwcm_mpa_reply(&req, &rep, &me,	\
							 &res), err,	\
				    #field " = " #value);		\
		KUNIT_EXPECT_EQ_MSG(test, res.term, term_code,		\
				    #field " = " #value);		\
	} while (0)
	/* No FPDU mode: nothing but a close. */
	BAD(rev, 0, -EPROTO, IWCM_MPA_TERM_NONE);
	BAD(rev, 3, -EPROTO, IWCM_MPA_TERM_NONE);
	BAD(reject, true, -ECONNREFUSED, IWCM_MPA_TERM_NONE);
	BAD(markers, true, -EOPNOTSUPP, IWCM_MPA_TERM_NONE);
	/* An accepting reply this end cannot take: RFC 6581's codes. */
	BAD(ord, 5, -ENOBUFS, IWCM_MPA_TERM_INSUFF_IRD);	/* over ird_max */
	BAD(p2p, false, -EPROTO, IWCM_MPA_TERM_NO_RTR);
	BAD(rtr, 0, -EPROTO, IWCM_MPA_TERM_NO_RTR);
	BAD(rtr, IWCM_MPA_RTR_SEND, -EPROTO,
	    IWCM_MPA_TERM_NO_RTR);		/* not offered */
	BAD(rtr, IWCM_MPA_RTR_READ | IWCM_MPA_RTR_WRITE, -EPROTO,
	    IWCM_MPA_TERM_NO_RTR);
	BAD(enhanced, false, -EPROTO,
	    IWCM_MPA_TERM_NO_RTR);	/* peer-to-peer needs the word */
	BAD(ird, 0, 0, IWCM_MPA_TERM_NONE);	/* WRITE needs no ORD */
	good.rtr = IWCM_MPA_RTR_READ;
	BAD(ird, 0, -EPROTO,
	    IWCM_MPA_TERM_NO_RTR);	/* leaves no ORD for the READ */
	BAD(ord, 4, 0, IWCM_MPA_TERM_NONE);	/* IRD raised to 4 */
	KUNIT_EXPECT_EQ(test, res.ird, 4);
#undef BAD

	/* Without peer-to-peer a reply without the word is taken. */
	me.p2p = false;
	KUNIT_ASSERT_EQ(test, iwcm_mpa_request(&me, NULL, 0, &plain_req), 0);
	rep = (struct iwcm_mpa_frame){ .rev = 1, .crc = true };
	KUNIT_ASSERT_EQ(test, iwcm_mpa_reply(&plain_req, &rep, &me, &res), 0);
	KUNIT_EXPECT_TRUE(test, res.crc);
	KUNIT_EXPECT_EQ(test, res.rev, 1);
	KUNIT_EXPECT_EQ(test, res.ird, 2);
	KUNIT_EXPECT_EQ(test, res.ord, 2);
	rep = good;
	KUNIT_EXPECT_EQ(test, iwcm_mpa_reply(&plain_req, &rep, &me, &res),
			-EPROTO);	/* peer-to-peer not asked for */
	KUNIT_EXPECT_EQ(test, res.term, IWCM_MPA_TERM_NO_RTR);
	plain_req.enhanced = false;
	plain_req.rev = 1;
	KUNIT_EXPECT_EQ(test, iwcm_mpa_reply(&plain_req, &rep, &me, &res),
			-EPROTO);	/* a word not asked for */
}

/*
 * The TERMINATE FPDU byte for byte (RFC 5040, RFC 5044): MPA length
 * 22, control word L|DDP v1|RDMAP v1|TERMINATE, queue 2, MSN 1, MO 0,
 * layer LLP, type MPA, the code, no header; CRC32c (computed apart from
 * the kernel's, as a check value) or zero.
 */
static void mpa_terminate_test(struct kunit *test)
{
	static const u8 insuff_ird[IWCM_MPA_TERM_LEN] = {
		0x00, 0x16, 0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2,
		0, 0, 0, 1, 0, 0, 0, 0, 0x20, 0x06, 0x00, 0x00,
		0x65, 0x40, 0xfb, 0x1b,
	};
	static const u8 no_rtr_crc[4] = { 0x1b, 0xd2, 0xba, 0xbe };
	u8 buf[IWCM_MPA_TERM_LEN + 1];

	KUNIT_ASSERT_EQ(test, iwcm_mpa_terminate(buf, sizeof(buf),
						 IWCM_MPA_TERM_INSUFF_IRD, true),
			IWCM_MPA_TERM_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(buf, insuff_ird, IWCM_MPA_TERM_LEN), 0);

	KUNIT_ASSERT_EQ(test, iwcm_mpa_terminate(buf, sizeof(buf),
						 IWCM_MPA_TERM_NO_RTR, true),
			IWCM_MPA_TERM_LEN);
	KUNIT_EXPECT_EQ(test, buf[21], IWCM_MPA_TERM_NO_RTR);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 24, no_rtr_crc, 4), 0);

	/* Without CRC the field is there, zero. */
	KUNIT_ASSERT_EQ(test, iwcm_mpa_terminate(buf, sizeof(buf),
						 IWCM_MPA_TERM_INSUFF_IRD,
						 false),
			IWCM_MPA_TERM_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(buf, insuff_ird, 24), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(buf + 24), 0U);

	KUNIT_EXPECT_EQ(test, iwcm_mpa_terminate(buf, IWCM_MPA_TERM_LEN - 1,
						 IWCM_MPA_TERM_NO_RTR, false),
			-ENOSPC);
}

/* @in through the wire codec into @out (pointing into @buf). */
static void mpa_wire(struct kunit *test, u8 *buf, enum iwcm_mpa_kind kind,
		     const struct iwcm_mpa_frame *in,
		     struct iwcm_mpa_frame *out)
{
	int len = iwcm_mpa_encode(buf, IWCM_MPA_FRAME_MAX, kind, in);

	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_ASSERT_EQ(test, iwcm_mpa_decode(buf, len, kind, out), 0);
}

static void mpa_random_local(struct rnd_state *rnd, struct iwcm_mpa_local *me)
{
	u32 r = prandom_u32_state(rnd);

	me->crc = r & 1;
	me->p2p = r & 2;
	me->rtr = (r >> 2) & IWCM_MPA_RTR_ALL;
	me->ird = (r >> 5) % 5 ? (r >> 8) % 20 : 0x3fff + (r >> 8) % 3;
	me->ird_max = (r >> 13) % 40;
	me->ord = (r >> 19) % 20;
	me->large = r & BIT(31);
}

/*
 * Both ends, random settings, frames through the wire codec: when both
 * accept, they agree on CRC, peer-to-peer and RTR, and neither end's
 * ORD exceeds the other's IRD.
 */
static void mpa_negotiate_random_test(struct kunit *test)
{
	struct iwcm_mpa_frame req, rep, dreq, drep;
	struct iwcm_mpa_result ri, rr;
	u8 *buf = kunit_kmalloc(test, IWCM_MPA_FRAME_MAX, GFP_KERNEL);
	struct iwcm_mpa_local mi, mr;
	struct rnd_state rnd;
	int i, ret, done = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	prandom_seed_state(&rnd, fuzz_seed + 1);
	for (i = 0; i < 5000; i++) {
		mpa_random_local(&rnd, &mi);
		mpa_random_local(&rnd, &mr);
		if (iwcm_mpa_request(&mi, NULL, 0, &req))
			continue;
		mpa_wire(test, buf, IWCM_MPA_REQ, &req, &dreq);
		KUNIT_ASSERT_EQ(test, iwcm_mpa_check_request(&dreq), 0);
		ret = iwcm_mpa_answer(&dreq, &mr, NULL, 0, &rep, &rr);
		if (ret) {
			/* Only peer-to-peer without a common RTR. */
			KUNIT_EXPECT_EQ(test, ret, -EPROTO);
			KUNIT_EXPECT_TRUE(test, mi.p2p);
			continue;
		}
		mpa_wire(test, buf, IWCM_MPA_REP, &rep, &drep);
		ret = iwcm_mpa_reply(&req, &drep, &mi, &ri);
		if (ret) {
			/* Only an ORD the initiator's IRD cannot meet. */
			KUNIT_EXPECT_EQ_MSG(test, ret, -ENOBUFS, "pair %d", i);
			KUNIT_EXPECT_GT(test, rr.ord, max(mi.ird, mi.ird_max));
			continue;
		}
		done++;
		KUNIT_EXPECT_EQ(test, ri.rev, rr.rev);
		KUNIT_EXPECT_EQ(test, ri.crc, mi.crc || mr.crc);
		KUNIT_EXPECT_EQ(test, rr.crc, ri.crc);
		KUNIT_EXPECT_EQ(test, ri.large, mi.large && mr.large);
		KUNIT_EXPECT_EQ(test, rr.large, ri.large);
		KUNIT_EXPECT_EQ(test, ri.p2p, mi.p2p);
		KUNIT_EXPECT_EQ(test, rr.p2p, ri.p2p);
		KUNIT_EXPECT_EQ(test, rr.rtr, ri.rtr);
		KUNIT_EXPECT_LE_MSG(test, ri.ord, rr.ird, "pair %d", i);
		KUNIT_EXPECT_LE_MSG(test, rr.ord, ri.ird, "pair %d", i);
		KUNIT_EXPECT_LE(test, ri.ord, mi.ord);
		KUNIT_EXPECT_LE(test, rr.ord, mr.ord);
		if (ri.p2p) {
			KUNIT_EXPECT_EQ(test, hweight8(ri.rtr), 1);
			KUNIT_EXPECT_EQ(test, ri.rtr & ~(mi.rtr & mr.rtr), 0);
		}
		if (ri.rtr == IWCM_MPA_RTR_READ) {
			KUNIT_EXPECT_GE(test, ri.ord, 1);
			KUNIT_EXPECT_GE(test, rr.ird, 1);
		}
		if (test->status == KUNIT_FAILURE)
			return;
	}
	/* The settings are not so odd that nothing ever connects. */
	KUNIT_EXPECT_GT(test, done, 2500);
}

/* A valid frame to start from, of random content. */
static int mpa_fuzz_valid(struct rnd_state *rnd, u8 *buf,
			  enum iwcm_mpa_kind kind)
{
	static u8 pdata[IWCM_MPA_PDATA_MAX];
	struct iwcm_mpa_frame f = {};
	u32 r = prandom_u32_state(rnd);

	prandom_bytes_state(rnd, pdata, sizeof(pdata));
	f.rev = 1 + (r & 1);
	f.crc = r & 2;
	f.reject = r & 4;
	f.markers = r & 8;
	f.enhanced = f.rev == 2 && (r & 16);
	f.large = r & BIT(31);
	if (f.enhanced) {
		f.p2p = r & 32;
		f.rtr = f.p2p ? (r >> 6) & IWCM_MPA_RTR_ALL : 0;
		f.ird = (r >> 9) & IWCM_MPA_IRD_ORD_MAX;
		f.ord = prandom_u32_state(rnd) & IWCM_MPA_IRD_ORD_MAX;
	}
	f.pdata = pdata;
	f.pdata_len = prandom_u32_state(rnd) %
		(IWCM_MPA_PDATA_MAX - (f.enhanced ? IWCM_MPA_V2_LEN : 0) + 1);
	return iwcm_mpa_encode(buf, IWCM_MPA_FRAME_MAX + 64, kind, &f);
}

/*
 * One fuzzed input: its frame length, found as a receiver would (whole,
 * and in random pieces: the answer may not depend on how bytes came),
 * then decoded; a decoded frame re-encodes to one that decodes alike.
 */
static void mpa_fuzz_one(struct kunit *test, struct rnd_state *rnd,
			 const u8 *in, size_t len, enum iwcm_mpa_kind kind)
{
	struct iwcm_mpa_frame d, d2;
	int whole, part = -EAGAIN, l2;
	size_t got = 0;
	u8 *buf, *re;

	buf = kmemdup(in, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	whole = iwcm_mpa_frame_len(buf, len, kind);
	while (part == -EAGAIN && got < len) {
		got += 1 + prandom_u32_state(rnd) % 24;
		got = min(got, len);
		part = iwcm_mpa_frame_len(buf, got, kind);
	}
	if (whole == -EAGAIN) {
		KUNIT_EXPECT_EQ(test, part, -EAGAIN);
		KUNIT_EXPECT_LT(test, len, (size_t)IWCM_MPA_HDR_LEN);
	} else if (whole > 0) {
		KUNIT_EXPECT_EQ(test, part, whole);
		KUNIT_EXPECT_GE(test, whole, IWCM_MPA_HDR_LEN);
		KUNIT_EXPECT_LE(test, whole, IWCM_MPA_FRAME_MAX);
	} else {
		KUNIT_EXPECT_TRUE(test, whole == -EBADMSG ||
				  whole == -EMSGSIZE);
		KUNIT_EXPECT_EQ(test, part, whole);
	}
	if (whole <= 0 || whole > len)
		goto out;

	if (iwcm_mpa_decode(buf, whole, kind, &d))
		goto out;
	KUNIT_EXPECT_TRUE(test, d.pdata + d.pdata_len <= buf + whole);
	re = kmalloc(IWCM_MPA_FRAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, re);
	l2 = iwcm_mpa_encode(re, IWCM_MPA_FRAME_MAX, kind, &d);
	/* Only a revision the encoder refuses, or RTR without P2P. */
	if (l2 < 0) {
		KUNIT_EXPECT_TRUE(test, (d.rev != 1 && d.rev != 2) ||
				  (d.rtr && !d.p2p));
	} else {
		KUNIT_EXPECT_EQ(test, l2, whole);
		KUNIT_EXPECT_EQ(test, iwcm_mpa_decode(re, l2, kind, &d2), 0);
		mpa_frame_eq(test, &d, &d2);
	}
	kfree(re);
out:
	kfree(buf);
}

static void mpa_fuzz_test(struct kunit *test)
{
	u8 *frame = kunit_kzalloc(test, IWCM_MPA_FRAME_MAX + 64, GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, frame);
	prandom_seed_state(&rnd, fuzz_seed);
	kunit_info(test, "%u frames, seed %lu\n", fuzz_iters, fuzz_seed);
	for (i = 0; i < fuzz_iters; i++) {
		enum iwcm_mpa_kind kind = i & 1;
		u32 r = prandom_u32_state(&rnd);
		int len = mpa_fuzz_valid(&rnd, frame, kind);
		int n;

		KUNIT_ASSERT_GT(test, len, 0);
		switch (r % 4) {
		case 0:		/* random bytes after a right key */
			len = prandom_u32_state(&rnd) % (IWCM_MPA_FRAME_MAX + 64);
			prandom_bytes_state(&rnd, frame + 16,
					    IWCM_MPA_FRAME_MAX + 48);
			break;
		case 1:		/* a few bytes flipped, header likelier */
			for (n = 1 + (r >> 8) % 4; n; n--) {
				u32 at = prandom_u32_state(&rnd);

				at %= (at & 1) ? IWCM_MPA_HDR_LEN + 8 : len;
				frame[at] ^= 1 << ((r >> 16) % 8);
			}
			break;
		case 2:		/* cut short or run on */
			len = prandom_u32_state(&rnd) % (len + 40);
			break;
		default:	/* untouched */
			break;
		}
		if (len)
			mpa_fuzz_one(test, &rnd, frame, len, kind);
		if (test->status == KUNIT_FAILURE) {
			kunit_info(test, "failed at frame %u\n", i);
			return;
		}
	}
}

static struct kunit_case iwcm_mpa_cases[] = {
	KUNIT_CASE(mpa_v1_request_test),
	KUNIT_CASE(mpa_v2_reply_test),
	KUNIT_CASE(mpa_large_test),
	KUNIT_CASE(mpa_key_test),
	KUNIT_CASE(mpa_pdata_limit_test),
	KUNIT_CASE(mpa_decode_len_test),
	KUNIT_CASE(mpa_enhanced_test),
	KUNIT_CASE(mpa_encode_invalid_test),
	KUNIT_CASE(mpa_request_test),
	KUNIT_CASE(mpa_check_request_test),
	KUNIT_CASE(mpa_answer_v1_test),
	KUNIT_CASE(mpa_answer_ird_ord_test),
	KUNIT_CASE(mpa_answer_rtr_test),
	KUNIT_CASE(mpa_reject_test),
	KUNIT_CASE(mpa_reply_bad_test),
	KUNIT_CASE(mpa_terminate_test),
	KUNIT_CASE(mpa_negotiate_random_test),
	KUNIT_CASE(mpa_fuzz_test),
	{}
};

static struct kunit_suite iwcm_mpa_suite = {
	.name = "iw_cm_mpa",
	.test_cases = iwcm_mpa_cases,
};

kunit_test_suites(&iwcm_mpa_suite);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("KUnit tests for iw_cm's MPA frames");
MODULE_LICENSE("Dual BSD/GPL");

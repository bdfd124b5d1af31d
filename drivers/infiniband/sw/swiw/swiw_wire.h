/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RDMAP (RFC 5040) and DDP (RFC 5041) headers inside MPA FPDUs
 * (RFC 5044), as they go on the wire: big-endian, no padding between
 * fields, each header starting with the FPDU's 2-byte MPA length.
 * Laid out as siw lays them out, so that the two interoperate.
 */
#ifndef SWIW_WIRE_H
#define SWIW_WIRE_H

#include <linux/build_bug.h>
#include <linux/types.h>

/* The DDP/RDMAP control word after the MPA length. */
#define SWIW_CTRL_T		0x8000	/* tagged buffer */
#define SWIW_CTRL_L		0x4000	/* last segment of the message */
#define SWIW_CTRL_DV_MASK	0x0300
#define SWIW_CTRL_DV		0x0100	/* DDP version 1 */
#define SWIW_CTRL_RV_MASK	0x00c0
#define SWIW_CTRL_RV		0x0040	/* RDMAP version 1 */
#define SWIW_CTRL_OP_MASK	0x000f

enum swiw_rdmap_op {
	SWIW_OP_WRITE = 0,
	SWIW_OP_READ_REQ = 1,
	SWIW_OP_READ_RESP = 2,
	SWIW_OP_SEND = 3,
	SWIW_OP_SEND_INV = 4,
	SWIW_OP_SEND_SE = 5,
	SWIW_OP_SEND_SE_INV = 6,
	SWIW_OP_TERMINATE = 7,
	SWIW_OP_MAX = SWIW_OP_TERMINATE,
};

/* Untagged queue numbers (RFC 5040, 5.1). */
#define SWIW_QN_SEND		0
#define SWIW_QN_READ_REQ	1
#define SWIW_QN_TERMINATE	2

/* WRITE and READ_RESP. */
struct swiw_hdr_tagged {
	__be16 mpa_len;
	__be16 ctrl;
	__be32 stag;
	__be64 to;
} __packed;

/* The SEND family; TERMINATE and READ_REQ start the same way. */
struct swiw_hdr_untagged {
	__be16 mpa_len;
	__be16 ctrl;
	__be32 inval_stag;	/* SEND_INV, SEND_SE_INV; else 0 */
	__be32 qn;
	__be32 msn;
	__be32 mo;
} __packed;

struct swiw_hdr_read_req {
	struct swiw_hdr_untagged u;
	__be32 sink_stag;
	__be64 sink_to;
	__be32 size;
	__be32 src_stag;
	__be64 src_to;
} __packed;

struct swiw_hdr_terminate {
	struct swiw_hdr_untagged u;
	__be32 term_ctrl;
} __packed;

/* The TERMINATE control word (RFC 5040, 7.2): layer, type, code. */
#define SWIW_TERM(layer, etype, ecode) \
	((u32)(layer) << 28 | (u32)(etype) << 24 | (u32)(ecode) << 16)
#define SWIW_TERM_LAYER(term)	((term) >> 28)
#define SWIW_TERM_ETYPE(term)	(((term) >> 24) & 0xf)
#define SWIW_TERM_ECODE(term)	(((term) >> 16) & 0xff)

enum swiw_term_layer {
	SWIW_TERM_RDMAP = 0,
	SWIW_TERM_DDP = 1,
	SWIW_TERM_LLP = 2,
};

/*
 * The codes swiw sends, as RFC 6580's registries list them: RDMAP's
 * (RFC 5040; error types 0 local catastrophic, 1 remote protection,
 * 2 remote operation), DDP's (RFC 5041; 0 local catastrophic, 1 tagged
 * buffer, 2 untagged buffer) and MPA's (RFC 5044).
 */
#define SWIW_TERM_RDMAP_STAG		SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x00)
#define SWIW_TERM_RDMAP_BOUNDS		SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x01)
#define SWIW_TERM_RDMAP_ACCESS		SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x02)
#define SWIW_TERM_RDMAP_FOREIGN		SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x03)
#define SWIW_TERM_RDMAP_WRAP		SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x04)
#define SWIW_TERM_RDMAP_INVAL		SWIW_TERM(SWIW_TERM_RDMAP, 1, 0x09)
#define SWIW_TERM_RDMAP_VERSION		SWIW_TERM(SWIW_TERM_RDMAP, 2, 0x05)
#define SWIW_TERM_RDMAP_OPCODE		SWIW_TERM(SWIW_TERM_RDMAP, 2, 0x06)
#define SWIW_TERM_RDMAP_UNSPEC		SWIW_TERM(SWIW_TERM_RDMAP, 2, 0xff)
#define SWIW_TERM_DDP_LOCAL		SWIW_TERM(SWIW_TERM_DDP, 0, 0x00)
#define SWIW_TERM_DDP_STAG		SWIW_TERM(SWIW_TERM_DDP, 1, 0x00)
#define SWIW_TERM_DDP_BOUNDS		SWIW_TERM(SWIW_TERM_DDP, 1, 0x01)
#define SWIW_TERM_DDP_FOREIGN		SWIW_TERM(SWIW_TERM_DDP, 1, 0x02)
#define SWIW_TERM_DDP_WRAP		SWIW_TERM(SWIW_TERM_DDP, 1, 0x03)
#define SWIW_TERM_DDP_T_VERSION		SWIW_TERM(SWIW_TERM_DDP, 1, 0x04)
#define SWIW_TERM_DDP_QN		SWIW_TERM(SWIW_TERM_DDP, 2, 0x01)
#define SWIW_TERM_DDP_NO_BUF		SWIW_TERM(SWIW_TERM_DDP, 2, 0x02)
#define SWIW_TERM_DDP_MSN		SWIW_TERM(SWIW_TERM_DDP, 2, 0x03)
#define SWIW_TERM_DDP_MO		SWIW_TERM(SWIW_TERM_DDP, 2, 0x04)
#define SWIW_TERM_DDP_TOO_LONG		SWIW_TERM(SWIW_TERM_DDP, 2, 0x05)
#define SWIW_TERM_DDP_UT_VERSION	SWIW_TERM(SWIW_TERM_DDP, 2, 0x06)
#define SWIW_TERM_MPA_CRC		SWIW_TERM(SWIW_TERM_LLP, 0, 0x02)

union swiw_hdr {
	struct swiw_hdr_tagged t;
	struct swiw_hdr_untagged u;
	struct swiw_hdr_read_req rreq;
	struct swiw_hdr_terminate term;
	u8 raw[48];
};

static_assert(sizeof(struct swiw_hdr_tagged) == 16);
static_assert(sizeof(struct swiw_hdr_untagged) == 20);
static_assert(sizeof(struct swiw_hdr_read_req) == 48);
static_assert(sizeof(struct swiw_hdr_terminate) == 24);
static_assert(sizeof(union swiw_hdr) == 48);

/* The fixed part every header has, enough to know which header it is. */
#define SWIW_HDR_MIN		4
/* MPA CRC32c trailer; the FPDU is padded to 4 bytes before it. */
#define SWIW_CRC_LEN		4

int swiw_hdr_len(u16 ctrl);
u16 swiw_ctrl(enum swiw_rdmap_op op, bool last);
u32 swiw_pad(u32 mpa_len);
u32 swiw_crc_update(u32 crc, const void *buf, size_t len);
__le32 swiw_crc_final(u32 crc);

#define SWIW_CRC_INIT		(~0U)

#endif /* SWIW_WIRE_H */

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Header sizes, control words, pad and CRC of the FPDUs swiw sends and
 * takes.  Nothing here trusts the peer: swiw_hdr_len() is the first
 * check of every header read from the stream.
 */
#include <linux/crc32c.h>
#include <asm/byteorder.h>
#include <linux/errno.h>

#include "swiw_wire.h"

static bool swiw_op_tagged(unsigned int op)
{
	return op == SWIW_OP_WRITE || op == SWIW_OP_READ_RESP;
}

/**
 * swiw_hdr_len() - Length of the header a control word starts.
 * @ctrl: the DDP/RDMAP control word, host order
 *
 * Return: the header's length on the wire, MPA length field included,
 * or -EPROTO for a version, opcode or tagged flag swiw cannot take.
 */
int swiw_hdr_len(u16 ctrl)
{
	unsigned int op = ctrl & SWIW_CTRL_OP_MASK;
	bool tagged = ctrl & SWIW_CTRL_T;

	if ((ctrl & SWIW_CTRL_DV_MASK) != SWIW_CTRL_DV ||
	    (ctrl & SWIW_CTRL_RV_MASK) != SWIW_CTRL_RV ||
	    op > SWIW_OP_MAX || tagged != swiw_op_tagged(op))
		return -EPROTO;
	switch (op) {
	case SWIW_OP_WRITE:
	case SWIW_OP_READ_RESP:
		return sizeof(struct swiw_hdr_tagged);
	case SWIW_OP_READ_REQ:
		return sizeof(struct swiw_hdr_read_req);
	case SWIW_OP_TERMINATE:
		return sizeof(struct swiw_hdr_terminate);
	default:
		return sizeof(struct swiw_hdr_untagged);
	}
}

/* The control word of a segment of an @op message. */
u16 swiw_ctrl(enum swiw_rdmap_op op, bool last)
{
	u16 ctrl = SWIW_CTRL_DV | SWIW_CTRL_RV | op;

	if (swiw_op_tagged(op))
		ctrl |= SWIW_CTRL_T;
	if (last)
		ctrl |= SWIW_CTRL_L;
	return ctrl;
}

/* Pad bytes after an FPDU with MPA length @mpa_len, before its CRC. */
u32 swiw_pad(u32 mpa_len)
{
	return -(mpa_len + 2) & 3;
}

u32 swiw_crc_update(u32 crc, const void *buf, size_t len)
{
	return crc32c(crc, buf, len);
}

/*
 * The CRC field as it goes on the wire: the CRC32c value's bytes least
 * significant first, as siw (through the crc32c shash) sends them.
 */
__le32 swiw_crc_final(u32 crc)
{
	return cpu_to_le32(~crc);
}

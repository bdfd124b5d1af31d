// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MPA request and reply frames on the wire (RFC 5044 section 7.1 and
 * RFC 6581 section 3):
 *
 *	bytes  0-15	key, "MPA ID Req Frame" or "MPA ID Rep Frame"
 *	byte   16	M (0x80) markers, C (0x40) CRC, R (0x20) reject,
 *			H (0x10, revision 2) enhanced setup, 0x0f reserved
 *	byte   17	revision
 *	bytes 18-19	PD_Length, big endian, at most 512
 *	then		PD_Length bytes of private data; with H set its
 *			first 4 bytes are the IRD/ORD word:
 *			  be16 IRD: 0x8000 peer-to-peer, 0x4000 SEND RTR
 *			  be16 ORD: 0x8000 WRITE RTR, 0x4000 READ RTR
 *			  each with a 14-bit count below
 *
 * Every byte comes from the network: the decoder trusts no length and
 * no flag, and reports what is wrong with a distinct errno.
 */
#include <linux/bitops.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include "iwcm_mpa.h"

#define MPA_FLAG_MARKERS	0x80
#define MPA_FLAG_CRC		0x40
#define MPA_FLAG_REJECT		0x20
#define MPA_FLAG_ENHANCED	0x10
/*
 * A bit RFC 5044 reserves (senders zero it, receivers ignore it) that
 * siw sets to say it takes FPDUs longer than MULPDU, one per TCP GSO
 * burst rather than per segment.  Only a peer that sets it gets them.
 */
#define MPA_FLAG_LARGE		0x08

#define MPA_V2_P2P		0x8000	/* in IRD */
#define MPA_V2_RTR_SEND		0x4000	/* in IRD */
#define MPA_V2_RTR_WRITE	0x8000	/* in ORD */
#define MPA_V2_RTR_READ		0x4000	/* in ORD */

#define MPA_OFF_FLAGS		16
#define MPA_OFF_REV		17
#define MPA_OFF_PDLEN		18

static const u8 mpa_key[2][IWCM_MPA_KEY_LEN] = {
	[IWCM_MPA_REQ] = "MPA ID Req Frame",
	[IWCM_MPA_REP] = "MPA ID Rep Frame",
};

/**
 * iwcm_mpa_frame_len - The length of the frame at the start of a buffer.
 * @buf: the bytes received so far
 * @len: how many
 * @kind: the frame expected
 *
 * A wrong key is reported as soon as its first wrong byte is in, so a
 * peer speaking something else is dropped without waiting for more.
 *
 * Return: the whole frame's length (header and private data), -EAGAIN
 * if the header is not complete yet, -EBADMSG for a wrong key or
 * -EMSGSIZE for a PD_Length over 512.
 */
int iwcm_mpa_frame_len(const u8 *buf, size_t len, enum iwcm_mpa_kind kind)
{
	u16 pd_len;

	if (memcmp(buf, mpa_key[kind], min_t(size_t, len, IWCM_MPA_KEY_LEN)))
		return -EBADMSG;
	if (len < IWCM_MPA_HDR_LEN)
		return -EAGAIN;
	pd_len = get_unaligned_be16(buf + MPA_OFF_PDLEN);
	if (pd_len > IWCM_MPA_PDATA_MAX)
		return -EMSGSIZE;
	return IWCM_MPA_HDR_LEN + pd_len;
}

/**
 * iwcm_mpa_decode - Decode a complete request or reply frame.
 * @buf: the frame
 * @len: its length: exactly what iwcm_mpa_frame_len() returned
 * @kind: the frame expected
 * @f: the result; @f->pdata points into @buf
 *
 * Flags and revision are reported, not judged: refusing markers or a
 * revision is the negotiation's business.  H counts only in revision 2
 * frames (it is a reserved bit of revision 1).
 *
 * Return: 0, the errors of iwcm_mpa_frame_len(), -EBADMSG if @len is not
 * the frame's length or an enhanced frame has no room for its IRD/ORD
 * word.
 */
int iwcm_mpa_decode(const u8 *buf, size_t len, enum iwcm_mpa_kind kind,
		    struct iwcm_mpa_frame *f)
{
	int flen = iwcm_mpa_frame_len(buf, len, kind);
	u16 ird, ord;
	u8 flags;

	if (flen < 0)
		return flen == -EAGAIN ? -EBADMSG : flen;
	if (flen != len)
		return -EBADMSG;

	memset(f, 0, sizeof(*f));
	flags = buf[MPA_OFF_FLAGS];
	f->rev = buf[MPA_OFF_REV];
	f->markers = flags & MPA_FLAG_MARKERS;
	f->crc = flags & MPA_FLAG_CRC;
	f->reject = flags & MPA_FLAG_REJECT;
	f->enhanced = f->rev == 2 && (flags & MPA_FLAG_ENHANCED);
	f->large = flags & MPA_FLAG_LARGE;
	f->pdata = buf + IWCM_MPA_HDR_LEN;
	f->pdata_len = len - IWCM_MPA_HDR_LEN;
	if (!f->enhanced)
		return 0;

	if (f->pdata_len < IWCM_MPA_V2_LEN)
		return -EBADMSG;
	ird = get_unaligned_be16(f->pdata);
	ord = get_unaligned_be16(f->pdata + 2);
	f->p2p = ird & MPA_V2_P2P;
	if (ird & MPA_V2_RTR_SEND)
		f->rtr |= IWCM_MPA_RTR_SEND;
	if (ord & MPA_V2_RTR_WRITE)
		f->rtr |= IWCM_MPA_RTR_WRITE;
	if (ord & MPA_V2_RTR_READ)
		f->rtr |= IWCM_MPA_RTR_READ;
	f->ird = ird & IWCM_MPA_IRD_ORD_MAX;
	f->ord = ord & IWCM_MPA_IRD_ORD_MAX;
	f->pdata += IWCM_MPA_V2_LEN;
	f->pdata_len -= IWCM_MPA_V2_LEN;
	return 0;
}

/**
 * iwcm_mpa_encode - Encode a request or reply frame.
 * @buf: where
 * @size: room at @buf; IWCM_MPA_FRAME_MAX always suffices
 * @kind: request or reply
 * @f: the frame; @f->enhanced only with revision 2
 *
 * Return: the frame's length, -EINVAL for a frame that cannot be sent
 * (revision other than 1 or 2, H with revision 1, RTR flags without
 * peer-to-peer, IRD/ORD over 14 bits, private data over the limit) or
 * -ENOSPC if @size is too small.
 */
int iwcm_mpa_encode(u8 *buf, size_t size, enum iwcm_mpa_kind kind,
		    const struct iwcm_mpa_frame *f)
{
	size_t v2 = f->enhanced ? IWCM_MPA_V2_LEN : 0;
	size_t pd_len = v2 + f->pdata_len;
	u16 ird, ord;
	u8 flags = 0;

	if ((f->rev != 1 && f->rev != 2) || (f->enhanced && f->rev != 2) ||
	    (f->rtr & ~IWCM_MPA_RTR_ALL) || (f->rtr && !f->p2p) ||
	    (!f->enhanced && (f->p2p || f->ird || f->ord)) ||
	    f->ird > IWCM_MPA_IRD_ORD_MAX || f->ord > IWCM_MPA_IRD_ORD_MAX ||
	    pd_len > IWCM_MPA_PDATA_MAX)
		return -EINVAL;
	if (size < IWCM_MPA_HDR_LEN + pd_len)
		return -ENOSPC;

	if (f->markers)
		flags |= MPA_FLAG_MARKERS;
	if (f->crc)
		flags |= MPA_FLAG_CRC;
	if (f->reject)
		flags |= MPA_FLAG_REJECT;
	if (f->enhanced)
		flags |= MPA_FLAG_ENHANCED;
	if (f->large)
		flags |= MPA_FLAG_LARGE;
	memcpy(buf, mpa_key[kind], IWCM_MPA_KEY_LEN);
	buf[MPA_OFF_FLAGS] = flags;
	buf[MPA_OFF_REV] = f->rev;
	put_unaligned_be16(pd_len, buf + MPA_OFF_PDLEN);
	if (f->enhanced) {
		ird = f->ird | (f->p2p ? MPA_V2_P2P : 0) |
		      (f->rtr & IWCM_MPA_RTR_SEND ? MPA_V2_RTR_SEND : 0);
		ord = f->ord |
		      (f->rtr & IWCM_MPA_RTR_WRITE ? MPA_V2_RTR_WRITE : 0) |
		      (f->rtr & IWCM_MPA_RTR_READ ? MPA_V2_RTR_READ : 0);
		put_unaligned_be16(ird, buf + IWCM_MPA_HDR_LEN);
		put_unaligned_be16(ord, buf + IWCM_MPA_HDR_LEN + 2);
	}
	if (f->pdata_len)
		memcpy(buf + IWCM_MPA_HDR_LEN + v2, f->pdata, f->pdata_len);
	return IWCM_MPA_HDR_LEN + pd_len;
}

/* The most an enhanced frame carries of the consumer's private data. */
#define MPA_V2_PDATA_MAX	(IWCM_MPA_PDATA_MAX - IWCM_MPA_V2_LEN)

/**
 * iwcm_mpa_request - The request frame an initiator sends.
 * @me: the initiator's side of the negotiation
 * @pdata: the consumer's private data
 * @pdata_len: its length
 * @req: the frame, pointing at @pdata
 *
 * Revision 2 with the IRD/ORD word unless @me asks for revision 1: a
 * revision 1 responder may close on a revision 2 request (RFC 5044), a
 * revision 2 one answers either in kind.  A READ RTR takes an ORD slot:
 * it is offered only with ORD.  Revision 1 has no RTR.
 *
 * Return: 0, or -EINVAL for private data over 508 bytes (512 in
 * revision 1) or peer-to-peer with no RTR left to offer.
 */
int iwcm_mpa_request(const struct iwcm_mpa_local *me, const u8 *pdata,
		     u16 pdata_len, struct iwcm_mpa_frame *req)
{
	if (me->rev == 1) {
		if (pdata_len > IWCM_MPA_PDATA_MAX || me->p2p)
			return -EINVAL;
		*req = (struct iwcm_mpa_frame){
			.rev = 1,
			.crc = me->crc,
			.large = me->large,
			.pdata = pdata,
			.pdata_len = pdata_len,
		};
		return 0;
	}
	if (pdata_len > MPA_V2_PDATA_MAX)
		return -EINVAL;
	*req = (struct iwcm_mpa_frame){
		.rev = 2,
		.crc = me->crc,
		.large = me->large,
		.enhanced = true,
		.p2p = me->p2p,
		.ird = min_t(u16, me->ird, IWCM_MPA_IRD_ORD_MAX),
		.ord = min_t(u16, me->ord, IWCM_MPA_IRD_ORD_MAX),
		.pdata = pdata,
		.pdata_len = pdata_len,
	};
	if (!me->p2p)
		return 0;
	req->rtr = me->rtr & IWCM_MPA_RTR_ALL;
	if (!req->ord)
		req->rtr &= ~IWCM_MPA_RTR_READ;
	return req->rtr ? 0 : -EINVAL;
}

/**
 * iwcm_mpa_check_request - Whether a responder can answer a request.
 * @req: the decoded request
 *
 * Return: 0; -EPROTONOSUPPORT for a revision other than 1 or 2 (close
 * without a reply: the peer speaks another protocol); -EOPNOTSUPP if
 * the initiator asks for markers (reject it with iwcm_mpa_reject(): a
 * clean "no" it understands).
 */
int iwcm_mpa_check_request(const struct iwcm_mpa_frame *req)
{
	if (req->rev != 1 && req->rev != 2)
		return -EPROTONOSUPPORT;
	if (req->markers)
		return -EOPNOTSUPP;
	return 0;
}

/* The RTR a responder picks: WRITE, then READ (needs IRD), then SEND. */
static u8 mpa_pick_rtr(u8 offered, u16 ird)
{
	if (offered & IWCM_MPA_RTR_WRITE)
		return IWCM_MPA_RTR_WRITE;
	if ((offered & IWCM_MPA_RTR_READ) && ird)
		return IWCM_MPA_RTR_READ;
	return offered & IWCM_MPA_RTR_SEND;
}

/**
 * iwcm_mpa_answer - The reply accepting a request, and the outcome.
 * @req: the request, iwcm_mpa_check_request() passed
 * @me: the responder's side, from the consumer's accept
 * @pdata: the consumer's private data
 * @pdata_len: its length
 * @rep: the reply frame, pointing at @pdata
 * @res: what both ends will use
 *
 * The reply has the request's revision; CRC is on if either end wants
 * it (RFC 5044); FPDUs longer than MULPDU only if both ends take them.
 * With the IRD/ORD word, the responder's ORD is cut to the initiator's
 * IRD and its IRD raised (up to @me->ird_max) to the initiator's ORD;
 * the initiator lowers its ORD to what remains.  A
 * peer-to-peer request gets one RTR out of those offered that this end
 * takes.  Without the word each end keeps its own IRD and ORD.
 *
 * Return: 0; -EINVAL for private data too long for the frame, -EPROTO
 * if no offered RTR suits (reject the request then).
 */
int iwcm_mpa_answer(const struct iwcm_mpa_frame *req,
		    const struct iwcm_mpa_local *me, const u8 *pdata,
		    u16 pdata_len, struct iwcm_mpa_frame *rep,
		    struct iwcm_mpa_result *res)
{
	u16 ird_max = max(me->ird, me->ird_max);

	if (pdata_len > (req->enhanced ? MPA_V2_PDATA_MAX : IWCM_MPA_PDATA_MAX))
		return -EINVAL;
	*res = (struct iwcm_mpa_result){
		.rev = req->rev,
		.crc = req->crc || me->crc,
		.large = req->large && me->large,
		.ird = me->ird,
		.ord = me->ord,
	};
	*rep = (struct iwcm_mpa_frame){
		.rev = req->rev,
		.crc = res->crc,
		.large = me->large,
		.enhanced = req->enhanced,
		.pdata = pdata,
		.pdata_len = pdata_len,
	};
	if (!req->enhanced)
		return 0;

	res->ord = min(me->ord, req->ird);
	if (res->ird < req->ord)
		res->ird = min(req->ord, ird_max);
	res->ird = min_t(u16, res->ird, IWCM_MPA_IRD_ORD_MAX);
	if (req->p2p) {
		res->p2p = true;
		res->rtr = mpa_pick_rtr(req->rtr & me->rtr, res->ird);
		if (!res->rtr)
			return -EPROTO;
	}
	rep->p2p = res->p2p;
	rep->rtr = res->rtr;
	rep->ird = res->ird;
	rep->ord = res->ord;
	return 0;
}

/**
 * iwcm_mpa_reject - The reply refusing a request.
 * @req: the request, of revision 1 or 2
 * @pdata: the consumer's private data, or NULL
 * @pdata_len: its length
 * @rep: the reply frame, pointing at @pdata
 *
 * R set, no markers, the request's revision and CRC flag; an enhanced
 * request gets a zero IRD/ORD word, as siw's reject has.
 *
 * Return: 0, or -EINVAL for private data too long for the frame.
 */
int iwcm_mpa_reject(const struct iwcm_mpa_frame *req, const u8 *pdata,
		    u16 pdata_len, struct iwcm_mpa_frame *rep)
{
	if (pdata_len > (req->enhanced ? MPA_V2_PDATA_MAX : IWCM_MPA_PDATA_MAX))
		return -EINVAL;
	*rep = (struct iwcm_mpa_frame){
		.rev = req->rev,
		.crc = req->crc,
		.reject = true,
		.enhanced = req->enhanced,
		.pdata = pdata,
		.pdata_len = pdata_len,
	};
	return 0;
}

/**
 * iwcm_mpa_reply - Judge the reply to our request: the outcome.
 * @req: the request this end sent (iwcm_mpa_request())
 * @rep: the decoded reply
 * @me: the initiator's side of the negotiation
 * @res: what both ends will use, valid on 0
 *
 * A reply without the IRD/ORD word (a revision 1 responder that answered
 * anyway, or revision 2 without H) leaves IRD and ORD as they are, but
 * cannot complete a peer-to-peer setup.
 *
 * On an error @res->term says whether the initiator owes the responder
 * a TERMINATE.  A reply that accepts (no R, no markers, a revision this
 * end speaks) has put the responder in FPDU mode, and RFC 6581 wants
 * the initiator to tell it why it goes no further:
 * IWCM_MPA_TERM_INSUFF_IRD or IWCM_MPA_TERM_NO_RTR.  Anything else
 * (a reject, markers, a revision we do not speak) is not a stream in
 * FPDU mode as this end frames it: IWCM_MPA_TERM_NONE, just close.
 *
 * Return: 0; -ECONNREFUSED if the responder rejected (its private data
 * says why); -EOPNOTSUPP if it wants markers; -ENOBUFS if its ORD is
 * over what this end's IRD can be raised to (RFC 6581's "insufficient
 * IRD"); -EPROTO for any other reply that does not answer @req: a
 * revision above the request's, the word where none was asked for, no
 * single RTR out of those offered, peer-to-peer not as asked.
 */
int iwcm_mpa_reply(const struct iwcm_mpa_frame *req,
		   const struct iwcm_mpa_frame *rep,
		   const struct iwcm_mpa_local *me,
		   struct iwcm_mpa_result *res)
{
	u16 ird_max = max(me->ird, me->ird_max);

	memset(res, 0, sizeof(*res));
	if (rep->rev < 1 || rep->rev > req->rev)
		return -EPROTO;
	if (rep->reject)
		return -ECONNREFUSED;
	if (rep->markers)
		return -EOPNOTSUPP;
	if (rep->enhanced && !req->enhanced)
		return -EPROTO;
	*res = (struct iwcm_mpa_result){
		.rev = rep->rev,
		.crc = req->crc || rep->crc,
		.large = req->large && rep->large,
		.ird = me->ird,
		.ord = me->ord,
	};
	/* From here on the responder sends FPDUs: a failure TERMINATEs. */
	if (!rep->enhanced) {
		if (!req->p2p)
			return 0;
		res->term = IWCM_MPA_TERM_NO_RTR;
		return -EPROTO;
	}

	res->ord = min(me->ord, rep->ird);
	if (rep->ord > res->ird) {
		if (rep->ord > min_t(u16, ird_max, IWCM_MPA_IRD_ORD_MAX)) {
			res->term = IWCM_MPA_TERM_INSUFF_IRD;
			return -ENOBUFS;
		}
		res->ird = rep->ord;
	}
	/* What can still go wrong is the RTR. */
	res->term = IWCM_MPA_TERM_NO_RTR;
	if (rep->p2p != req->p2p)
		return -EPROTO;
	if (req->p2p) {
		if (hweight8(rep->rtr) != 1 || (rep->rtr & ~req->rtr) ||
		    (rep->rtr == IWCM_MPA_RTR_READ && !res->ord))
			return -EPROTO;
		res->p2p = true;
		res->rtr = rep->rtr;
	}
	res->term = IWCM_MPA_TERM_NONE;
	return 0;
}

#define MPA_TERM_ULPDU_LEN	(IWCM_MPA_TERM_LEN - 2 - 4)	/* MPA len, CRC */
#define MPA_TERM_CTRL		0x4147	/* L, DDP v1, RDMAP v1, TERMINATE */
#define MPA_TERM_QN		2	/* RFC 5040's TERMINATE queue */
#define MPA_TERM_LAYER_LLP	2
#define MPA_TERM_ETYPE_MPA	0

/**
 * iwcm_mpa_terminate - Encode a TERMINATE FPDU for an MPA error.
 * @buf: where
 * @size: room at @buf, at least IWCM_MPA_TERM_LEN
 * @ecode: the error code, an enum iwcm_mpa_term_code
 * @crc: MPA CRC32c was negotiated
 *
 * RFC 5040: the message of untagged queue 2, MSN 1 (the first on that
 * queue), offset 0, last segment; its control word says layer LLP,
 * error type MPA, @ecode, and no header attached (M, D and R clear)
 * since no FPDU of the peer's is at fault.  RFC 5044 frames it: no pad
 * is needed, then the CRC field, the CRC32c of the FPDU when negotiated
 * (its bytes least significant first, as the provider's FPDUs carry
 * it), else zero.
 *
 * Return: IWCM_MPA_TERM_LEN, or -ENOSPC.
 */
int iwcm_mpa_terminate(u8 *buf, size_t size, u8 ecode, bool crc)
{
	u32 sum = 0;

	if (size < IWCM_MPA_TERM_LEN)
		return -ENOSPC;
	memset(buf, 0, IWCM_MPA_TERM_LEN);
	put_unaligned_be16(MPA_TERM_ULPDU_LEN, buf);
	put_unaligned_be16(MPA_TERM_CTRL, buf + 2);
	/* bytes 4-7 reserved: zero */
	put_unaligned_be32(MPA_TERM_QN, buf + 8);
	put_unaligned_be32(1, buf + 12);
	/* bytes 16-19 MO: zero */
	put_unaligned_be32(MPA_TERM_LAYER_LLP << 28 | MPA_TERM_ETYPE_MPA << 24 |
			   (u32)ecode << 16, buf + 20);
	if (crc)
		sum = ~__crc32c_le(~0U, buf, IWCM_MPA_TERM_LEN - 4);
	put_unaligned_le32(sum, buf + IWCM_MPA_TERM_LEN - 4);
	return IWCM_MPA_TERM_LEN;
}

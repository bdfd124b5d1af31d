/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MPA connection setup frames (RFC 5044 section 7.1, RFC 6581): the
 * codec and the negotiation of iw_cm's host-integrated path.  Pure
 * functions of their arguments: no socket, no lock, no allocation.
 */
#ifndef IWCM_MPA_H
#define IWCM_MPA_H

#include <linux/bits.h>
#include <linux/types.h>

#define IWCM_MPA_KEY_LEN	16
#define IWCM_MPA_HDR_LEN	20	/* key, flags, revision, PD_Length */
#define IWCM_MPA_PDATA_MAX	512	/* RFC 5044's PD_Length limit */
#define IWCM_MPA_V2_LEN		4	/* RFC 6581's IRD/ORD word */
#define IWCM_MPA_FRAME_MAX	(IWCM_MPA_HDR_LEN + IWCM_MPA_PDATA_MAX)
#define IWCM_MPA_IRD_ORD_MAX	0x3fff	/* 14 bits each */

/*
 * A TERMINATE FPDU with no header attached: MPA length, DDP/RDMAP
 * untagged header, TERMINATE control word, no pad, CRC field.
 */
#define IWCM_MPA_TERM_LEN	28

/* Error codes of TERMINATE layer LLP, error type MPA (RFC 5044, 6581). */
enum iwcm_mpa_term_code {
	IWCM_MPA_TERM_NONE		= 0,	/* close, send nothing */
	IWCM_MPA_TERM_INSUFF_IRD	= 0x06,	/* insufficient IRD */
	IWCM_MPA_TERM_NO_RTR		= 0x07,	/* no matching RTR option */
};

enum iwcm_mpa_kind {
	IWCM_MPA_REQ,
	IWCM_MPA_REP,
};

/* The RTR messages of RFC 6581's peer-to-peer mode, as a mask. */
enum {
	IWCM_MPA_RTR_SEND	= BIT(0),	/* zero-length SEND */
	IWCM_MPA_RTR_WRITE	= BIT(1),	/* zero-length RDMA WRITE */
	IWCM_MPA_RTR_READ	= BIT(2),	/* zero-length RDMA READ */
};

#define IWCM_MPA_RTR_ALL \
	(IWCM_MPA_RTR_SEND | IWCM_MPA_RTR_WRITE | IWCM_MPA_RTR_READ)

/*
 * A request or reply frame.  Decoding points @pdata into the buffer
 * decoded (it lives as long as that); the RFC 6581 word is not part of
 * @pdata but of @ird, @ord, @p2p and @rtr, meaningful when @enhanced.
 */
struct iwcm_mpa_frame {
	u8 rev;
	bool markers;
	bool crc;
	bool reject;
	bool enhanced;
	bool large;	/* takes FPDUs past MULPDU (a reserved bit, siw's) */
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	const u8 *pdata;
	u16 pdata_len;
};

/*
 * What one end brings to the negotiation.  @ird and @ord are what its
 * QP asks for; @ird_max is as far as it can raise its IRD to meet the
 * peer's ORD (RFC 6581 lets an end do so rather than fail).  @rtr: the
 * RTR messages this end can take as responder; as initiator, with
 * @p2p, those it offers to send.
 */
struct iwcm_mpa_local {
	u8 rev;		/* the initiator's request: 1, or 2 */
	bool crc;
	bool large;	/* takes FPDUs longer than MULPDU, sends them if told */
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ird_max;
	u16 ord;
};

/* The outcome, for both ends alike. */
struct iwcm_mpa_result {
	u8 rev;
	bool crc;
	bool large;	/* both ends take FPDUs longer than MULPDU */
	bool p2p;
	u8 rtr;		/* the one RTR the initiator sends, with @p2p */
	u16 ird;
	u16 ord;
	u8 term;	/* on an iwcm_mpa_reply() error: enum iwcm_mpa_term_code */
};

int iwcm_mpa_request(const struct iwcm_mpa_local *me, const u8 *pdata,
		     u16 pdata_len, struct iwcm_mpa_frame *req);
int iwcm_mpa_check_request(const struct iwcm_mpa_frame *req);
int iwcm_mpa_answer(const struct iwcm_mpa_frame *req,
		    const struct iwcm_mpa_local *me, const u8 *pdata,
		    u16 pdata_len, struct iwcm_mpa_frame *rep,
		    struct iwcm_mpa_result *res);
int iwcm_mpa_reply(const struct iwcm_mpa_frame *req,
		   const struct iwcm_mpa_frame *rep,
		   const struct iwcm_mpa_local *me,
		   struct iwcm_mpa_result *res);
int iwcm_mpa_reject(const struct iwcm_mpa_frame *req, const u8 *pdata,
		    u16 pdata_len, struct iwcm_mpa_frame *rep);

int iwcm_mpa_frame_len(const u8 *buf, size_t len, enum iwcm_mpa_kind kind);
int iwcm_mpa_decode(const u8 *buf, size_t len, enum iwcm_mpa_kind kind,
		    struct iwcm_mpa_frame *f);
int iwcm_mpa_encode(u8 *buf, size_t size, enum iwcm_mpa_kind kind,
		    const struct iwcm_mpa_frame *f);
int iwcm_mpa_terminate(u8 *buf, size_t size, u8 ecode, bool crc);

#endif /* IWCM_MPA_H */

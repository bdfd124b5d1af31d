/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * iw_cm's host-integrated connection model: for an iWARP provider that
 * runs RDMAP/DDP/MPA over a kernel TCP socket (a software provider, or a
 * NIC that takes an established stream), iw_cm itself connects, listens
 * and accepts on kernel sockets and runs the MPA exchange (RFC 5044,
 * RFC 6581), then hands the provider the established stream and what was
 * negotiated.  The provider has no connection code of its own.
 *
 * Opting in:
 *
 *  - fill the iWARP connection operations of struct ib_device_ops with
 *    IW_HOST_DEVICE_OPS (and iw_get_qp, iw_add_ref, iw_rem_ref, which
 *    iw_cm calls in both models);
 *  - iw_host_register() the device with its struct iw_host_ops after
 *    ib_register_device(), iw_host_unregister() it after
 *    ib_unregister_device().
 *
 * Documentation/infiniband/iw_cm.rst describes the model.
 */
#ifndef IW_HOST_H
#define IW_HOST_H

#include <linux/types.h>

struct ib_device;
struct ib_qp;
struct iw_cm_conn_param;
struct iw_cm_id;
struct socket;

/* RTR messages of RFC 6581's peer-to-peer mode, as a mask. */
#define IW_HOST_RTR_SEND	0x01	/* zero-length SEND */
#define IW_HOST_RTR_WRITE	0x02	/* zero-length RDMA WRITE */
#define IW_HOST_RTR_READ	0x04	/* zero-length RDMA READ */

/**
 * struct iw_host_params - What an established stream was set up with.
 * @mpa_rev: MPA revision, 1 or 2
 * @crc: MPA CRC32c is on (in both directions); never markers
 * @large_fpdu: both ends take FPDUs longer than MULPDU (with
 *	&iw_host_ops.large_fpdu only): either may send a message in
 *	FPDUs of up to 64 KiB instead of one per TCP segment
 * @initiator: this end sent the MPA request
 * @p2p: peer-to-peer mode: the initiator sends @rtr as its first FPDU;
 *	the responder sends no FPDU before it received one
 * @rtr: the one IW_HOST_RTR_* agreed on, with @p2p
 * @ird: inbound RDMA READ depth this end must honour
 * @ord: outbound RDMA READ depth this end may use
 * @pdata: the peer's private data (the initiator's: the reply's, for the
 *	CONNECT_REPLY the provider reports); valid during attach only
 * @pdata_len: its length
 */
struct iw_host_params {
	u8 mpa_rev;
	bool crc;
	bool large_fpdu;
	bool initiator;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	const void *pdata;
	u8 pdata_len;
};

/**
 * struct iw_host_ops - What a host-integrated provider implements.
 * @attach: give @qp the established stream @sock, on which MPA is done
 *	and nothing more was read.  From a 0 return the socket is the
 *	provider's: its callbacks, reads, writes, shutdown and release.
 *	The provider then reports on @cm_id as the offloaded model does:
 *	CONNECT_REPLY 0 with @p->pdata (initiator) or ESTABLISHED
 *	(responder; in peer-to-peer mode once the RTR is in), DISCONNECT
 *	and CLOSE, taking @cm_id->add_ref() for as long as it keeps
 *	@cm_id; @cm_id->provider_data is its own.  On an error iw_cm
 *	releases the socket and fails the connection.  Process context;
 *	may sleep.
 * @crc: ask for MPA CRC32c (a peer may turn it on all the same)
 * @large_fpdu: the provider takes FPDUs of any length MPA can frame;
 *	the MPA frames say so in the reserved bit siw uses for it
 * @p2p: as initiator, ask for peer-to-peer mode
 * @rtr_send: the IW_HOST_RTR_* the provider can send as initiator
 * @rtr_recv: the IW_HOST_RTR_* the provider can take as responder
 */
struct iw_host_ops {
	int (*attach)(struct ib_qp *qp, struct iw_cm_id *cm_id,
		      struct socket *sock, const struct iw_host_params *p);
	bool crc;
	bool large_fpdu;
	bool p2p;
	u8 rtr_send;
	u8 rtr_recv;
};

int iw_host_register(struct ib_device *device, const struct iw_host_ops *ops);
void iw_host_unregister(struct ib_device *device);

int iw_host_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int iw_host_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int iw_host_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len);
int iw_host_create_listen(struct iw_cm_id *cm_id, int backlog);
int iw_host_destroy_listen(struct iw_cm_id *cm_id);

#define IW_HOST_DEVICE_OPS					\
	.iw_connect = iw_host_connect,				\
	.iw_accept = iw_host_accept,				\
	.iw_reject = iw_host_reject,				\
	.iw_create_listen = iw_host_create_listen,		\
	.iw_destroy_listen = iw_host_destroy_listen

#endif /* IW_HOST_H */

/* SPDX-License-Identifier: MIT */
/* The responder's side of the RDMA probe: answers rdma-hello requests that the peer channel hands
 * it with a queue pair of its own, and serves that one prober until its bye or a timeout. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"
#include "rdma/rdma-hello.h"
#include "rdma/rdma.h"

/* A session ends by the prober's bye, or is torn down when the prober has said nothing for this long
 * (longer than its bandwidth run, RDMA_PROBE_WRITE_USEC_DEFAULT, and the writes' grace,
 * RDMA_WRITE_GRACE_USEC, during which it sends no message),
 * and at the latest RDMA_RESPONDER_SESSION_MAX_USEC after the hello, whatever the prober does: a
 * prober that keeps pinging cannot hold the one session forever. The idle timeout, not a fixed
 * session length, because a probe's length is the path's: 1000 pings over an emulated or
 * retransmitting path took longer than 10 s, and a fixed 10 s cut them off mid-run. */
#define RDMA_RESPONDER_TIMEOUT_USEC_DEFAULT (10U * 1000U * 1000U)
#define RDMA_RESPONDER_SESSION_MAX_USEC (120U * 1000U * 1000U)
/* Fair sharing: while another prober waits (its hellos are answered busy), a session ends once it has
 * run this long (longer than haloctl probe's run, RDMA_PROBE_PING_USEC_DEFAULT and
 * RDMA_PROBE_WRITE_USEC_DEFAULT, and shorter than a prober waits, RDMA_PROBE_BUSY_WAIT_USEC_DEFAULT),
 * and that prober is served next: the free slot is kept for it while it keeps asking (a hello every
 * RDMA_PROBE_BUSY_RETRY_USEC; kept RDMA_RESPONDER_WAITER_USEC after its last). A hello from a peer's
 * halod (its probe port, which no other user of the peer can send from) goes before that prober and
 * takes over a session of anyone else once it has had RDMA_RESPONDER_HALOD_SHARES shares (16 s: longer
 * than haloctl probe's longest run, 5 s of pings, 2 s of writes and 5 s for the last; in the vm suite
 * under QEMU's emulator runs over 8 s were cut off by the node's own round): peer.<node>.rdma is
 * held off by a local user of a peer for that long at most. */
#define RDMA_RESPONDER_SHARE_USEC (8U * 1000U * 1000U)
#define RDMA_RESPONDER_HALOD_SHARES 2U
#define RDMA_RESPONDER_WAITER_USEC (1U * 1000U * 1000U)

typedef struct RdmaResponder RdmaResponder;

typedef struct RdmaResponderStats {
        uint64_t sessions;   /* queue pairs set up for a prober */
        uint64_t completed;  /* ended by the prober's bye */
        uint64_t timed_out;  /* torn down at the timeout */
        uint64_t failed;     /* setting up or serving failed */
        uint64_t busy;       /* refused: another session ran, or the slot was kept for a waiting prober */
        uint64_t taken_over; /* ended early for a peer's halod, or for a prober that waited its turn */
        uint64_t no_device;  /* asked on an address without a device or a RoCE GID */
} RdmaResponderStats;

int rdma_responder_new(RdmaResponder **ret);
/* Stops a running session (its thread is joined) and closes the devices. */
RdmaResponder *rdma_responder_free(RdmaResponder *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(RdmaResponder *, rdma_responder_free);

/* Serves hellos that arrive on the address local with device (taken over, also on failure), from
 * the GID entry of local of type gid_type, looked up afresh at every hello. */
int rdma_responder_add(RdmaResponder *r, struct in_addr local, RdmaDevice *device, RdmaGidType gid_type);
/* The same, with the device looked up (rdma_device_find(host, pci, ifindex)) at every hello and closed
 * when its session ends: between sessions the responder holds no uverbs file open, so that the
 * device can go away (`rdma link delete`, a driver unloaded: the kernel waits for every open context
 * of a driver that cannot disassociate them, soft-RoCE's among them), and one that comes back is
 * found again. host is borrowed and must outlive the responder; pci may be NULL. */
int rdma_responder_add_lookup(
        RdmaResponder *r,
        struct in_addr local,
        const Host *host,
        const char *pci,
        int ifindex,
        RdmaGidType gid_type);
size_t rdma_responder_n_devices(const RdmaResponder *r) _pure_;
void rdma_responder_set_timeout(RdmaResponder *r, uint64_t usec);
/* For tests: RDMA_RESPONDER_SHARE_USEC (0: the default). */
void rdma_responder_set_share(RdmaResponder *r, uint64_t usec);

/* The peer server's rdma-hello handler (see peer_server_set_rdma()): sets up a queue pair on the
 * device of local, connects it to the request's, starts serving it on a thread of its own, and
 * fills reply with its half; or says no-device, busy (one session at a time, shared as
 * RDMA_RESPONDER_SHARE_USEC says; a repeated hello of the running session gets the same answer
 * again) or failed. from_halod: the hello came from the peer's halod. Never blocks on the network. */
void rdma_responder_hello(
        void *userdata,
        struct in_addr local,
        struct in_addr source,
        bool from_halod,
        const PeerRdmaHello *request,
        PeerRdmaHello *reply);
/* rdma_responder_free() for a void *, as peer_server_set_rdma() takes it. */
void rdma_responder_destroy(void *userdata);

RdmaResponderStats rdma_responder_stats(RdmaResponder *r);
/* Whether a session is set up and not finished. */
bool rdma_responder_busy(RdmaResponder *r);

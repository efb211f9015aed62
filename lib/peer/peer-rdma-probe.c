/* SPDX-License-Identifier: MIT */
/* The RDMA probe from this node: rdma-hello over the peer channel to exchange the queue pairs'
 * details, then ping-pong, RDMA WRITE bandwidth, and the bye that frees the peer's session. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "peer/peer-rdma-probe.h"
#include "peer/peer-source.h"
#include "peer/peer.h"

/* A datagram socket from local (halod's probe port, whose hellos the responder serves first, or an
 * ephemeral port: the responder answers no other privileged one), connected to remote:port, so that
 * an ICMP port-unreachable comes back as ECONNREFUSED. */
static int hello_socket(struct in_addr local, uint16_t source_port, struct in_addr remote, uint16_t port) {
        struct sockaddr_in r = { .sin_family = AF_INET, .sin_addr = remote, .sin_port = htons(port) };
        _cleanup_(closep) int fd = -EBADF;
        int k;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        k = peer_bind_source(fd, local, source_port);
        if (k < 0)
                return k;
        if (connect(fd, (struct sockaddr *) &r, sizeof(r)) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

int peer_rdma_hello(
        struct in_addr local,
        uint16_t source_port,
        struct in_addr remote,
        uint16_t port,
        const PeerIdentity *self,
        const PeerRdmaHello *request,
        uint64_t timeout_usec,
        PeerIdentity *ret_peer,
        PeerRdmaHello *ret_reply) {
        uint8_t buf[PEER_MESSAGE_SIZE_MAX + 1];
        _cleanup_(closep) int fd = -EBADF;
        PeerMessage m = { .type = PEER_RDMA_HELLO_REQUEST, .sender = *self, .rdma = *request }, reply;
        int r, last = -ETIMEDOUT;
        size_t n;

        if (port == 0 || timeout_usec == 0)
                return -EINVAL;
        m.padding = PEER_RDMA_REQUEST_SIZE_MIN - peer_message_size(&m);
        if (getrandom(&m.sequence, sizeof(m.sequence), GRND_NONBLOCK) != sizeof(m.sequence))
                m.sequence = (uint32_t) now(CLOCK_MONOTONIC);

        fd = hello_socket(local, source_port, remote, port);
        if (fd < 0)
                return fd;

        /* The same datagram each time: the responder answers a repeated hello of its running
         * session with the same queue pair, so a lost answer costs one timeout, not a session. */
        for (unsigned i = 0; i < RDMA_HELLO_TRIES; i++) {
                m.timestamp_usec = now(CLOCK_MONOTONIC);
                r = peer_message_encode(&m, buf, sizeof(buf), &n);
                if (r < 0)
                        return r;
                if (send(fd, buf, n, 0) < 0) {
                        last = negative_errno();
                        if (last != -ECONNREFUSED)
                                return last;
                        continue;
                }
                r = peer_wait_reply(
                        fd, PEER_RDMA_HELLO_REPLY, m.sequence, m.timestamp_usec + timeout_usec, buf, &reply, NULL);
                if (r < 0) {
                        last = r;
                        /* Refused or rate-limited: the next try may get through. */
                        if (r != -ECONNREFUSED && r != -EBUSY)
                                return r;
                        continue;
                }
                if (r == 0)
                        continue;
                *ret_peer = reply.sender;
                *ret_reply = reply.rdma;
                return 0;
        }
        return last;
}

static const char *hello_error_text(int r) {
        switch (r) {
        case -ETIMEDOUT:
                return "no answer: is the peer's halod older than RDMA probes, or is this node not in its profile?";
        case -ECONNREFUSED:
                return "nothing listens on the peer channel there (is halod running on the peer?)";
        case -EBUSY:
                return "rate-limited by the peer: its halod runs, but refused this node's hellos over its "
                       "limit for programs other than halod (is another program on this node sending to it?)";
        default:
                return strerror(-r);
        }
}

/* Ping-pong, bandwidth, bye on a connected queue pair; fills the measurements of result. */
static int
        measure(RdmaQp *qp,
                const RdmaProbeParams *p,
                unsigned pings,
                uint64_t timeout,
                RdmaError *error,
                RdmaProbeResult *result) {
        _cleanup_(freep) uint64_t *rtts = calloc(pings, sizeof(uint64_t));
        uint64_t end = now(CLOCK_MONOTONIC) + (p->ping_usec > 0 ? p->ping_usec : RDMA_PROBE_PING_USEC_DEFAULT);
        unsigned done = 0;
        RdmaWriteResult w;
        int r;

        if (!rtts)
                return rdma_error_set(error, -ENOMEM, "Out of memory.");
        /* Each batch waits for its last echo: no echo of one batch is mistaken for another's. */
        do {
                unsigned n = pings - done < RDMA_PROBE_PING_BATCH ? pings - done : RDMA_PROBE_PING_BATCH;

                r = rdma_qp_ping(qp, n, timeout, error, rtts + done);
                if (r < 0)
                        return r;
                done += n;
        } while (done < pings && now(CLOCK_MONOTONIC) < end);
        pings = done;
        sort_u64(rtts, pings);
        result->pings = pings;
        result->rtt_min_nsec = rtts[0];
        result->rtt_median_nsec = percentile_usec(rtts, pings, 50);
        result->rtt_p99_nsec = percentile_usec(rtts, pings, 99);
        result->rtt_max_nsec = rtts[pings - 1];

        if (p->write_path_mtu)
                /* One WRITE of one packet: proves the peer's buffer takes a full-MTU write. */
                r = rdma_qp_write_run(qp, result->path_mtu, RDMA_PROBE_WRITE_USEC_DEFAULT, error, &w);
        else
                r = rdma_qp_write_run(
                        qp,
                        p->write_bytes > 0 ? p->write_bytes : RDMA_PROBE_WRITE_BYTES_DEFAULT,
                        p->write_usec > 0 ? p->write_usec : RDMA_PROBE_WRITE_USEC_DEFAULT,
                        error,
                        &w);
        if (r < 0)
                return r;
        result->write_bytes = w.bytes;
        result->write_nsec = w.nsec;
        return rdma_qp_bye(qp, timeout, error);
}

/* peer_rdma_hello(), asked again while the peer answers busy, up to p->busy_wait_usec. */
static int hello_until_not_busy(
        const RdmaProbeParams *p,
        const PeerRdmaHello *local,
        uint64_t timeout,
        PeerIdentity *ret_peer,
        PeerRdmaHello *ret_reply) {
        uint64_t wait = p->busy_wait_usec > 0 ? p->busy_wait_usec : RDMA_PROBE_BUSY_WAIT_USEC_DEFAULT;
        uint64_t end = wait == UINT64_MAX ? 0 : now(CLOCK_MONOTONIC) + wait;
        int r;

        for (;;) {
                r = peer_rdma_hello(
                        p->local, p->source_port, p->remote, p->port, p->self, local, timeout, ret_peer, ret_reply);
                if (r < 0 || ret_reply->status != PEER_RDMA_BUSY ||
                    now(CLOCK_MONOTONIC) + RDMA_PROBE_BUSY_RETRY_USEC > end)
                        return r;
                (void) usleep(RDMA_PROBE_BUSY_RETRY_USEC);
        }
}

int rdma_probe(const RdmaProbeParams *p, RdmaError *error, RdmaProbeResult *ret) {
        _cleanup_(rdma_qp_freep) RdmaQp *qp = NULL;
        unsigned pings = p->pings > 0 ? p->pings : RDMA_PROBE_PINGS_DEFAULT;
        uint64_t timeout = p->timeout_usec > 0 ? p->timeout_usec : RDMA_PROBE_TIMEOUT_USEC_DEFAULT;
        RdmaProbeResult result = {};
        PeerRdmaHello local, remote;
        char address[INET_ADDRSTRLEN];
        RdmaGid gid;
        int r;

        if (!p->device || !p->self)
                return rdma_error_set(error, -EINVAL, "No RDMA device to probe from.");
        (void) inet_ntop(AF_INET, &p->local, address, sizeof(address));

        /* rdma.gid's entry, read afresh: an index from a stale table would send from the wrong GID. */
        r = rdma_device_find_gid(p->device, p->gid_type, p->local, &gid);
        if (r < 0)
                return rdma_error_set(
                        error,
                        r,
                        "%s port %u has no %s GID for %s%s: see 'haloctl check --only rdma.gid'",
                        p->device->name,
                        p->device->port,
                        strna(rdma_gid_type_to_string(p->gid_type)),
                        address,
                        r == -EAGAIN ? " that stays put (the table kept changing)" : "");
        result.gid_index = gid.index;
        result.gid = gid.gid;

        r = rdma_qp_new(p->device, gid.index, RDMA_QP_WRITE_CHUNK, /* expose= */ false, error, &qp);
        if (r < 0)
                return r;
        rdma_qp_local(qp, &local);

        r = hello_until_not_busy(p, &local, timeout, &result.peer, &remote);
        if (r < 0) {
                (void) inet_ntop(AF_INET, &p->remote, address, sizeof(address));
                return rdma_error_set(
                        error, r, "RDMA hello to %s UDP port %u: %s", address, p->port, hello_error_text(r));
        }
        result.peer_status = remote.status;
        if (remote.status != PEER_RDMA_OK) {
                *ret = result;
                return 0;
        }
        result.peer_gid_index = remote.gid_index;
        memcpy(&result.peer_gid, remote.gid, sizeof(result.peer_gid));
        result.active_mtu = local.mtu;
        result.peer_active_mtu = remote.mtu;
        result.path_mtu = remote.mtu < local.mtu ? remote.mtu : local.mtu;

        r = rdma_qp_connect(qp, &remote, error);
        if (r < 0)
                return r;
        r = measure(
                qp,
                p,
                pings,
                p->echo_timeout_usec > 0 ? p->echo_timeout_usec : RDMA_PROBE_ECHO_TIMEOUT_USEC_DEFAULT,
                error,
                &result);
        if (r < 0)
                return r;
        *ret = result;
        return 0;
}

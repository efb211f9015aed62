/* SPDX-License-Identifier: MIT */
/* One round of peer probes, as halod and haloctl check run it for the peer checks: an echo run for
 * every neighbour at once, an MTU run for those that answered, then an RC queue-pair exchange with
 * each one measured this round. The I/O of the peer checks, done here; what it measured is a value
 * (PeerRound) that lib/check/check-peer.h judges. */
#pragma once

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>

#include "peer/peer-link-mtus.h"
#include "peer/peer-measurement.h"
#include "peer/peer-profile.h"
#include "peer/peer.h"
#include "profile/node-context.h"

/* One round ends this long after it starts, whatever its probes do: a silent peer needs about 1.2 s (a
 * warm-up and 3 unanswered probes of 300 ms), the MTU probes of one that answers up to 0.9 s more,
 * and all peers are probed at once. What has not ended by then is reported pending. */
#define PEER_ROUND_USEC_DEFAULT (4U * 1000U * 1000U)

/* This node's RDMA device on the profile's link, and the node's address there (rdma_link_device()). */
typedef int (*PeerRdmaDeviceFind)(
        const NodeContext *c, const char *link, RdmaDevice **ret_device, struct in_addr *ret_address);

typedef struct PeerRoundOptions {
        unsigned probes;        /* echo probes per peer; 0: PEER_PROBE_COUNT_DEFAULT */
        uint64_t timeout_usec;  /* per probe; 0: PEER_PROBE_TIMEOUT_USEC_DEFAULT */
        Health health;          /* what this node says about itself in its requests */
        uint64_t round_usec;    /* 0: PEER_ROUND_USEC_DEFAULT */
        unsigned in_flight_max; /* peers probed at once; 0: PEER_ROUND_IN_FLIGHT_MAX */
        int cancel_fd; /* the probes stop when it becomes readable (an eventfd); 0 or negative: none */
        uint16_t source_port; /* the probes' source port: halod's probe port (peer_probe_port()) when it
                               * holds it, 0 for an ephemeral one (haloctl) */

        /* halod's rounds (peer-schedule.h): every peer gets liveness probes in every round, and only
         * measure_per_round of them (0: all, as haloctl check does) the echo run and the MTU probes,
         * the window moving with round. An unmeasured peer that answers is judged from its last
         * measurement in previous_peers; one without a measurement there (new, back from a loss, never
         * measured) is measured whatever the window says. previous_peers must outlive the round. */
        unsigned measure_per_round;
        uint64_t round;
        const PeerStatusList *previous_peers;

        /* The local MTU of each link, as the caller's snapshot read it (NULL: none known): what an MTU
         * probe proves when the profile leaves a link's MTU alone. Copied into the round. */
        const PeerLinkMtus *link_mtus;
        /* How the exchanges find this node's RDMA device on a link: rdma_link_device() (halod, haloctl);
         * NULL: as one that finds no device (-ENODEV). */
        PeerRdmaDeviceFind rdma_device_find;
} PeerRoundOptions;

/* One neighbour in a round: what was measured, and how each step ended. */
typedef struct PeerProbed {
        const PeerNeighbour *n;
        char local[INET_ADDRSTRLEN];
        char remote[INET_ADDRSTRLEN];

        bool measure;                /* the full echo run and the MTU probes; else liveness probes only */
        const PeerMeasurement *last; /* its last measurement in previous_peers, or NULL */
        const PeerStatus *previous;  /* its row in previous_peers, or NULL */
        int local_mtu_status;        /* 0 when local_mtu holds its link's netdev MTU, else negative errno */
        uint32_t local_mtu;
        int echo_status; /* of peer_probe_round(): 0, negative errno, or -EINPROGRESS (pending) */
        PeerProbeResult echo;
        bool older_peer; /* silent to the probe port, answered from an ephemeral one */
        bool reachable;  /* the right node answered (peer_answered_as()) */
        uint32_t mtu;    /* what the MTU run probed, 0: none (see peer_mtu_to_probe()) */
        int mtu_status;
        PeerProbeResult mtu_result;
        PeerRdmaMeasurement rdma; /* this round's exchange (measured peers only) */
} PeerProbed;

typedef struct PeerRound {
        bool enabled;       /* a node is selected and the profile says health.peers */
        int identity_error; /* negative errno: this node's names cannot travel on the wire, nothing probed */
        PeerIdentity self;
        uint16_t port;
        uint16_t source_port;
        uint64_t round_usec;
        PeerNeighbour *neighbours;
        PeerProbed *peers; /* one per neighbour, in the same order */
        size_t n;
} PeerRound;

void peer_round_done(PeerRound *r);

/* Probes every neighbour of c->node (nothing when no node is selected or the profile says
 * health.peers: false), for about 20 round trips for a peer that answers and about 1.2 s for one that
 * does not, all at once, ending with the round (o->round_usec). o may be NULL for the defaults.
 * Returns 0 with *ret replaced, -ECANCELED when o->cancel_fd became readable, other negative errno
 * only for local failures (-ENOMEM). */
int peer_round_run(const NodeContext *c, const PeerRoundOptions *o, PeerRound *ret);

/* Whether a round from self needs the local MTUs (PeerRoundOptions.link_mtus): a neighbour's link has
 * no MTU in the profile. True also when memory runs out, to be safe. */
bool peer_round_needs_link_mtus(const Profile *p, const ProfileNode *self);

/* Whether the echo run that ended with status and res was answered by node of cluster. */
bool peer_answered_as(int status, const PeerProbeResult *res, const char *cluster, const char *node) _pure_;
/* The MTU the MTU run of a reachable peer probes: the profile's, else the local link's; 0 when there is
 * none or the probe cannot carry it. */
uint32_t peer_mtu_to_probe(const PeerProbed *p) _pure_;

/* SPDX-License-Identifier: MIT */
/* One probe run as a state machine (lib/peer/peer-probe.c), so that lib/peer/peer-probe-round.c can
 * drive many at once from one poll loop: internal to lib/peer. */
#pragma once

#include "peer/peer.h"

typedef struct ProbeRun {
        const PeerProbeParams *params;
        int fd;
        PeerMessage request;
        size_t request_size;
        uint32_t base_sequence;
        unsigned count;  /* measured probes to send */
        unsigned warmup; /* unmeasured probes before them */
        unsigned index;  /* the probe in flight, warm-up included */
        bool any_sent;
        uint64_t sent_at, sent_at_real; /* of the probe in flight: monotonic and wall clock */
        uint64_t deadline;              /* when the probe in flight counts as lost (now(CLOCK_MONOTONIC)) */
        uint64_t *rtts;
        PeerProbeResult result;
        bool done;
        int status; /* once done: 0 (result is valid), or the negative errno peer_probe() returns */
} ProbeRun;

/* Validates p, opens the run's socket and sends its first probe; buf holds PEER_MESSAGE_SIZE_MAX + 1
 * bytes. Returns 0 when the run started (it may already be done: see run->done and run->status), or
 * -EMFILE/-ENFILE when no socket could be had: the run did not start and may be started again later. */
int probe_run_start(ProbeRun *run, const PeerProbeParams *p, uint8_t *buf);
/* Reads what waits on the run's socket and sends the next probe when the one in flight was answered. */
void probe_run_readable(ProbeRun *run, uint8_t *buf);
/* Sends the next probe when the one in flight is lost by now. */
void probe_run_tick(ProbeRun *run, uint64_t now, uint8_t *buf);
/* Releases the socket and buffers; the result and status stay. */
void probe_run_done(ProbeRun *run);

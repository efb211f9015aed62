/* SPDX-License-Identifier: MIT */
/* What the checks keep from one verify to the next: the history a check judges with (the verify
 * before's) and the one it leaves for the next. The checks take it in as a const value and write the
 * new one into a copy the caller gives them; the daemon's verify job publishes that copy on the loop
 * (the job primitive's capture → run → publish), so that no check changes the daemon's state from the
 * worker thread. */
#pragma once

#include "check/check-fabric-health.h"
#include "check/check-fabric-transport.h"

/* qos.<link>.pause: each netdev's pause frames and packets at the last verify. */
typedef struct PauseSample {
        char *ifname;
        usec_t when;
        uint64_t pause;
        uint64_t packets;
} PauseSample;

typedef struct PauseHistory {
        PauseSample *samples;
        size_t n;
} PauseHistory;

void pause_history_done(PauseHistory *h);
const PauseSample *pause_history_find(const PauseHistory *h, const char *ifname) _pure_;
int pause_history_put(PauseHistory *h, const char *ifname, usec_t when, uint64_t pause, uint64_t packets);

typedef struct CheckHistory {
        PauseHistory pause;             /* qos.<link>.pause */
        FabricTransportState transport; /* fabric.<node>.transport: the last sample, each peer's verdict */
        FabricHealthHistory fabric;     /* fabric.<link>.loss and the others: each port's counters */
} CheckHistory;

void check_history_done(CheckHistory *h);
/* A copy of h that owns all it holds: the after of a run starts as its before, and each check replaces
 * what it judged. Returns 0 or -ENOMEM. */
int check_history_copy(const CheckHistory *h, CheckHistory *ret);

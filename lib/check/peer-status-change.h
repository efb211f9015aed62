/* SPDX-License-Identifier: MIT */
/* How a round's Peers rows relate to the published ones (lib/check/peer-status-change.c). */
#pragma once

#include <stdbool.h>

#include "check/check-peer.h"

/* The Peers property changes only materially (see io.halod1(5)): reachability, the set of rows, or a
 * round trip that moved by more than a quarter and by more than 50 µs from the published value. */
bool peers_changed_materially(const PeerStatusList *published, const PeerStatusList *measured) _pure_;
/* A pending row of measured (its probes had not ended) takes what the same node and address had in
 * previous: nothing new is known; it stays marked pending. */
void peer_status_carry_pending(const PeerStatusList *previous, PeerStatusList *measured);

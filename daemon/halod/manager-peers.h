/* SPDX-License-Identifier: MIT */
/* The peer checks off the event loop (manager-peers.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "check/peer-link-mtu.h"
#include "profile/profile.h"

typedef struct Manager Manager;

/* Starts a run of the peer checks, or asks for another one after the running one. Without peers to
 * probe (health.peers: false, no neighbour) the peer checks are cleared at once. */
void manager_peers_request(Manager *m);
/* The same, and that run measures every peer in full (latency, MTU), whatever the window says. */
void manager_peers_request_all(Manager *m);
/* The run a caller asking now will see: 0 when none is pending (nothing to wait for). */
uint64_t manager_peers_pending_run(const Manager *m) _pure_;
/* Keeps *old alive while the running job reads it, taking it over (and setting *old to NULL), and
 * stops that job: a run for the profile now in force follows at once. */
void manager_peers_keep_profile(Manager *m, Profile **old);
/* On the loop, when a verify job of the profile in force publishes: the MTUs of the links it read,
 * taken over (*mtus is left empty), which the following peer rounds get a copy of instead of reading
 * them again. */
void manager_peers_set_link_mtus(Manager *m, PeerLinkMtus *mtus);
/* True when the drift of the logical link is one that peers are probed over. */
bool manager_peers_use_link(Manager *m, const char *link);
void manager_peers_done(Manager *m);

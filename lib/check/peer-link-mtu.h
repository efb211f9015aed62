/* SPDX-License-Identifier: MIT */
/* The links' MTUs (peer/peer-link-mtus.h) copied out of a snapshot that has read them: the fact the
 * peer round takes from the caller's verify. */
#pragma once

#include "peer/peer-link-mtus.h"
#include "snapshot/snapshot.h"

/* One MTU per port of s, which the caller read with SNAPSHOT_MTU. Returns 0 or -ENOMEM; *ret is
 * replaced on success. */
int peer_link_mtus_from_snapshot(const Snapshot *s, PeerLinkMtus *ret);

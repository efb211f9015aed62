/* SPDX-License-Identifier: MIT */
/* The UDP responder and the TCP throughput sink on this node's fabric addresses, (re)opened when the
 * profile's addresses or port change, its identity kept current (manager-peer-channel.c). */
#pragma once

typedef struct Manager Manager;

int manager_peer_channel_reset(Manager *m);
void manager_peer_channel_set_health(Manager *m);
void manager_peer_channel_done(Manager *m);

/* SPDX-License-Identifier: MIT */
/* The UDP responder and the TCP throughput sink on this node's fabric addresses, (re)opened when the
 * profile's addresses or port change, its identity kept current (manager-peer-channel.c). */
#pragma once

typedef struct Manager Manager;

/* Takes the sockets of halod.socket passed at start (sd_listen_fds_with_names()), if any. */
void manager_peer_channel_inherit(Manager *m);
int manager_peer_channel_reset(Manager *m);
void manager_peer_channel_set_health(Manager *m);
void manager_peer_channel_done(Manager *m);

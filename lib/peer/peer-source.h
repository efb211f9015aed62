/* SPDX-License-Identifier: MIT */
/* The source port of halod's datagrams to its peers (lib/peer/peer-source.c): internal to lib/peer. */
#pragma once

#include <netinet/in.h>
#include <stdint.h>

/* Binds the datagram socket fd to address:source_port beside halod's own socket on that port
 * (SO_REUSEPORT: the kernel allows it to the same user only), else, and for a source_port of 0, to an
 * ephemeral port: a probe that shares the peer's budget with this node's other processes is better
 * than none. Connected afterwards, the socket gets the replies from the peer, as the more specific
 * match. */
int peer_bind_source(int fd, struct in_addr address, uint16_t source_port);

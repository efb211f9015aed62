/* SPDX-License-Identifier: MIT */
/* Drift watch: rtnetlink events, the neighbours on the bus, the health.interval timer (manager-watch.c). */
#pragma once

#include <stddef.h>

#include "snapshot/fabric.h"
#include "snapshot/snapshot.h"

typedef struct Manager Manager;

int manager_watch_setup(Manager *m);
/* Subscribes to firewalld and NetworkManager (re)starting and to firewalld's reloads (after
 * manager_bus_setup()): each re-checks every link soon, and in enforce mode re-applies. */
int manager_watch_bus_setup(Manager *m);
/* (Re)arms the health.interval timer from the profile in force and keeps the peer channel current. */
int manager_watch_reset(Manager *m);
/* Resolves the links' netdevs now, on this thread: at start, before the loop runs (verify jobs do it
 * afterwards, see VerifyRequest.ports). */
void manager_watch_refresh_ports(Manager *m);
/* Takes over the links' netdevs that a verify job resolved: which rtnetlink events are ours. */
void manager_watch_set_ports(Manager *m, FabricPort *ports, size_t n);
/* Takes in the rtnetlink events queued until now (on the loop): a verify job's snapshot asks for it
 * right before it reads the kernel, so that what it reads reflects every event taken in. */
void manager_watch_take_events(Manager *m);
/* Whether rtnetlink events wait to be taken in: from any thread (it only looks). */
bool manager_watch_events_queued(const Manager *m);
/* The host lane ran empty: a re-check that came due meanwhile runs now. */
void manager_watch_host_idle(Manager *m);
/* After a verify that selected only, from a snapshot that read the kernel's links
 * (snapshot_read_kernel()): the events taken in before it last read the kernel are reflected in it,
 * so the links it re-checked need no re-check for them. */
void manager_watch_verified(Manager *m, const char *only);
void manager_watch_done(Manager *m);

/* SPDX-License-Identifier: MIT */
/* Two fake RoCE devices for the RDMA probe's tests: a prober's and a responder's, wired in one process. */
#pragma once

#include "fake-verbs.h"
#include "rdma/rdma.h"

/* The prober's port has 127.0.0.2 and MTU 4096, the responder's 127.0.0.1 and MTU 1024; both are
 * irdma's, RoCE v2 only, with their IPv4 GID at index 1. */
#define FAKE_PAIR_PROBER_IFINDEX 11
#define FAKE_PAIR_RESPONDER_IFINDEX 12
#define FAKE_PAIR_GID_INDEX 1

extern struct ibv_gid_entry fake_pair_prober_gids[FAKE_IRDMA_GIDS], fake_pair_responder_gids[FAKE_IRDMA_GIDS];
extern struct ibv_gid_entry fake_pair_mixed_responder_gids[6];

/* Installs the two devices (fake_verbs_setup(): the counters start from zero). */
void fake_pair_setup(void);
/* A cluster that mixes NICs: the prober's port as above (an E810, MTU 4096, GID index 1), the
 * responder's a ConnectX's (mlx5): its RoCE v2 IPv4 GID at index FAKE_PAIR_MIXED_GID_INDEX, and
 * active MTU 2048 on the same netdev MTU. */
#define FAKE_PAIR_MIXED_GID_INDEX 5
void fake_pair_setup_mixed(void);
/* Opens the device whose GID table is on ifindex, through lib/rdma/rdma.c; aborts when it cannot. */
RdmaDevice *fake_pair_open(int ifindex);

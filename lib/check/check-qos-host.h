/* SPDX-License-Identifier: MIT */
/* The host's qos checks of each link: qos.<link>.ecn (RoCE ECN on for the priorities with PFC),
 * qos.<link>.tos (rdma_cm's default RoCE ToS) and qos.<link>.pause (a pause storm between two
 * verifies), from the snapshot's SNAPSHOT_QOS_HOST and SNAPSHOT_QOS_COUNTERS (plan/qos-plan-host.h). */
#pragma once

#include "check/checks.h"
#include "plan/qos-plan-host.h"

/* A pause storm: at least this many pause frames between two verifies, and more of them than packets. */
#define QOS_PAUSE_STORM_MIN 100U

int check_qos_host(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* The pure parts, for the tests. label: "rdma0 (enp1s0f0np0)"; sq/sc NULL: not read. */
int check_qos_ecn_evaluate(
        const char *link, const char *label, const ProfileQos *q, const SnapshotQosHost *sq, CheckList *out);
int check_qos_tos_evaluate(
        const char *link, const char *label, const ProfileQos *q, const SnapshotQosHost *sq, CheckList *out);
/* history_kept: the caller keeps samples between verifies (halod); prev: the sample of the verify
 * before, NULL when there was none. */
int check_qos_pause_evaluate(
        const char *link,
        const char *label,
        const char *ifname,
        const ProfileQos *q,
        const SnapshotQosCounters *sc,
        bool history_kept,
        const PauseSample *prev,
        CheckList *out);

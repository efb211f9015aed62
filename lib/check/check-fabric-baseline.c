/* SPDX-License-Identifier: MIT */
/* fabric.<NODE>.baseline's verdict on the snapshot's RDMA baseline file and the node's state, and the
 * group that gives one per peer. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "basic/strv.h"
#include "check/check-fabric-baseline.h"
#include "check/checks.h"
#include "nic/pci.h"
#include "peer/peer-profile.h"
#include "snapshot/snapshot-baseline.h"
#include "snapshot/snapshot-rdma.h"

double rdma_node_state_ceiling(const RdmaNodeState *s, char **ret) {
        const PcieLink link = { .speed_mts = s->pcie_speed_mts, .width = s->pcie_width };
        double pcie = pcie_link_gbit(&link), port = s->port_mbit / 1000.0;
        char speed[PCIE_SPEED_STRING_MAX];
        int r = 0;

        if (ret)
                *ret = NULL;
        if (pcie <= 0 && port <= 0)
                return 0;
        if (pcie > 0 && (port <= 0 || pcie <= port)) {
                if (ret)
                        r = asprintf(
                                ret,
                                "PCIe %s GT/s x%u",
                                pcie_speed_to_string(s->pcie_speed_mts, speed),
                                s->pcie_width);
                return r < 0 ? -1 : pcie;
        }
        if (ret)
                r = asprintf(ret, "the port's %u Mbit/s", s->port_mbit);
        return r < 0 ? -1 : port;
}

/* "2026-11-28 02:10 UTC": when a measurement was taken. */
static const char *when(uint64_t usec, char buf[static 32]) {
        time_t t = (time_t) (usec / 1000000U);
        struct tm tm;

        if (!gmtime_r(&t, &tm) || strftime(buf, 32, "%Y-%m-%d %H:%M UTC", &tm) == 0)
                (void) snprintf(buf, 32, "@%" PRIu64, usec / 1000000U);
        return buf;
}

static double usec_of(uint64_t nsec) {
        return (double) nsec / 1000.0;
}

static int
        add(const FabricBaselineFacts *f,
            CheckList *out,
            CheckOutcome o,
            const char *expected,
            const char *actual,
            const char *summary) {
        char id[CHECK_ID_MAX];

        (void) snprintf(id, sizeof(id), "fabric.%s.baseline", f->node);
        return check_list_add(out, id, o, expected, actual, "%s", summary);
}

static int skip(const FabricBaselineFacts *f, CheckList *out, const char *summary) {
        return add(f, out, CHECK_SKIP, NULL, NULL, summary);
}

/* The baseline, or the latest measurement, was taken in another state of the node than now. */
static int judge_stale(const FabricBaselineFacts *f, CheckList *out) {
        const RdmaMeasurement *b = &f->peer->baseline, *l = &f->peer->last;
        _cleanup_(freep) char *changes = NULL, *summary = NULL;
        const char *which = "baseline";
        char at[32];
        int r;

        r = rdma_node_state_differs(&b->state, &f->now, &changes);
        if (r == 0) {
                which = "latest measurement";
                b = l;
                r = rdma_node_state_differs(&l->state, &f->now, &changes);
        }
        if (r <= 0)
                return r;
        if (asprintf(
                    &summary,
                    "Not compared: the RDMA %s to %s (%s) was taken before the node changed (%s); run "
                    "'haloctl probe %s' as root to re-take the baseline",
                    which,
                    f->node,
                    when(b->taken_usec, at),
                    changes,
                    f->node) < 0)
                return -ENOMEM;
        r = add(f, out, CHECK_SKIP, "a baseline in the node's state", "stale", summary);
        return r < 0 ? r : 1;
}

/* What is wrong with the latest measurement, one phrase each, against the baseline and the ceiling. */
static int problems(const FabricBaselineFacts *f, double ceiling, const char *bound, char ***ret) {
        const RdmaMeasurement *b = &f->peer->baseline, *l = &f->peer->last;
        double gbit = rdma_measurement_gbit(l), base_gbit = rdma_measurement_gbit(b);
        _cleanup_(strv_freep) char **list = NULL;
        char at[32];
        int r = 0;

        if (ceiling > 0 && gbit * 100.0 < ceiling * FABRIC_CEILING_MIN_PERCENT)
                r = strv_extendf(
                        &list,
                        "RDMA WRITE %.1f Gbit/s is well below the ~%.0f Gbit/s that %s allows",
                        gbit,
                        ceiling,
                        bound);
        if (r >= 0 && base_gbit > 0 && gbit * 100.0 < base_gbit * FABRIC_BASELINE_WRITE_MIN_PERCENT)
                r = strv_extendf(
                        &list,
                        "RDMA WRITE %.1f Gbit/s is %.0f%% below the baseline's %.1f Gbit/s (%s)",
                        gbit,
                        100.0 - gbit * 100.0 / base_gbit,
                        base_gbit,
                        when(b->taken_usec, at));
        if (r >= 0 && b->rtt_median_nsec > 0 &&
            l->rtt_median_nsec * 100U > b->rtt_median_nsec * (uint64_t) FABRIC_BASELINE_RTT_MAX_PERCENT)
                r = strv_extendf(
                        &list,
                        "the RDMA round trip's median %.1f µs is %.1f× the baseline's %.1f µs",
                        usec_of(l->rtt_median_nsec),
                        b->rtt_median_nsec > 0 ? (double) l->rtt_median_nsec / (double) b->rtt_median_nsec
                                               : 0.0,
                        usec_of(b->rtt_median_nsec));
        if (r < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(list);
        return 0;
}

static int judge_measurement(const FabricBaselineFacts *f, CheckList *out) {
        const RdmaMeasurement *b = &f->peer->baseline, *l = &f->peer->last;
        _cleanup_(freep) char *bound = NULL, *expected = NULL, *actual = NULL, *summary = NULL, *text = NULL,
                              *context = NULL, *ceiling_text = NULL;
        _cleanup_(strv_freep) char **list = NULL;
        double ceiling = rdma_node_state_ceiling(&l->state, &bound);
        bool is_baseline = l->taken_usec == b->taken_usec;
        char at[32], base_at[32];
        int r;

        if (ceiling < 0 || problems(f, ceiling, bound, &list) < 0)
                return -ENOMEM;
        if (asprintf(
                    &expected,
                    "≥ %.1f Gbit/s, ≤ %.1f µs",
                    rdma_measurement_gbit(b) * FABRIC_BASELINE_WRITE_MIN_PERCENT / 100.0,
                    usec_of(b->rtt_median_nsec) * FABRIC_BASELINE_RTT_MAX_PERCENT / 100.0) < 0 ||
            asprintf(&actual, "%.1f Gbit/s, %.1f µs", rdma_measurement_gbit(l), usec_of(l->rtt_median_nsec)) <
                    0)
                return -ENOMEM;
        if (list) {
                text = strv_join(list, "; ");
                if (!text ||
                    asprintf(
                            &summary,
                            "RDMA to %s over %s, measured %s: %s. Look for loss and pause frames (the fabric. "
                            "checks, ethtool -S), a PCIe link that trained down (nic.pcie) or a busy node; once "
                            "the cause is known and fixed, or the path is meant to be slower, 'haloctl probe %s "
                            "--rebaseline' as root makes the next measurement the baseline",
                            f->node,
                            l->link,
                            when(l->taken_usec, at),
                            text,
                            f->node) < 0)
                        return -ENOMEM;
                return add(f, out, CHECK_WARN, expected, actual, summary);
        }
        if (is_baseline)
                r = asprintf(&context, "the baseline, taken %s", when(b->taken_usec, base_at));
        else
                r = asprintf(
                        &context,
                        "measured %s, within the baseline's %.1f µs and %.1f Gbit/s of %s",
                        when(l->taken_usec, at),
                        usec_of(b->rtt_median_nsec),
                        rdma_measurement_gbit(b),
                        when(b->taken_usec, base_at));
        /* A node that names neither its PCIe link nor its port speed (soft-RoCE on virtio-net) has no
         * ceiling to state. */
        if (r >= 0 && ceiling > 0)
                r = asprintf(&ceiling_text, "; ceiling ~%.0f Gbit/s from %s", ceiling, bound);
        if (r < 0 ||
            asprintf(
                    &summary,
                    "RDMA to %s over %s: %.1f µs median round trip, %.1f Gbit/s RDMA WRITE (%s)%s",
                    f->node,
                    l->link,
                    usec_of(l->rtt_median_nsec),
                    rdma_measurement_gbit(l),
                    context,
                    strempty(ceiling_text)) < 0)
                return -ENOMEM;
        return add(f, out, CHECK_PASS, expected, actual, summary);
}

int check_fabric_baseline_evaluate(const FabricBaselineFacts *f, CheckList *out) {
        _cleanup_(freep) char *summary = NULL;
        int r;

        if (f->file_error == -ENOENT || (f->file_error >= 0 && !f->peer)) {
                if (asprintf(
                            &summary,
                            "No RDMA baseline for %s yet: run 'haloctl probe %s' as root to record one "
                            "(halod(8), FILES)",
                            f->node,
                            f->node) < 0)
                        return -ENOMEM;
                return skip(f, out, summary);
        }
        if (f->file_error < 0) {
                if (asprintf(
                            &summary,
                            "Cannot hold the RDMA path to %s against its baseline: %s",
                            f->node,
                            f->file_message ?: strerror(-f->file_error)) < 0)
                        return -ENOMEM;
                return add(
                        f,
                        out,
                        CHECK_WARN,
                        "a baseline file that root wrote",
                        f->file_error == -EPERM ? "not trusted" : "unreadable",
                        summary);
        }
        r = judge_stale(f, out);
        if (r != 0)
                return r < 0 ? r : 0;
        return judge_measurement(f, out);
}

static int skip_no_rdma(const char *node, CheckList *out) {
        const FabricBaselineFacts f = { .node = node };

        return skip(&f, out, "Not checked: the profile has no rdma: section");
}

static int evaluate_neighbour(const Snapshot *s, const PeerNeighbour *nb, CheckList *out) {
        const SnapshotRdmaBaseline *b = s->rdma_baseline;
        FabricBaselineFacts f = { .node = nb->node->name };
        size_t port;

        if (!(s->parts & SNAPSHOT_RDMA_BASELINE) || !b) {
                f.file_error = -ENODATA;
                f.file_message = "the baseline file was not read (a program that runs this check reads it first)";
        } else {
                f.file_error = b->error;
                f.file_message = b->message;
                if (b->error >= 0)
                        f.peer = rdma_baseline_find(&b->file, nb->node->name);
        }
        if (snapshot_port_by_link(s, nb->link, &port) >= 0)
                snapshot_rdma_node_state(s, port, &f.now);
        return check_fabric_baseline_evaluate(&f, out);
}

int check_fabric_baseline(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        _cleanup_(freep) PeerNeighbour *neighbours = NULL;
        _cleanup_(strv_freep) char **seen = NULL;
        size_t n = 0;
        int r;

        if (!c->node)
                return 0;
        r = peer_neighbours(c->profile, c->node, &neighbours, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                /* One check per node, on the first link that reaches it (haloctl probe's row too). */
                if (strv_contains(seen, neighbours[i].node->name))
                        continue;
                r = strv_extend(&seen, neighbours[i].node->name);
                if (r >= 0 && !c->profile->rdma.present)
                        r = skip_no_rdma(neighbours[i].node->name, out);
                else if (r >= 0)
                        r = evaluate_neighbour(s, &neighbours[i], out);
                if (r < 0)
                        return r;
        }
        return 0;
}

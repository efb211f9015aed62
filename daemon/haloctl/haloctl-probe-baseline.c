/* SPDX-License-Identifier: MIT */
/* haloctl probe's RDMA baseline: the measurement recorded with the node's state, the file written by
 * root, and the verdict of fabric.<NODE>.baseline printed under the RDMA row. */
#include <stdio.h>
#include <string.h>

#include "basic/time-util.h"
#include "check/check-fabric-baseline.h"
#include "haloctl-probe-baseline.h"
#include "haloctl.h"
#include "rdma/rdma-baseline-file.h"
#include "snapshot/snapshot-baseline.h"
#include "snapshot/snapshot-rdma.h"

int probe_baseline_open(const NodeContext *c, ProbeBaseline *ret) {
        const SnapshotRdmaBaseline *sb;
        int r;

        *ret = (ProbeBaseline){};
        snapshot_init(&ret->snapshot, c);
        r = snapshot_read(&ret->snapshot, SNAPSHOT_NICS | SNAPSHOT_MTU | SNAPSHOT_RDMA_BASELINE);
        if (r < 0)
                return r;
        sb = ret->snapshot.rdma_baseline;
        /* None yet: the first measurement starts the file. Untrusted or corrupt: never overwritten
         * unasked, the user removes it (the check says so). */
        if (sb->error == -ENOENT) {
                rdma_baseline_file_done(&ret->snapshot.rdma_baseline->file);
                ret->file = &ret->snapshot.rdma_baseline->file;
        } else if (sb->error >= 0)
                ret->file = &ret->snapshot.rdma_baseline->file;
        else
                ret->read_error = sb->message ?: strerror(-sb->error);
        return 0;
}

void probe_baseline_done(ProbeBaseline *b) {
        snapshot_done(&b->snapshot);
        b->write_error = mfree(b->write_error);
}

void probe_baseline_row_done(ProbeBaselineRow *row) {
        row->changes = mfree(row->changes);
        check_list_done(&row->verdict);
}

static void measurement_of(
        const ProbeBaseline *b,
        const char *link,
        const char *device,
        const RdmaProbeResult *res,
        RdmaMeasurement *m) {
        size_t port;

        *m = (RdmaMeasurement){
                .taken_usec = now(CLOCK_REALTIME),
                .path_mtu = res->path_mtu,
                .pings = res->pings,
                .rtt_median_nsec = res->rtt_median_nsec,
                .rtt_p99_nsec = res->rtt_p99_nsec,
                .write_bytes = res->write_bytes,
                .write_nsec = res->write_nsec,
        };
        (void) snprintf(m->link, sizeof(m->link), "%s", link);
        (void) snprintf(m->device, sizeof(m->device), "%s", device);
        if (snapshot_port_by_link(&b->snapshot, link, &port) >= 0)
                snapshot_rdma_node_state(&b->snapshot, port, &m->state);
}

int probe_baseline_add(
        ProbeBaseline *b,
        const char *node,
        const char *link,
        const char *device,
        const RdmaProbeResult *res,
        bool rebaseline,
        ProbeBaselineRow *ret) {
        const RdmaBaselinePeer *before;
        FabricBaselineFacts f = { .node = node };
        RdmaMeasurement m;
        int r;

        *ret = (ProbeBaselineRow){ .recorded = -1 };
        if (!b->file)
                return 0;
        measurement_of(b, link, device, res, &m);
        before = rdma_baseline_find(b->file, node);
        if (before && !rebaseline) {
                r = rdma_node_state_differs(&before->baseline.state, &m.state, &ret->changes);
                if (r < 0)
                        return r;
        }
        r = rdma_baseline_record(b->file, node, &m, rebaseline);
        if (r < 0)
                return r;
        ret->recorded = r;
        b->changed = true;

        f.peer = rdma_baseline_find(b->file, node);
        f.now = m.state;
        return check_fabric_baseline_evaluate(&f, &ret->verdict);
}

int probe_baseline_save(ProbeBaseline *b) {
        int r;

        if (!b->file || !b->changed)
                return 0;
        r = rdma_baseline_write(b->snapshot.context->host, b->file, &b->write_error);
        if (r == -ENOMEM)
                return r;
        if (r == -EACCES || r == -EROFS || r == -EPERM) {
                char *why = NULL;

                /* Whoever may not write it: said so, with who may. */
                if (asprintf(
                            &why,
                            "%s (only root records the RDMA baseline: run 'haloctl probe' as root)",
                            b->write_error ?: strerror(-r)) < 0)
                        return -ENOMEM;
                free(b->write_error);
                b->write_error = why;
        }
        return 0;
}

static const char *recorded_text(int recorded) {
        switch (recorded) {
        case RDMA_BASELINE_NEW:
                return "recorded as the baseline: the first RDMA measurement to this node";
        case RDMA_BASELINE_RETAKEN:
                return "re-taken: the node changed since the baseline was taken";
        case RDMA_BASELINE_REPLACED:
                return "recorded as the new baseline (--rebaseline)";
        default:
                return NULL;
        }
}

void probe_baseline_print_row(const ProbeBaseline *b, const ProbeBaselineRow *row) {
        const Check *v = row->verdict.n_checks > 0 ? &row->verdict.checks[0] : NULL;

        if (b->read_error) {
                printf("  %-18s %snot recorded%s: %s\n",
                       "RDMA baseline",
                       ansi_yellow(),
                       ansi_normal(),
                       b->read_error);
                return;
        }
        if (row->recorded < 0)
                return;
        if (b->write_error)
                printf("  %-18s %snot recorded%s: %s\n",
                       "RDMA baseline",
                       ansi_yellow(),
                       ansi_normal(),
                       b->write_error);
        else if (recorded_text(row->recorded))
                printf("  %-18s %s%s%s%s\n",
                       "RDMA baseline",
                       recorded_text(row->recorded),
                       row->changes ? " (" : "",
                       strempty(row->changes),
                       row->changes ? ")" : "");
        if (v && row->recorded == RDMA_BASELINE_KEPT)
                printf("  %-18s %s%s%s: %s\n",
                       "RDMA baseline",
                       v->outcome == CHECK_PASS ? ansi_green() : ansi_yellow(),
                       check_outcome_to_string(v->outcome),
                       ansi_normal(),
                       v->summary);
        else if (v && v->outcome != CHECK_PASS)
                /* A new baseline is held against the ceiling alone. */
                printf("  %-18s %s%s%s: %s\n",
                       "RDMA ceiling",
                       ansi_yellow(),
                       check_outcome_to_string(v->outcome),
                       ansi_normal(),
                       v->summary);
}

void probe_baseline_json_row(JsonWriter *w, const ProbeBaseline *b, const ProbeBaselineRow *row) {
        const Check *v = row->verdict.n_checks > 0 ? &row->verdict.checks[0] : NULL;

        json_key(w, "baseline");
        json_begin_object(w);
        json_kv_string(w, "file", RDMA_BASELINE_PATH);
        json_kv_bool(w, "recorded", !b->read_error && row->recorded >= 0 && !b->write_error);
        if (row->recorded >= 0)
                json_kv_string(w, "record", rdma_baseline_record_to_string(row->recorded));
        if (b->read_error || b->write_error)
                json_kv_string(w, "error", b->read_error ?: b->write_error);
        if (row->changes)
                json_kv_string(w, "changes", row->changes);
        if (v) {
                json_kv_string(w, "check", v->id);
                json_kv_string(w, "outcome", check_outcome_to_string(v->outcome));
                json_kv_string(w, "summary", v->summary);
        }
        json_end_object(w);
}

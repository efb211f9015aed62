/* SPDX-License-Identifier: MIT */
/* The counters that show whether a lossless RoCE class works, as metrics: per-priority pause frames
 * (the driver's ethtool statistics) and the RDMA device's congestion and retransmission counters
 * (hw_counters), from the snapshot's SNAPSHOT_QOS_COUNTERS. */
#include <inttypes.h>

#include "export/metrics.h"
#include "plan/qos-plan-host.h"

void metrics_qos_free(MetricsQos *q, size_t n) {
        for (size_t i = 0; q && i < n; i++) {
                free(q[i].link);
                free(q[i].ifname);
                free(q[i].rdma_device);
        }
        free(q);
}

static int strdup_or_null(const char *s, char **ret) {
        *ret = s ? strdup(s) : NULL;
        return !s || *ret ? 0 : -ENOMEM;
}

int metrics_qos_gather(const NodeContext *c, Snapshot *s, MetricsQos **ret, size_t *ret_n) {
        _cleanup_(snapshot_done) Snapshot own = {};
        MetricsQos *q = NULL;
        int r;

        s = snapshot_or_own(s, &own, c);
        r = snapshot_read(s, SNAPSHOT_QOS_COUNTERS);
        if (r < 0)
                return r;
        if (s->n_ports > 0) {
                q = calloc(s->n_ports, sizeof(MetricsQos));
                if (!q)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < s->n_ports; i++) {
                const SnapshotQosCounters *sc = &s->qos_counters[i];

                if (strdup_or_null(s->ports[i].link, &q[i].link) < 0 ||
                    strdup_or_null(s->ports[i].ifname, &q[i].ifname) < 0 ||
                    strdup_or_null(sc->rdma_device, &q[i].rdma_device) < 0) {
                        metrics_qos_free(q, s->n_ports);
                        return -ENOMEM;
                }
                if (sc->pause_error >= 0)
                        q[i].pause = sc->pause;
                q[i].rdma_port = sc->rdma_port;
                memcpy(q[i].hw, sc->hw, sizeof(q[i].hw));
                q[i].hw_known = sc->hw_known;
                q[i].hw_driver_known = sc->hw_error == 0;
                q[i].hw_driver = sc->hw_driver;
                if (sc->netdev_error == 0)
                        q[i].netdev = sc->netdev;
                q[i].packets = sc->packets;
                q[i].packets_known = sc->packets_error == 0;
        }
        *ret = q;
        *ret_n = s->n_ports;
        return 0;
}

static void family(FILE *f, const char *name, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

static void label(FILE *f, bool first, const char *key, const char *value) {
        fprintf(f, "%s%s=\"", first ? "{" : ",", key);
        metrics_write_label_value(f, value);
        fputc('"', f);
}

static const struct {
        const char *name;
        const char *help;
} hw_counter_table[_RDMA_HW_COUNTER_MAX] = {
        [RDMA_HW_NP_ECN_MARKED] = { "halod_rdma_ecn_marked_packets_total",
                                    "RoCE packets that arrived ECN-marked (CE) at the RDMA port, the notification point (hw_counters/np_ecn_marked_roce_packets; irdma: RxECNMrkd)." },
        [RDMA_HW_NP_CNP_SENT] = { "halod_rdma_cnp_sent_total",
                                  "Congestion notification packets the RDMA port sent back for ECN-marked packets, as notification point (hw_counters/np_cnp_sent; irdma: cnpSent)." },
        [RDMA_HW_RP_CNP_HANDLED] = { "halod_rdma_cnp_handled_total",
                                     "Congestion notification packets the RDMA port received and slowed down for, as reaction point (hw_counters/rp_cnp_handled; irdma: cnpHandled)." },
        [RDMA_HW_RP_CNP_IGNORED] = { "halod_rdma_cnp_ignored_total",
                                     "Congestion notification packets the RDMA port received and ignored (hw_counters/rp_cnp_ignored; irdma: cnpIgnored)." },
        [RDMA_HW_OUT_OF_SEQUENCE] = { "halod_rdma_out_of_sequence_total",
                                      "Packets the RDMA port received out of sequence, each a sign of a lost packet (hw_counters/out_of_sequence; irdma GEN3: Rcvd Out of order packets, none on an E810)." },
        [RDMA_HW_PACKET_SEQ_ERR] = { "halod_rdma_packet_sequence_errors_total",
                                     "NAKs for packet sequence errors the RDMA port received (hw_counters/packet_seq_err; irdma GEN3: Nak Sequence Error, none on an E810)." },
        [RDMA_HW_IMPLIED_NAK_SEQ_ERR] = { "halod_rdma_implied_nak_sequence_errors_total",
                                          "Implied NAK sequence errors: responses that showed a request lost (hw_counters/implied_nak_seq_err; irdma GEN3: Nak Sequence Error Implied, none on an E810)." },
        [RDMA_HW_LOCAL_ACK_TIMEOUT_ERR] = { "halod_rdma_local_ack_timeouts_total",
                                            "Times the RDMA port's queue pairs waited for an ACK in vain and retransmitted (hw_counters/local_ack_timeout_err; irdma GEN3: RTO, none on an E810)." },
        [RDMA_HW_DUPLICATE_REQUEST] = { "halod_rdma_duplicate_requests_total",
                                        "Retransmitted requests the RDMA port received again (hw_counters/duplicate_request; mlx5 only)." },
        [RDMA_HW_RNR_NAK_RETRY_ERR] = { "halod_rdma_rnr_nak_retry_errors_total",
                                        "Receiver-not-ready NAK retries that were exhausted (hw_counters/rnr_nak_retry_err; rxe: retry_rnr_exceeded_err)." },
        [RDMA_HW_RETRANSMITTED] = { "halod_rdma_retransmitted_total",
                                    "Requests the RDMA port sent again after an ACK timeout or a NAK (hw_counters/roce_adp_retrans; rxe: completer_retry_err)." },
        [RDMA_HW_LINK_DOWNED] = { "halod_rdma_link_downed_total",
                                  "Times the RDMA port's link went down (rxe: hw_counters/link_downed; mlx5: counters/link_downed)." },
};

void metrics_render_qos(FILE *f, const MetricsQos *q, size_t n) {
        bool begun = false;

        /* Only what the driver counts: no sample for an unknown priority or counter, rather than a 0. */
        for (size_t i = 0; i < n; i++)
                for (unsigned p = 0; q[i].ifname && p < QOS_PRIORITIES; p++) {
                        if (!(q[i].pause.known & (1U << p)))
                                continue;
                        if (!begun)
                                family(f,
                                       "halod_qos_pause_frames_total",
                                       "PFC pause (XOFF) frames of each priority from the driver's ethtool statistics (mlx5: rx_prioN_pause, tx_prioN_pause; ice: rx_priority_N_xoff.nic, tx_priority_N_xoff.nic): direction received, the peer asked this port to stop; sent, this port asked the peer to stop.");
                        begun = true;
                        for (unsigned k = 0; k < 2; k++) {
                                char prio[4];

                                (void) snprintf(prio, sizeof(prio), "%u", p);
                                fputs("halod_qos_pause_frames_total", f);
                                label(f, true, "link", q[i].link);
                                label(f, false, "ifname", q[i].ifname);
                                label(f, false, "priority", prio);
                                label(f, false, "direction", k == 0 ? "received" : "sent");
                                fprintf(f, "} %" PRIu64 "\n", k == 0 ? q[i].pause.rx[p] : q[i].pause.tx[p]);
                        }
                }

        for (RdmaHwCounter c = 0; c < _RDMA_HW_COUNTER_MAX; c++) {
                begun = false;
                for (size_t i = 0; i < n; i++) {
                        char port[16];

                        if (!q[i].rdma_device || !(q[i].hw_known & (1U << c)))
                                continue;
                        if (!begun)
                                family(f, hw_counter_table[c].name, hw_counter_table[c].help);
                        begun = true;
                        (void) snprintf(port, sizeof(port), "%u", q[i].rdma_port);
                        fputs(hw_counter_table[c].name, f);
                        label(f, true, "link", q[i].link);
                        label(f, false, "device", q[i].rdma_device);
                        label(f, false, "port", port);
                        fprintf(f, "} %" PRIu64 "\n", q[i].hw[c]);
                }
        }
        metrics_render_fabric(f, q, n);
}

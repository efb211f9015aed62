/* SPDX-License-Identifier: MIT */
/* The fabric health checks' counters as metrics, under one vocabulary whatever the driver:
 * halod_fabric_events_total{event="out_of_sequence"} with the driver's own file as source
 * ("hw_counters/out_of_seq_request" on rxe, "hw_counters/out_of_sequence" on mlx5_ib), the packets the
 * rates are judged against, and which counters the driver does not have (halod_fabric_counted 0: "not
 * counted by irdma", never a 0 that reads as "no loss"). The raw halod_rdma_*_total families stay. */
#include <inttypes.h>
#include <stdio.h>

#include "export/metrics.h"

static const char *const hw_vocabulary[_RDMA_HW_COUNTER_MAX] = {
        [RDMA_HW_NP_ECN_MARKED] = "ecn_marked",
        [RDMA_HW_NP_CNP_SENT] = "cnp_sent",
        [RDMA_HW_RP_CNP_HANDLED] = "cnp_handled",
        [RDMA_HW_RP_CNP_IGNORED] = "cnp_ignored",
        [RDMA_HW_OUT_OF_SEQUENCE] = "out_of_sequence",
        [RDMA_HW_PACKET_SEQ_ERR] = "sequence_naks",
        [RDMA_HW_IMPLIED_NAK_SEQ_ERR] = "implied_sequence_errors",
        [RDMA_HW_LOCAL_ACK_TIMEOUT_ERR] = "ack_timeouts",
        [RDMA_HW_DUPLICATE_REQUEST] = "duplicate_requests",
        [RDMA_HW_RNR_NAK_RETRY_ERR] = "rnr_retries_exceeded",
        [RDMA_HW_RETRANSMITTED] = "retransmitted",
        [RDMA_HW_LINK_DOWNED] = "link_downed",
};

static const char *const netdev_vocabulary[_NETDEV_COUNTER_MAX] = {
        [NETDEV_RX_CRC_ERRORS] = "crc_errors",
        [NETDEV_RX_FRAME_ERRORS] = "frame_errors",
        [NETDEV_RX_MISSED_ERRORS] = "missed",
        [NETDEV_CARRIER_CHANGES] = "carrier_changes",
        [NETDEV_CARRIER_DOWN_COUNT] = "carrier_downs",
        [NETDEV_SYMBOL_ERRORS] = "symbol_errors",
        [NETDEV_FEC_CORRECTED_BITS] = "fec_corrected_bits",
};

static void label(FILE *f, bool first, const char *key, const char *value) {
        fprintf(f, "%s%s=\"", first ? "{" : ",", key);
        metrics_write_label_value(f, value);
        fputc('"', f);
}

static void
        sample(FILE *f,
               const char *name,
               const MetricsQos *q,
               const char *counter,
               const char *source,
               const char *driver,
               uint64_t value) {
        fputs(name, f);
        label(f, true, "link", q->link);
        label(f, false, "ifname", q->ifname);
        if (counter)
                label(f, false, "event", counter);
        if (source)
                label(f, false, "source", source);
        if (driver)
                label(f, false, "driver", driver);
        fprintf(f, "} %" PRIu64 "\n", value);
}

/* The RDMA file of family c on q's device ("hw_counters/out_of_seq_request"), in buf. */
static const char *hw_source(const MetricsQos *q, RdmaHwCounter c, char *buf, size_t size) {
        const char *name = rdma_hw_counter_name(c, q->hw_driver);

        (void) snprintf(buf, size, "%s/%s", name ? "hw_counters" : "counters", name ?: "link_downed");
        return buf;
}

static bool has_counters(const MetricsQos *q) {
        return q->ifname && ((q->hw_driver_known && q->hw_known) || q->netdev.known);
}

static void render_counters(FILE *f, const MetricsQos *q, size_t n) {
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = any || has_counters(&q[i]);
        if (!any)
                return;
        fputs("# HELP halod_fabric_events_total The fabric health checks' counters under one vocabulary "
              "(event), whatever the driver calls them (source: the driver's own file or ethtool "
              "statistic; driver: whose names those are).\n"
              "# TYPE halod_fabric_events_total counter\n",
              f);
        for (size_t i = 0; i < n; i++) {
                const char *driver = q[i].hw_driver_known ? rdma_counter_driver_to_string(q[i].hw_driver)
                                                          : NULL;
                char buf[128];

                if (!q[i].ifname)
                        continue;
                for (RdmaHwCounter c = 0; driver && c < _RDMA_HW_COUNTER_MAX; c++)
                        if (q[i].hw_known & (1U << c))
                                sample(f,
                                       "halod_fabric_events_total",
                                       &q[i],
                                       hw_vocabulary[c],
                                       hw_source(&q[i], c, buf, sizeof(buf)),
                                       driver,
                                       q[i].hw[c]);
                for (NetdevCounter c = 0; c < _NETDEV_COUNTER_MAX; c++)
                        if (q[i].netdev.known & (1U << c)) {
                                (void) snprintf(
                                        buf,
                                        sizeof(buf),
                                        "%s%s",
                                        c >= NETDEV_SYMBOL_ERRORS ? "ethtool:" : "",
                                        netdev_counter_to_string(c));
                                sample(f,
                                       "halod_fabric_events_total",
                                       &q[i],
                                       netdev_vocabulary[c],
                                       buf,
                                       "netdev",
                                       q[i].netdev.value[c]);
                        }
        }
}

static void render_packets(FILE *f, const MetricsQos *q, size_t n) {
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = any || (q[i].ifname && q[i].packets_known);
        if (!any)
                return;
        fputs("# HELP halod_fabric_packets_total Packets the netdev received and sent (statistics/rx_packets + "
              "tx_packets): what the fabric health checks judge their counters against.\n"
              "# TYPE halod_fabric_packets_total counter\n",
              f);
        for (size_t i = 0; i < n; i++)
                if (q[i].ifname && q[i].packets_known)
                        sample(f, "halod_fabric_packets_total", &q[i], NULL, NULL, NULL, q[i].packets);
}

static void render_counted(FILE *f, const MetricsQos *q, size_t n) {
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = any || (q[i].ifname && q[i].hw_driver_known);
        if (!any)
                return;
        fputs("# HELP halod_fabric_counted 1 when the port's RDMA driver counts the counter, 0 when it does "
              "not (\"not counted by irdma\": an E810 counts no retransmission), so that a missing series "
              "is not read as no loss.\n"
              "# TYPE halod_fabric_counted gauge\n",
              f);
        for (size_t i = 0; i < n; i++) {
                const char *driver = q[i].hw_driver_known ? rdma_counter_driver_to_string(q[i].hw_driver)
                                                          : NULL;

                for (RdmaHwCounter c = 0; q[i].ifname && driver && c < _RDMA_HW_COUNTER_MAX; c++)
                        sample(f,
                               "halod_fabric_counted",
                               &q[i],
                               hw_vocabulary[c],
                               NULL,
                               driver,
                               (q[i].hw_known >> c) & 1U);
        }
}

void metrics_render_fabric(FILE *f, const MetricsQos *q, size_t n) {
        render_counters(f, q, n);
        render_packets(f, q, n);
        render_counted(f, q, n);
}

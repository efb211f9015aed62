/* SPDX-License-Identifier: MIT */
/* Renders halod's metrics in the Prometheus text format for node_exporter's textfile collector. */
#include <inttypes.h>
#include <stdio.h>

#include "basic/fileio.h"
#include "basic/time-util.h"
#include "basic/version.h"
#include "export/metrics.h"

/* The length of the valid UTF-8 sequence that starts s (n bytes left), 0 when it is not one:
 * overlong forms, surrogates and code points above U+10FFFF are refused, as Go's utf8.ValidString
 * (Prometheus) refuses them. */
static size_t utf8_sequence_length(const unsigned char *s, size_t n) {
        static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
        size_t len;
        uint32_t cp;

        if (s[0] < 0x80)
                return 1;
        if ((s[0] & 0xe0) == 0xc0) {
                len = 2;
                cp = s[0] & 0x1f;
        } else if ((s[0] & 0xf0) == 0xe0) {
                len = 3;
                cp = s[0] & 0x0f;
        } else if ((s[0] & 0xf8) == 0xf0) {
                len = 4;
                cp = s[0] & 0x07;
        } else
                return 0;
        if (n < len)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return len;
}

void metrics_write_label_value(FILE *f, const char *value) {
        const unsigned char *s = (const unsigned char *) value;
        size_t n = strlen(value);

        for (size_t i = 0; i < n;) {
                size_t len = utf8_sequence_length(s + i, n - i);

                if (len == 0) {
                        fputc('?', f);
                        i++;
                        continue;
                }
                if (len > 1)
                        fwrite(s + i, 1, len, f);
                else if (s[i] == '\\')
                        fputs("\\\\", f);
                else if (s[i] == '"')
                        fputs("\\\"", f);
                else if (s[i] == '\n')
                        fputs("\\n", f);
                else if (s[i] < 0x20 || s[i] == 0x7f)
                        /* Legal in the format, but a CR or an escape sequence in a scraped file only
                         * confuses whoever reads it. */
                        fputc('?', f);
                else
                        fputc(s[i], f);
                i += len;
        }
}

static void family(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{k1="v1",k2="v2"} with labels as NULL-terminated key, value pairs; a NULL value leaves its
 * label out (Prometheus treats an empty label as an absent one anyway). */
static void series(FILE *f, const char *name, const char *const *labels) {
        bool first = true;

        fputs(name, f);
        for (size_t i = 0; labels && labels[i]; i += 2) {
                if (!labels[i + 1])
                        continue;
                fputs(first ? "{" : ",", f);
                fprintf(f, "%s=\"", labels[i]);
                metrics_write_label_value(f, labels[i + 1]);
                fputc('"', f);
                first = false;
        }
        if (!first)
                fputc('}', f);
}

static void sample_uint(FILE *f, const char *name, const char *const *labels, uint64_t value) {
        series(f, name, labels);
        fprintf(f, " %" PRIu64 "\n", value);
}

/* Microseconds as seconds, exactly: no float rounding in the file. */
static void sample_usec_as_seconds(FILE *f, const char *name, const char *const *labels, uint64_t usec) {
        series(f, name, labels);
        fprintf(f, " %" PRIu64 ".%06" PRIu64 "\n", usec / USEC_PER_SEC, usec % USEC_PER_SEC);
}

static void render_node(FILE *f, const MetricsInput *in) {
        if (in->cluster && in->node) {
                family(f,
                       "halod_node_info",
                       "gauge",
                       "The cluster, node and profile digest (SHA-256 of the normalized profile) in force; always 1.");
                sample_uint(
                        f,
                        "halod_node_info",
                        (const char *const[]){ "cluster",
                                               in->cluster,
                                               "node",
                                               in->node,
                                               "profile_digest",
                                               in->profile_digest,
                                               NULL },
                        1);
        }

        family(f,
               "halod_health",
               "gauge",
               "The node's health (starting, healthy, degraded, failed): 1 for the current state, 0 for the others.");
        for (Health h = 0; h < _HEALTH_MAX; h++)
                sample_uint(
                        f,
                        "halod_health",
                        (const char *const[]){ "state", health_to_string(h), NULL },
                        h == in->health);

        if (in->last_verify_usec > 0) {
                family(f,
                       "halod_last_verify_timestamp_seconds",
                       "gauge",
                       "When the checks in this file were run, in seconds since the Unix epoch.");
                sample_usec_as_seconds(f, "halod_last_verify_timestamp_seconds", NULL, in->last_verify_usec);
        }
}

static bool reboot_pending(const CheckList *l) {
        for (size_t i = 0; i < l->n_checks; i++)
                if (l->checks[i].pending_reboot)
                        return true;
        return false;
}

static void render_checks(FILE *f, const CheckList *l) {
        family(f, "halod_checks", "gauge", "How many checks ended with each outcome in the last verify.");
        for (CheckOutcome o = 0; o < _CHECK_OUTCOME_MAX; o++)
                sample_uint(
                        f,
                        "halod_checks",
                        (const char *const[]){ "outcome", check_outcome_to_string(o), NULL },
                        l ? check_list_count(l, o) : 0);

        family(f,
               "halod_reboot_required",
               "gauge",
               "1 when a reboot would bring into force what the running system lacks (the PendingReboot property: "
               "kernel parameters the next boot carries, systemd's DefaultLimitMEMLOCK not yet read); else 0.");
        sample_uint(f, "halod_reboot_required", NULL, l && reboot_pending(l));

        if (!l || l->n_checks == 0)
                return;
        family(f,
               "halod_check_status",
               "gauge",
               "The outcome of each check (pass, skip, warn, fail): 1 for its outcome in the last verify, 0 for the others.");
        for (size_t i = 0; i < l->n_checks; i++)
                for (CheckOutcome o = 0; o < _CHECK_OUTCOME_MAX; o++)
                        sample_uint(
                                f,
                                "halod_check_status",
                                (const char *const[]){
                                        "check", l->checks[i].id, "outcome", check_outcome_to_string(o), NULL },
                                l->checks[i].outcome == o);
}

static void render_peers(FILE *f, const PeerStatusList *l) {
        bool any_reachable = false;

        if (!l || l->n_peers == 0)
                return;
        family(f,
               "halod_peer_reachable",
               "gauge",
               "1 when the peer's halod answered the last verify's probes with the right cluster and node name, else 0.");
        for (size_t i = 0; i < l->n_peers; i++) {
                sample_uint(
                        f,
                        "halod_peer_reachable",
                        (const char *const[]){ "peer", l->peers[i].node, "address", l->peers[i].address, NULL },
                        l->peers[i].reachable);
                any_reachable = any_reachable || l->peers[i].reachable;
        }

        /* A peer that does not answer has no round trip: no sample rather than a misleading 0. Two
         * gauges, not one with a quantile label: promtool (rightly) reserves quantile= for summaries,
         * whose _sum and _count count every observation since start, which halod does not keep. */
        if (!any_reachable)
                return;
        for (unsigned k = 0; k < 2; k++) {
                const char *name = k == 0 ? "halod_peer_rtt_median_seconds" : "halod_peer_rtt_p99_seconds";

                family(f,
                       name,
                       "gauge",
                       k == 0 ? "Median round trip of the peer channel's UDP echo probes in the last verify."
                              : "99th percentile (nearest rank) round trip of the peer channel's UDP echo probes in the last verify.");
                for (size_t i = 0; i < l->n_peers; i++) {
                        const PeerStatus *p = &l->peers[i];

                        if (p->reachable)
                                sample_usec_as_seconds(
                                        f,
                                        name,
                                        (const char *const[]){ "peer", p->node, "address", p->address, NULL },
                                        k == 0 ? p->rtt_median_usec : p->rtt_p99_usec);
                }
        }
}

typedef enum NicFact {
        NIC_FACT_WIDTH,
        NIC_FACT_MAX_WIDTH,
        NIC_FACT_SPEED,
        NIC_FACT_MAX_SPEED,
        _NIC_FACT_MAX,
        _NIC_FACT_INVALID = -EINVAL,
} NicFact;

static const struct {
        const char *name;
        const char *help;
} nic_fact_table[_NIC_FACT_MAX] = {
        [NIC_FACT_WIDTH] = { "halod_nic_pcie_link_width",
                             "Negotiated PCIe link width of the fabric NIC, in lanes." },
        [NIC_FACT_MAX_WIDTH] = { "halod_nic_pcie_link_max_width",
                                 "PCIe link width the fabric NIC is capable of, in lanes." },
        [NIC_FACT_SPEED] = { "halod_nic_pcie_link_speed_transfers_per_second",
                             "Negotiated PCIe transfer rate per lane of the fabric NIC (16e9 for 16 GT/s, Gen4)." },
        [NIC_FACT_MAX_SPEED] = { "halod_nic_pcie_link_max_speed_transfers_per_second",
                                 "PCIe transfer rate per lane the fabric NIC is capable of." },
};

static uint64_t nic_fact(const MetricsNic *n, NicFact fact) {
        switch (fact) {
        case NIC_FACT_WIDTH:
                return n->pcie_width;
        case NIC_FACT_MAX_WIDTH:
                return n->pcie_max_width;
        case NIC_FACT_SPEED:
                return (uint64_t) n->pcie_speed_mts * 1000000U;
        case NIC_FACT_MAX_SPEED:
                return (uint64_t) n->pcie_max_speed_mts * 1000000U;
        default:
                return 0;
        }
}

static int render_nics(FILE *f, const MetricsNic *nics, size_t n) {
        bool any_firmware = false, any_pending = false;

        /* Unknown facts (no device, no PCIe capability) get no sample. */
        for (NicFact fact = 0; fact < _NIC_FACT_MAX; fact++) {
                bool begun = false;

                for (size_t i = 0; i < n; i++) {
                        uint64_t v = nic_fact(&nics[i], fact);

                        if (v == 0 || !nics[i].pci)
                                continue;
                        if (!begun)
                                family(f, nic_fact_table[fact].name, "gauge", nic_fact_table[fact].help);
                        begun = true;
                        sample_uint(
                                f,
                                nic_fact_table[fact].name,
                                (const char *const[]){ "link", nics[i].link, "pci", nics[i].pci, NULL },
                                v);
                }
        }

        for (size_t i = 0; i < n; i++)
                any_firmware = any_firmware || nics[i].driver;
        if (!any_firmware)
                return 0;
        family(f,
               "halod_nic_firmware_info",
               "gauge",
               "The fabric NIC's driver, firmware, board id and ice DDP package; always 1. version: what nic.firmware compares, from source (devlink, else ethtool); firmware: ETHTOOL_GDRVINFO's whole string.");
        for (size_t i = 0; i < n; i++) {
                _cleanup_(firmware_version_done) FirmwareVersion v = {};
                const MetricsNic *nic = &nics[i];

                if (!nic->driver)
                        continue;
                /* A string without a version still goes out whole, in firmware=. */
                if (!nic->version && firmware_version_parse(strempty(nic->firmware), &v) == -ENOMEM)
                        return -ENOMEM;
                sample_uint(
                        f,
                        "halod_nic_firmware_info",
                        (const char *const[]){ "link",
                                               nic->link,
                                               "ifname",
                                               nic->ifname,
                                               "pci",
                                               nic->pci,
                                               "driver",
                                               nic->driver,
                                               "driver_version",
                                               nic->driver_version,
                                               "version",
                                               nic->version ?: v.version,
                                               "firmware",
                                               nic->firmware,
                                               "source",
                                               nic->source,
                                               "board_id",
                                               nic->board_id,
                                               "ddp",
                                               nic->ddp,
                                               NULL },
                        1);
        }

        /* Only where devlink reports the stored firmware: elsewhere nothing is known, not 0. */
        for (size_t i = 0; i < n; i++) {
                if (!nics[i].stored_known || !nics[i].pci)
                        continue;
                if (!any_pending)
                        family(f,
                               "halod_nic_firmware_activation_pending",
                               "gauge",
                               "1 when the fabric NIC's flash holds another firmware than the one running (devlink's stored version), which runs after a reboot or `devlink dev reload ... action fw_activate`; else 0.");
                any_pending = true;
                sample_uint(
                        f,
                        "halod_nic_firmware_activation_pending",
                        (const char *const[]){ "link", nics[i].link, "pci", nics[i].pci, NULL },
                        nics[i].activation_pending);
        }
        return 0;
}

int metrics_render(const MetricsInput *in, char **ret) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f;
        int r = 0;

        if (in->health < 0 || in->health >= _HEALTH_MAX)
                return -EINVAL;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;

        render_node(f, in);
        render_checks(f, in->checks);
        render_peers(f, in->peers);
        r = render_nics(f, in->nics, in->n_nics);
        metrics_render_qos(f, in->qos, in->n_qos);
        metrics_render_gids(f, in->gids, in->n_gids);
        metrics_render_transport(f, in->transport);
        if (ferror(f))
                r = -ENOMEM;
        if (fclose(f) != 0)
                r = -ENOMEM;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}

int metrics_write_textfile(const MetricsInput *in, const char *path) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = metrics_render(in, &text);
        if (r < 0)
                return r;
        return write_file_atomic(path, text, strlen(text), 0644);
}

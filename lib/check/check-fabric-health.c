/* SPDX-License-Identifier: MIT */
/* fabric.<link>.loss, fabric.<link>.congestion, link.<link>.flaps and nic.<link>.errors: rates of the
 * normalised counters between two verifies. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check/check-fabric-health.h"
#include "snapshot/snapshot-qos-host.h"

void fabric_health_history_done(FabricHealthHistory *h) {
        if (!h)
                return;
        for (size_t i = 0; i < h->n; i++)
                free(h->samples[i].ifname);
        h->samples = mfree(h->samples);
        h->n = 0;
}

const FabricHealthSample *fabric_health_history_find(const FabricHealthHistory *h, const char *ifname) {
        for (size_t i = 0; h && ifname && i < h->n; i++)
                if (streq(h->samples[i].ifname, ifname))
                        return &h->samples[i];
        return NULL;
}

int fabric_health_history_copy(const FabricHealthHistory *h, FabricHealthHistory *ret) {
        FabricHealthHistory c = {};

        c.samples = calloc(h->n ?: 1, sizeof(FabricHealthSample));
        if (!c.samples)
                return -ENOMEM;
        for (; c.n < h->n; c.n++) {
                c.samples[c.n] = h->samples[c.n];
                c.samples[c.n].ifname = strdup(h->samples[c.n].ifname);
                if (!c.samples[c.n].ifname) {
                        fabric_health_history_done(&c);
                        return -ENOMEM;
                }
        }
        *ret = c;
        return 0;
}

/* What one port's check sees: this verify's sample, the one before, and how to name the port. */
typedef struct Port {
        const char *link;
        const char *label; /* "rdma0 (eth1)" */
        const SnapshotQosCounters *sc;
        const FabricHealthSample *now, *prev;
        double seconds;
        uint64_t d_packets;
} Port;

static const char *driver_name(const SnapshotQosCounters *sc) {
        return rdma_counter_driver_to_string(sc->hw_driver) ?: "its driver";
}

static bool hw_both(const Port *p, RdmaHwCounter c) {
        return (p->now->hw_known & p->prev->hw_known & (1U << c)) != 0;
}

static bool netdev_both(const Port *p, NetdevCounter c) {
        return (p->now->netdev.known & p->prev->netdev.known & (1U << c)) != 0;
}

/* Whether a counter both samples hold went backwards: the driver was reloaded or the host rebooted. */
static bool counters_restarted(const FabricHealthSample *now, const FabricHealthSample *prev) {
        for (RdmaHwCounter c = 0; c < _RDMA_HW_COUNTER_MAX; c++)
                if ((now->hw_known & prev->hw_known & (1U << c)) && now->hw[c] < prev->hw[c])
                        return true;
        for (NetdevCounter c = 0; c < _NETDEV_COUNTER_MAX; c++)
                if ((now->netdev.known & prev->netdev.known & (1U << c)) &&
                    now->netdev.value[c] < prev->netdev.value[c])
                        return true;
        return (now->packets_known && prev->packets_known && now->packets < prev->packets) ||
                (now->pause_known && prev->pause_known && now->pause < prev->pause);
}

static int
        add(CheckList *out,
            const char *group,
            const Port *p,
            const char *what,
            CheckOutcome o,
            const char *expected,
            const char *actual,
            const char *summary) {
        char id[CHECK_ID_MAX];

        (void) snprintf(id, sizeof(id), "%s.%s.%s", group, p->link, what);
        return check_list_add(out, id, o, expected, actual, "%s", summary);
}

/* Appends "name rate/s (file)" to *buf. */
static int append_rate(char **buf, const char *label, uint64_t delta, double seconds, const char *file) {
        char *n = NULL;

        if (asprintf(&n, "%s%s%s %.3g/s (%s)", *buf ?: "", *buf ? ", " : "", label, delta / seconds, file) < 0)
                return -ENOMEM;
        free(*buf);
        *buf = n;
        return 0;
}

static const RdmaHwCounter loss_counters[] = {
        RDMA_HW_OUT_OF_SEQUENCE,       RDMA_HW_PACKET_SEQ_ERR,    RDMA_HW_IMPLIED_NAK_SEQ_ERR,
        RDMA_HW_LOCAL_ACK_TIMEOUT_ERR, RDMA_HW_DUPLICATE_REQUEST, RDMA_HW_RETRANSMITTED,
};

static CheckOutcome
        ratio_outcome(uint64_t events, uint64_t packets, uint64_t warn_ppb, uint64_t fail_ppb, uint64_t min) {
        /* events / packets ≥ x ppb, without dividing: events × 1e9 ≥ x × packets. */
        if (events == 0)
                return CHECK_PASS;
        if (events >= min && (long double) events * 1e9L >= (long double) fail_ppb * packets)
                return CHECK_FAIL;
        if (events >= min && (long double) events * 1e9L >= (long double) warn_ppb * packets)
                return CHECK_WARN;
        return CHECK_PASS;
}

/* "not counted by irdma: ..." for a family of checks the port's driver has no counter of. */
static int not_counted(CheckList *out, const char *group, const Port *p, const char *what, const char *which) {
        _cleanup_(freep) char *summary = NULL;

        if (p->sc->hw_error != 0 && p->sc->hw_error != -ENOENT)
                return add(
                        out, group, p, what, CHECK_SKIP, NULL, NULL, "no RDMA device on this port: nothing counts it");
        if (asprintf(
                    &summary,
                    "not counted by %s: %s has no %s counter%s",
                    driver_name(p->sc),
                    p->label,
                    which,
                    p->sc->hw_driver == RDMA_COUNTER_DRIVER_IRDMA
                            ? " (an E810, irdma GEN2, counts congestion notification only)"
                            : "") < 0)
                return -ENOMEM;
        return add(out, group, p, what, CHECK_SKIP, NULL, NULL, summary);
}

/* What a set of RDMA families moved between the two samples: whether the driver counts any of them,
 * their sum and their largest, and "label rate/s (file)" for each that moved, in *rates. */
typedef struct Moved {
        bool counted;
        uint64_t sum, largest;
} Moved;

static int hw_moved(const Port *p, const RdmaHwCounter *families, size_t n, char **rates, Moved *ret) {
        Moved m = {};

        for (size_t i = 0; i < n; i++) {
                RdmaHwCounter c = families[i];
                uint64_t d;

                if (!hw_both(p, c))
                        continue;
                m.counted = true;
                d = p->now->hw[c] - p->prev->hw[c];
                m.sum += d;
                if (d > m.largest)
                        m.largest = d;
                if (d > 0 &&
                    append_rate(
                            rates,
                            rdma_hw_counter_label(c),
                            d,
                            p->seconds,
                            rdma_hw_counter_name(c, p->sc->hw_driver)) < 0)
                        return -ENOMEM;
        }
        *ret = m;
        return 0;
}

static int check_loss(const Port *p, CheckList *out) {
        _cleanup_(freep) char *rates = NULL, *summary = NULL, *actual = NULL;
        CheckOutcome o;
        Moved m;

        if (hw_moved(p, loss_counters, ELEMENTSOF(loss_counters), &rates, &m) < 0)
                return -ENOMEM;
        if (!m.counted)
                return not_counted(out, "fabric", p, "loss", "retransmission or sequence error");
        if (asprintf(&actual, "%s; %.3g packets/s", rates ?: "none", p->d_packets / p->seconds) < 0)
                return -ENOMEM;
        if (!rates && p->d_packets < FABRIC_IDLE_PACKETS)
                return add(
                        out,
                        "fabric",
                        p,
                        "loss",
                        CHECK_PASS,
                        "under 1e-5 of the packets",
                        actual,
                        "idle: no retransmissions or sequence errors, and under 1000 packets since the last verify");
        o = ratio_outcome(
                m.largest,
                p->d_packets,
                FABRIC_LOSS_WARN_PPM * 1000ULL,
                FABRIC_LOSS_FAIL_PPM * 1000ULL,
                FABRIC_LOSS_MIN_EVENTS);
        if (asprintf(
                    &summary,
                    "%s on %s: %s, against %.3g packets/s",
                    o == CHECK_PASS ? "no loss" : "packets lost",
                    p->label,
                    rates ?: "no retransmissions or sequence errors",
                    p->d_packets / p->seconds) < 0)
                return -ENOMEM;
        return add(out, "fabric", p, "loss", o, "under 1e-5 of the packets", actual, summary);
}

static const RdmaHwCounter congestion_counters[] = {
        RDMA_HW_NP_ECN_MARKED,
        RDMA_HW_NP_CNP_SENT,
        RDMA_HW_RP_CNP_HANDLED,
};

/* Packets lost while no congestion signal moved: PFC or ECN is not in force on one side. */
static bool loss_without_signal(const Port *p, uint64_t signals) {
        if (signals > 0)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(loss_counters); i++)
                if (hw_both(p, loss_counters[i]) &&
                    p->now->hw[loss_counters[i]] - p->prev->hw[loss_counters[i]] >= FABRIC_LOSS_MIN_EVENTS)
                        return true;
        return false;
}

static int check_congestion(const Port *p, CheckList *out) {
        _cleanup_(freep) char *rates = NULL, *summary = NULL, *actual = NULL;
        uint64_t signals;
        bool counted;
        CheckOutcome o;
        Moved m;

        if (hw_moved(p, congestion_counters, ELEMENTSOF(congestion_counters), &rates, &m) < 0)
                return -ENOMEM;
        counted = m.counted;
        signals = m.sum;
        if (p->now->pause_known && p->prev->pause_known) {
                uint64_t d = p->now->pause - p->prev->pause;

                counted = true;
                signals += d;
                if (d > 0 &&
                    append_rate(&rates, "pause frames", d, p->seconds, "ethtool -S, all priorities") < 0)
                        return -ENOMEM;
        }
        if (!counted)
                return not_counted(
                        out,
                        "fabric",
                        p,
                        "congestion",
                        "CNP or ECN counter, and its netdev's driver no per-priority pause frame");
        if (asprintf(&actual, "%s; %.3g packets/s", rates ?: "none", p->d_packets / p->seconds) < 0)
                return -ENOMEM;
        if (loss_without_signal(p, signals))
                return add(
                        out,
                        "fabric",
                        p,
                        "congestion",
                        CHECK_WARN,
                        "congestion signalled before loss",
                        actual,
                        "packets are lost but no CNP, ECN mark or pause frame moved: PFC or ECN is not in force on one side (or the loss is on the wire: see nic.<link>.errors)");
        if (!rates && p->d_packets < FABRIC_IDLE_PACKETS)
                return add(
                        out,
                        "fabric",
                        p,
                        "congestion",
                        CHECK_PASS,
                        "under 1 % of the packets",
                        actual,
                        "idle: no congestion signal, and under 1000 packets since the last verify");
        o = ratio_outcome(signals, p->d_packets, FABRIC_CONGESTION_WARN_PPM * 1000ULL, UINT64_MAX / 2, 1);
        if (asprintf(
                    &summary,
                    "%s on %s: %s, against %.3g packets/s",
                    o == CHECK_PASS ? "no congestion to speak of" : "congested",
                    p->label,
                    rates ?: "no CNP, ECN mark or pause frame",
                    p->d_packets / p->seconds) < 0)
                return -ENOMEM;
        return add(out, "fabric", p, "congestion", o, "under 1 % of the packets", actual, summary);
}

/* How often the link went down between the two samples: the carrier's downs (carrier_changes counts
 * ups and downs), or the RDMA port's link_downed, whichever counted more. NULL *ret_source: neither is
 * counted. */
static uint64_t flaps_between(const Port *p, const char **ret_source) {
        uint64_t n = 0;

        *ret_source = NULL;
        if (netdev_both(p, NETDEV_CARRIER_DOWN_COUNT)) {
                n = p->now->netdev.value[NETDEV_CARRIER_DOWN_COUNT] -
                        p->prev->netdev.value[NETDEV_CARRIER_DOWN_COUNT];
                *ret_source = "carrier_down_count";
        } else if (netdev_both(p, NETDEV_CARRIER_CHANGES)) {
                n = (p->now->netdev.value[NETDEV_CARRIER_CHANGES] -
                     p->prev->netdev.value[NETDEV_CARRIER_CHANGES] + 1) /
                        2;
                *ret_source = "carrier_changes";
        }
        if (hw_both(p, RDMA_HW_LINK_DOWNED)) {
                uint64_t d = p->now->hw[RDMA_HW_LINK_DOWNED] - p->prev->hw[RDMA_HW_LINK_DOWNED];

                if (d > n || !*ret_source) {
                        n = d;
                        *ret_source = "link_downed";
                }
        }
        return n;
}

static uint64_t flaps_last_hour(const FabricHealthSample *s) {
        uint64_t n = 0;

        for (size_t i = 0; i < s->n_flap_events; i++)
                n += s->flap_n[i];
        return n;
}

static int check_flaps(const Port *p, CheckList *out) {
        _cleanup_(freep) char *summary = NULL, *actual = NULL;
        const char *source;
        uint64_t hour;

        (void) flaps_between(p, &source);
        if (!source)
                return add(
                        out,
                        "link",
                        p,
                        "flaps",
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "not counted: the netdev shows no carrier_changes and the RDMA port no link_downed");
        hour = flaps_last_hour(p->now);
        if (asprintf(&actual, "%" PRIu64 " in the last hour (%s)", hour, source) < 0)
                return -ENOMEM;
        if (asprintf(
                    &summary,
                    "%s went down %" PRIu64 " time%s in the last hour (%s)%s",
                    p->label,
                    hour,
                    hour == 1 ? "" : "s",
                    source,
                    hour >= FABRIC_FLAPS_WARN_PER_HOUR
                            ? ": the link flaps; reseat or replace the cable, and see the peer's journal"
                            : "") < 0)
                return -ENOMEM;
        return add(
                out,
                "link",
                p,
                "flaps",
                hour >= FABRIC_FLAPS_WARN_PER_HOUR ? CHECK_WARN : CHECK_PASS,
                "under 2 per hour",
                actual,
                summary);
}

static const NetdevCounter wire_counters[] = {
        NETDEV_RX_CRC_ERRORS,
        NETDEV_RX_FRAME_ERRORS,
        NETDEV_SYMBOL_ERRORS,
};

static int check_errors(const Port *p, CheckList *out) {
        _cleanup_(freep) char *rates = NULL, *summary = NULL, *actual = NULL;
        uint64_t wire = 0, missed = 0;
        bool counted = false;
        CheckOutcome o;

        for (size_t i = 0; i < ELEMENTSOF(wire_counters); i++) {
                NetdevCounter c = wire_counters[i];
                uint64_t d;

                if (!netdev_both(p, c))
                        continue;
                counted = true;
                d = p->now->netdev.value[c] - p->prev->netdev.value[c];
                wire += d;
                if (d > 0 &&
                    append_rate(&rates, netdev_counter_label(c), d, p->seconds, netdev_counter_to_string(c)) <
                            0)
                        return -ENOMEM;
        }
        if (!counted)
                return add(
                        out,
                        "nic",
                        p,
                        "errors",
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "not counted: the netdev's statistics/rx_crc_errors cannot be read");
        if (netdev_both(p, NETDEV_RX_MISSED_ERRORS)) {
                missed = p->now->netdev.value[NETDEV_RX_MISSED_ERRORS] -
                        p->prev->netdev.value[NETDEV_RX_MISSED_ERRORS];
                if (missed > 0 &&
                    append_rate(&rates, "missed", missed, p->seconds, "statistics/rx_missed_errors") < 0)
                        return -ENOMEM;
        }
        if (asprintf(&actual, "%s; %.3g packets/s", rates ?: "none", p->d_packets / p->seconds) < 0)
                return -ENOMEM;
        if (!rates && p->d_packets < FABRIC_IDLE_PACKETS)
                return add(
                        out,
                        "nic",
                        p,
                        "errors",
                        CHECK_PASS,
                        "under 1e-7 of the frames",
                        actual,
                        "idle: no errors, and under 1000 packets since the last verify");
        o = ratio_outcome(wire, p->d_packets, FABRIC_ERRORS_WARN_PPB, FABRIC_ERRORS_FAIL_PPM * 1000ULL, 1);
        /* One corrupted frame on a quiet link is a rate of nothing: it warns, it does not fail. */
        if (o == CHECK_FAIL && wire < FABRIC_ERRORS_FAIL_MIN)
                o = CHECK_WARN;
        if (o == CHECK_PASS)
                o = ratio_outcome(missed, p->d_packets, FABRIC_MISSED_WARN_PPM * 1000ULL, UINT64_MAX / 2, 1);
        if (asprintf(
                    &summary,
                    "%s on %s: %s, against %.3g packets/s%s",
                    o == CHECK_PASS ? "no errors to speak of" : "errors",
                    p->label,
                    rates ?: "no CRC, frame or symbol errors",
                    p->d_packets / p->seconds,
                    wire > 0 && o != CHECK_PASS
                            ? ": the cable or a transceiver corrupts frames; reseat or replace it"
                            : o != CHECK_PASS
                            ? ": the host drops packets its receive ring has no room for (ethtool -G)"
                            : "") < 0)
                return -ENOMEM;
        return add(out, "nic", p, "errors", o, "under 1e-7 of the frames", actual, summary);
}

static const struct {
        const char *group, *what;
} fabric_health_ids[] = {
        { "fabric", "loss" },
        { "fabric", "congestion" },
        { "link", "flaps" },
        { "nic", "errors" },
};

/* All four checks of the port as skips, with one reason. */
static int skip_all(const Port *p, CheckList *out, const char *reason) {
        for (size_t i = 0; i < ELEMENTSOF(fabric_health_ids); i++) {
                int r = add(
                        out, fabric_health_ids[i].group, p, fabric_health_ids[i].what, CHECK_SKIP, NULL, NULL, reason);

                if (r < 0)
                        return r;
        }
        return 0;
}

/* This verify's sample of the port, with the flap events of the last hour carried over. */
static int sample_make(
        const char *ifname,
        const SnapshotQosCounters *sc,
        const FabricHealthSample *prev,
        FabricHealthSample *ret) {
        FabricHealthSample s = { .when = sc->when, .hw_known = sc->hw_known, .netdev = sc->netdev };

        s.ifname = strdup(ifname);
        if (!s.ifname)
                return -ENOMEM;
        s.packets_known = sc->packets_error == 0;
        s.packets = sc->packets;
        memcpy(s.hw, sc->hw, sizeof(s.hw));
        if (sc->netdev_error < 0)
                s.netdev.known = 0;
        s.pause_known = sc->pause_error == 0 && sc->pause.known != 0;
        s.pause = s.pause_known ? pause_counters_total(&sc->pause) : 0;
        for (size_t i = 0; prev && i < prev->n_flap_events; i++)
                if (sc->when < prev->flap_at[i] + USEC_PER_HOUR &&
                    s.n_flap_events < FABRIC_FLAP_EVENTS_MAX - 1) {
                        s.flap_at[s.n_flap_events] = prev->flap_at[i];
                        s.flap_n[s.n_flap_events++] = prev->flap_n[i];
                }
        *ret = s;
        return 0;
}

static int history_add(FabricHealthHistory *h, FabricHealthSample *s) {
        FabricHealthSample *a = reallocarray(h->samples, h->n + 1, sizeof(FabricHealthSample));

        if (!a) {
                free(s->ifname);
                return -ENOMEM;
        }
        h->samples = a;
        h->samples[h->n++] = *s;
        return 0;
}

static int judge_port(Port *p, CheckList *out) {
        int r;

        r = check_loss(p, out);
        if (r >= 0)
                r = check_congestion(p, out);
        if (r >= 0)
                r = check_flaps(p, out);
        if (r >= 0)
                r = check_errors(p, out);
        return r;
}

/* Why the port's rates cannot be judged yet ("measuring: ..."), in *ret; NULL when they can. */
static int unjudged(const Port *p, const FabricHealthSample *now, char **ret) {
        *ret = NULL;
        if (!now->packets_known)
                return asprintf(
                               ret,
                               "the packet counters of %s cannot be read (/sys/class/net/%s/statistics): nothing to judge the rates against",
                               p->label,
                               now->ifname) < 0
                        ? -ENOMEM
                        : 0;
        if (!p->prev || now->when <= p->prev->when || !p->prev->packets_known)
                return asprintf(
                               ret,
                               "measuring: first sample of %s; rates are judged from the next verify on",
                               p->label) < 0
                        ? -ENOMEM
                        : 0;
        if (counters_restarted(now, p->prev))
                return asprintf(
                               ret,
                               "measuring: the counters of %s started again (a driver reload or a reboot); rates are judged from the next verify on",
                               p->label) < 0
                        ? -ENOMEM
                        : 0;
        return 0;
}

static int check_port(Port *p, const char *ifname, FabricHealthHistory *after, CheckList *out) {
        _cleanup_(freep) char *reason = NULL;
        FabricHealthSample now;
        const char *source;
        int r;

        r = sample_make(ifname, p->sc, p->prev, &now);
        if (r < 0)
                return r;
        p->now = &now;
        r = unjudged(p, &now, &reason);
        if (r >= 0 && reason)
                r = skip_all(p, out, reason);
        else if (r >= 0) {
                uint64_t flaps;

                p->seconds = (double) (now.when - p->prev->when) / USEC_PER_SEC;
                p->d_packets = now.packets - p->prev->packets;
                flaps = flaps_between(p, &source);
                if (flaps > 0) {
                        now.flap_at[now.n_flap_events] = now.when;
                        now.flap_n[now.n_flap_events++] = flaps;
                }
                r = judge_port(p, out);
        }
        if (r < 0) {
                free(now.ifname);
                return r;
        }
        return history_add(after, &now);
}

int check_fabric_health(
        const NodeContext *c,
        const Snapshot *s,
        const FabricHealthHistory *before,
        FabricHealthHistory *after,
        CheckList *out) {
        int r;

        if (!c->profile || !c->node)
                return 0; /* the profile check already says why */
        for (size_t i = 0; i < c->node->n_links && i < s->n_ports; i++) {
                const FabricPort *port = &s->ports[i];
                _cleanup_(freep) char *label = NULL;
                Port p = { .link = c->node->links[i].link };

                if (port->ifname && asprintf(&label, "%s (%s)", p.link, port->ifname) < 0)
                        return -ENOMEM;
                p.label = label ?: p.link;
                if (!port->ifname)
                        r = skip_all(&p, out, "the link has no interface: link.<link>.present says why");
                else if (!s->qos_counters)
                        r = skip_all(&p, out, "the counters were not read");
                else {
                        p.sc = &s->qos_counters[i];
                        p.prev = fabric_health_history_find(before, port->ifname);
                        r = check_port(&p, port->ifname, after, out);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* qos.<link>.ecn, qos.<link>.tos and qos.<link>.pause: what the host itself holds of a lossless RoCE
 * class (the switches in sysfs and configfs, and the pause counters), against the link's qos:. */
#include <inttypes.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-qos-host.h"

static const char *const qos_host_checks[] = { "ecn", "tos", "pause" };

static const char *on_off(bool on) {
        return on ? "on" : "off";
}

int check_qos_ecn_evaluate(
        const char *link, const char *label, const ProfileQos *q, const SnapshotQosHost *sq, CheckList *out) {
        _cleanup_(strv_freep) char **expected = NULL, **actual = NULL, **off = NULL;
        _cleanup_(freep) char *e = NULL, *a = NULL, *o = NULL;
        uint8_t wanted = roce_ecn_wanted_priorities(q);
        bool on = q->ecn > 0;

        if (!q->present)
                return check_list_skip_qos(out, link, "ecn", "the profile sets no qos: for %s", link);
        if (q->ecn < 0)
                return check_list_skip_qos(out, link, "ecn", "the qos: of %s sets no ecn", link);
        if (!sq || sq->ecn_error == -ENOMEDIUM)
                return check_list_skip_qos(out, link, "ecn", "%s has no netdev to look at", label);
        if (sq->ecn_error == -ENOENT)
                return check_list_skip_qos(
                        out,
                        link,
                        "ecn",
                        "%s has no ECN switches in sysfs (ecn/roce_np, ecn/roce_rp): only the ConnectX "
                        "driver of NVIDIA's MLNX_OFED/DOCA-OFED has them; with the in-tree mlx5 or an "
                        "E810, ECN is the firmware's and the RDMA driver's setting, which halod cannot read",
                        label);
        if (sq->ecn_error < 0)
                return check_list_skip_qos(
                        out,
                        link,
                        "ecn",
                        "could not look: cannot read the ECN switches of %s: %s",
                        label,
                        strerror(-sq->ecn_error));
        if (wanted == 0)
                return check_list_skip_qos(
                        out,
                        link,
                        "ecn",
                        "the qos: of %s gives PFC to no priority (pfc: []), so ECN is asked for none",
                        link);

        for (unsigned p = 0; p < QOS_PRIORITIES; p++) {
                bool np = sq->ecn.on[ROCE_ECN_NP] & (1U << p), rp = sq->ecn.on[ROCE_ECN_RP] & (1U << p);

                if (!(wanted & (1U << p)))
                        continue;
                if (strv_extendf(&expected, "%u: %s/%s", p, on_off(on), on_off(on)) < 0 ||
                    strv_extendf(&actual, "%u: %s/%s", p, on_off(np), on_off(rp)) < 0)
                        return -ENOMEM;
                if (np != on && rp != on && strv_extendf(&off, "priority %u", p) < 0)
                        return -ENOMEM;
                if (np != on && rp == on && strv_extendf(&off, "priority %u (notification point)", p) < 0)
                        return -ENOMEM;
                if (np == on && rp != on && strv_extendf(&off, "priority %u (reaction point)", p) < 0)
                        return -ENOMEM;
        }
        e = strv_join(expected, ", ");
        a = strv_join(actual, ", ");
        if (!e || !a)
                return -ENOMEM;
        if (!off)
                return check_list_add_qos(
                        out,
                        link,
                        "ecn",
                        CHECK_PASS,
                        e,
                        a,
                        "ECN is %s on %s for the priorities asked (notification and reaction point): %s",
                        on_off(on),
                        label,
                        e);
        o = strv_join(off, ", ");
        if (!o)
                return -ENOMEM;
        return check_list_add_qos(
                out,
                link,
                "ecn",
                CHECK_FAIL,
                e,
                a,
                "ECN is %s on %s for %s, the profile wants it %s; haloctl apply sets it",
                on_off(!on),
                label,
                o,
                on_off(on));
}

int check_qos_tos_evaluate(
        const char *link, const char *label, const ProfileQos *q, const SnapshotQosHost *sq, CheckList *out) {
        char want[16], have[16];

        if (!q->present)
                return check_list_skip_qos(out, link, "tos", "the profile sets no qos: for %s", link);
        if (q->roce_tos < 0)
                return check_list_skip_qos(out, link, "tos", "the qos: of %s sets no roce-tos", link);
        (void) snprintf(want, sizeof(want), "%d", q->roce_tos);
        if (!sq || (sq->rdma_error == -ENOMEDIUM && !sq->rdma_device))
                return check_list_add_qos(
                        out, link, "tos", CHECK_SKIP, want, "", "%s has no netdev to look at", label);
        if (sq->rdma_error == -ENODEV)
                return check_list_add_qos(
                        out,
                        link,
                        "tos",
                        CHECK_SKIP,
                        want,
                        "",
                        "%s has no RDMA device (/sys/class/infiniband), so no RoCE ToS to look at; "
                        "rdma.device says why",
                        label);
        if (sq->rdma_error < 0)
                return check_list_add_qos(
                        out,
                        link,
                        "tos",
                        CHECK_SKIP,
                        want,
                        "",
                        "could not look: cannot find the RDMA device of %s: %s",
                        label,
                        strerror(-sq->rdma_error));
        if (sq->cm_error < 0)
                return check_list_add_qos(
                        out,
                        link,
                        "tos",
                        CHECK_SKIP,
                        want,
                        "",
                        "could not look: cannot read rdma_cm's configfs for %s port %u: %s",
                        sq->rdma_device,
                        sq->rdma_port,
                        strerror(-sq->cm_error));
        switch (sq->cm.state) {
        case RDMA_CM_NO_CONFIGFS:
                return check_list_add_qos(
                        out,
                        link,
                        "tos",
                        CHECK_SKIP,
                        want,
                        "",
                        "cannot see the default RoCE ToS of %s: " RDMA_CM_CONFIGFS_DIR
                        " is not there; mount configfs (mount -t configfs none /sys/kernel/config) and "
                        "load rdma_cm (modprobe rdma_ucm), then halod creates the device's directory in "
                        "enforce mode",
                        sq->rdma_device);
        case RDMA_CM_NO_DEVICE_DIR:
                return check_list_add_qos(
                        out,
                        link,
                        "tos",
                        CHECK_WARN,
                        want,
                        "",
                        "cannot see the default RoCE ToS of %s port %u: rdma_cm's configfs has no "
                        "directory for it; haloctl apply (or halod in enforce mode) creates it and sets "
                        "%d, or by hand: mkdir " RDMA_CM_CONFIGFS_DIR
                        "/%s && echo %d > " RDMA_CM_CONFIGFS_DIR "/%s/ports/%u/default_roce_tos",
                        sq->rdma_device,
                        sq->rdma_port,
                        q->roce_tos,
                        sq->rdma_device,
                        q->roce_tos,
                        sq->rdma_device,
                        sq->rdma_port);
        default:
                break;
        }
        (void) snprintf(have, sizeof(have), "%u", sq->cm.tos);
        if (sq->cm.tos == (unsigned) q->roce_tos)
                return check_list_add_qos(
                        out,
                        link,
                        "tos",
                        CHECK_PASS,
                        want,
                        have,
                        "rdma_cm's default RoCE ToS of %s port %u is %u (DSCP %u)",
                        sq->rdma_device,
                        sq->rdma_port,
                        sq->cm.tos,
                        sq->cm.tos >> 2);
        return check_list_add_qos(
                out,
                link,
                "tos",
                CHECK_FAIL,
                want,
                have,
                "rdma_cm's default RoCE ToS of %s port %u is %u (DSCP %u), the profile wants %d (DSCP %d): "
                "rdma_cm's connections leave in another class than the lossless one; haloctl apply sets it",
                sq->rdma_device,
                sq->rdma_port,
                sq->cm.tos,
                sq->cm.tos >> 2,
                q->roce_tos,
                q->roce_tos >> 2);
}

int check_qos_pause_evaluate(
        const char *link,
        const char *label,
        const char *ifname,
        const ProfileQos *q,
        const SnapshotQosCounters *sc,
        bool history_kept,
        const PauseSample *prev,
        CheckList *out) {
        uint64_t pause, d_pause, d_packets;
        char actual[96];

        if (!q->present)
                return check_list_skip_qos(out, link, "pause", "the profile sets no qos: for %s", link);
        if (!sc || !ifname)
                return check_list_skip_qos(out, link, "pause", "%s has no netdev to look at", label);
        if (sc->pause_error == -ENOMEDIUM)
                return check_list_skip_qos(
                        out,
                        link,
                        "pause",
                        "pause counters are not read under --root (ethtool answers for the running "
                        "system only)");
        if (sc->pause_error < 0 || sc->packets_error < 0)
                return check_list_skip_qos(
                        out,
                        link,
                        "pause",
                        "could not look: cannot read the %s counters of %s: %s",
                        sc->pause_error < 0 ? "ethtool" : "packet",
                        label,
                        strerror(-(sc->pause_error < 0 ? sc->pause_error : sc->packets_error)));
        if (sc->pause.known == 0)
                return check_list_skip_qos(
                        out,
                        link,
                        "pause",
                        "the driver of %s counts no per-priority pause frames (ethtool -S %s)",
                        label,
                        ifname);
        pause = pause_counters_total(&sc->pause);
        if (!history_kept)
                return check_list_skip_qos(
                        out,
                        link,
                        "pause",
                        "a pause storm shows between two samples: halod compares each verify with the one "
                        "before, haloctl check takes one (%" PRIu64 " pause frames on %s so far)",
                        pause,
                        label);
        if (!prev)
                return check_list_skip_qos(
                        out,
                        link,
                        "pause",
                        "first sample of %s (%" PRIu64 " pause frames so far): judged from the next verify on",
                        label,
                        pause);
        if (pause < prev->pause || sc->packets < prev->packets)
                return check_list_skip_qos(
                        out,
                        link,
                        "pause",
                        "the counters of %s went back since the last verify (driver reloaded?): judged "
                        "from the next verify on",
                        label);
        d_pause = pause - prev->pause;
        d_packets = sc->packets - prev->packets;
        (void) snprintf(
                actual,
                sizeof(actual),
                "+%" PRIu64 " pause frames, +%" PRIu64 " packets in %" PRIu64 " s",
                d_pause,
                d_packets,
                (sc->when - prev->when) / USEC_PER_SEC);
        if (d_pause >= QOS_PAUSE_STORM_MIN && d_pause > d_packets)
                return check_list_add_qos(
                        out,
                        link,
                        "pause",
                        CHECK_WARN,
                        "",
                        actual,
                        "pause storm on %s: %s since the last verify, more pause frames than traffic; "
                        "a receiver that does not drain (a stuck host or switch port) is holding the "
                        "lossless class: look at ethtool -S %s | grep -E 'prio|priority'",
                        label,
                        actual,
                        ifname);
        return check_list_add_qos(
                out,
                link,
                "pause",
                CHECK_PASS,
                "",
                actual,
                "no pause storm on %s: %s since the last verify",
                label,
                actual);
}

int check_qos_host(const NodeContext *c, Snapshot *s, CheckList *out) {
        _cleanup_(snapshot_done) Snapshot own = {};
        SnapshotPart parts = SNAPSHOT_QOS_HOST;
        int r;

        if (!c->profile || !c->node)
                return 0; /* the profile check already says why */
        s = snapshot_or_own(s, &own, c);
        /* The counters (the driver's statistics, the RDMA hw_counters) only when some link asks for
         * qos: every verify of a profile without it, on drift too, would read them for nothing. */
        for (size_t i = 0; i < c->node->n_links; i++) {
                const ProfileLink *pl = profile_find_link(c->profile, c->node->links[i].link);

                if (pl && pl->qos.present)
                        parts |= SNAPSHOT_QOS_COUNTERS;
        }
        r = snapshot_read(s, parts);
        if (r < 0)
                return r;

        for (size_t i = 0; i < c->node->n_links && i < s->n_ports; i++) {
                const NodeLink *nl = &c->node->links[i];
                const ProfileLink *pl = profile_find_link(c->profile, nl->link);
                const FabricPort *port = &s->ports[i];
                const SnapshotQosCounters *sc = s->qos_counters ? &s->qos_counters[i] : NULL;
                _cleanup_(freep) char *label = NULL;

                if (!pl) {
                        for (size_t k = 0; k < ELEMENTSOF(qos_host_checks); k++) {
                                r = check_list_skip_qos(
                                        out,
                                        nl->link,
                                        qos_host_checks[k],
                                        "the profile's links: section lacks %s",
                                        nl->link);
                                if (r < 0)
                                        return r;
                        }
                        continue;
                }
                if (!port->ifname)
                        label = strdup(nl->link);
                else if (asprintf(&label, "%s (%s)", nl->link, port->ifname) < 0)
                        label = NULL;
                if (!label)
                        return -ENOMEM;

                r = check_qos_ecn_evaluate(nl->link, label, &pl->qos, &s->qos_host[i], out);
                if (r >= 0)
                        r = check_qos_tos_evaluate(nl->link, label, &pl->qos, &s->qos_host[i], out);
                if (r >= 0)
                        r = check_qos_pause_evaluate(
                                nl->link,
                                label,
                                port->ifname,
                                &pl->qos,
                                sc,
                                s->pause_history,
                                pause_history_find(s->pause_history, port->ifname),
                                out);
                if (r < 0)
                        return r;
                /* The sample the next verify compares with. */
                if (s->pause_history && port->ifname && sc && sc->pause_error >= 0 &&
                    sc->packets_error >= 0 && sc->pause.known != 0) {
                        r = pause_history_put(
                                s->pause_history,
                                port->ifname,
                                sc->when,
                                pause_counters_total(&sc->pause),
                                sc->packets);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

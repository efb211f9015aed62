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

/* Why qos.<link>.ecn cannot be judged (a skip), in *ret_reason; NULL when it can. */
static int ecn_unjudged(
        const char *link, const char *label, const ProfileQos *q, const SnapshotQosHost *sq, char **ret_reason) {
        int r = 0;

        *ret_reason = NULL;
        if (!q->present)
                r = asprintf(ret_reason, "the profile sets no qos: for %s", link);
        else if (q->ecn < 0)
                r = asprintf(ret_reason, "the qos: of %s sets no ecn", link);
        else if (!sq || sq->ecn_error == -ENOMEDIUM)
                r = asprintf(ret_reason, "%s has no netdev to look at", label);
        else if (sq->ecn_error == -ENOENT)
                r = asprintf(
                        ret_reason,
                        "%s has no ECN switches in sysfs (ecn/roce_np, ecn/roce_rp): only the ConnectX "
                        "driver of NVIDIA's MLNX_OFED/DOCA-OFED has them; with the in-tree mlx5 or an "
                        "E810, ECN is the firmware's and the RDMA driver's setting, which halod cannot read",
                        label);
        else if (sq->ecn_error < 0)
                r = asprintf(
                        ret_reason,
                        "could not look: cannot read the ECN switches of %s: %s",
                        label,
                        strerror(-sq->ecn_error));
        else if (roce_ecn_wanted_priorities(q) == 0)
                r = asprintf(
                        ret_reason,
                        "the qos: of %s gives PFC to no priority (pfc: []), so ECN is asked for none",
                        link);
        return r < 0 ? -ENOMEM : 0;
}

int check_qos_ecn_evaluate(
        const char *link, const char *label, const ProfileQos *q, const SnapshotQosHost *sq, CheckList *out) {
        _cleanup_(strv_freep) char **expected = NULL, **actual = NULL, **off = NULL;
        _cleanup_(freep) char *e = NULL, *a = NULL, *o = NULL, *why = NULL;
        uint8_t wanted = roce_ecn_wanted_priorities(q);
        bool on = q->ecn > 0;

        if (ecn_unjudged(link, label, q, sq, &why) < 0)
                return -ENOMEM;
        if (why)
                return check_list_skip_qos(out, link, "ecn", "%s", why);

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

/* Why rdma_cm's default ToS of the link cannot be seen, in *ret_reason with the outcome (a skip, or a
 * warning where halod can make it visible); NULL when it can be seen. */
static int tos_unseen(
        const char *label,
        const ProfileQos *q,
        const SnapshotQosHost *sq,
        CheckOutcome *ret_outcome,
        char **ret_reason) {
        int r = 0;

        *ret_outcome = CHECK_SKIP;
        *ret_reason = NULL;
        if (!sq || (sq->rdma_error == -ENOMEDIUM && !sq->rdma_device))
                r = asprintf(ret_reason, "%s has no netdev to look at", label);
        else if (sq->rdma_error == -ENODEV)
                r = asprintf(
                        ret_reason,
                        "%s has no RDMA device (/sys/class/infiniband), so no RoCE ToS to look at; "
                        "rdma.device says why",
                        label);
        else if (sq->rdma_error < 0)
                r = asprintf(
                        ret_reason,
                        "could not look: cannot find the RDMA device of %s: %s",
                        label,
                        strerror(-sq->rdma_error));
        else if (sq->cm_error < 0)
                r = asprintf(
                        ret_reason,
                        "could not look: cannot read rdma_cm's configfs for %s port %u: %s",
                        sq->rdma_device,
                        sq->rdma_port,
                        strerror(-sq->cm_error));
        else if (sq->cm.state == RDMA_CM_NO_CONFIGFS)
                r = asprintf(
                        ret_reason,
                        "cannot see the default RoCE ToS of %s: " RDMA_CM_CONFIGFS_DIR
                        " is not there; mount configfs (mount -t configfs none /sys/kernel/config) and "
                        "load rdma_cm (modprobe rdma_ucm), then halod creates the device's directory in "
                        "enforce mode",
                        sq->rdma_device);
        else if (sq->cm.state == RDMA_CM_NO_DEVICE_DIR) {
                *ret_outcome = CHECK_WARN;
                r = asprintf(
                        ret_reason,
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
        }
        return r < 0 ? -ENOMEM : 0;
}

int check_qos_tos_evaluate(
        const char *link, const char *label, const ProfileQos *q, const SnapshotQosHost *sq, CheckList *out) {
        _cleanup_(freep) char *why = NULL;
        char want[16], have[16];
        CheckOutcome outcome;

        if (!q->present)
                return check_list_skip_qos(out, link, "tos", "the profile sets no qos: for %s", link);
        if (q->roce_tos < 0)
                return check_list_skip_qos(out, link, "tos", "the qos: of %s sets no roce-tos", link);
        (void) snprintf(want, sizeof(want), "%d", q->roce_tos);
        if (tos_unseen(label, q, sq, &outcome, &why) < 0)
                return -ENOMEM;
        if (why) /* what the profile wants, beside why it cannot be seen */
                return check_list_add_qos(out, link, "tos", outcome, want, "", "%s", why);

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

/* Why qos.<link>.pause cannot be judged from this sample (a skip), in *ret_reason; NULL when it can. */
static int pause_unjudged(
        const char *link,
        const char *label,
        const char *ifname,
        const ProfileQos *q,
        const SnapshotQosCounters *sc,
        bool history_kept,
        const PauseSample *prev,
        char **ret_reason) {
        uint64_t pause;
        int r = 0;

        *ret_reason = NULL;
        if (!q->present)
                return asprintf(ret_reason, "the profile sets no qos: for %s", link) < 0 ? -ENOMEM : 0;
        if (!sc || !ifname)
                return asprintf(ret_reason, "%s has no netdev to look at", label) < 0 ? -ENOMEM : 0;
        if (sc->pause_error == -ENOMEDIUM)
                return (*ret_reason = strdup("pause counters are not read under --root (ethtool answers for the "
                                             "running system only)"))
                        ? 0
                        : -ENOMEM;
        if (sc->pause_error < 0 || sc->packets_error < 0)
                r = asprintf(
                        ret_reason,
                        "could not look: cannot read the %s counters of %s: %s",
                        sc->pause_error < 0 ? "ethtool" : "packet",
                        label,
                        strerror(-(sc->pause_error < 0 ? sc->pause_error : sc->packets_error)));
        else if (sc->pause.known == 0)
                r = asprintf(
                        ret_reason,
                        "the driver of %s counts no per-priority pause frames (ethtool -S %s)",
                        label,
                        ifname);
        else if (!history_kept)
                r = asprintf(
                        ret_reason,
                        "a pause storm shows between two samples: halod compares each verify with the one "
                        "before, haloctl check takes one (%" PRIu64 " pause frames on %s so far)",
                        pause_counters_total(&sc->pause),
                        label);
        else if (!prev)
                r = asprintf(
                        ret_reason,
                        "first sample of %s (%" PRIu64 " pause frames so far): judged from the next verify on",
                        label,
                        pause_counters_total(&sc->pause));
        else if ((pause = pause_counters_total(&sc->pause)) < prev->pause || sc->packets < prev->packets)
                r = asprintf(
                        ret_reason,
                        "the counters of %s went back since the last verify (driver reloaded?): judged "
                        "from the next verify on",
                        label);
        return r < 0 ? -ENOMEM : 0;
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
        _cleanup_(freep) char *why = NULL;
        uint64_t d_pause, d_packets;
        char actual[96];

        if (pause_unjudged(link, label, ifname, q, sc, history_kept, prev, &why) < 0)
                return -ENOMEM;
        if (why)
                return check_list_skip_qos(out, link, "pause", "%s", why);

        d_pause = pause_counters_total(&sc->pause) - prev->pause;
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

int check_qos_host(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        int r;

        if (!c->profile || !c->node)
                return 0; /* the profile check already says why */
        /* The counters (the driver's statistics, the RDMA hw_counters) are read only when some link asks
         * for qos: (check_registry_parts()); without them qos.<link>.pause says it could not look. */
        if (!snapshot_has(s, SNAPSHOT_QOS_HOST))
                return 0; /* not selected: its caller did not read it */

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
                                before != NULL,
                                before ? pause_history_find(&before->pause, port->ifname) : NULL,
                                out);
                if (r < 0)
                        return r;
                /* The sample the next verify compares with. */
                if (after && port->ifname && sc && sc->pause_error >= 0 && sc->packets_error >= 0 &&
                    sc->pause.known != 0) {
                        r = pause_history_put(
                                &after->pause,
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

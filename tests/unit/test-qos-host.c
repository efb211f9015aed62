/* SPDX-License-Identifier: MIT */
/* The host's qos part: the ECN sysfs of MLNX_OFED's ConnectX driver and rdma_cm's configfs in
 * temporary host trees (read, planned, checked, applied, and rolled back when a write fails), the RDMA
 * device of a netdev and its hw_counters, the pause counters among ethtool's statistics, and the
 * pause storm check against a sample kept from the verify before. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply/apply-qos-host.h"
#include "basic/fileio.h"
#include "basic/strv.h"
#include "check/check-qos-host.h"
#include "plan/qos-plan-host.h"
#include "rdma/rdma-sysfs.h"
#include "tests.h"

static char root[] = "/tmp/halod-test-qos-XXXXXX";

static void put(const char *path, const char *value) {
        _cleanup_(freep) char *p = NULL, *dir = NULL;

        ASSERT_TRUE(asprintf(&p, "%s%s", root, path) > 0);
        dir = strdup(p);
        ASSERT_TRUE(dir);
        *strrchr(dir, '/') = '\0';
        {
                _cleanup_(freep) char *cmd = NULL;

                ASSERT_TRUE(asprintf(&cmd, "mkdir -p '%s'", dir) > 0);
                ASSERT_INT_EQ(system(cmd), 0);
        }
        if (value)
                ASSERT_OK(write_file_atomic(p, value, strlen(value), 0644));
}

static void put_link(const char *path, const char *target) {
        _cleanup_(freep) char *p = NULL;

        put(path, NULL);
        ASSERT_TRUE(asprintf(&p, "%s%s", root, path) > 0);
        ASSERT_INT_EQ(symlink(target, p), 0);
}

static char *get(const char *path) {
        _cleanup_(freep) char *p = NULL;
        char *s = NULL;

        ASSERT_TRUE(asprintf(&p, "%s%s", root, path) > 0);
        ASSERT_OK(read_full_file(p, 4096, &s, NULL));
        return s;
}

/* A ConnectX port with MLNX_OFED's ECN switches: every priority on except 3 (np off) and 5 (both
 * off); its RDMA device mlx5_0 with rdma_cm's directory, ToS 0. */
static void make_tree(void) {
        static const char *ecn = "/sys/class/net/enp1s0f0np0/ecn/";

        for (unsigned p = 0; p < 8; p++) {
                char path[256];

                (void) snprintf(path, sizeof(path), "%sroce_np/enable/%u", ecn, p);
                put(path, p == 3 || p == 5 ? "0\n" : "1\n");
                (void) snprintf(path, sizeof(path), "%sroce_rp/enable/%u", ecn, p);
                put(path, p == 5 ? "0\n" : "1\n");
        }
        put_link("/sys/class/net/enp1s0f0np0/device", "../../../0000:01:00.0");
        put("/sys/class/net/enp1s0f0np0/statistics/rx_packets", "1000\n");
        put("/sys/class/net/enp1s0f0np0/statistics/tx_packets", "2000\n");
        put_link("/sys/class/infiniband/mlx5_0/device", "../../../0000:01:00.0");
        put("/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "enp1s0f0np0\n");
        put("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", "42\n");
        put("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence", "7\n");
        put("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "0\n");
        put("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode", "RoCE v2\n");
}

static ProfileQos qos_asked(void) {
        ProfileQos q;

        profile_qos_init(&q);
        q.present = true;
        q.has_pfc = true;
        q.pfc = 1U << 3 | 1U << 5;
        q.ecn = 1;
        q.roce_tos = 106;
        return q;
}

static void read_port(const Host *h, const ProfileQos *q, SnapshotQosHost *ret) {
        *ret = (SnapshotQosHost){ .ecn_error = -ENOMEDIUM, .rdma_error = -ENOMEDIUM, .cm_error = -ENOMEDIUM };
        if (q->ecn >= 0)
                ret->ecn_error = roce_ecn_read(h, "enp1s0f0np0", &ret->ecn);
        if (q->roce_tos >= 0) {
                ret->rdma_error = rdma_sysfs_find_device(
                        h, "0000:01:00.0", "enp1s0f0np0", &ret->rdma_device, &ret->rdma_port);
                if (ret->rdma_error >= 0)
                        ret->cm_error = rdma_cm_read(h, ret->rdma_device, ret->rdma_port, &ret->cm);
        }
}

static void port_done(SnapshotQosHost *sq) {
        free(sq->rdma_device);
        rdma_cm_port_done(&sq->cm);
}

static void test_readers(const Host *h) {
        _cleanup_(freep) char *device = NULL;
        RdmaCmPort cm = {};
        RoceEcn e;
        unsigned port;
        uint64_t v;

        ASSERT_OK(roce_ecn_read(h, "enp1s0f0np0", &e));
        ASSERT_INT_EQ(e.on[ROCE_ECN_NP], 0xff & ~(1U << 3 | 1U << 5));
        ASSERT_INT_EQ(e.on[ROCE_ECN_RP], 0xff & ~(1U << 5));
        /* An E810 (or the in-tree mlx5): no ecn directory at all. */
        ASSERT_INT_EQ(roce_ecn_read(h, "ens1f0", &e), -ENOENT);

        ASSERT_OK(rdma_sysfs_find_device(h, NULL, "enp1s0f0np0", &device, &port));
        ASSERT_STR_EQ(device, "mlx5_0");
        ASSERT_INT_EQ(port, 1);
        device = mfree(device);
        /* By PCI function when no GID entry names the netdev (it has no address yet). */
        ASSERT_OK(rdma_sysfs_find_device(h, "0000:01:00.0", "enp1s0f0np1", &device, &port));
        ASSERT_STR_EQ(device, "mlx5_0");
        ASSERT_INT_EQ(rdma_sysfs_find_device(h, "0000:02:00.0", "ens1f0", &device, &port), -ENODEV);
        ASSERT_OK(rdma_sysfs_read_hw_counter(h, "mlx5_0", 1, "np_cnp_sent", &v));
        ASSERT_INT_EQ(v, 42);
        ASSERT_INT_EQ(rdma_sysfs_read_hw_counter(h, "mlx5_0", 1, "rp_cnp_handled", &v), -ENOENT);
        ASSERT_INT_EQ(rdma_sysfs_read_hw_counter(h, "../x", 1, "np_cnp_sent", &v), -EINVAL);

        ASSERT_OK(rdma_cm_read(h, "mlx5_0", 1, &cm));
        ASSERT_INT_EQ(cm.state, RDMA_CM_READY);
        ASSERT_INT_EQ(cm.tos, 0);
        ASSERT_STR_EQ(cm.mode, "RoCE v2");
        rdma_cm_port_done(&cm);
        ASSERT_OK(rdma_cm_read(h, "mlx5_1", 1, &cm));
        ASSERT_INT_EQ(cm.state, RDMA_CM_NO_DEVICE_DIR);
        ASSERT_OK(rdma_cm_read(&(Host){ .root = "/nonexistent-halod-root" }, "mlx5_0", 1, &cm));
        ASSERT_INT_EQ(cm.state, RDMA_CM_NO_CONFIGFS);
        ASSERT_INT_EQ(rdma_cm_read(h, "..", 1, &cm), -EINVAL);
}

/* An E810's irdma0 as irdma (GEN2) fills ports/1/hw_counters: its irdma_hw_stat_names, some of each
 * kind (IP, TCP for iWARP, UDP, RDMA ops) and all of its congestion notification counters. The
 * families read them under mlx5's series; what irdma does not count on GEN2 stays unknown. */
static void test_irdma_hw_counters(const Host *h) {
        static const struct {
                const char *name;
                const char *value;
        } files[] = {
                { "ip4InOctets", "123456789\n" }, { "ip4InPkts", "98765\n" }, { "ip4InDiscards", "0\n" },
                { "tcpRetransSegs", "0\n" },      { "tcpInSegs", "0\n" },     { "rxVlanErrors", "0\n" },
                { "iwInRdmaWrites", "77\n" },     { "RxUDP", "98000\n" },     { "TxUDP", "97000\n" },
                { "cnpHandled", "11\n" },         { "cnpIgnored", "1\n" },    { "cnpSent", "13\n" },
                { "RxECNMrkd", "17\n" },
        };
        static const struct {
                RdmaHwCounter c;
                int r;
                uint64_t v;
        } want[] = {
                { RDMA_HW_NP_ECN_MARKED, 0, 17 },
                { RDMA_HW_NP_CNP_SENT, 0, 13 },
                { RDMA_HW_RP_CNP_HANDLED, 0, 11 },
                { RDMA_HW_RP_CNP_IGNORED, 0, 1 },
                { RDMA_HW_OUT_OF_SEQUENCE, -ENOENT, 0 },
                { RDMA_HW_PACKET_SEQ_ERR, -ENOENT, 0 },
                { RDMA_HW_IMPLIED_NAK_SEQ_ERR, -ENOENT, 0 },
                { RDMA_HW_LOCAL_ACK_TIMEOUT_ERR, -ENOENT, 0 },
                { RDMA_HW_DUPLICATE_REQUEST, -ENOENT, 0 },
                { RDMA_HW_RNR_NAK_RETRY_ERR, -ENOENT, 0 },
        };
        uint64_t v;

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_(freep) char *path = NULL;

                ASSERT_TRUE(
                        asprintf(&path, "/sys/class/infiniband/irdma0/ports/1/hw_counters/%s", files[i].name) >
                        0);
                put(path, files[i].value);
        }
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                v = 0;
                ASSERT_INT_EQ(rdma_sysfs_read_hw_family(h, "irdma0", 1, want[i].c, &v), want[i].r);
                ASSERT_INT_EQ(v, want[i].v);
        }
        /* mlx5's names still read mlx5's files. */
        ASSERT_OK(rdma_sysfs_read_hw_family(h, "mlx5_0", 1, RDMA_HW_NP_CNP_SENT, &v));
        ASSERT_INT_EQ(v, 42);
        ASSERT_OK(rdma_sysfs_read_hw_family(h, "mlx5_0", 1, RDMA_HW_OUT_OF_SEQUENCE, &v));
        ASSERT_INT_EQ(v, 7);
        /* irdma on GEN3 hardware counts retransmission timeouts as "RTO". */
        put("/sys/class/infiniband/irdma1/ports/1/hw_counters/RTO", "5\n");
        ASSERT_OK(rdma_sysfs_read_hw_family(h, "irdma1", 1, RDMA_HW_LOCAL_ACK_TIMEOUT_ERR, &v));
        ASSERT_INT_EQ(v, 5);
        ASSERT_INT_EQ(rdma_sysfs_read_hw_family(h, "irdma1", 1, _RDMA_HW_COUNTER_MAX, &v), -EINVAL);
}

static void test_pause_counters(void) {
        char names[][ETH_GSTRING_LEN] = {
                "rx_prio3_pause",          "tx_prio3_pause",
                "rx_prio3_pause_duration", "rx_prio3_pause_transition",
                "rx_global_pause",         "rx_priority_5_xoff.nic",
                "tx_priority_5_xoff.nic",  "rx_priority_5_xon.nic",
                "rx_prio9_pause",          "peer_ifindex",
        };
        uint64_t values[] = { 10, 20, 999, 999, 999, 30, 40, 999, 999, 7 };
        EthtoolStats s = { .names = names, .values = values, .n = ELEMENTSOF(values) };
        PauseCounters p;

        pause_counters_from_stats(&s, &p);
        ASSERT_INT_EQ(p.known, 1U << 3 | 1U << 5);
        ASSERT_INT_EQ(p.rx[3], 10);
        ASSERT_INT_EQ(p.tx[3], 20);
        ASSERT_INT_EQ(p.rx[5], 30);
        ASSERT_INT_EQ(p.tx[5], 40);
        ASSERT_INT_EQ(pause_counters_total(&p), 100);

        /* veth's statistics: no pause counters at all. */
        s.n = 1;
        s.names = &names[9];
        s.values = &values[9];
        pause_counters_from_stats(&s, &p);
        ASSERT_INT_EQ(p.known, 0);
}

static void describe_changes(const LinkPlan *lp, char ***ret) {
        _cleanup_(plan_changes_done) PlanChanges c = {};
        char **l = NULL;

        ASSERT_OK(link_plan_qos_host_changes(lp, &c));
        for (size_t i = 0; i < c.n_changes; i++)
                ASSERT_OK(strv_consume(&l, plan_change_describe(&c.changes[i])));
        *ret = l;
}

static void test_plan_and_checks(const Host *h) {
        ProfileLink pl = { .name = (char *) "rdma0" };
        LinkPlan lp = { .link = (char *) "rdma0", .ifname = (char *) "enp1s0f0np0" };
        _cleanup_(check_list_done) CheckList l = {};
        _cleanup_(strv_freep) char **lines = NULL;
        SnapshotQosHost sq;

        pl.qos = qos_asked();
        read_port(h, &pl.qos, &sq);
        ASSERT_OK(link_plan_qos_host_compute(&pl, &sq, &lp));
        ASSERT_TRUE(lp.qos_host);
        ASSERT_INT_EQ(lp.qos_host->n_ecn, 3); /* 3 np, 5 np, 5 rp */
        ASSERT_INT_EQ(lp.qos_host->tos_from, 0);
        ASSERT_INT_EQ(lp.qos_host->tos_to, 106);
        describe_changes(&lp, &lines);
        ASSERT_INT_EQ(strv_length(lines), 3);
        ASSERT_STR_EQ(
                lines[0],
                "rdma0 (enp1s0f0np0): ecn off (notification point), on (reaction point) → on (priority 3)");
        ASSERT_STR_EQ(lines[1], "rdma0 (enp1s0f0np0): ecn off → on (priority 5)");
        ASSERT_STR_EQ(lines[2], "rdma0 (enp1s0f0np0): roce-tos 0 → 106");

        ASSERT_OK(check_qos_ecn_evaluate("rdma0", "rdma0 (enp1s0f0np0)", &pl.qos, &sq, &l));
        ASSERT_OK(check_qos_tos_evaluate("rdma0", "rdma0 (enp1s0f0np0)", &pl.qos, &sq, &l));
        ASSERT_STR_EQ(l.checks[0].id, "qos.rdma0.ecn");
        ASSERT_STR_EQ(l.checks[0].link, "rdma0");
        ASSERT_INT_EQ(l.checks[0].outcome, CHECK_FAIL);
        ASSERT_STR_EQ(l.checks[0].expected, "3: on/on, 5: on/on");
        ASSERT_STR_EQ(l.checks[0].actual, "3: off/on, 5: off/off");
        ASSERT_TRUE(strstr(l.checks[0].summary, "priority 3 (notification point), priority 5"));
        ASSERT_INT_EQ(l.checks[1].outcome, CHECK_FAIL);
        ASSERT_TRUE(strstr(l.checks[1].summary, "is 0 (DSCP 0), the profile wants 106 (DSCP 26)"));
        check_list_done(&l);

        /* pfc: not given: ECN for every priority; an E810 has no switches; no roce-tos asked. */
        pl.qos.has_pfc = false;
        pl.qos.roce_tos = -1;
        ASSERT_OK(check_qos_ecn_evaluate("rdma0", "rdma0 (enp1s0f0np0)", &pl.qos, &sq, &l));
        ASSERT_STR_EQ(
                l.checks[0].actual,
                "0: on/on, 1: on/on, 2: on/on, 3: off/on, 4: on/on, 5: off/off, 6: on/on, 7: on/on");
        sq.ecn_error = -ENOENT;
        ASSERT_OK(check_qos_ecn_evaluate("rdma0", "rdma0 (ens1f0)", &pl.qos, &sq, &l));
        ASSERT_INT_EQ(l.checks[1].outcome, CHECK_SKIP);
        ASSERT_TRUE(strstr(l.checks[1].summary, "no ECN switches in sysfs"));
        sq.ecn_error = -EACCES;
        ASSERT_OK(check_qos_ecn_evaluate("rdma0", "rdma0 (ens1f0)", &pl.qos, &sq, &l));
        ASSERT_INT_EQ(l.checks[2].outcome, CHECK_SKIP);
        ASSERT_TRUE(startswith(l.checks[2].summary, "could not look: "));
        ASSERT_OK(check_qos_tos_evaluate("rdma0", "rdma0 (ens1f0)", &pl.qos, &sq, &l));
        ASSERT_INT_EQ(l.checks[3].outcome, CHECK_SKIP);
        ASSERT_STR_EQ(l.checks[3].summary, "the qos: of rdma0 sets no roce-tos");
        check_list_done(&l);

        /* rdma_cm's directory missing: a warning that says what to do; configfs missing: a skip. */
        pl.qos.roce_tos = 106;
        sq.cm.state = RDMA_CM_NO_DEVICE_DIR;
        ASSERT_OK(check_qos_tos_evaluate("rdma0", "rdma0 (enp1s0f0np0)", &pl.qos, &sq, &l));
        ASSERT_INT_EQ(l.checks[0].outcome, CHECK_WARN);
        ASSERT_TRUE(strstr(l.checks[0].summary, "mkdir /sys/kernel/config/rdma_cm/mlx5_0"));
        sq.cm.state = RDMA_CM_NO_CONFIGFS;
        ASSERT_OK(check_qos_tos_evaluate("rdma0", "rdma0 (enp1s0f0np0)", &pl.qos, &sq, &l));
        ASSERT_INT_EQ(l.checks[1].outcome, CHECK_SKIP);
        ASSERT_TRUE(strstr(l.checks[1].summary, "modprobe rdma_ucm"));
        sq.cm.state = RDMA_CM_READY;
        sq.cm.tos = 106;
        ASSERT_OK(check_qos_tos_evaluate("rdma0", "rdma0 (enp1s0f0np0)", &pl.qos, &sq, &l));
        ASSERT_INT_EQ(l.checks[2].outcome, CHECK_PASS);

        link_plan_qos_host_free(lp.qos_host);
        port_done(&sq);
}

static void test_apply(const Host *h) {
        ProfileLink pl = { .name = (char *) "rdma0" };
        LinkPlan lp = { .link = (char *) "rdma0", .ifname = (char *) "enp1s0f0np0" };
        _cleanup_(freep) char *error = NULL, *tos = NULL, *np3 = NULL, *dir = NULL;
        SnapshotQosHost sq;
        RoceEcn e;

        pl.qos = qos_asked();

        /* A write that fails: priority 5's reaction point switch became a symlink, which halod reads
         * through but never writes through. The switches turned on before it (3 np, 5 np) are put
         * back, the ToS is never touched. */
        ASSERT_TRUE(asprintf(&dir, "%s/sys/class/net/enp1s0f0np0/ecn/roce_rp/enable/5", root) > 0);
        read_port(h, &pl.qos, &sq);
        ASSERT_OK(link_plan_qos_host_compute(&pl, &sq, &lp));
        put("/sys/class/net/enp1s0f0np0/ecn/rp5-elsewhere", "0\n");
        ASSERT_INT_EQ(unlink(dir), 0);
        ASSERT_INT_EQ(symlink("../../rp5-elsewhere", dir), 0);
        ASSERT_INT_EQ(apply_qos_host_link(h, &lp, &error), -ELOOP);
        ASSERT_TRUE(strstr(error, "cannot turn ECN on for priority 5 (reaction point)"));
        ASSERT_TRUE(strstr(error, "were put back"));
        np3 = get("/sys/class/net/enp1s0f0np0/ecn/roce_np/enable/3");
        ASSERT_STR_EQ(np3, "0");
        tos = get("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos");
        ASSERT_STR_EQ(tos, "0\n");
        put("/sys/class/net/enp1s0f0np0/ecn/roce_rp/enable/5", "0\n");
        ASSERT_OK(roce_ecn_read(h, "enp1s0f0np0", &e));
        ASSERT_INT_EQ(e.on[ROCE_ECN_NP], 0xff & ~(1U << 3 | 1U << 5));
        link_plan_qos_host_free(lp.qos_host);
        lp.qos_host = NULL;
        port_done(&sq);
        error = mfree(error);
        tos = mfree(tos);

        /* The whole plan: written, read back; planned again, nothing is left. */
        read_port(h, &pl.qos, &sq);
        ASSERT_OK(link_plan_qos_host_compute(&pl, &sq, &lp));
        ASSERT_OK(apply_qos_host_link(h, &lp, &error));
        ASSERT_TRUE(!error);
        tos = get("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos");
        ASSERT_STR_EQ(tos, "106");
        link_plan_qos_host_free(lp.qos_host);
        lp.qos_host = NULL;
        port_done(&sq);
        read_port(h, &pl.qos, &sq);
        ASSERT_OK(link_plan_qos_host_compute(&pl, &sq, &lp));
        ASSERT_TRUE(!lp.qos_host);
        port_done(&sq);

        /* rdma_cm's directory missing: created first; in this tree no ports appear in it (the kernel
         * makes them), so the ToS write fails and the directory is removed again. */
        {
                _cleanup_(freep) char *cmd = NULL, *cm = NULL;

                ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s/sys/kernel/config/rdma_cm/mlx5_0'", root) > 0);
                ASSERT_INT_EQ(system(cmd), 0);
                read_port(h, &pl.qos, &sq);
                ASSERT_INT_EQ(sq.cm.state, RDMA_CM_NO_DEVICE_DIR);
                ASSERT_OK(link_plan_qos_host_compute(&pl, &sq, &lp));
                ASSERT_TRUE(lp.qos_host && lp.qos_host->create_cm_device);
                {
                        _cleanup_(strv_freep) char **lines = NULL;

                        describe_changes(&lp, &lines);
                        ASSERT_STR_EQ(
                                lines[0],
                                "rdma0 (enp1s0f0np0): roce-tos → 106 (creating rdma_cm's configfs directory "
                                "for the device first)");
                }
                error = mfree(error);
                ASSERT_INT_EQ(apply_qos_host_link(h, &lp, &error), -ENOENT);
                ASSERT_TRUE(strstr(error, "cannot set the default RoCE ToS to 106"));
                ASSERT_TRUE(asprintf(&cm, "%s/sys/kernel/config/rdma_cm/mlx5_0", root) > 0);
                ASSERT_INT_EQ(access(cm, F_OK), -1);
                link_plan_qos_host_free(lp.qos_host);
                port_done(&sq);
        }
}

static void test_pause(void) {
        ProfileQos q = qos_asked();
        SnapshotQosCounters sc = { .when = 70 * USEC_PER_SEC, .packets = 3000 };
        PauseSample prev = {
                .ifname = (char *) "enp1s0f0np0", .when = 10 * USEC_PER_SEC, .pause = 50, .packets = 2990
        };
        _cleanup_(check_list_done) CheckList l = {};

        sc.pause.known = 1U << 3;
        sc.pause.rx[3] = 5050;

        /* haloctl check: one sample, no history. */
        ASSERT_OK(check_qos_pause_evaluate(
                "rdma0", "rdma0 (enp1s0f0np0)", "enp1s0f0np0", &q, &sc, false, NULL, &l));
        ASSERT_INT_EQ(l.checks[0].outcome, CHECK_SKIP);
        ASSERT_STR_EQ(l.checks[0].id, "qos.rdma0.pause");
        /* halod's first verify. */
        ASSERT_OK(check_qos_pause_evaluate(
                "rdma0", "rdma0 (enp1s0f0np0)", "enp1s0f0np0", &q, &sc, true, NULL, &l));
        ASSERT_INT_EQ(l.checks[1].outcome, CHECK_SKIP);
        ASSERT_TRUE(startswith(l.checks[1].summary, "first sample"));
        /* 5000 pause frames in a minute while 10 packets moved: a storm. */
        ASSERT_OK(check_qos_pause_evaluate(
                "rdma0", "rdma0 (enp1s0f0np0)", "enp1s0f0np0", &q, &sc, true, &prev, &l));
        ASSERT_INT_EQ(l.checks[2].outcome, CHECK_WARN);
        ASSERT_STR_EQ(l.checks[2].actual, "+5000 pause frames, +10 packets in 60 s");
        ASSERT_TRUE(startswith(l.checks[2].summary, "pause storm on rdma0 (enp1s0f0np0)"));
        /* The same pause frames under heavy traffic: congestion handled, no storm. */
        sc.packets = 10000000;
        ASSERT_OK(check_qos_pause_evaluate(
                "rdma0", "rdma0 (enp1s0f0np0)", "enp1s0f0np0", &q, &sc, true, &prev, &l));
        ASSERT_INT_EQ(l.checks[3].outcome, CHECK_PASS);
        /* veth: the driver counts no pause frames. */
        sc.pause.known = 0;
        ASSERT_OK(check_qos_pause_evaluate("rdma0", "rdma0 (veth0)", "veth0", &q, &sc, true, &prev, &l));
        ASSERT_INT_EQ(l.checks[4].outcome, CHECK_SKIP);
        ASSERT_TRUE(strstr(l.checks[4].summary, "counts no per-priority pause frames"));
}

static void test_history(void) {
        PauseHistory h = {};

        ASSERT_OK(pause_history_put(&h, "a", 1, 2, 3));
        ASSERT_OK(pause_history_put(&h, "b", 4, 5, 6));
        ASSERT_OK(pause_history_put(&h, "a", 7, 8, 9));
        ASSERT_INT_EQ(h.n, 2);
        ASSERT_INT_EQ(pause_history_find(&h, "a")->pause, 8);
        ASSERT_TRUE(!pause_history_find(&h, "c"));
        pause_history_done(&h);
}

int main(void) {
        Host h;
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(mkdtemp(root));
        h = (Host){ .root = root };
        make_tree();

        test_readers(&h);
        test_irdma_hw_counters(&h);
        test_pause_counters();
        test_plan_and_checks(&h);
        test_apply(&h);
        test_pause();
        test_history();

        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
        return 0;
}

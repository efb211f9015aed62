/* SPDX-License-Identifier: MIT */
/* Tests nic.firmware's and nic.driver's decisions with devlink infos parsed from reply messages built
 * as the kernel builds them: devlink first, ETHTOOL_GDRVINFO and the kernel log as the fallbacks, a
 * stored firmware waiting for activation, Safe Mode. */
#include "check/check-nic.h"
#include "devlink-messages.h"
#include "export/metrics.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"

static uint8_t buf[DEVLINK_MESSAGE_MAX];

/* Facts as nic_facts_gather() leaves them on a running system: devlink's info (or error) and the
 * ioctl's answer. */
static void facts_init(NicFacts *f, const TestInfo *info, int devlink_error, const char *fw_version) {
        *f = (NicFacts){ .device_error = -ENODEV, .devlink_error = devlink_error, .info_error = -ENOMEDIUM };
        if (info)
                ASSERT_OK(devlink_parse_info(test_build_info(buf, info), &f->devlink));
        if (fw_version) {
                f->info_error = 0;
                snprintf(f->info.driver, sizeof(f->info.driver), "%s", info ? info->driver : "ice");
                snprintf(f->info.version, sizeof(f->info.version), "6.18.4");
                snprintf(f->info.fw_version, sizeof(f->info.fw_version), "%s", fw_version);
        }
}

static void expect(const PortCheck *p, CheckOutcome outcome, const char *summary, size_t i) {
        if (p->outcome != outcome || !strstr(p->summary, summary)) {
                fprintf(stderr,
                        "case %zu: got %s \"%s\", expected %s with \"%s\"\n",
                        i,
                        check_outcome_to_string(p->outcome),
                        p->summary,
                        check_outcome_to_string(outcome),
                        summary);
                abort();
        }
}

/* The metrics show the firmware nic.firmware judged (p), from the same source: devlink's running
 * version, else the driver's string (nic_facts_firmware_source()). */
static void expect_metrics_agree(NicFacts *f, const PortCheck *p, size_t i) {
        Host h = {};
        NodeContext c = { .host = &h };
        FabricPort port = { .link = (char *) "rdma0",
                            .pci = (char *) "0000:c2:00.0",
                            .ifname = (char *) "enp194s0np0" };
        Snapshot s = {
                .context = &c,
                .parts = SNAPSHOT_PORTS | SNAPSHOT_LOCATED | SNAPSHOT_NICS,
                .ports = &port,
                .n_ports = 1,
                .nics = f,
        };
        bool devlink = strstr(p->summary, "devlink)");
        MetricsNic *nics = NULL;
        size_t n = 0;

        ASSERT_OK(metrics_nics_gather(&s, &nics, &n));
        ASSERT_INT_EQ(n, 1);
        if (!streq_ptr(nics[0].source, devlink ? "devlink" : "ethtool")) {
                fprintf(stderr,
                        "case %zu: the metrics' source %s, the check's %s\n",
                        i,
                        strna(nics[0].source),
                        p->summary);
                abort();
        }
        if (devlink)
                ASSERT_STR_EQ(nics[0].version, p->actual);
        else
                ASSERT_TRUE(!nics[0].version && streq_ptr(nics[0].firmware, p->actual));
        metrics_nics_free(nics, n);
}

static void test_firmware(void) {
        /* An instance whose info names no running firmware (a driver without versions). */
        static const TestInfo no_firmware = { .driver = "ice" };
        static const struct {
                const TestInfo *info;
                int devlink_error;
                const char *ethtool, *min;
                CheckOutcome outcome;
                const char *summary, *actual;
        } cases[] = {
                { &test_info_e810,
                  0,
                  "4.91 0x800214b5 1.3909.0",
                  "4.91",
                  CHECK_PASS,
                  "firmware 4.91 ≥ 4.91 (EETRACK 0x800214b5, combo image 1.3909.0, board K91258-000; devlink)",
                  "4.91" },
                { &test_info_e810_old_nvm,
                  0,
                  NULL,
                  "4.91",
                  CHECK_FAIL,
                  "firmware 4.60 < 4.91 (EETRACK 0x8001e8b1, combo image 1.3682.0, board K91258-000; devlink): "
                  "update the E810 NVM (Intel's nvmupdate64e)",
                  "4.60" },
                /* The fix is on the flash already: only activation is missing. */
                { &test_info_e810_pending,
                  0,
                  NULL,
                  "4.91",
                  CHECK_FAIL,
                  "firmware 4.40 < 4.91 (EETRACK 0x8001c967, combo image 1.3534.0, board K91258-000; devlink), "
                  "but 4.91 is already stored on the NIC: it only needs activation (reboot, or `devlink dev "
                  "reload pci/0000:c2:00.0 action fw_activate`)",
                  "4.40" },
                { &test_info_e810_pending,
                  0,
                  NULL,
                  "4.40",
                  CHECK_WARN,
                  "firmware 4.40 ≥ 4.40 (EETRACK 0x8001c967, combo image 1.3534.0, board K91258-000; devlink); "
                  "updated to 4.91, activation pending (reboot, or `devlink dev reload pci/0000:c2:00.0 action "
                  "fw_activate`)",
                  "4.40" },
                { &test_info_e810_pending, 0, NULL, NULL, CHECK_WARN, "firmware 4.40 (", "4.40" },
                { &test_info_cx5,
                  0,
                  "16.35.2000 (MT_0000000012)",
                  "16.35.1012",
                  CHECK_PASS,
                  "firmware 16.35.2000 ≥ 16.35.1012 (PSID MT_0000000012; devlink)",
                  "16.35.2000" },
                { &test_info_cx5,
                  0,
                  NULL,
                  NULL,
                  CHECK_PASS,
                  "firmware 16.35.2000 (PSID MT_0000000012; devlink)",
                  "16.35.2000" },
                { &test_info_cx5,
                  0,
                  NULL,
                  "22.36.1010",
                  CHECK_FAIL,
                  "firmware 16.35.2000 < 22.36.1010 (PSID MT_0000000012; devlink): update the ConnectX firmware",
                  "16.35.2000" },
                { &test_info_cx5_pending,
                  0,
                  NULL,
                  "16.35.2000",
                  CHECK_WARN,
                  "updated to 16.35.3006, activation pending (reboot, or `devlink dev reload pci/0000:c2:00.0 action "
                  "fw_activate`)",
                  "16.35.2000" },
                /* No devlink in the kernel, or none for the device: ETHTOOL_GDRVINFO, named. */
                { NULL,
                  -EPROTONOSUPPORT,
                  "4.91 0x800214b5 1.3909.0",
                  "4.91",
                  CHECK_PASS,
                  "firmware 4.91 ≥ 4.91 (EETRACK 0x800214b5, combo image 1.3909.0; ethtool)",
                  "4.91 0x800214b5 1.3909.0" },
                { NULL,
                  -ENODEV,
                  "4.90 0x80020ef2 1.3863.0",
                  "4.91",
                  CHECK_FAIL,
                  "firmware 4.90 < 4.91 (EETRACK 0x80020ef2, combo image 1.3863.0; ethtool): update the E810 NVM",
                  "4.90 0x80020ef2 1.3863.0" },
                { NULL, -ENODEV, "3.10", "3.0", CHECK_PASS, "firmware 3.10 ≥ 3.0 (ethtool)", "3.10" },
                { &no_firmware, 0, "3.10", "3.0", CHECK_PASS, "firmware 3.10 ≥ 3.0 (ethtool)", "3.10" },
                /* devlink read, but its info names no firmware version: ethtool's. */
                { &test_info_e810_safe_mode,
                  0,
                  "4.91 0x800214b5 1.3909.0",
                  "4.9",
                  CHECK_WARN,
                  "firmware 4.91 (EETRACK 0x800214b5, board K91258-000; devlink), but nic.firmware-min \"4.9\" is ambiguous",
                  "4.91" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(nic_facts_done) NicFacts f = {};
                _cleanup_(port_check_done) PortCheck p = {};

                facts_init(&f, cases[i].info, cases[i].devlink_error, cases[i].ethtool);
                ASSERT_OK(check_nic_firmware_facts("enp194s0np0", "0000:c2:00.0", &f, cases[i].min, &p));
                expect(&p, cases[i].outcome, cases[i].summary, i);
                ASSERT_STR_EQ(p.actual, cases[i].actual);
                expect_metrics_agree(&f, &p, i);
        }
}

/* Activation of a same-numbered NVM with another EETRACK; a downgrade on the flash. */
static void test_firmware_stored_variants(void) {
        static const TestVersion rebuilt[] = {
                { DEVLINK_VERSION_RUNNING, "fw.psid.api", "4.91" },
                { DEVLINK_VERSION_RUNNING, "fw.bundle_id", "0x800214b5" },
                { DEVLINK_VERSION_STORED, "fw.psid.api", "4.91" },
                { DEVLINK_VERSION_STORED, "fw.bundle_id", "0x80021a0c" },
        };
        static const TestVersion downgrade[] = {
                { DEVLINK_VERSION_RUNNING, "fw.psid.api", "4.91" },
                { DEVLINK_VERSION_STORED, "fw.psid.api", "4.40" },
        };
        const TestInfo t1 = { .driver = "ice", .versions = rebuilt, .n_versions = ELEMENTSOF(rebuilt) },
                       t2 = { .driver = "ice", .versions = downgrade, .n_versions = ELEMENTSOF(downgrade) };
        _cleanup_(nic_facts_done) NicFacts f1 = {}, f2 = {};
        _cleanup_(port_check_done) PortCheck p1 = {}, p2 = {};

        facts_init(&f1, &t1, 0, NULL);
        ASSERT_OK(check_nic_firmware_facts("enp194s0np0", "0000:c2:00.0", &f1, "4.91", &p1));
        expect(&p1, CHECK_WARN, "updated to EETRACK 0x80021a0c, activation pending", 0);
        facts_init(&f2, &t2, 0, NULL);
        ASSERT_OK(check_nic_firmware_facts("enp194s0np0", "0000:c2:00.0", &f2, "4.91", &p2));
        expect(&p2,
               CHECK_WARN,
               "the flash holds 4.40, activation pending (reboot, or `devlink dev reload pci/0000:c2:00.0 action "
               "fw_activate`), and that one is below nic.firmware-min",
               1);
}

/* What PendingReboot lists for a stored firmware: one that fixes nic.firmware-min, or any with no
 * minimum; not one below the minimum, and nothing when nothing is stored. */
static void test_firmware_pending_reboot(void) {
        static const TestVersion downgrade[] = {
                { DEVLINK_VERSION_RUNNING, "fw.psid.api", "4.91" },
                { DEVLINK_VERSION_STORED, "fw.psid.api", "4.40" },
        };
        const TestInfo below = { .driver = "ice", .versions = downgrade, .n_versions = ELEMENTSOF(downgrade) };
        static const char *activates =
                "NIC firmware: 4.91, stored on enp194s0np0 (or `devlink dev reload pci/0000:c2:00.0 action "
                "fw_activate`)";
        const struct {
                const TestInfo *info;
                const char *min;
                CheckOutcome outcome;
                const char *pending_reboot;
        } cases[] = {
                { &test_info_e810_pending, "4.91", CHECK_FAIL, activates },
                { &test_info_e810_pending, "4.40", CHECK_WARN, activates },
                { &test_info_e810_pending, NULL, CHECK_WARN, activates },
                { &below, "4.91", CHECK_WARN, NULL },
                { &test_info_e810, "4.91", CHECK_PASS, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(nic_facts_done) NicFacts f = {};
                _cleanup_(port_check_done) PortCheck p = {};

                facts_init(&f, cases[i].info, 0, NULL);
                ASSERT_OK(check_nic_firmware_facts("enp194s0np0", "0000:c2:00.0", &f, cases[i].min, &p));
                ASSERT_INT_EQ(p.outcome, cases[i].outcome);
                if (!streq_ptr(p.pending_reboot, cases[i].pending_reboot)) {
                        fprintf(stderr,
                                "case %zu: pending_reboot \"%s\", expected \"%s\"\n",
                                i,
                                strna(p.pending_reboot),
                                strna(cases[i].pending_reboot));
                        abort();
                }
        }
}

/* Neither source readable: the caller's errno, never a pass. */
static void test_firmware_unreadable(void) {
        _cleanup_(nic_facts_done) NicFacts f = {};
        PortCheck p = {};

        facts_init(&f, NULL, -EPROTONOSUPPORT, NULL);
        ASSERT_INT_EQ(check_nic_firmware_facts("enp194s0np0", "0000:c2:00.0", &f, "4.91", &p), -ENOMEDIUM);
        f.info_error = -EOPNOTSUPP;
        ASSERT_INT_EQ(check_nic_firmware_facts("enp194s0np0", "0000:c2:00.0", &f, "4.91", &p), -EOPNOTSUPP);
        ASSERT_INT_EQ(check_nic_firmware_facts(NULL, "0000:c2:00.0", &f, "4.91", &p), -ENODATA);
        ASSERT_TRUE(!p.summary);
}

static void test_ddp(void) {
        static const struct {
                const TestInfo *info;
                int devlink_error;
                const char *tree;
                IceDdpState state;
                IceDdpSource source;
                CheckOutcome outcome;
                const char *summary;
        } cases[] = {
                /* devlink says, and is believed over the kernel log. */
                { &test_info_e810,
                  0,
                  "nic-e810-safe-mode",
                  ICE_DDP_LOADED,
                  ICE_DDP_SOURCE_DEVLINK,
                  CHECK_PASS,
                  "ice 6.18.4 drives enp194s0np0, DDP package ICE OS Default Package 1.3.36.0 (devlink)" },
                { &test_info_e810_pending,
                  0,
                  "does-not-exist",
                  ICE_DDP_LOADED,
                  ICE_DDP_SOURCE_DEVLINK,
                  CHECK_PASS,
                  "DDP package ICE COMMS Package 1.3.45.0 (devlink)" },
                { &test_info_e810_safe_mode,
                  0,
                  "nic-e810-x4",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_SOURCE_DEVLINK,
                  CHECK_FAIL,
                  "ice runs enp194s0np0 in Safe Mode: no DDP package is loaded (devlink reports no active DDP "
                  "package: no fw.app.name)" },
                /* devlink says Safe Mode, the kernel log says why: the NVM, not the package. */
                { &test_info_e810_safe_mode,
                  0,
                  "nic-e810-old-nvm",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_SOURCE_DEVLINK,
                  CHECK_FAIL,
                  "ice runs enp194s0np0 in Safe Mode: the device's NVM (firmware) is too old for the kernel's DDP "
                  "package (devlink reports no active package; kernel log: \"ice 0000:c2:00.0: The firmware loaded "
                  "on the device is not compatible with the DDP package.  Please update the device's NVM.  Entering "
                  "safe mode.\"), so RDMA and the offloads are off; update the E810's NVM with Intel's nvmupdate64e" },
                { &test_info_e810_no_app,
                  0,
                  "does-not-exist",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_SOURCE_DEVLINK,
                  CHECK_FAIL,
                  "in Safe Mode: no DDP package is loaded (devlink reports no active DDP package: no fw.app.name; "
                  "the kernel log, which says why, could not be read (/dev/kmsg: No such file or directory): "
                  "`sudo haloctl check --only nic.driver` reads it)" },
                /* devlink cannot say: the kernel log, named. */
                { NULL,
                  -EPROTONOSUPPORT,
                  "nic-e810-x4",
                  ICE_DDP_LOADED,
                  ICE_DDP_SOURCE_KERNEL_LOG,
                  CHECK_PASS,
                  "ice 6.18.4 drives enp194s0np0, DDP package ICE OS Default Package version 1.3.36.0 (kernel log)" },
                { NULL,
                  -ENODEV,
                  "nic-e810-safe-mode",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_SOURCE_KERNEL_LOG,
                  CHECK_FAIL,
                  "ice runs enp194s0np0 in Safe Mode: ice found no DDP package file (kernel log: \"ice "
                  "0000:c2:00.0: The DDP package file was not found or could not be read. Entering Safe Mode\")" },
                /* Neither: could not look, never a pass. */
                { NULL,
                  -EPROTONOSUPPORT,
                  "does-not-exist",
                  ICE_DDP_UNKNOWN,
                  ICE_DDP_SOURCE_NONE,
                  CHECK_SKIP,
                  "ice drives enp194s0np0, but could not look at the kernel log (/dev/kmsg: No such file or "
                  "directory), which says whether ice runs it in Safe Mode (no DDP package, no RDMA), and devlink "
                  "could not tell (this kernel has no devlink): `sudo haloctl check --only nic.driver` reads it" },
        };
        const FabricPort port = { .link = (char *) "rdma0",
                                  .pci = (char *) "0000:c2:00.0",
                                  .ifname = (char *) "enp194s0np0" };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(nic_facts_done) NicFacts f = {};
                _cleanup_(port_check_done) PortCheck p = {};
                _cleanup_(freep) char *root = NULL;
                Host h;

                ASSERT_TRUE(asprintf(&root, HOSTS "%s", cases[i].tree) > 0);
                h = (Host){ .root = root };
                facts_init(&f, cases[i].info, cases[i].devlink_error, "4.91 0x800214b5 1.3909.0");
                ASSERT_OK(nic_facts_read_ddp(&h, "0000:c2:00.0", &f));
                ASSERT_INT_EQ(f.ddp, cases[i].state);
                ASSERT_INT_EQ(f.ddp_source, cases[i].source);
                ASSERT_OK(check_nic_driver_facts("ice", &port, &f, &p));
                expect(&p, cases[i].outcome, cases[i].summary, i);
        }
}

int main(void) {
        test_firmware();
        test_firmware_stored_variants();
        test_firmware_pending_reboot();
        test_firmware_unreadable();
        test_ddp();
        printf("test-check-nic-devlink: ok\n");
        return 0;
}

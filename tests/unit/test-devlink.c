/* SPDX-License-Identifier: MIT */
/* Tests the devlink reader: reply messages built as the kernel builds them (devlink-messages.c) parsed
 * by the real parser, malformed ones refused, and the running kernel asked about a real PCI device and
 * a missing one, with the errno contract of lib/nic/devlink.h.
 *
 * `test-devlink --write-corpus DIR` writes the messages as the fuzzer's seeds instead
 * (tests/fuzz/corpus/fuzz-devlink/). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "devlink-messages.h"
#include "nic/genl.h"
#include "nic/ice-ddp.h"
#include "tests.h"

static uint8_t buf[DEVLINK_MESSAGE_MAX];

static void parse_info(const TestInfo *t, DevlinkInfo *ret) {
        ASSERT_OK(devlink_parse_info(test_build_info(buf, t), ret));
        ASSERT_STR_EQ(ret->bus, "pci");
        ASSERT_STR_EQ(ret->device, "0000:c2:00.0");
        ASSERT_INT_EQ(ret->n_versions, t->n_versions);
        for (size_t i = 0; i < t->n_versions; i++) {
                ASSERT_INT_EQ(ret->versions[i].type, t->versions[i].type);
                ASSERT_STR_EQ(ret->versions[i].name, t->versions[i].name);
                ASSERT_STR_EQ(ret->versions[i].value, t->versions[i].value);
        }
}

static void test_parse_e810(void) {
        _cleanup_(devlink_info_done) DevlinkInfo info = {};
        _cleanup_(freep) char *package = NULL;
        DevlinkFirmware fw;
        IceDdpState s;

        parse_info(&test_info_e810, &info);
        ASSERT_STR_EQ(info.driver, "ice");
        ASSERT_STR_EQ(info.serial, "00-01-00-ff-ff-00-00-00");
        ASSERT_TRUE(!info.board_serial);
        ASSERT_STR_EQ(
                devlink_info_version(&info, DEVLINK_VERSION_RUNNING, "fw.app.name"), "ICE OS Default Package");
        ASSERT_STR_EQ(devlink_info_version(&info, DEVLINK_VERSION_FIXED, "board.id"), "K91258-000");
        ASSERT_STR_EQ(devlink_info_version(&info, DEVLINK_VERSION_STORED, "fw.undi"), "1.3909.0");
        ASSERT_TRUE(!devlink_info_version(&info, DEVLINK_VERSION_STORED, "fw.app"));
        ASSERT_TRUE(!devlink_info_version(&info, DEVLINK_VERSION_FIXED, "fw.psid.api"));
        ASSERT_TRUE(!devlink_info_version(NULL, DEVLINK_VERSION_FIXED, "board.id"));

        ASSERT_OK(devlink_info_firmware(&info, &fw));
        ASSERT_STR_EQ(fw.name, "fw.psid.api");
        ASSERT_STR_EQ(fw.running, "4.91");
        ASSERT_STR_EQ(fw.stored, "4.91");
        ASSERT_STR_EQ(fw.eetrack, "0x800214b5");
        ASSERT_STR_EQ(fw.combo, "1.3909.0");
        ASSERT_STR_EQ(fw.board_id, "K91258-000");
        ASSERT_TRUE(!devlink_firmware_pending(&fw));

        ASSERT_OK(ice_ddp_state_from_devlink(&info, &s, &package));
        ASSERT_INT_EQ(s, ICE_DDP_LOADED);
        ASSERT_STR_EQ(package, "ICE OS Default Package 1.3.36.0");
}

static void test_parse_e810_states(void) {
        const struct {
                const TestInfo *info;
                IceDdpState ddp;
                bool pending;
                const char *running, *stored;
        } cases[] = {
                { &test_info_e810_safe_mode, ICE_DDP_SAFE_MODE, false, "4.91", "4.91" },
                { &test_info_e810_no_app, ICE_DDP_SAFE_MODE, false, "4.91", NULL },
                { &test_info_e810_pending, ICE_DDP_LOADED, true, "4.40", "4.91" },
                { &test_info_e810_old_nvm, ICE_DDP_LOADED, false, "4.60", "4.60" },
                /* mlx5 has no fw.mgmt: its info does not describe an ice package. */
                { &test_info_cx5, ICE_DDP_UNKNOWN, false, "16.35.2000", "16.35.2000" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(devlink_info_done) DevlinkInfo info = {};
                _cleanup_(freep) char *package = NULL;
                DevlinkFirmware fw;
                IceDdpState s;

                parse_info(cases[i].info, &info);
                ASSERT_OK(ice_ddp_state_from_devlink(&info, &s, &package));
                ASSERT_INT_EQ(s, cases[i].ddp);
                ASSERT_TRUE((s == ICE_DDP_LOADED) == !!package);
                ASSERT_OK(devlink_info_firmware(&info, &fw));
                ASSERT_STR_EQ(fw.running, cases[i].running);
                ASSERT_TRUE(cases[i].stored ? streq_ptr(fw.stored, cases[i].stored) : !fw.stored);
                ASSERT_INT_EQ(devlink_firmware_pending(&fw), cases[i].pending);
        }
}

static void test_parse_cx5(void) {
        _cleanup_(devlink_info_done) DevlinkInfo info = {}, pending = {};
        DevlinkFirmware fw;

        parse_info(&test_info_cx5, &info);
        ASSERT_STR_EQ(info.driver, "mlx5_core");
        ASSERT_TRUE(!info.serial);
        ASSERT_STR_EQ(info.board_serial, "MT2043K01234");
        ASSERT_OK(devlink_info_firmware(&info, &fw));
        ASSERT_STR_EQ(fw.name, "fw.version");
        ASSERT_STR_EQ(fw.running, "16.35.2000");
        ASSERT_STR_EQ(fw.board_id, "MT_0000000012");
        ASSERT_TRUE(!fw.eetrack && !fw.combo);
        ASSERT_TRUE(!devlink_firmware_pending(&fw));

        parse_info(&test_info_cx5_pending, &pending);
        ASSERT_OK(devlink_info_firmware(&pending, &fw));
        ASSERT_STR_EQ(fw.stored, "16.35.3006");
        ASSERT_TRUE(devlink_firmware_pending(&fw));

        /* Only the generic "fw": still a firmware version. */
        {
                static const TestVersion v[] = { { DEVLINK_VERSION_RUNNING, "fw", "20.1.2" } };
                const TestInfo t = { .driver = "bnxt_en", .versions = v, .n_versions = 1 };
                _cleanup_(devlink_info_done) DevlinkInfo generic = {};

                parse_info(&t, &generic);
                ASSERT_OK(devlink_info_firmware(&generic, &fw));
                ASSERT_STR_EQ(fw.name, "fw");
                ASSERT_TRUE(!fw.board_id && !fw.stored);
        }
        /* Nothing the code knows: no firmware version. */
        {
                static const TestVersion v[] = { { DEVLINK_VERSION_RUNNING, "asic.id", "0x1017" } };
                const TestInfo t = { .versions = v, .n_versions = 1 };
                _cleanup_(devlink_info_done) DevlinkInfo other = {};

                parse_info(&t, &other);
                ASSERT_TRUE(!other.driver);
                ASSERT_INT_EQ(devlink_info_firmware(&other, &fw), -ENODATA);
        }
}

/* Firmware and board strings are the device's (issue 31, finding 6): an escape sequence in one reaches
 * no terminal, journal or D-Bus reply; the reader escapes it. */
static void test_parse_escapes(void) {
        static const TestVersion v[] = {
                { DEVLINK_VERSION_RUNNING, "fw", "20.1\x1b]0;owned\x07\x1b[2J" },
                { DEVLINK_VERSION_FIXED,
                  "board.id",
                  "K9\xc2\x9b"
                  "1m\xff" },
        };
        const TestInfo t = { .driver = "bnxt_en", .board_serial = "MT\x1b[1m", .versions = v, .n_versions = 2 };
        _cleanup_(devlink_info_done) DevlinkInfo info = {};
        DevlinkFirmware fw;

        ASSERT_OK(devlink_parse_info(test_build_info(buf, &t), &info));
        ASSERT_STR_EQ(info.board_serial, "MT\\x1b[1m");
        ASSERT_OK(devlink_info_firmware(&info, &fw));
        ASSERT_STR_EQ(fw.running, "20.1\\x1b]0;owned\\x07\\x1b[2J");
        ASSERT_STR_EQ(fw.board_id, "K9\\xc2\\x9b1m\\xff");
}

static void test_params(void) {
        const struct {
                const TestParam *param;
                enum devlink_param_cmode cmode;
                uint64_t number;
                const char *string;
        } cases[] = {
                { &test_param_ice_roce_on, DEVLINK_PARAM_CMODE_RUNTIME, 1, NULL },
                { &test_param_mlx5_roce_off, DEVLINK_PARAM_CMODE_DRIVERINIT, 0, NULL },
                { &test_param_mlx5_max_macs, DEVLINK_PARAM_CMODE_DRIVERINIT, 128, NULL },
                { &test_param_mlx5_steering, DEVLINK_PARAM_CMODE_RUNTIME, 0, "dmfs" },
                { &test_param_u16, DEVLINK_PARAM_CMODE_PERMANENT, 2048, NULL },
                { &test_param_u64, DEVLINK_PARAM_CMODE_DRIVERINIT, 0x0123456789abcdefULL, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(devlink_param_done) DevlinkParam p = {};
                const DevlinkParamValue *v;
                size_t n = 0;

                ASSERT_OK(devlink_parse_param(test_build_param(buf, cases[i].param), &p));
                ASSERT_STR_EQ(p.name, cases[i].param->param);
                ASSERT_INT_EQ(p.generic, cases[i].param->generic);
                ASSERT_INT_EQ(p.type, cases[i].param->type);
                v = devlink_param_value(&p, cases[i].cmode);
                ASSERT_TRUE(v);
                ASSERT_INT_EQ(v->number, cases[i].number);
                ASSERT_TRUE(cases[i].string ? streq_ptr(v->string, cases[i].string) : !v->string);
                for (enum devlink_param_cmode m = 0; m <= DEVLINK_PARAM_CMODE_MAX; m++)
                        n += !!devlink_param_value(&p, m);
                ASSERT_INT_EQ(n, cases[i].param->n_values);
        }
        ASSERT_STR_EQ(devlink_param_cmode_to_string(DEVLINK_PARAM_CMODE_DRIVERINIT), "driverinit");
        ASSERT_TRUE(!devlink_param_value(NULL, DEVLINK_PARAM_CMODE_RUNTIME));
}

/* A copy of the message in buf with its length set to len, as a message cut short would arrive. */
static const struct nlmsghdr *cut(const struct nlmsghdr *full, size_t len, uint8_t *into) {
        memcpy(into, full, full->nlmsg_len);
        ((struct nlmsghdr *) into)->nlmsg_len = (uint32_t) len;
        return (const struct nlmsghdr *) into;
}

/* Every prefix of every message: refused, or (cut exactly between attributes) a shorter message;
 * never a crash. The attributes devlink always sends come first, so only the full length (or a cut
 * after the last attribute's padding) has everything. */
static void test_truncated(void) {
        static uint8_t copy[DEVLINK_MESSAGE_MAX];

        for (size_t i = 0; i < test_n_messages; i++) {
                const TestMessage *m = &test_messages[i];
                const struct nlmsghdr *full = m->info ? test_build_info(buf, m->info)
                                                      : test_build_param(buf, m->param);
                size_t n_ok = 0;

                for (size_t len = 0; len <= full->nlmsg_len; len++) {
                        const struct nlmsghdr *nlh = cut(full, len, copy);
                        int r;

                        if (m->info) {
                                _cleanup_(devlink_info_done) DevlinkInfo info = {};

                                r = devlink_parse_info(nlh, &info);
                        } else {
                                _cleanup_(devlink_param_done) DevlinkParam p = {};

                                r = devlink_parse_param(nlh, &p);
                        }
                        ASSERT_TRUE(r == 0 || r == -EBADMSG);
                        n_ok += r == 0;
                }
                /* A parameter reply is one nest: only the whole message parses. */
                if (m->param)
                        ASSERT_INT_EQ(n_ok, 1);
                ASSERT_TRUE(n_ok >= 1);
        }
}

static void test_malformed(void) {
        static uint8_t other[DEVLINK_MESSAGE_MAX];
        _cleanup_(devlink_info_done) DevlinkInfo info = {};
        _cleanup_(devlink_param_done) DevlinkParam p = {};
        struct nlmsghdr *nlh;
        struct nlattr *nest;

        /* The other command's reply. */
        ASSERT_INT_EQ(devlink_parse_info(test_build_param(buf, &test_param_ice_roce_on), &info), -EBADMSG);
        ASSERT_INT_EQ(devlink_parse_param(test_build_info(buf, &test_info_e810), &p), -EBADMSG);

        /* No handle: not a devlink reply. */
        nlh = mnl_nlmsg_put_header(memset(other, 0, sizeof(other)));
        ((struct genlmsghdr *) mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr)))->cmd =
                DEVLINK_CMD_INFO_GET;
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_DRIVER_NAME, "ice");
        ASSERT_INT_EQ(devlink_parse_info(nlh, &info), -EBADMSG);

        /* A string without its NUL. */
        nlh = test_build_info(buf, &test_info_cx5);
        mnl_attr_put(nlh, DEVLINK_ATTR_INFO_SERIAL_NUMBER, 3, "abc");
        ASSERT_INT_EQ(devlink_parse_info(nlh, &info), -EBADMSG);

        /* A version without its value. */
        nlh = test_build_info(buf, &test_info_cx5);
        nest = mnl_attr_nest_start(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_NAME, "fw.version");
        mnl_attr_nest_end(nlh, nest);
        ASSERT_INT_EQ(devlink_parse_info(nlh, &info), -EBADMSG);

        /* A version nest that is not a nest. */
        nlh = test_build_info(buf, &test_info_cx5);
        mnl_attr_put(nlh, DEVLINK_ATTR_INFO_VERSION_FIXED, 2, "xy");
        ASSERT_INT_EQ(devlink_parse_info(nlh, &info), -EBADMSG);

        /* An attribute longer than the message. */
        nlh = test_build_info(buf, &test_info_cx5);
        nest = mnl_nlmsg_get_payload_tail(nlh);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_SERIAL_NUMBER, "MT2043");
        nest->nla_len = 200;
        ASSERT_INT_EQ(devlink_parse_info(nlh, &info), -EBADMSG);

        /* An attribute of a newer kernel: ignored. */
        nlh = test_build_info(buf, &test_info_cx5);
        mnl_attr_put_u32(nlh, DEVLINK_ATTR_MAX + 7, 1);
        ASSERT_OK(devlink_parse_info(nlh, &info));
        devlink_info_done(&info);

        /* Parameter values of the wrong size, a flag with data, data missing, the list before the type. */
        {
                struct nlattr *pn, *list, *value;

                nlh = mnl_nlmsg_put_header(memset(other, 0, sizeof(other)));
                ((struct genlmsghdr *) mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr)))->cmd =
                        DEVLINK_CMD_PARAM_GET;
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
                pn = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM);
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_PARAM_NAME, "enable_roce");
                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_TYPE, DEVLINK_PARAM_U32);
                list = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUES_LIST);
                value = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUE);
                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_VALUE_CMODE, DEVLINK_PARAM_CMODE_RUNTIME);
                mnl_attr_put_u16(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, 7); /* u16 data for a u32 */
                mnl_attr_nest_end(nlh, value);
                mnl_attr_nest_end(nlh, list);
                mnl_attr_nest_end(nlh, pn);
                ASSERT_INT_EQ(devlink_parse_param(nlh, &p), -EBADMSG);

                nlh = mnl_nlmsg_put_header(memset(other, 0, sizeof(other)));
                ((struct genlmsghdr *) mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr)))->cmd =
                        DEVLINK_CMD_PARAM_GET;
                pn = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM);
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_PARAM_NAME, "enable_roce");
                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_TYPE, DEVLINK_PARAM_BOOL);
                list = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUES_LIST);
                value = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUE);
                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_VALUE_CMODE, DEVLINK_PARAM_CMODE_RUNTIME);
                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, 1); /* a flag carries no data */
                mnl_attr_nest_end(nlh, value);
                mnl_attr_nest_end(nlh, list);
                mnl_attr_nest_end(nlh, pn);
                ASSERT_INT_EQ(devlink_parse_param(nlh, &p), -EBADMSG);

                nlh = mnl_nlmsg_put_header(memset(other, 0, sizeof(other)));
                ((struct genlmsghdr *) mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr)))->cmd =
                        DEVLINK_CMD_PARAM_GET;
                pn = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM);
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_PARAM_NAME, "max_macs");
                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_TYPE, DEVLINK_PARAM_U32);
                list = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUES_LIST);
                value = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUE);
                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_VALUE_CMODE, DEVLINK_PARAM_CMODE_DRIVERINIT);
                mnl_attr_nest_end(nlh, value); /* no data */
                mnl_attr_nest_end(nlh, list);
                mnl_attr_nest_end(nlh, pn);
                ASSERT_INT_EQ(devlink_parse_param(nlh, &p), -EBADMSG);

                nlh = mnl_nlmsg_put_header(memset(other, 0, sizeof(other)));
                ((struct genlmsghdr *) mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr)))->cmd =
                        DEVLINK_CMD_PARAM_GET;
                pn = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM);
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_PARAM_NAME, "enable_roce");
                list = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUES_LIST);
                mnl_attr_nest_end(nlh, list);
                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_TYPE, DEVLINK_PARAM_BOOL);
                mnl_attr_nest_end(nlh, pn);
                ASSERT_INT_EQ(devlink_parse_param(nlh, &p), -EBADMSG);
        }

        /* A message shorter than its headers. */
        nlh = test_build_info(buf, &test_info_cx5);
        nlh->nlmsg_len = sizeof(struct nlmsghdr) + 2;
        ASSERT_INT_EQ(devlink_parse_info(nlh, &info), -EBADMSG);
        nlh->nlmsg_len = 3;
        ASSERT_INT_EQ(devlink_parse_info(nlh, &info), -EBADMSG);
}

static int family_name_cb(const struct nlattr *attr, void *data) {
        bool *found = data;

        if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_NAME &&
            mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0 &&
            streq(mnl_attr_get_str(attr), DEVLINK_GENL_NAME))
                *found = true;
        return MNL_CB_OK;
}

static int family_reply(const struct nlmsghdr *nlh, void *userdata) {
        return mnl_attr_parse(nlh, GENL_HDRLEN, family_name_cb, userdata) < 0 ? -EBADMSG : 0;
}

/* Whether the kernel has devlink, from the controller's list of every family: another request than
 * the lookup by name that the code under test makes. */
static bool kernel_has_devlink(void) {
        _cleanup_(genl_closep) Genl *g = NULL;
        bool found = false;

        ASSERT_OK(genl_open(&g));
        ASSERT_OK(genl_transact(
                g,
                genl_request_new(g, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_DUMP),
                family_reply,
                &found,
                NULL));
        return found;
}

/* The PCI device behind a netdev of this machine ("0000:00:03.0"), else the first PCI device. */
static char *real_pci_device(void) {
        _cleanup_(closedirp) DIR *d = opendir("/sys/class/net");
        struct dirent *de;

        while (d && (de = readdir(d))) {
                _cleanup_(freep) char *link = NULL, *path = NULL;
                unsigned a, b, c, e;
                char *slash;

                if (de->d_name[0] == '.' || asprintf(&link, "/sys/class/net/%s/device", de->d_name) < 0)
                        continue;
                path = realpath(link, NULL);
                /* Up from the device (a virtio device's parent is the PCI function) to a PCI address. */
                while (path && (slash = strrchr(path, '/')) && slash != path) {
                        char end;

                        if (sscanf(slash + 1, "%x:%x:%x.%x%c", &a, &b, &c, &e, &end) == 4 &&
                            strlen(slash + 1) == 12)
                                return strdup(slash + 1);
                        *slash = '\0';
                }
        }
        closedir(TAKE_PTR(d));
        d = opendir("/sys/bus/pci/devices");
        while (d && (de = readdir(d)))
                if (de->d_name[0] != '.')
                        return strdup(de->d_name);
        return NULL;
}

static void ask_kernel(const char *pci, bool has_devlink) {
        _cleanup_(devlink_info_done) DevlinkInfo info = {};
        _cleanup_(devlink_param_done) DevlinkParam p = {};
        _cleanup_(freep) char *error = NULL;
        int r;

        /* A real device: with devlink, its driver's instance or -ENODEV (virtio_net has none). */
        r = devlink_get_pci_info(pci, &info, &error);
        printf("devlink info pci/%s: %s%s%s\n",
               pci,
               r < 0 ? devlink_strerror(r) : "read",
               error ? ": " : "",
               strempty(error));
        if (has_devlink) {
                ASSERT_TRUE(r == 0 || r == -ENODEV);
                if (r == 0)
                        ASSERT_STR_EQ(info.device, pci);
        } else
                ASSERT_INT_EQ(r, -EPROTONOSUPPORT);
        error = mfree(error);

        /* A device that does not exist. */
        r = devlink_get_pci_info("0000:ff:1f.7", &info, &error);
        ASSERT_INT_EQ(r, has_devlink ? -ENODEV : -EPROTONOSUPPORT);
        error = mfree(error);
        r = devlink_get_param("pci", "0000:ff:1f.7", "enable_roce", &p, &error);
        ASSERT_INT_EQ(r, has_devlink ? -ENODEV : -EPROTONOSUPPORT);
        error = mfree(error);

        /* What cannot be a handle is refused before asking. */
        ASSERT_INT_EQ(devlink_get_info("pci", "", &info, NULL), -EINVAL);
        ASSERT_INT_EQ(devlink_get_info("pci", "0000:c2:00.0/1", &info, NULL), -EINVAL);
        ASSERT_INT_EQ(devlink_get_param("pci", pci, NULL, &p, NULL), -EINVAL);
}

static void test_kernel(void) {
        _cleanup_(genl_closep) Genl *g = NULL;
        _cleanup_(freep) char *pci = real_pci_device();
        bool has_devlink = kernel_has_devlink();
        uint16_t id = 0;
        pid_t pid;
        int status;

        printf("this kernel %s devlink\n", has_devlink ? "has" : "has no");
        /* The controller itself always resolves, to its fixed id; a made-up family does not. */
        ASSERT_OK(genl_open(&g));
        ASSERT_OK(genl_resolve_family(g, "nlctrl", &id, NULL));
        ASSERT_INT_EQ(id, GENL_ID_CTRL);
        ASSERT_INT_EQ(genl_resolve_family(g, "halod-nofamily", &id, NULL), -ENOENT);
        ASSERT_INT_EQ(genl_resolve_family(g, "", &id, NULL), -EINVAL);
        ASSERT_INT_EQ(genl_resolve_family(g, "longer-than-genl-namsiz", &id, NULL), -EINVAL);

        if (!pci) {
                /* A machine without PCI: only the missing device can be asked about. */
                ASSERT_TRUE(!getenv("CI") || !streq(getenv("CI"), "true"));
                printf("no PCI device on this machine: asking only about a missing one\n");
                ask_kernel("0000:ff:1f.6", has_devlink);
                return;
        }
        ask_kernel(pci, has_devlink);

        /* ice's DDP state of a device that is not ice: devlink, when there is one, names no package;
         * the kernel log has no record of it. Unknown, from neither, or the log's error. */
        {
                IceDdpState state = _ICE_DDP_STATE_INVALID;
                IceDdpSource source = _ICE_DDP_SOURCE_INVALID;
                int r = ice_ddp_state_read(NULL, pci, &state, &source, NULL);

                ASSERT_TRUE(r == 0 || r == -EACCES || r == -EPERM || r == -ENOENT);
                if (r == 0) {
                        ASSERT_INT_EQ(state, ICE_DDP_UNKNOWN);
                        ASSERT_INT_EQ(source, ICE_DDP_SOURCE_NONE);
                }
        }

        /* A fresh network namespace: devlink instances stay in the namespace they belong to. */
        if (geteuid() != 0)
                return;
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                _cleanup_(devlink_info_done) DevlinkInfo info = {};

                ASSERT_TRUE(unshare(CLONE_NEWNET) >= 0);
                ASSERT_INT_EQ(devlink_get_pci_info(pci, &info, NULL), has_devlink ? -ENODEV : -EPROTONOSUPPORT);
                _exit(EXIT_SUCCESS);
        }
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SUCCESS);
}

/* DEVLINK_CMD_PARAM_SET as net/devlink/param.c reads it: the set policy's attributes
 * (netlink_gen.c, devlink_param_set_nl_policy: the handle and the name NUL-terminated strings, the type
 * and the mode u8), and devlink_param_value_get_from_info() for a bool: DEVLINK_ATTR_PARAM_VALUE_DATA
 * with no payload is true (nla_get_flag()), absent is false, and any payload is -EINVAL. */
static void test_param_set_request(void) {
        for (int value = 0; value <= 1; value++) {
                const struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = {};
                const struct nlattr *a;
                struct genlmsghdr *genl;
                struct nlmsghdr *nlh;

                memset(buf, 0, sizeof(buf));
                nlh = mnl_nlmsg_put_header(buf);
                genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
                genl->cmd = DEVLINK_CMD_PARAM_SET;
                genl->version = DEVLINK_GENL_VERSION;
                devlink_param_set_bool_put(
                        nlh, "pci", "0000:c2:00.0", "enable_roce", value, DEVLINK_PARAM_CMODE_RUNTIME);

                mnl_attr_for_each(a, nlh, sizeof(*genl)) {
                        uint16_t type = mnl_attr_get_type(a);

                        ASSERT_TRUE(type <= DEVLINK_ATTR_MAX && !tb[type]); /* each once */
                        tb[type] = a;
                }
                ASSERT_TRUE(mnl_attr_validate(tb[DEVLINK_ATTR_BUS_NAME], MNL_TYPE_NUL_STRING) >= 0);
                ASSERT_STR_EQ(mnl_attr_get_str(tb[DEVLINK_ATTR_BUS_NAME]), "pci");
                ASSERT_TRUE(mnl_attr_validate(tb[DEVLINK_ATTR_DEV_NAME], MNL_TYPE_NUL_STRING) >= 0);
                ASSERT_STR_EQ(mnl_attr_get_str(tb[DEVLINK_ATTR_DEV_NAME]), "0000:c2:00.0");
                ASSERT_TRUE(mnl_attr_validate(tb[DEVLINK_ATTR_PARAM_NAME], MNL_TYPE_NUL_STRING) >= 0);
                ASSERT_STR_EQ(mnl_attr_get_str(tb[DEVLINK_ATTR_PARAM_NAME]), "enable_roce");
                /* DEVLINK_PARAM_TYPE_BOOL is NLA_FLAG, 6: ice registers enable_roce as a generic bool. */
                ASSERT_TRUE(mnl_attr_validate(tb[DEVLINK_ATTR_PARAM_TYPE], MNL_TYPE_U8) >= 0);
                ASSERT_INT_EQ(mnl_attr_get_u8(tb[DEVLINK_ATTR_PARAM_TYPE]), 6);
                ASSERT_TRUE(mnl_attr_validate(tb[DEVLINK_ATTR_PARAM_VALUE_CMODE], MNL_TYPE_U8) >= 0);
                ASSERT_INT_EQ(mnl_attr_get_u8(tb[DEVLINK_ATTR_PARAM_VALUE_CMODE]), DEVLINK_PARAM_CMODE_RUNTIME);
                if (value) {
                        ASSERT_TRUE(tb[DEVLINK_ATTR_PARAM_VALUE_DATA]);
                        ASSERT_INT_EQ(mnl_attr_get_payload_len(tb[DEVLINK_ATTR_PARAM_VALUE_DATA]), 0);
                } else
                        ASSERT_TRUE(!tb[DEVLINK_ATTR_PARAM_VALUE_DATA]);
        }

        /* What could not be a handle or a name is refused before asking, and so is an unknown mode. */
        ASSERT_INT_EQ(
                devlink_set_param_bool("pci", "a/b", "enable_roce", true, DEVLINK_PARAM_CMODE_RUNTIME, NULL),
                -EINVAL);
        ASSERT_INT_EQ(
                devlink_set_param_bool("pci", "0000:c2:00.0", "", true, DEVLINK_PARAM_CMODE_RUNTIME, NULL),
                -EINVAL);
        ASSERT_INT_EQ(devlink_set_param_bool("pci", "0000:c2:00.0", "enable_roce", true, 7, NULL), -EINVAL);
}

/* Setting a parameter of a device that is not there: the same contract as asking for it. */
static void test_param_set_kernel(void) {
        int r = devlink_set_param_bool(
                "pci", "0000:ff:1f.6", "enable_roce", true, DEVLINK_PARAM_CMODE_RUNTIME, NULL);

        ASSERT_TRUE(
                r == (kernel_has_devlink() ? -ENODEV : -EPROTONOSUPPORT) || (geteuid() != 0 && r == -EPERM));
}

static int write_corpus(const char *dir) {
        for (size_t i = 0; i < test_n_messages; i++) {
                const TestMessage *m = &test_messages[i];
                const struct nlmsghdr *nlh = m->info ? test_build_info(buf, m->info)
                                                     : test_build_param(buf, m->param);
                _cleanup_(freep) char *path = NULL;
                _cleanup_(fclosep) FILE *f = NULL;

                ASSERT_TRUE(asprintf(&path, "%s/%s", dir, m->name) > 0);
                f = fopen(path, "we");
                ASSERT_TRUE(f);
                ASSERT_TRUE(fwrite(nlh, 1, nlh->nlmsg_len, f) == nlh->nlmsg_len);
        }
        return EXIT_SUCCESS;
}

int main(int argc, char *argv[]) {
        if (argc == 3 && streq(argv[1], "--write-corpus"))
                return write_corpus(argv[2]);

        test_parse_e810();
        test_parse_e810_states();
        test_parse_cx5();
        test_parse_escapes();
        test_params();
        test_truncated();
        test_malformed();
        test_kernel();
        test_param_set_request();
        test_param_set_kernel();
        printf("test-devlink: ok\n");
        return EXIT_SUCCESS;
}

/* SPDX-License-Identifier: MIT */
/* devlink reply messages built the way the kernel builds them, for the tests and the seed corpus. */
#include <linux/genetlink.h>
#include <string.h>

#include "devlink-messages.h"

#define F DEVLINK_VERSION_FIXED
#define R DEVLINK_VERSION_RUNNING
#define S DEVLINK_VERSION_STORED

/* An E810-CQDA2 as ice reports it (drivers/net/ethernet/intel/ice/devlink/devlink.c): the stored
 * versions repeat the running ones when no update is pending. */
static const TestVersion e810[] = {
        { F, "board.id", "K91258-000" },
        { R, "fw.mgmt", "7.3.4" },
        { R, "fw.mgmt.api", "1.7.11" },
        { R, "fw.mgmt.build", "0x5e3e4e3d" },
        { R, "fw.undi", "1.3909.0" },
        { R, "fw.psid.api", "4.91" },
        { R, "fw.bundle_id", "0x800214b5" },
        { R, "fw.app.name", "ICE OS Default Package" },
        { R, "fw.app", "1.3.36.0" },
        { R, "fw.app.bundle_id", "0xc0000001" },
        { R, "fw.netlist", "4.4.5000-2.15.0" },
        { R, "fw.netlist.build", "0x0e1b8e2c" },
        { S, "fw.undi", "1.3909.0" },
        { S, "fw.psid.api", "4.91" },
        { S, "fw.bundle_id", "0x800214b5" },
        { S, "fw.netlist", "4.4.5000-2.15.0" },
        { S, "fw.netlist.build", "0x0e1b8e2c" },
};

/* Safe Mode: the active package's name is empty (so left out) and its version all zeros. */
static const TestVersion e810_safe_mode[] = {
        { F, "board.id", "K91258-000" }, { R, "fw.mgmt", "7.3.4" },
        { R, "fw.psid.api", "4.91" },    { R, "fw.bundle_id", "0x800214b5" },
        { R, "fw.app", "0.0.0.0" },      { R, "fw.app.bundle_id", "0x00000000" },
        { S, "fw.psid.api", "4.91" },    { S, "fw.bundle_id", "0x800214b5" },
};

/* No package versions at all, on a device whose firmware devlink does describe. */
static const TestVersion e810_no_app[] = {
        { F, "board.id", "K91258-000" },
        { R, "fw.mgmt", "7.3.4" },
        { R, "fw.psid.api", "4.91" },
        { R, "fw.bundle_id", "0x800214b5" },
};

/* After nvmupdate64e wrote 4.91 over 4.40 and before the EMP reset or reboot that activates it. */
static const TestVersion e810_pending[] = {
        { F, "board.id", "K91258-000" },     { R, "fw.mgmt", "7.0.3" },
        { R, "fw.undi", "1.3534.0" },        { R, "fw.psid.api", "4.40" },
        { R, "fw.bundle_id", "0x8001c967" }, { R, "fw.app.name", "ICE COMMS Package" },
        { R, "fw.app", "1.3.45.0" },         { S, "fw.undi", "1.3909.0" },
        { S, "fw.psid.api", "4.91" },        { S, "fw.bundle_id", "0x800214b5" },
};

/* Below firmware-min, and nothing stored. */
static const TestVersion e810_old_nvm[] = {
        { F, "board.id", "K91258-000" },     { R, "fw.mgmt", "6.1.2" },
        { R, "fw.undi", "1.3682.0" },        { R, "fw.psid.api", "4.60" },
        { R, "fw.bundle_id", "0x8001e8b1" }, { R, "fw.app.name", "ICE OS Default Package" },
        { R, "fw.app", "1.3.30.0" },         { S, "fw.undi", "1.3682.0" },
        { S, "fw.psid.api", "4.60" },        { S, "fw.bundle_id", "0x8001e8b1" },
};

/* A ConnectX-5 as mlx5 reports it (Documentation/networking/devlink/mlx5.rst). */
static const TestVersion cx5[] = {
        { F, "fw.psid", "MT_0000000012" }, { R, "fw.version", "16.35.2000" }, { R, "fw", "16.35.2000" },
        { S, "fw.version", "16.35.2000" }, { S, "fw", "16.35.2000" },
};

static const TestVersion cx5_pending[] = {
        { F, "fw.psid", "MT_0000000012" }, { R, "fw.version", "16.35.2000" }, { R, "fw", "16.35.2000" },
        { S, "fw.version", "16.35.3006" }, { S, "fw", "16.35.3006" },
};

#define INFO(var, seed, drv, sn, bsn, v)            \
        const TestInfo var = { .name = seed,        \
                               .driver = drv,       \
                               .serial = sn,        \
                               .board_serial = bsn, \
                               .versions = v,       \
                               .n_versions = ELEMENTSOF(v) }

INFO(test_info_e810, "info-e810", "ice", "00-01-00-ff-ff-00-00-00", NULL, e810);
INFO(test_info_e810_safe_mode, "info-e810-safe-mode", "ice", "00-01-00-ff-ff-00-00-00", NULL, e810_safe_mode);
INFO(test_info_e810_no_app, "info-e810-no-app", "ice", NULL, NULL, e810_no_app);
INFO(test_info_e810_pending, "info-e810-pending", "ice", "00-01-00-ff-ff-00-00-00", NULL, e810_pending);
INFO(test_info_e810_old_nvm, "info-e810-old-nvm", "ice", NULL, NULL, e810_old_nvm);
INFO(test_info_cx5, "info-cx5", "mlx5_core", NULL, "MT2043K01234", cx5);
INFO(test_info_cx5_pending, "info-cx5-pending", "mlx5_core", NULL, "MT2043K01234", cx5_pending);

/* ice's enable_roce is a runtime mode parameter; mlx5's a driverinit one (set, then `devlink dev
 * reload`). */
static const TestParamValue roce_on[] = { { DEVLINK_PARAM_CMODE_RUNTIME, 1, NULL } };
static const TestParamValue roce_off[] = { { DEVLINK_PARAM_CMODE_DRIVERINIT, 0, NULL } };
static const TestParamValue max_macs[] = { { DEVLINK_PARAM_CMODE_DRIVERINIT, 128, NULL } };
static const TestParamValue steering[] = { { DEVLINK_PARAM_CMODE_RUNTIME, 0, "dmfs" } };
static const TestParamValue u16_values[] = {
        { DEVLINK_PARAM_CMODE_RUNTIME, 4096, NULL },
        { DEVLINK_PARAM_CMODE_PERMANENT, 2048, NULL },
};
static const TestParamValue u64_values[] = { { DEVLINK_PARAM_CMODE_DRIVERINIT, 0x0123456789abcdefULL, NULL } };

#define PARAM(var, seed, p, gen, t, v)                                                                      \
        const TestParam var = {                                                                             \
                .name = seed, .param = p, .generic = gen, .type = t, .values = v, .n_values = ELEMENTSOF(v) \
        }

PARAM(test_param_ice_roce_on, "param-ice-enable-roce", "enable_roce", true, DEVLINK_PARAM_BOOL, roce_on);
PARAM(test_param_mlx5_roce_off, "param-mlx5-enable-roce", "enable_roce", true, DEVLINK_PARAM_BOOL, roce_off);
PARAM(test_param_mlx5_max_macs, "param-mlx5-max-macs", "max_macs", true, DEVLINK_PARAM_U32, max_macs);
PARAM(test_param_mlx5_steering,
      "param-mlx5-flow-steering-mode",
      "flow_steering_mode",
      false,
      DEVLINK_PARAM_STRING,
      steering);
PARAM(test_param_u16, "param-u16", "test_u16", false, DEVLINK_PARAM_U16, u16_values);
PARAM(test_param_u64, "param-u64", "test_u64", false, DEVLINK_PARAM_U64, u64_values);

const TestMessage test_messages[] = {
        { "info-e810", &test_info_e810, NULL },
        { "info-e810-safe-mode", &test_info_e810_safe_mode, NULL },
        { "info-e810-no-app", &test_info_e810_no_app, NULL },
        { "info-e810-pending", &test_info_e810_pending, NULL },
        { "info-e810-old-nvm", &test_info_e810_old_nvm, NULL },
        { "info-cx5", &test_info_cx5, NULL },
        { "info-cx5-pending", &test_info_cx5_pending, NULL },
        { "param-ice-enable-roce", NULL, &test_param_ice_roce_on },
        { "param-mlx5-enable-roce", NULL, &test_param_mlx5_roce_off },
        { "param-mlx5-max-macs", NULL, &test_param_mlx5_max_macs },
        { "param-mlx5-flow-steering-mode", NULL, &test_param_mlx5_steering },
        { "param-u16", NULL, &test_param_u16 },
        { "param-u64", NULL, &test_param_u64 },
};
const size_t test_n_messages = ELEMENTSOF(test_messages);

static struct nlmsghdr *put_header(void *buf, uint8_t cmd) {
        struct nlmsghdr *nlh;
        struct genlmsghdr *genl;

        memset(buf, 0, DEVLINK_MESSAGE_MAX);
        nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = 0x15; /* whatever id the controller gave devlink */
        nlh->nlmsg_seq = 1;
        nlh->nlmsg_pid = 4242;
        genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
        genl->cmd = cmd;
        genl->version = DEVLINK_GENL_VERSION;
        /* devlink_nl_put_handle() */
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, "0000:c2:00.0");
        return nlh;
}

struct nlmsghdr *test_build_info(void *buf, const TestInfo *info) {
        static const uint16_t nest_types[] = {
                [DEVLINK_VERSION_FIXED] = DEVLINK_ATTR_INFO_VERSION_FIXED,
                [DEVLINK_VERSION_RUNNING] = DEVLINK_ATTR_INFO_VERSION_RUNNING,
                [DEVLINK_VERSION_STORED] = DEVLINK_ATTR_INFO_VERSION_STORED,
        };
        struct nlmsghdr *nlh = put_header(buf, DEVLINK_CMD_INFO_GET);

        /* The driver's .info_get first, then the core's driver name (devlink_nl_info_fill()). */
        if (info->serial)
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_SERIAL_NUMBER, info->serial);
        if (info->board_serial)
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER, info->board_serial);
        for (size_t i = 0; i < info->n_versions; i++) {
                const TestVersion *v = &info->versions[i];
                struct nlattr *nest = mnl_attr_nest_start(nlh, nest_types[v->type]);

                mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_NAME, v->name);
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_VALUE, v->value);
                mnl_attr_nest_end(nlh, nest);
        }
        if (info->driver)
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_DRIVER_NAME, info->driver);
        return nlh;
}

struct nlmsghdr *test_build_param(void *buf, const TestParam *param) {
        struct nlmsghdr *nlh = put_header(buf, DEVLINK_CMD_PARAM_GET);
        struct nlattr *p, *list;

        p = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_PARAM_NAME, param->param);
        if (param->generic)
                mnl_attr_put(nlh, DEVLINK_ATTR_PARAM_GENERIC, 0, NULL);
        mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_TYPE, param->type);
        list = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUES_LIST);
        for (size_t i = 0; i < param->n_values; i++) {
                const TestParamValue *v = &param->values[i];
                struct nlattr *value = mnl_attr_nest_start(nlh, DEVLINK_ATTR_PARAM_VALUE);

                mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_VALUE_CMODE, v->cmode);
                switch (param->type) {
                case DEVLINK_PARAM_BOOL:
                        if (v->number)
                                mnl_attr_put(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, 0, NULL);
                        break;
                case DEVLINK_PARAM_U8:
                        mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, (uint8_t) v->number);
                        break;
                case DEVLINK_PARAM_U16:
                        mnl_attr_put_u16(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, (uint16_t) v->number);
                        break;
                case DEVLINK_PARAM_U32:
                        mnl_attr_put_u32(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, (uint32_t) v->number);
                        break;
                case DEVLINK_PARAM_U64:
                        /* nla_put_u64_64bit(): a DEVLINK_ATTR_PAD first when the value would be
                         * misaligned; here it is aligned, as on the kernel's x86 path. */
                        mnl_attr_put_u64(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, v->number);
                        break;
                case DEVLINK_PARAM_STRING:
                        mnl_attr_put_strz(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, v->string);
                        break;
                default:
                        break;
                }
                mnl_attr_nest_end(nlh, value);
        }
        mnl_attr_nest_end(nlh, list);
        mnl_attr_nest_end(nlh, p);
        return nlh;
}

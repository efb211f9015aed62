/* SPDX-License-Identifier: MIT */
/* devlink requests: DEVLINK_CMD_INFO_GET, DEVLINK_CMD_PARAM_GET and DEVLINK_CMD_PARAM_SET for one
 * device, with the errno contract of devlink.h. */
#include <linux/genetlink.h>

#include "nic/devlink.h"
#include "nic/genl.h"

/* A devlink handle is "bus/device"; the kernel compares both as strings. Anything that could not be
 * one is refused before asking, so that -EINVAL from the kernel means what devlink.h says. */
static bool handle_part_is_valid(const char *s) {
        size_t n = s ? strlen(s) : 0;

        return n > 0 && n < 128 && !strchr(s, '/');
}

static int open_devlink(Genl **ret_genl, uint16_t *ret_family, char **ret_error) {
        _cleanup_(genl_closep) Genl *g = NULL;
        int r;

        r = genl_open(&g);
        if (r < 0)
                return r;
        r = genl_resolve_family(g, DEVLINK_GENL_NAME, ret_family, ret_error);
        if (r == -ENOENT)
                return -EPROTONOSUPPORT; /* the controller has no such family: no devlink in this kernel */
        if (r < 0)
                return r;
        *ret_genl = TAKE_PTR(g);
        return 0;
}

/* -EPROTONOSUPPORT means only "no devlink family"; the devlink family itself never answers it, and
 * if it ever did, the contract would still hold. */
static int devlink_errno(int r) {
        return r == -EPROTONOSUPPORT ? -EIO : r;
}

typedef struct InfoReply {
        DevlinkInfo info;
        bool have;
} InfoReply;

static int info_reply(const struct nlmsghdr *nlh, void *userdata) {
        InfoReply *reply = userdata;
        DevlinkInfo info;
        int r;

        r = devlink_parse_info(nlh, &info);
        if (r < 0)
                return r;
        devlink_info_done(&reply->info); /* one request, one reply: the last one wins */
        reply->info = info;
        reply->have = true;
        return 0;
}

int devlink_get_info(const char *bus, const char *device, DevlinkInfo *ret, char **ret_error) {
        _cleanup_(genl_closep) Genl *g = NULL;
        InfoReply reply = {};
        struct nlmsghdr *nlh;
        uint16_t family;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!handle_part_is_valid(bus) || !handle_part_is_valid(device))
                return -EINVAL;

        r = open_devlink(&g, &family, ret_error);
        if (r < 0)
                return r;
        nlh = genl_request_new(g, family, DEVLINK_CMD_INFO_GET, DEVLINK_GENL_VERSION, 0);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, bus);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, device);
        r = genl_transact(g, nlh, info_reply, &reply, ret_error);
        if (r >= 0 && !reply.have)
                r = -EBADMSG; /* acked without a reply */
        if (r < 0) {
                devlink_info_done(&reply.info);
                return devlink_errno(r);
        }
        *ret = reply.info;
        return 0;
}

typedef struct ParamReply {
        DevlinkParam param;
        bool have;
} ParamReply;

static int param_reply(const struct nlmsghdr *nlh, void *userdata) {
        ParamReply *reply = userdata;
        DevlinkParam param;
        int r;

        r = devlink_parse_param(nlh, &param);
        if (r < 0)
                return r;
        devlink_param_done(&reply->param);
        reply->param = param;
        reply->have = true;
        return 0;
}

int devlink_get_param(const char *bus, const char *device, const char *name, DevlinkParam *ret, char **ret_error) {
        _cleanup_(genl_closep) Genl *g = NULL;
        ParamReply reply = {};
        struct nlmsghdr *nlh;
        uint16_t family;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!handle_part_is_valid(bus) || !handle_part_is_valid(device) || !handle_part_is_valid(name))
                return -EINVAL;

        r = open_devlink(&g, &family, ret_error);
        if (r < 0)
                return r;
        nlh = genl_request_new(g, family, DEVLINK_CMD_PARAM_GET, DEVLINK_GENL_VERSION, 0);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, bus);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, device);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_PARAM_NAME, name);
        r = genl_transact(g, nlh, param_reply, &reply, ret_error);
        /* net/devlink/param.c answers a name it does not find with a bare -EINVAL; the request is
         * well-formed (checked above), so that is all it can mean. */
        if (r == -EINVAL)
                r = -ENOENT;
        if (r >= 0 && !reply.have)
                r = -EBADMSG;
        if (r < 0) {
                devlink_param_done(&reply.param);
                return devlink_errno(r);
        }
        if (!streq(reply.param.name, name)) {
                devlink_param_done(&reply.param);
                return -EBADMSG; /* the kernel answered about another parameter */
        }
        *ret = reply.param;
        return 0;
}

void devlink_param_set_bool_put(
        struct nlmsghdr *nlh,
        const char *bus,
        const char *device,
        const char *name,
        bool value,
        enum devlink_param_cmode cmode) {
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, bus);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, device);
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_PARAM_NAME, name);
        mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_TYPE, DEVLINK_PARAM_BOOL);
        if (value)
                mnl_attr_put(nlh, DEVLINK_ATTR_PARAM_VALUE_DATA, 0, NULL);
        mnl_attr_put_u8(nlh, DEVLINK_ATTR_PARAM_VALUE_CMODE, (uint8_t) cmode);
}

int devlink_set_param_bool(
        const char *bus,
        const char *device,
        const char *name,
        bool value,
        enum devlink_param_cmode cmode,
        char **ret_error) {
        _cleanup_(genl_closep) Genl *g = NULL;
        struct nlmsghdr *nlh;
        uint16_t family;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!handle_part_is_valid(bus) || !handle_part_is_valid(device) || !handle_part_is_valid(name) ||
            cmode > DEVLINK_PARAM_CMODE_MAX)
                return -EINVAL;

        r = open_devlink(&g, &family, ret_error);
        if (r < 0)
                return r;
        nlh = genl_request_new(g, family, DEVLINK_CMD_PARAM_SET, DEVLINK_GENL_VERSION, 0);
        devlink_param_set_bool_put(nlh, bus, device, name, value, cmode);
        r = genl_transact(g, nlh, /* reply= */ NULL, NULL, ret_error);
        /* As for PARAM_GET: a name the driver does not have is a bare -EINVAL, unless the driver said
         * why (its extended ack). */
        if (r == -EINVAL && (!ret_error || !*ret_error))
                r = -ENOENT;
        return devlink_errno(r);
}

const char *devlink_strerror(int error) {
        switch (error) {
        case -EPROTONOSUPPORT:
                return "this kernel has no devlink";
        case -ENODEV:
                return "the driver registers no devlink instance for the device";
        case -ENOMEDIUM:
                return "not asked";
        default:
                return strerror(-error);
        }
}

/* SPDX-License-Identifier: MIT */
/* Parsing devlink's reply messages (DEVLINK_CMD_INFO_GET, DEVLINK_CMD_PARAM_GET) into plain structs,
 * every attribute validated: the kernel's own layout (net/devlink/dev.c, net/devlink/param.c). */
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "basic/untrusted-string.h"
#include "nic/devlink.h"
#include "nic/genl.h"

/* Bounds against a message that repeats an attribute without end; ice reports about 20 versions. */
#define DEVLINK_VERSIONS_MAX 512U

static const char *const devlink_version_type_table[_DEVLINK_VERSION_TYPE_MAX] = {
        [DEVLINK_VERSION_FIXED] = "fixed",
        [DEVLINK_VERSION_RUNNING] = "running",
        [DEVLINK_VERSION_STORED] = "stored",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(devlink_version_type, DevlinkVersionType);

const char *devlink_param_cmode_to_string(enum devlink_param_cmode cmode) {
        switch (cmode) {
        case DEVLINK_PARAM_CMODE_RUNTIME:
                return "runtime";
        case DEVLINK_PARAM_CMODE_DRIVERINIT:
                return "driverinit";
        case DEVLINK_PARAM_CMODE_PERMANENT:
                return "permanent";
        default:
                return NULL;
        }
}

void devlink_info_done(DevlinkInfo *info) {
        if (!info)
                return;
        for (size_t i = 0; i < info->n_versions; i++) {
                free(info->versions[i].name);
                free(info->versions[i].value);
        }
        info->versions = mfree(info->versions);
        info->n_versions = 0;
        info->bus = mfree(info->bus);
        info->device = mfree(info->device);
        info->driver = mfree(info->driver);
        info->serial = mfree(info->serial);
        info->board_serial = mfree(info->board_serial);
}

const char *devlink_info_version(const DevlinkInfo *info, DevlinkVersionType type, const char *name) {
        if (!info || !name)
                return NULL;
        for (size_t i = 0; i < info->n_versions; i++)
                if (info->versions[i].type == type && streq(info->versions[i].name, name))
                        return info->versions[i].value;
        return NULL;
}

void devlink_param_done(DevlinkParam *p) {
        if (!p)
                return;
        p->name = mfree(p->name);
        for (size_t i = 0; i < ELEMENTSOF(p->values); i++)
                p->values[i].string = mfree(p->values[i].string);
}

const DevlinkParamValue *devlink_param_value(const DevlinkParam *p, enum devlink_param_cmode cmode) {
        if (!p || (unsigned) cmode >= ELEMENTSOF(p->values) || !p->values[cmode].present)
                return NULL;
        return &p->values[cmode];
}

/* A copy of a NUL-terminated string attribute, replacing what a repeated attribute said before. */
static int take_string(const struct nlattr *attr, char **dst) {
        char *s;

        if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
                return -EBADMSG;
        /* Firmware and board strings come from the device: escaped before anything shows them. */
        s = untrusted_escape_dup(mnl_attr_get_str(attr));
        if (!s)
                return -ENOMEM;
        free(*dst);
        *dst = s;
        return 0;
}

/* True when the attributes fill len bytes exactly. libmnl's walk stops quietly at an attribute that
 * runs past the end; the kernel never sends one, so a message cut short is refused here instead of
 * read as a shorter one. */
static bool attributes_fill(const void *start, size_t len) {
        const uint8_t *at = start;

        while (len > 0) {
                const struct nlattr *attr = (const struct nlattr *) at;
                size_t step;

                if (len < sizeof(struct nlattr) || attr->nla_len < sizeof(struct nlattr) || attr->nla_len > len)
                        return false;
                step = MNL_ALIGN(attr->nla_len);
                if (step >= len)
                        return true; /* the last one, its padding (if any) cut off with the message */
                at += step;
                len -= step;
        }
        return true;
}

static bool nest_is_valid(const struct nlattr *nest) {
        return mnl_attr_validate(nest, MNL_TYPE_NESTED) >= 0 &&
                attributes_fill(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest));
}

/* The command of a reply, and attributes that fill it. */
static int check_header(const struct nlmsghdr *nlh, uint8_t want_cmd) {
        uint8_t cmd;

        if (genl_message_command(nlh, &cmd) < 0 || cmd != want_cmd)
                return -EBADMSG;
        if (!attributes_fill(
                    (const uint8_t *) mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN,
                    mnl_nlmsg_get_payload_len(nlh) - GENL_HDRLEN))
                return -EBADMSG;
        return 0;
}

typedef struct InfoParse {
        DevlinkInfo *info;
        int error;
} InfoParse;

static int version_attr_cb(const struct nlattr *attr, void *data) {
        DevlinkVersion *v = data;
        int r;

        switch (mnl_attr_get_type(attr)) {
        case DEVLINK_ATTR_INFO_VERSION_NAME:
                r = take_string(attr, &v->name);
                break;
        case DEVLINK_ATTR_INFO_VERSION_VALUE:
                r = take_string(attr, &v->value);
                break;
        default:
                return MNL_CB_OK;
        }
        if (r < 0) {
                errno = -r;
                return MNL_CB_ERROR;
        }
        return MNL_CB_OK;
}

static int add_version(DevlinkInfo *info, DevlinkVersionType type, const struct nlattr *nest) {
        DevlinkVersion v = { .type = type }, *a;

        if (info->n_versions >= DEVLINK_VERSIONS_MAX || !nest_is_valid(nest))
                return -EBADMSG;
        errno = 0;
        if (mnl_attr_parse_nested(nest, version_attr_cb, &v) < 0 || !v.name || !v.value) {
                int r = errno == ENOMEM ? -ENOMEM : -EBADMSG;

                free(v.name);
                free(v.value);
                return r;
        }
        a = reallocarray(info->versions, info->n_versions + 1, sizeof(DevlinkVersion));
        if (!a) {
                free(v.name);
                free(v.value);
                return -ENOMEM;
        }
        info->versions = a;
        info->versions[info->n_versions++] = v;
        return 0;
}

static int info_attr_cb(const struct nlattr *attr, void *data) {
        InfoParse *p = data;
        int r;

        switch (mnl_attr_get_type(attr)) {
        case DEVLINK_ATTR_BUS_NAME:
                r = take_string(attr, &p->info->bus);
                break;
        case DEVLINK_ATTR_DEV_NAME:
                r = take_string(attr, &p->info->device);
                break;
        case DEVLINK_ATTR_INFO_DRIVER_NAME:
                r = take_string(attr, &p->info->driver);
                break;
        case DEVLINK_ATTR_INFO_SERIAL_NUMBER:
                r = take_string(attr, &p->info->serial);
                break;
        case DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER:
                r = take_string(attr, &p->info->board_serial);
                break;
        case DEVLINK_ATTR_INFO_VERSION_FIXED:
                r = add_version(p->info, DEVLINK_VERSION_FIXED, attr);
                break;
        case DEVLINK_ATTR_INFO_VERSION_RUNNING:
                r = add_version(p->info, DEVLINK_VERSION_RUNNING, attr);
                break;
        case DEVLINK_ATTR_INFO_VERSION_STORED:
                r = add_version(p->info, DEVLINK_VERSION_STORED, attr);
                break;
        default:
                return MNL_CB_OK; /* not used, or newer than this code */
        }
        if (r < 0) {
                p->error = r;
                return MNL_CB_ERROR;
        }
        return MNL_CB_OK;
}

int devlink_parse_info(const struct nlmsghdr *nlh, DevlinkInfo *ret) {
        DevlinkInfo info = {};
        InfoParse p = { .info = &info };

        if (check_header(nlh, DEVLINK_CMD_INFO_GET) < 0)
                return -EBADMSG;
        if (mnl_attr_parse(nlh, GENL_HDRLEN, info_attr_cb, &p) < 0 || p.error < 0)
                goto fail;
        /* Every devlink reply names the instance it describes. */
        if (!info.bus || !info.device) {
                p.error = -EBADMSG;
                goto fail;
        }
        *ret = info;
        return 0;

fail:
        devlink_info_done(&info);
        return p.error == -ENOMEM ? -ENOMEM : -EBADMSG;
}

typedef struct ParamParse {
        DevlinkParam *param;
        bool have_type;
        int error;
        /* One DEVLINK_ATTR_PARAM_VALUE while it is read. */
        int cmode;
        const struct nlattr *data;
} ParamParse;

static int value_attr_cb(const struct nlattr *attr, void *userdata) {
        ParamParse *p = userdata;

        switch (mnl_attr_get_type(attr)) {
        case DEVLINK_ATTR_PARAM_VALUE_CMODE:
                if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
                        return MNL_CB_ERROR;
                p->cmode = mnl_attr_get_u8(attr);
                break;
        case DEVLINK_ATTR_PARAM_VALUE_DATA:
                p->data = attr;
                break;
        default:
                break;
        }
        return MNL_CB_OK;
}

/* One value: its mode, and its data by the parameter's type. */
static int parse_value(ParamParse *p, const struct nlattr *nest) {
        DevlinkParamValue v = { .present = true };
        const struct nlattr *d;

        p->cmode = -1;
        p->data = NULL;
        if (!nest_is_valid(nest) || mnl_attr_parse_nested(nest, value_attr_cb, p) < 0)
                return -EBADMSG;
        if (p->cmode < 0)
                return -EBADMSG;
        d = p->data;

        switch (p->param->type) {
        case DEVLINK_PARAM_BOOL:
                /* NLA_FLAG: present and empty is true, absent is false. */
                if (d && mnl_attr_validate(d, MNL_TYPE_FLAG) < 0)
                        return -EBADMSG;
                v.number = !!d;
                break;
        case DEVLINK_PARAM_U8:
                if (!d || mnl_attr_validate(d, MNL_TYPE_U8) < 0)
                        return -EBADMSG;
                v.number = mnl_attr_get_u8(d);
                break;
        case DEVLINK_PARAM_U16:
                if (!d || mnl_attr_validate(d, MNL_TYPE_U16) < 0)
                        return -EBADMSG;
                v.number = mnl_attr_get_u16(d);
                break;
        case DEVLINK_PARAM_U32:
                if (!d || mnl_attr_validate(d, MNL_TYPE_U32) < 0)
                        return -EBADMSG;
                v.number = mnl_attr_get_u32(d);
                break;
        case DEVLINK_PARAM_U64:
                if (!d || mnl_attr_validate(d, MNL_TYPE_U64) < 0)
                        return -EBADMSG;
                v.number = mnl_attr_get_u64(d);
                break;
        case DEVLINK_PARAM_STRING:
                if (!d || mnl_attr_validate(d, MNL_TYPE_NUL_STRING) < 0)
                        return -EBADMSG;
                v.string = untrusted_escape_dup(mnl_attr_get_str(d));
                if (!v.string)
                        return -ENOMEM;
                break;
        default:
                /* A type newer than this code: the mode is known, its value is not kept. */
                break;
        }

        /* A mode newer than this code is not kept either. */
        if ((unsigned) p->cmode >= ELEMENTSOF(p->param->values)) {
                free(v.string);
                return 0;
        }
        free(p->param->values[p->cmode].string);
        p->param->values[p->cmode] = v;
        return 0;
}

static int param_attr_cb(const struct nlattr *attr, void *userdata) {
        ParamParse *p = userdata;
        const struct nlattr *value;
        int r = 0;

        switch (mnl_attr_get_type(attr)) {
        case DEVLINK_ATTR_PARAM_NAME:
                r = take_string(attr, &p->param->name);
                break;
        case DEVLINK_ATTR_PARAM_GENERIC:
                if (mnl_attr_validate(attr, MNL_TYPE_FLAG) < 0)
                        r = -EBADMSG;
                p->param->generic = true;
                break;
        case DEVLINK_ATTR_PARAM_TYPE:
                if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
                        r = -EBADMSG;
                else {
                        p->param->type = mnl_attr_get_u8(attr);
                        p->have_type = true;
                }
                break;
        case DEVLINK_ATTR_PARAM_VALUES_LIST:
                /* The kernel puts the type before the values; a list before it cannot be read. */
                if (!p->have_type || !nest_is_valid(attr)) {
                        r = -EBADMSG;
                        break;
                }
                mnl_attr_for_each_nested(value, attr) {
                        if (mnl_attr_get_type(value) != DEVLINK_ATTR_PARAM_VALUE)
                                continue;
                        r = parse_value(p, value);
                        if (r < 0)
                                break;
                }
                break;
        default:
                break;
        }
        if (r < 0) {
                p->error = r;
                return MNL_CB_ERROR;
        }
        return MNL_CB_OK;
}

static int param_top_attr_cb(const struct nlattr *attr, void *userdata) {
        ParamParse *p = userdata;

        if (mnl_attr_get_type(attr) != DEVLINK_ATTR_PARAM)
                return MNL_CB_OK;
        if (!nest_is_valid(attr)) {
                p->error = -EBADMSG;
                return MNL_CB_ERROR;
        }
        return mnl_attr_parse_nested(attr, param_attr_cb, p) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

int devlink_parse_param(const struct nlmsghdr *nlh, DevlinkParam *ret) {
        DevlinkParam param = {};
        ParamParse p = { .param = &param };

        if (check_header(nlh, DEVLINK_CMD_PARAM_GET) < 0)
                return -EBADMSG;
        if (mnl_attr_parse(nlh, GENL_HDRLEN, param_top_attr_cb, &p) < 0 || p.error < 0)
                goto fail;
        if (!param.name || !p.have_type) {
                p.error = -EBADMSG;
                goto fail;
        }
        *ret = param;
        return 0;

fail:
        devlink_param_done(&param);
        return p.error == -ENOMEM ? -ENOMEM : -EBADMSG;
}

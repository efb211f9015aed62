/* SPDX-License-Identifier: MIT */
/* RDMA netlink's device and QP replies into records (the attributes and their types are the kernel's
 * include/uapi/rdma/rdma_netlink.h; drivers/infiniband/core/nldev.c fills them). */
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/rdma-qp-dump.h"

typedef struct Top {
        const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
} Top;

static int top_cb(const struct nlattr *attr, void *data) {
        Top *t = data;
        uint16_t type = mnl_attr_get_type(attr);

        if (type < RDMA_NLDEV_ATTR_MAX)
                t->tb[type] = attr;
        return MNL_CB_OK;
}

static bool is_nldev(const struct nlmsghdr *nlh, uint16_t cmd) {
        return nlh->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
}

static int get_u32(const struct nlattr *a, uint32_t *ret) {
        if (!a)
                return 0;
        if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
                return -EBADMSG;
        *ret = mnl_attr_get_u32(a);
        return 0;
}

static int get_u8(const struct nlattr *a, uint8_t *ret) {
        if (!a)
                return 0;
        if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
                return -EBADMSG;
        *ret = mnl_attr_get_u8(a);
        return 0;
}

static int get_str(const struct nlattr *a, char buf[RDMA_QP_NAME_MAX]) {
        if (!a)
                return 0;
        if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
                return -EBADMSG;
        /* the kernel's names are short (IB_DEVICE_NAME_MAX 64, module names); longer ones are cut */
        snprintf(buf, RDMA_QP_NAME_MAX, "%s", mnl_attr_get_str(a));
        return 0;
}

int rdma_dev_parse(const struct nlmsghdr *nlh, uint32_t *ret_index, char ret_name[RDMA_QP_NAME_MAX]) {
        Top t = {};
        uint32_t index = 0;
        char name[RDMA_QP_NAME_MAX] = "";

        if (!nlh || !ret_index)
                return -EINVAL;
        if (!is_nldev(nlh, RDMA_NLDEV_CMD_GET))
                return -ENODATA;
        if (mnl_attr_parse(nlh, 0, top_cb, &t) < 0 || !t.tb[RDMA_NLDEV_ATTR_DEV_INDEX])
                return -EBADMSG;
        if (get_u32(t.tb[RDMA_NLDEV_ATTR_DEV_INDEX], &index) < 0 ||
            get_str(t.tb[RDMA_NLDEV_ATTR_DEV_NAME], name) < 0)
                return -EBADMSG;
        *ret_index = index;
        if (ret_name)
                memcpy(ret_name, name, RDMA_QP_NAME_MAX);
        return 0;
}

static int append(RdmaQp **qps, size_t *n, const RdmaQp *qp) {
        /* the capacity is implied: 16, then doubled each time *n reaches it */
        if (*n == 0 || (*n >= 16 && (*n & (*n - 1)) == 0)) {
                RdmaQp *p = reallocarray(*qps, *n < 16 ? 16 : *n * 2, sizeof(RdmaQp));

                if (!p)
                        return -ENOMEM;
                *qps = p;
        }
        (*qps)[(*n)++] = *qp;
        return 0;
}

typedef struct EntryCtx {
        const RdmaQp *base;
        RdmaQp **qps;
        size_t *n;
        int error;
} EntryCtx;

static int entry_cb(const struct nlattr *entry, void *data) {
        EntryCtx *c = data;
        RdmaQp qp = *c->base;
        Top t = {};
        int r;

        if (mnl_attr_get_type(entry) != RDMA_NLDEV_ATTR_RES_QP_ENTRY)
                return MNL_CB_OK;
        if (mnl_attr_parse_nested(entry, top_cb, &t) < 0 || !t.tb[RDMA_NLDEV_ATTR_RES_LQPN]) {
                c->error = -EBADMSG;
                return MNL_CB_ERROR;
        }
        if (get_u32(t.tb[RDMA_NLDEV_ATTR_PORT_INDEX], &qp.port) < 0 ||
            get_u32(t.tb[RDMA_NLDEV_ATTR_RES_LQPN], &qp.lqpn) < 0 ||
            get_u8(t.tb[RDMA_NLDEV_ATTR_RES_TYPE], &qp.type) < 0 ||
            get_u8(t.tb[RDMA_NLDEV_ATTR_RES_STATE], &qp.state) < 0 ||
            get_u32(t.tb[RDMA_NLDEV_ATTR_RES_PID], &qp.pid) < 0 ||
            get_str(t.tb[RDMA_NLDEV_ATTR_RES_KERN_NAME], qp.kern_name) < 0) {
                c->error = -EBADMSG;
                return MNL_CB_ERROR;
        }
        qp.has_pid = t.tb[RDMA_NLDEV_ATTR_RES_PID] != NULL;
        r = append(c->qps, c->n, &qp);
        if (r < 0) {
                c->error = r;
                return MNL_CB_ERROR;
        }
        return MNL_CB_OK;
}

int rdma_qp_parse(const struct nlmsghdr *nlh, RdmaQp **qps, size_t *n_qps) {
        RdmaQp base = {};
        Top t = {};

        if (!nlh || !qps || !n_qps)
                return -EINVAL;
        if (!is_nldev(nlh, RDMA_NLDEV_CMD_RES_QP_GET))
                return -ENODATA;
        if (mnl_attr_parse(nlh, 0, top_cb, &t) < 0)
                return -EBADMSG;
        if (get_u32(t.tb[RDMA_NLDEV_ATTR_DEV_INDEX], &base.dev_index) < 0 ||
            get_str(t.tb[RDMA_NLDEV_ATTR_DEV_NAME], base.dev_name) < 0)
                return -EBADMSG;
        if (!t.tb[RDMA_NLDEV_ATTR_RES_QP])
                return 0; /* a device without QPs */

        EntryCtx c = { .base = &base, .qps = qps, .n = n_qps };
        if (mnl_attr_parse_nested(t.tb[RDMA_NLDEV_ATTR_RES_QP], entry_cb, &c) < 0)
                return c.error < 0 ? c.error : -EBADMSG;
        return 0;
}

const char *rdma_res_qp_state_to_string(uint8_t state) {
        static const char *const table[RDMA_QP_STATE_MAX + 1] = { "RESET", "INIT", "RTR", "RTS",
                                                                  "SQD",   "SQE",  "ERR" };

        return state <= RDMA_QP_STATE_MAX ? table[state] : NULL;
}

const char *rdma_res_qp_type_to_string(uint8_t type) {
        /* enum ib_qp_type (include/rdma/ib_verbs.h), as iproute2's rdma prints them */
        switch (type) {
        case 0:
                return "SMI";
        case 1:
                return "GSI";
        case 2:
                return "RC";
        case 3:
                return "UC";
        case 4:
                return "UD";
        case 5:
                return "RAW_IPV6";
        case 6:
                return "RAW_ETHERTYPE";
        case 8:
                return "RAW_PACKET";
        case 9:
                return "XRC_INI";
        case 10:
                return "XRC_TGT";
        case 0xff:
                return "DRIVER";
        default:
                return NULL;
        }
}

/* SPDX-License-Identifier: MIT */
/* The QP dump over RDMA netlink: the devices, then each device's QPs. */
#include <rdma/rdma_netlink.h>
#include <stdlib.h>

#include "rdma/rdma-qp-dump.h"

typedef struct Devices {
        uint32_t index[64];
        size_t n;
} Devices;

static int dev_cb(const struct nlmsghdr *nlh, void *userdata) {
        Devices *d = userdata;
        uint32_t index;
        int r;

        r = rdma_dev_parse(nlh, &index, NULL);
        if (r == -ENODATA)
                return 0;
        if (r < 0)
                return r;
        if (d->n >= ELEMENTSOF(d->index))
                return -E2BIG; /* a node has one or two RDMA devices */
        d->index[d->n++] = index;
        return 0;
}

typedef struct Qps {
        RdmaQp *qps;
        size_t n;
} Qps;

static int qp_cb(const struct nlmsghdr *nlh, void *userdata) {
        Qps *q = userdata;
        int r;

        r = rdma_qp_parse(nlh, &q->qps, &q->n);
        return r == -ENODATA ? 0 : r;
}

int rdma_qp_dump(NetlinkSocket *s, RdmaQp **ret, size_t *ret_n) {
        _cleanup_(freep) RdmaQp *qps = NULL;
        struct nlmsghdr *nlh;
        Devices devs = {};
        Qps q = {};
        int r;

        if (!s || !ret || !ret_n)
                return -EINVAL;

        nlh = netlink_request_new(s, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_DUMP);
        r = netlink_transact(s, nlh, dev_cb, &devs, NULL, NULL);
        if (r < 0)
                return r;

        for (size_t i = 0; i < devs.n; i++) {
                nlh = netlink_request_new(
                        s, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET), NLM_F_DUMP);
                mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, devs.index[i]);
                r = netlink_transact(s, nlh, qp_cb, &q, NULL, NULL);
                qps = q.qps;
                /* a device removed between the two dumps has no QPs left to count */
                if (r < 0 && r != -ENODEV)
                        return r;
                q.qps = TAKE_PTR(qps);
        }
        *ret = q.qps;
        *ret_n = q.n;
        return 0;
}

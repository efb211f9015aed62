/* SPDX-License-Identifier: MIT */
/* Fuzzes the RDMA netlink parsers (lib/rdma/rdma-qp-dump.h: device and QP replies) and the grouping of
 * what they parsed by holder. The input is a run of netlink messages; the seeds are real dumps from
 * the vm suite's guests (tests/data/rdma/res-qp-rxe-6.1.0-56). */
#include <libmnl/libmnl.h>
#include <stdint.h>
#include <string.h>

#include "netlink-walk.h"
#include "rdma/rdma-qp-dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static RdmaQp *qps;
static size_t n_qps;

static void parse_one(const struct nlmsghdr *nlh) {
        char name[RDMA_QP_NAME_MAX];
        uint32_t index;
        volatile size_t n = 0;

        if (rdma_dev_parse(nlh, &index, name) >= 0)
                n += strlen(name) + index;
        (void) rdma_qp_parse(nlh, &qps, &n_qps);
        (void) n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) RdmaQpHolder *holders = NULL;
        size_t n_holders;

        qps = NULL;
        n_qps = 0;
        fuzz_netlink_walk(data, size, parse_one);
        (void) rdma_qp_holders(qps, n_qps, NULL, NULL, &holders, &n_holders);
        for (size_t i = 0; i < n_qps; i++)
                (void) rdma_res_qp_type_to_string(qps[i].type);
        qps = mfree(qps);
        return 0;
}

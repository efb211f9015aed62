/* SPDX-License-Identifier: MIT */
/* Fuzzes the taskstats reply parser (lib/rdma/taskstats.h): a run of netlink messages, each parsed for
 * the pid of the seed's reply and for the pid the message itself names (when it names one). */
#include <libmnl/libmnl.h>
#include <stdint.h>

#include "netlink-walk.h"
#include "rdma/taskstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_one(const struct nlmsghdr *nlh) {
        char name[64], tiny[2];

        uint32_t tgid;

        (void) taskstats_comm_parse(nlh, 14569, name, sizeof(name), &tgid);
        (void) taskstats_comm_parse(nlh, nlh->nlmsg_pid, tiny, sizeof(tiny), NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        fuzz_netlink_walk(data, size, parse_one);
        return 0;
}

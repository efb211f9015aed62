/* SPDX-License-Identifier: MIT */
/* Each port's RDMA device is found once per snapshot: the qos counters, the host's qos state and the
 * transport sample share the look-up, which is made again only after SNAPSHOT_LINKS is forgotten. On
 * f34counters' rxe tree (tests/data/rdma/hw-counters/rxe, from rdma_rxe's own sysfs files). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "snapshot/snapshot-qos-host.h"
#include "snapshot/snapshot-rdma-name.h"
#include "snapshot/snapshot.h"
#include "tests.h"

static const char profile_text[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { name: \"eth1\" } } }\n"
        "nodes:\n"
        "  head: { links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n";

int main(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(snapshot_done) Snapshot s = {};
        _cleanup_(freep) char *cmd = NULL, *gone = NULL, *back = NULL;
        char root[] = "/tmp/halod-test-rdma-name-XXXXXX";
        FabricPort port = { .link = (char *) "rdma0", .ifname = (char *) "eth1", .has_address = true };
        const char *device = NULL;
        unsigned rdma_port = 0;
        Host host;
        NodeContext c;

        ASSERT_TRUE(mkdtemp(root));
        ASSERT_TRUE(asprintf(&cmd, "cp -a '%s/rdma/hw-counters/rxe/.' '%s'", TEST_DATA_DIR, root) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
        ASSERT_OK(profile_load_string("t.yaml", profile_text, strlen(profile_text), &p, NULL));
        host = (Host){ .root = root };
        c = (NodeContext){ .host = &host, .profile = p, .node = profile_find_node(p, "head") };
        inet_pton(AF_INET, "192.168.100.1", &port.address);
        snapshot_init(&s, &c);
        ASSERT_OK(snapshot_seed_ports(&s, &port, 1));

        /* The counters find rxe0 on eth1. */
        ASSERT_OK(snapshot_read(&s, SNAPSHOT_QOS_COUNTERS));
        ASSERT_STR_EQ(s.qos_counters[0].rdma_device, "rxe0");

        /* The class gone from the tree: the same snapshot does not look again. */
        ASSERT_TRUE(asprintf(&gone, "%s/sys/class/infiniband", root) > 0);
        ASSERT_TRUE(asprintf(&back, "%s/sys/class/infiniband.away", root) > 0);
        ASSERT_INT_EQ(rename(gone, back), 0);
        ASSERT_OK(snapshot_rdma_name(&s, 0, &device, &rdma_port));
        ASSERT_STR_EQ(device, "rxe0");
        ASSERT_INT_EQ(rdma_port, 1);

        /* After the links are forgotten (an apply), it is looked up again: now there is none. */
        snapshot_forget(&s, SNAPSHOT_LINKS);
        ASSERT_TRUE(snapshot_rdma_name(&s, 0, &device, &rdma_port) < 0);
        /* That answer is kept too, until the next forget. */
        ASSERT_INT_EQ(rename(back, gone), 0);
        ASSERT_TRUE(snapshot_rdma_name(&s, 0, &device, &rdma_port) < 0);
        snapshot_forget(&s, SNAPSHOT_LINKS);
        ASSERT_OK(snapshot_rdma_name(&s, 0, &device, &rdma_port));
        ASSERT_STR_EQ(device, "rxe0");

        free(cmd);
        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
        return 0;
}

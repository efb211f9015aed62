/* SPDX-License-Identifier: MIT */
/* The registry of check ids: one line per check. A new check adds its line here, in its group. */
#include "check/check-registry.h"
#include "check/check-fabric-baseline.h"
#include "check/check-gpu.h"
#include "check/check-hosts.h"
#include "check/check-kernel.h"
#include "check/check-link.h"
#include "check/check-nic.h"
#include "check/check-node.h"
#include "check/check-profile.h"
#include "check/check-qos-dcb.h"
#include "check/check-qos-host.h"
#include "check/check-rdma.h"

#define P(x) SNAPSHOT_##x

/* clang-format off */
const CheckRegistryEntry check_registry[] = {
        /* id, group, run, parts, section in haloctl(1), what it judges */
        /* -- check registry -- */
        { "profile", "profile", check_profile, 0, "profile",
          "the profile loads, is valid and names this machine as one of its nodes" },
        { "kernel.cmdline", "kernel.", check_kernel, P(CMDLINE) | P(BOOT), "kernel.",
          "the running kernel's command line has every parameter the profile asks for" },
        { "kernel.cmdline-next", "kernel.", check_kernel, P(CMDLINE) | P(BOOT), "kernel.",
          "the next boot's command line, as the boot loader picks it, carries the same parameters" },
        { "kernel.iommu", "kernel.", check_kernel_devices, P(NICS) | P(GPUS), "kernel.",
          "the fabric NICs and amdgpu's GPUs are in identity IOMMU domains (iommu=pt)" },
        { "kernel.aspm", "kernel.", check_kernel_devices, P(NICS), "kernel.",
          "the fabric NIC's PCIe link has ASPM off (pcie_aspm=off)" },
        { "gpu.vram", "gpu.", check_gpu, P(GPUS), "gpu.",
          "the GPU's VRAM carve-out is at most the profile's gpu.vram-max" },
        { "gpu.gtt", "gpu.", check_gpu, P(CMDLINE) | P(GPUS) | P(MEMINFO), "gpu.",
          "the GPU's GTT (the unified memory amdgpu may map) is what the profile asks" },
        { "gpu.devices", "gpu.", check_gpu, P(GPUS) | P(ETC_GROUP) | P(DEVICES), "gpu.",
          "ROCm's device nodes (/dev/kfd, a render node) exist, and who may open them" },
        { "node.memory", "node.", check_node, P(MEMINFO), "node.",
          "MemTotal is at least the profile's memory-min" },
        { "node.hostname", "node.", check_node, P(ETC_HOSTS), "node.",
          "this node's own hostname does not resolve to a loopback address (127.0.1.1)" },
        { "nic.pci", "nic.", check_nic, P(NICS), "nic.",
          "the fabric NIC is present and one of nic.pci-ids" },
        { "nic.pcie", "nic.", check_nic, P(NICS), "nic.",
          "the NIC's PCIe link runs at the speed and width it is capable of" },
        { "nic.speed", "nic.", check_nic, P(NICS), "nic.",
          "the Ethernet speed the link negotiated is at least nic.speed-min" },
        { "nic.driver", "nic.", check_nic, P(NICS), "nic.",
          "the driver bound to the NIC is nic.driver" },
        { "nic.firmware", "nic.", check_nic, P(NICS), "nic.",
          "the NIC's running firmware (and ice's DDP package) is as the profile asks" },
        { "nic.roce", "nic.", check_nic, P(NICS), "nic.",
          "the NIC runs RoCE (devlink's enable_roce), not iWARP or nothing" },
        { "rdma.driver", "rdma.", check_rdma, P(RDMA) | P(MTU) | P(NICS) | P(CMDLINE) | P(MODULES), "rdma.",
          "the RDMA module of the NIC's family is loaded, and nothing keeps it from loading at the next boot" },
        { "rdma.device", "rdma.", check_rdma, P(RDMA) | P(MTU) | P(NICS), "rdma.",
          "an RDMA device is bound to the fabric interface" },
        { "rdma.port", "rdma.", check_rdma, P(RDMA) | P(MTU) | P(NICS), "rdma.",
          "the RDMA port is ACTIVE with physical state LINK_UP" },
        { "rdma.gid", "rdma.", check_rdma, P(RDMA) | P(MTU) | P(NICS), "rdma.",
          "the GID table has an entry of rdma.gid's type for the link's IPv4 address" },
        { "rdma.mtu", "rdma.", check_rdma, P(RDMA) | P(MTU) | P(NICS), "rdma.",
          "the port's active MTU is at least rdma.min-active-mtu and follows the interface MTU" },
        { "rdma.memlock", "rdma.", check_rdma, P(RDMA) | P(MTU) | P(NICS) | P(MEMLOCK) | P(ETC_GROUP) | P(DEVICES), "rdma.",
          "the memlock limit a workload gets is unlimited or at least rdma.memlock" },
        { "link.<NAME>.present", "link.", check_links, P(LINKS), "link.",
          "the link's match resolves to exactly one interface the kernel knows" },
        { "link.<NAME>.up", "link.", check_links, P(LINKS), "link.",
          "the interface is administratively up and has a carrier" },
        { "link.<NAME>.mtu", "link.", check_links, P(LINKS), "link.",
          "the interface's MTU is the profile's" },
        { "link.<NAME>.address", "link.", check_links, P(LINKS), "link.",
          "the interface holds the node's address, with its prefix, for the link" },
        { "link.<NAME>.zone", "link.", check_links, P(LINKS), "link.",
          "firewalld's runtime zone of the interface is the profile's firewall-zone" },
        { "link.<NAME>.routes", "link.", check_links, P(LINKS), "link.",
          "the node's routes that leave by the link are in the kernel's main table" },
        { "link.<NAME>.forwarding", "link.", check_links, P(LINKS), "link.",
          "IPv4 forwarding is on on the interface when the node says forwarding: true" },
        { "link.<NAME>.owner", "link.", check_links, P(LINKS) | P(NET_CONFIG), "link.",
          "no configuration other than halod's (networkd, netplan) takes the interface" },
        { "qos.<NAME>.pfc", "qos.", check_qos_dcb, P(LINKS) | P(DCB), "qos.",
          "PFC is on exactly the priorities of the link's qos: pfc" },
        { "qos.<NAME>.trust", "qos.", check_qos_dcb, P(LINKS) | P(DCB), "qos.",
          "the driver classifies by qos: trust first, with every dscp-priority entry" },
        { "qos.<NAME>.ecn", "qos.", check_qos_host, P(QOS_HOST), "qos.",
          "RoCE ECN at the notification and reaction points is as qos: ecn says" },
        { "qos.<NAME>.tos", "qos.", check_qos_host, P(QOS_HOST), "qos.",
          "rdma_cm's default RoCE ToS of the link's RDMA port is the profile's" },
        { "qos.<NAME>.pause", "qos.", check_qos_host, P(QOS_HOST) | P(QOS_COUNTERS), "qos.",
          "no pause storm (PFC pause frames) since the last verify" },
        { "hosts.<NODE>", "hosts.", check_hosts, P(ETC_HOSTS) | P(NAMES), "hosts.",
          "the other node's hostname: resolves on this node to its fabric addresses" },
        { "helper", "helper", NULL, 0, "helper",
          "halod only: what halod-helper.service writes (CDI spec, /etc/hosts block, links) is right" },
        { "peer.<NODE>.reachable", "peer.", NULL, 0, "peer.",
          "the other node's halod answers on its fabric address" },
        { "peer.<NODE>.mtu", "peer.", NULL, P(MTU), "peer.",
          "a datagram of the link's MTU, don't-fragment, crosses the link both ways" },
        { "peer.<NODE>.latency", "peer.", NULL, 0, "peer.",
          "the echo probes' median and p99 round trip, and lost probes" },
        { "peer.<NODE>.profile", "peer.", NULL, 0, "peer.",
          "the other node runs the same profile (the same digest)" },
        { "peer.<NODE>.rdma", "peer.", NULL, 0, "peer.",
          "an RC queue pair to the other node's halod connects and carries RDMA" },
        { "fabric.<NODE>.baseline", "fabric.", check_fabric_baseline, P(RDMA_BASELINE) | P(NICS) | P(MTU), "fabric.",
          "haloctl probe's latest RDMA latency and WRITE throughput against its baseline and the PCIe/port ceiling" },
        { "fabric.<NODE>.transport", "fabric.", NULL, P(TRANSPORT), "fabric.",
          "halod only: whether bulk traffic to the other node moved over RDMA or TCP" },
        { "fabric.<NAME>.loss", "fabric.", NULL, P(QOS_COUNTERS), "fabric.",
          "halod only: retransmissions and sequence errors per second against the packets moved" },
        { "fabric.<NAME>.congestion", "fabric.", NULL, P(QOS_COUNTERS), "fabric.",
          "halod only: CNPs, ECN marks and pause frames per second against the packets moved" },
        { "link.<NAME>.flaps", "link.", NULL, P(QOS_COUNTERS), "link.",
          "halod only: how often the link went down in the last hour (carrier, RDMA link_downed)" },
        { "nic.<NAME>.errors", "nic.", NULL, P(QOS_COUNTERS), "nic.",
          "halod only: CRC, frame and PHY symbol errors, and packets the host missed, against the packets moved" },
        /* -- end check registry -- */
};
/* clang-format on */

const size_t check_registry_size = ELEMENTSOF(check_registry);

/* The length of the name at the start of s that a placeholder stands for: up to the next dot. */
static size_t name_length(const char *s) {
        return strcspn(s, ".");
}

bool check_registry_id_matches(const char *pattern, const char *id) {
        while (*pattern) {
                if (*pattern == '<') {
                        const char *end = strchr(pattern, '>');
                        size_t n = name_length(id);

                        if (!end || n == 0)
                                return false;
                        pattern = end + 1;
                        id += n;
                        continue;
                }
                if (*pattern != *id)
                        return false;
                pattern++;
                id++;
        }
        return *id == '\0';
}

const CheckRegistryEntry *check_registry_find(const char *id) {
        /* An id of its own ("hosts.loopback", say) before a pattern that could stand for it. */
        for (size_t i = 0; i < check_registry_size; i++)
                if (streq(check_registry[i].id, id))
                        return &check_registry[i];
        for (size_t i = 0; i < check_registry_size; i++)
                if (check_registry_id_matches(check_registry[i].id, id))
                        return &check_registry[i];
        return NULL;
}

size_t check_registry_count(CheckSnapshotGroupFunc run) {
        size_t n = 0;

        for (size_t i = 0; i < check_registry_size; i++)
                if (check_registry[i].run == run)
                        n++;
        return n;
}

const char *snapshot_part_name(SnapshotPart part) {
        static const char *const names[] = {
                [0] = "ports",      [1] = "links",          [2] = "nics",     [3] = "dcb",
                [4] = "qos-host",   [5] = "qos-counters",   [6] = "rdma",     [7] = "mtu",
                [8] = "located",    [9] = "cmdline",        [10] = "boot",    [11] = "gpus",
                [12] = "meminfo",   [13] = "etc-hosts",     [14] = "memlock", [15] = "etc-group",
                [16] = "devices",   [17] = "names",         [18] = "modules", [19] = "net-config",
                [20] = "transport", [21] = "rdma-baseline",
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (part == (SnapshotPart) (1u << i))
                        return names[i];
        return NULL;
}

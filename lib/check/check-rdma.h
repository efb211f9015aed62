/* SPDX-License-Identifier: MIT */
/* The "rdma." checks: rdma.driver, rdma.device, rdma.port, rdma.gid, rdma.mtu, rdma.memlock. */
#pragma once

#include "basic/rdma-mtu.h" /* roce_mtu_for_netdev_mtu(), which rdma.mtu and the profile share */
#include "boot/module-state.h"
#include "check/check-ports.h"
#include "check/checks.h"
#include "limits/memlock-facts.h"
#include "nic/nic-family.h"
#include "rdma/rdma.h"

/* From the snapshot s its caller read (its RDMA devices, netdev MTUs and NIC facts). */
int check_rdma(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* rdma.driver for a port whose NIC is driven by nic_driver: whether the RDMA module (irdma, mlx5_ib; NULL
 * when the NIC's family is unknown) is loaded, and what keeps it from loading at boot, from its state as
 * the snapshot read it (SNAPSHOT_MODULES: snapshot_module_state(); NULL only when module is). */
int check_rdma_driver_evaluate(
        const ModuleState *state, const char *nic_driver, const char *module, PortCheck *ret);

/* rdma.mtu from the values; exported for the tests. netdev_mtu 0: unknown. The device of a known
 * driver must show what its rule gives (basic/rdma-mtu.h); of an unknown one, what any rule gives. */
int check_rdma_mtu_evaluate(
        const char *device,
        RoceMtuDriver driver,
        uint32_t port,
        unsigned active_mtu,
        unsigned max_mtu,
        const char *ifname,
        unsigned netdev_mtu,
        unsigned min_active_mtu,
        PortCheck *ret);

/* rdma.gid of device d's port for address: found and g are what rdma_device_find_gid() returned for
 * the profile's type want; ifname names the netdev in the advice. */
int check_rdma_gid_evaluate(
        const RdmaDevice *d,
        RdmaGidType want,
        struct in_addr address,
        const char *ifname,
        int found,
        const RdmaGid *g,
        PortCheck *ret);

/* rdma.memlock from the memlock facts f (the snapshot's SNAPSHOT_MEMLOCK, or a test's) and the
 * uverbs lines of check_rdma_uverbs(): pure. want: bytes, UINT64_MAX for unlimited, 0 for no minimum. */
int check_rdma_memlock_judge(
        const MemlockFacts *f, char **uverbs_problems, char **uverbs_ok, uint64_t want, PortCheck *ret);
/* The /dev/infiniband/uverbs* devices and /etc/group of the snapshot's host facts h (SNAPSHOT_DEVICES,
 * SNAPSHOT_ETC_GROUP): a line for each problem (none there, not read-writable by everyone or group rdma)
 * in problems, for each usable device in ok. family: the fabric NIC's, whose RDMA module the advice
 * names; NIC_FAMILY_UNKNOWN: the host's PCI bus says (h->nic_family). */
int check_rdma_uverbs(const SnapshotHost *h, NicFamily family, char ***problems, char ***ok);
/* What a reboot (or `systemctl daemon-reexec`) would bring into force of f against want: systemd's
 * DefaultLimitMEMLOCK when the files set enough and the running manager, which read them before they
 * did, gives services less (rdma.memlock then fails saying so). Pure. Returns 0 with *ret NULL when
 * nothing is pending, 0 with the text for Check.pending_reboot, or -ENOMEM. */
int check_rdma_memlock_pending_reboot(const MemlockFacts *f, uint64_t want, char **ret);
/* rdma.memlock: the limits a workload gets (f: services, login sessions, podman's containers)
 * against the profile's want, and the uverbs devices of h (check_rdma_uverbs(), family as it takes
 * it): pure. Each source is named with the fix for the one that falls short; a source that
 * could not be read makes it warn, never pass. */
int check_rdma_memlock_evaluate(
        const MemlockFacts *f, const SnapshotHost *h, NicFamily family, uint64_t want, PortCheck *ret);

/* SPDX-License-Identifier: MIT */
/* The "rdma." checks: rdma.driver, rdma.device, rdma.port, rdma.gid, rdma.mtu, rdma.memlock. */
#pragma once

#include "basic/rdma-mtu.h" /* roce_mtu_for_netdev_mtu(), which rdma.mtu and the profile share */
#include "check/check-ports.h"
#include "check/checks.h"
#include "check/memlock-sources.h"
#include "nic/nic-family.h"
#include "rdma/rdma.h"

/* From the snapshot s (its RDMA devices and netdev MTUs; NULL: one of its own). */
int check_rdma(const NodeContext *c, Snapshot *s, CheckList *out);

/* rdma.driver for a port whose NIC is driven by nic_driver: whether the RDMA module (irdma, mlx5_ib;
 * NULL when the NIC's family is unknown) is loaded below the host root, and what keeps it from loading
 * at boot (boot/modprobe-conf.h), with the running kernel's command line as the snapshot read it
 * (Snapshot.host: cmdline NULL when it could not be read, cmdline_error the errno of reading it). */
int check_rdma_driver_evaluate(
        const Host *h,
        const KernelCmdline *cmdline,
        int cmdline_error,
        const char *nic_driver,
        const char *module,
        PortCheck *ret);

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

/* What rdma.memlock knows of the limit services get: systemd's DefaultLimitMEMLOCK, read over D-Bus
 * by the caller, so that the tests can hand in any value. */
typedef enum MemlockServicesState {
        MEMLOCK_SERVICES_READ,       /* limit holds the manager's default */
        MEMLOCK_SERVICES_NOT_ASKED,  /* --root: the running manager does not describe the tree */
        MEMLOCK_SERVICES_NO_SYSTEMD, /* the host was not booted with systemd, and PID 1's limit is
                                      * not known either: error says why */
        MEMLOCK_SERVICES_PID1,       /* no systemd: limit holds PID 1's, which every process inherits */
        MEMLOCK_SERVICES_UNREADABLE, /* asked, and no answer: error says why */
        _MEMLOCK_SERVICES_STATE_MAX,
        _MEMLOCK_SERVICES_STATE_INVALID = -EINVAL,
} MemlockServicesState;

typedef struct MemlockServices {
        MemlockServicesState state;
        MemlockLimit limit;
        const char *error;
        /* With systemd: PID 1's own limit (PROC_PID1_LIMITS; systemd raises its own to an eighth of RAM,
         * at least 64 MiB: src/core/main.c, bump_rlimit_memlock()), which a login keeps when it opens
         * from a process that is no service's; has_pid1 false: pid1_error says why (NULL: not read). */
        bool has_pid1;
        MemlockLimit pid1;
        const char *pid1_error;
        /* Running services whose process has less than its unit gives now (started before
         * DefaultLimitMEMLOCK was raised): "sshd.service (PID 812, 8 MiB)"; stale_error: why they could
         * not be compared (NULL: they were, or not asked). */
        char *const *stale;
        const char *stale_error;
} MemlockServices;

/* Everything rdma.memlock judges, read once (check-rdma-memlock-read.c). */
typedef struct MemlockFacts {
        MemlockServices services;
        char *services_error; /* services.error points here when the reader set it */
        char *pid1_error;     /* and services.pid1_error here */
        char **stale;         /* and services.stale here */
        char *stale_error;    /* and services.stale_error here */
        LimitsConf pam;       /* limits.conf and limits.d */
        bool podman;          /* podman is installed: containers holds its containers.conf */
        ContainersConf containers;
        char **uverbs_problems; /* check_rdma_uverbs()'s lines */
        char **uverbs_ok;
} MemlockFacts;

void memlock_facts_done(MemlockFacts *f);
/* Reads the sources below the host root other than the services' limit into f: returns 0 or -ENOMEM
 * (what cannot be read is recorded for the judgement). */
int memlock_facts_read_files(const Host *h, NicFamily family, MemlockFacts *f);
/* rdma.memlock from f: pure. */
int check_rdma_memlock_judge(const MemlockFacts *f, uint64_t want, PortCheck *ret);

/* rdma.memlock: the limits a workload gets against the profile's (want: bytes, UINT64_MAX for
 * unlimited, 0 for no minimum): services (from services), login sessions (limits.conf and limits.d
 * below the host root) and, where podman is installed, podman's containers (containers.conf); and
 * the /dev/infiniband/uverbs* devices. Each source is named with the fix for the one that falls
 * short; a source that cannot be read makes it warn, never pass. */
int check_rdma_memlock_evaluate(const Host *h, const MemlockServices *services, uint64_t want, PortCheck *ret);
/* /dev/infiniband/uverbs* below the host root: a line for each problem (none there, not
 * read-writable by everyone or group rdma) in problems, for each usable device in ok. family: the
 * fabric NIC's, whose RDMA module the advice names; NIC_FAMILY_UNKNOWN: the host's PCI bus says. */
int check_rdma_uverbs(const Host *h, NicFamily family, char ***problems, char ***ok);
/* The same for the node: services' limit from the running systemd over the system bus; family as
 * check_rdma_uverbs() takes it. */
int check_rdma_memlock_run(const NodeContext *c, NicFamily family, PortCheck *ret);

/* SPDX-License-Identifier: MIT */
/* Everything rdma.memlock judges of the memlock limits a workload gets, read once per snapshot
 * (SNAPSHOT_MEMLOCK): systemd's default for services (or PID 1's limit), the services started before
 * it was raised, pam_limits' files for login sessions and podman's containers.conf where podman is
 * installed, all below the host root. */
#pragma once

#include <errno.h>

#include "limits/memlock-sources.h"

/* What is known of the limit services get: systemd's DefaultLimitMEMLOCK, read over D-Bus by
 * memlock_facts_read(), or handed in by a test. */
typedef enum MemlockServicesState {
        MEMLOCK_SERVICES_READ,       /* limit holds the manager's default */
        MEMLOCK_SERVICES_NOT_ASKED,  /* --root on a booted tree (run/systemd/system): its manager's
                                      * default is the running one's, which the tree does not hold */
        MEMLOCK_SERVICES_FILES,      /* --root on a tree that was not booted (systemd installed, no
                                      * run/systemd/system, no proc/1/limits): systemd has loaded nothing
                                      * yet, so limit holds what its system.conf and drop-ins will give */
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

/* The facts, as memlock_facts_read() leaves them; services' pointers point into the struct, which
 * stays where it was read. */
typedef struct MemlockFacts {
        MemlockServices services;
        char *services_error; /* services.error points here when the reader set it */
        char *pid1_error;     /* and services.pid1_error here */
        char **stale;         /* and services.stale here */
        char *stale_error;    /* and services.stale_error here */
        LimitsConf pam;       /* limits.conf and limits.d */
        SystemdConf systemd;  /* DefaultLimitMEMLOCK= as system.conf and its drop-ins set it */
        bool podman;          /* podman is installed: containers holds its containers.conf */
        ContainersConf containers;
} MemlockFacts;

void memlock_facts_done(MemlockFacts *f);
/* Reads the sources below the host root other than the services' limit into f: returns 0 or -ENOMEM
 * (what cannot be read is recorded for the judgement). */
int memlock_facts_read_files(const Host *h, MemlockFacts *f);
/* Reads every source into f: on the running system the services' limit from the running systemd over
 * the system bus (or PID 1's limit without systemd); below --root PID 1's limit from the tree. Returns
 * 0 or -ENOMEM. */
int memlock_facts_read(const Host *h, MemlockFacts *f);

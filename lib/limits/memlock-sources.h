/* SPDX-License-Identifier: MIT */
/* Where a workload's memlock limit comes from: systemd's default for services, the PAM limits for
 * login sessions, podman's default_ulimits for containers. rdma.memlock reads these, never halod's
 * own limit. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "basic/host.h"

/* The value of a limit that is unlimited (RLIM_INFINITY, "infinity", "unlimited", -1). */
#define MEMLOCK_UNLIMITED UINT64_MAX

typedef struct MemlockLimit {
        uint64_t soft; /* bytes; MEMLOCK_UNLIMITED when unlimited */
        uint64_t hard;
} MemlockLimit;

/* ---- services: the systemd manager's DefaultLimitMEMLOCK (memlock-systemd.c) ---- */

/* systemd answers within milliseconds; a hung manager must not hang the checks. */
#define SYSTEMD_CALL_TIMEOUT_USEC (5U * 1000U * 1000U)

/* Reads DefaultLimitMEMLOCKSoft and DefaultLimitMEMLOCK of org.freedesktop.systemd1.Manager: what
 * every service gets that sets no LimitMEMLOCK= of its own. On failure *ret_error says why. */
int systemd_default_memlock(sd_bus *bus, MemlockLimit *ret, char **ret_error);

/* ---- services, as configured: DefaultLimitMEMLOCK= in system.conf and its drop-ins (systemd-conf.c) ---- */

#define SYSTEMD_CONF_FILE "/etc/systemd/system.conf"
#define SYSTEMD_CONF_DROPIN_DIR "/etc/systemd/system.conf.d"
/* What systemd gives services where no file sets DefaultLimitMEMLOCK=: the limit PID 1 started with,
 * raised to at least DEFAULT_RLIMIT_MEMLOCK, 8 MiB, the kernel's own default since 5.16
 * (src/basic/constants.h; src/core/main.c, fallback_rlimit_memlock()). */
#define SYSTEMD_BUILTIN_MEMLOCK (8ULL * 1024ULL * 1024ULL)

typedef struct SystemdConf {
        bool set; /* some file sets DefaultLimitMEMLOCK= (the last one to set it wins) */
        MemlockLimit limit;
        char *file; /* where; NULL when !set */
        unsigned line;
        char **rejected;   /* "FILE:LINE: why": values systemd ignores, or halod does not read */
        char **unreadable; /* "FILE (error)" */
} SystemdConf;

void systemd_conf_done(SystemdConf *c);
/* Parses a DefaultLimitMEMLOCK= value as systemd's rlimit_parse(): "infinity", "64M", "8M:infinity".
 * Returns 0, -EINVAL when it is not one, -EOPNOTSUPP for a fraction or a sum, which halod does not read. */
int systemd_rlimit_parse(const char *value, MemlockLimit *ret);
/* Applies one file's text: the [Manager] section's DefaultLimitMEMLOCK= lines. Returns 0 or -ENOMEM. */
int systemd_conf_parse(SystemdConf *c, const char *file, const char *text);
/* Reads the first system.conf found in /etc, /run, /usr/local/lib and /usr/lib, then the system.conf.d
 * drop-ins of those directories in file-name order (the first directory's copy of a name winning), below
 * the host root, as systemd's config_parse_standard_file_with_dropins() does. */
int systemd_conf_read(const Host *h, SystemdConf *c);

/* ---- every process on a host without systemd: PID 1's limit (memlock-pid1.c) ---- */

/* Every process descends from PID 1 and inherits its limits unless something raises them: without
 * systemd's DefaultLimitMEMLOCK, PID 1's own limit is what the workload starts from. */
#define PROC_PID1_LIMITS "/proc/1/limits"

/* Reads the "Max locked memory" row of a /proc/PID/limits text (soft and hard, in bytes, or
 * "unlimited"). Returns 0; -ENOENT without that row; -EBADMSG when its columns are not limits. */
int proc_limits_parse_memlock(const char *text, MemlockLimit *ret);

/* ---- services started before DefaultLimitMEMLOCK was raised (memlock-stale.c) ---- */

typedef struct MemlockProcess {
        pid_t pid;
        uint64_t soft;
} MemlockProcess;

/* The PPid of a /proc/PID/status text (fs/proc/array.c, task_state(): "PPid:\t%d\n"; 0 for PID 1
 * and the kernel's threads): -1 when it has none. */
pid_t proc_status_ppid(const char *text) _pure_;
/* The children of PID 1 below the host root (a service's main process is one) whose soft memlock limit
 * in /proc/PID/limits is below below. Processes that cannot be read are left out. Returns 0, or the
 * errno of listing /proc. */
int memlock_stale_candidates(const Host *h, uint64_t below, MemlockProcess **ret, size_t *ret_n);
/* Of those, the ones whose unit is a service that now gives more (LimitMEMLOCKSoft, asked of systemd
 * over bus): "sshd.service (PID 812, 8 MiB)". On failure *ret_error says why. */
int memlock_stale_services(sd_bus *bus, const Host *h, uint64_t below, char ***ret, char **ret_error);

/* ---- login sessions: pam_limits' limits.conf and limits.d (limits-conf.c) ---- */

#define LIMITS_CONF_FILE "/etc/security/limits.conf"
#define LIMITS_CONF_DROPIN_DIR "/etc/security/limits.d"

typedef struct LimitsLine {
        char *domain;    /* as written: "*", "alice", "@rdma", "1000:2000", "@100:" */
        bool soft, hard; /* which limits the line sets: "soft", "hard" or "-" (both) */
        uint64_t value;  /* bytes (the file counts KiB); MEMLOCK_UNLIMITED */
        char *file;
        unsigned line;
} LimitsLine;

typedef struct LimitsConf {
        LimitsLine *lines; /* every valid memlock line, in the order pam_limits applies them */
        size_t n_lines;
        char **rejected;   /* "FILE:LINE: why": memlock lines pam_limits ignores */
        char **misread;    /* "FILE:LINE: how": values pam_limits reads otherwise than they look ("64M") */
        char **unreadable; /* "FILE (error)": files that exist but could not be read */
        /* Debian's pam_limits, also Ubuntu's (debian/patches 027_pam_limits_better_init_allow_explicit_root),
         * applies neither "*" nor group lines to root, only lines that name root; upstream's
         * (modules/pam_limits/pam_limits.c, parse_config_file()) applies them to every user. */
        bool wildcard_skips_root;
} LimitsConf;

void limits_conf_done(LimitsConf *c);
/* Whether an os-release text has "debian" among the words of ID= or ID_LIKE=: Debian and the
 * distributions built from it (Ubuntu: ID_LIKE=debian), which ship linux-pam with Debian's patches. */
bool os_release_names_debian(const char *text) _pure_;
/* Adds the memlock lines of one file's text; file names them. Returns 0 or -ENOMEM. */
int limits_conf_parse(LimitsConf *c, const char *file, const char *text);
/* Reads limits.conf, then limits.d/\*.conf in C order (as pam_limits does), below the host root, and
 * from os-release whether the host's pam_limits is Debian's (ID or ID_LIKE "debian"). */
int limits_conf_read(const Host *h, LimitsConf *c);
/* The lines that decide the soft and hard limit of domain ("*", "alice", "root", "@rdma"): its own lines
 * override the lines for "*" (which do not count for "root" where wildcard_skips_root), and among
 * equals the last one wins. NULL: no line sets it, so the session keeps the limit it starts from. */
void limits_conf_effective(
        const LimitsConf *c, const char *domain, const LimitsLine **ret_soft, const LimitsLine **ret_hard);

/* ---- podman containers: default_ulimits in containers.conf (containers-conf.c) ---- */

#define PODMAN_BINARY "/usr/bin/podman"

typedef struct ContainersConf {
        bool has_memlock; /* default_ulimits, as the last file that sets it leaves it, has memlock */
        MemlockLimit memlock;
        char *memlock_entry; /* "memlock=-1:-1" as written */
        char *file;          /* where that default_ulimits is set; NULL: no file sets it */
        unsigned line;
        char **rejected;   /* "FILE:LINE: why": what podman would refuse too */
        char **unreadable; /* "FILE (error)" */
} ContainersConf;

void containers_conf_done(ContainersConf *c);
/* Applies one file's text: a default_ulimits in its [containers] table replaces what earlier files
 * set (or extends it, with an {append = true} element). Returns 0 or -ENOMEM. */
int containers_conf_parse(ContainersConf *c, const char *file, const char *text);
/* Reads /usr/share/containers/containers.conf, its containers.conf.d, /etc/containers/containers.conf
 * and its containers.conf.d (\*.conf in C order), below the host root, in podman's order. */
int containers_conf_read(const Host *h, ContainersConf *c);
/* Parses one default_ulimits entry "memlock=SOFT[:HARD]" (bytes, -1 for unlimited): 1 and the
 * limit when it is memlock's, 0 for another resource's; -EINVAL when malformed. */
int podman_ulimit_parse_memlock(const char *entry, MemlockLimit *ret);
/* Whether podman is installed below the host root (PODMAN_BINARY or /usr/local/bin/podman). */
bool podman_installed(const Host *h);

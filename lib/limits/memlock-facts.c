/* SPDX-License-Identifier: MIT */
/* Reading what rdma.memlock judges: systemd's default limit (or PID 1's), limits.conf and limits.d,
 * podman's containers.conf where podman is installed, all below the host root. */
#include <stdio.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "basic/strv.h"
#include "limits/memlock-facts.h"

void memlock_facts_done(MemlockFacts *f) {
        f->services_error = mfree(f->services_error);
        f->pid1_error = mfree(f->pid1_error);
        f->stale = strv_free(f->stale);
        f->stale_error = mfree(f->stale_error);
        limits_conf_done(&f->pam);
        systemd_conf_done(&f->systemd);
        containers_conf_done(&f->containers);
}

bool podman_installed(const Host *h) {
        static const char *const paths[] = { PODMAN_BINARY, "/usr/local/bin/podman" };

        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                _cleanup_(freep) char *p = NULL;
                struct stat st;

                if (host_path(h, paths[i], &p) >= 0 && stat(p, &st) >= 0 && S_ISREG(st.st_mode))
                        return true;
        }
        return false;
}

int memlock_facts_read_files(const Host *h, MemlockFacts *f) {
        int r;

        r = limits_conf_read(h, &f->pam);
        if (r < 0)
                return r;
        r = systemd_conf_read(h, &f->systemd);
        if (r < 0)
                return r;
        f->podman = podman_installed(h);
        if (!f->podman)
                return 0;
        return containers_conf_read(h, &f->containers);
}

/* systemd's manager binary (merged /usr or not) below the host root. */
static bool systemd_installed(const Host *h) {
        return host_path_exists(h, "/usr/lib/systemd/systemd") || host_path_exists(h, "/lib/systemd/systemd");
}

/* PID 1's limit, which every process of a host without systemd inherits. */
static int read_pid1(const Host *h, MemlockServices *ret, char **ret_error) {
        _cleanup_(freep) char *text = NULL;
        int r;

        *ret = (MemlockServices){ .state = MEMLOCK_SERVICES_NO_SYSTEMD };
        r = host_read_file(h, PROC_PID1_LIMITS, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return asprintf(ret_error, PROC_PID1_LIMITS ": %s", strerror(-r)) < 0 ? -ENOMEM : 0;
        r = proc_limits_parse_memlock(text, &ret->limit);
        if (r < 0)
                return asprintf(
                               ret_error,
                               PROC_PID1_LIMITS " has %s",
                               r == -ENOENT ? "no \"Max locked memory\" row"
                                            : "a \"Max locked memory\" row that holds no limits") < 0
                        ? -ENOMEM
                        : 0;
        ret->state = MEMLOCK_SERVICES_PID1;
        return 0;
}

/* With systemd, PID 1's own limit: what su and runuser keep when their caller is no service. */
static int read_pid1_own(const Host *h, MemlockFacts *f) {
        MemlockServices pid1;
        int r;

        r = read_pid1(h, &pid1, &f->pid1_error);
        if (r < 0)
                return r;
        f->services.has_pid1 = pid1.state == MEMLOCK_SERVICES_PID1;
        f->services.pid1 = pid1.limit;
        f->services.pid1_error = f->pid1_error;
        return 0;
}

/* systemd's default, from the running manager, and the running services that started before it was
 * raised; never halod's own limit, which is not the workload's. */
static int read_services(const Host *h, MemlockFacts *f) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        MemlockServices *ret = &f->services;
        int r;

        *ret = (MemlockServices){ .state = MEMLOCK_SERVICES_UNREADABLE };
        if (!host_is_running_system(h)) {
                /* A tree is judged by PID 1's limit only when it says it has no systemd (no
                 * /run/systemd/system, as sd_booted() asks) and carries a proc/1/limits. */
                if (!host_path_exists(h, "/run/systemd/system") && host_path_exists(h, PROC_PID1_LIMITS))
                        return read_pid1(h, ret, &f->services_error);
                /* A tree with systemd installed and no sign of a boot: what its files say is what the
                 * services will get; memlock_facts_read() fills the limit in once they are read. */
                ret->state = !host_path_exists(h, "/run/systemd/system") && systemd_installed(h)
                        ? MEMLOCK_SERVICES_FILES
                        : MEMLOCK_SERVICES_NOT_ASKED;
                return read_pid1_own(h, f);
        }
        if (sd_booted() <= 0)
                return read_pid1(h, ret, &f->services_error);
        r = read_pid1_own(h, f);
        if (r < 0)
                return r;
        r = sd_bus_open_system(&bus);
        if (r < 0)
                return asprintf(&f->services_error, "no system bus: %s", strerror(-r)) < 0 ? -ENOMEM : 0;
        r = systemd_default_memlock(bus, &ret->limit, &f->services_error);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        ret->state = MEMLOCK_SERVICES_READ;
        r = memlock_stale_services(bus, h, ret->limit.soft, &f->stale, &f->stale_error);
        if (r == -ENOMEM)
                return r;
        ret->stale = f->stale;
        ret->stale_error = f->stale_error;
        return 0;
}

int memlock_facts_read(const Host *h, MemlockFacts *f) {
        int r;

        r = read_services(h, f);
        if (r < 0)
                return r;
        f->services.error = f->services_error;
        r = memlock_facts_read_files(h, f);
        if (r < 0)
                return r;
        if (f->services.state == MEMLOCK_SERVICES_FILES)
                f->services.limit = f->systemd.set
                        ? f->systemd.limit
                        : (MemlockLimit){ SYSTEMD_BUILTIN_MEMLOCK, SYSTEMD_BUILTIN_MEMLOCK };
        return 0;
}

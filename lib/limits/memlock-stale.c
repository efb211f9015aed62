/* SPDX-License-Identifier: MIT */
/* The running services that still have less memlock than their unit gives now: systemd sets a service's
 * limits when it starts it (src/core/exec-invoke.c, setrlimit() from the unit's ExecContext), so after
 * DefaultLimitMEMLOCK is raised and the manager re-executed, the services already running keep the old
 * limit until they are restarted. Their main processes are PID 1's children; the unit's limit is its
 * LimitMEMLOCKSoft property. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>

#include "basic/errorf.h"
#include "basic/format-bytes.h"
#include "basic/strv.h"
#include "limits/memlock-sources.h"

#define SYSTEMD_DESTINATION "org.freedesktop.systemd1"

pid_t proc_status_ppid(const char *text) {
        const char *p = strstr(text, "\nPPid:");
        char *end;
        long v;

        if (!p)
                return -1;
        p += strlen("\nPPid:");
        p += strspn(p, " \t");
        if (!isdigit((unsigned char) *p))
                return -1;
        errno = 0;
        v = strtol(p, &end, 10);
        if (errno > 0 || !strchr("\n", *end) || v > INT32_MAX)
                return -1;
        return (pid_t) v;
}

int memlock_stale_candidates(const Host *h, uint64_t below, MemlockProcess **ret, size_t *ret_n) {
        _cleanup_(strv_freep) char **entries = NULL;
        _cleanup_(freep) MemlockProcess *list = NULL;
        size_t n = 0;
        int r;

        r = host_list_directory(h, "/proc", &entries);
        if (r < 0)
                return r;
        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *path = NULL, *status = NULL, *limits = NULL;
                MemlockLimit l;
                MemlockProcess *grown;

                if (strspn(*e, "0123456789") != strlen(*e) || streq(*e, "1"))
                        continue;
                if (asprintf(&path, "/proc/%s/status", *e) < 0)
                        return -ENOMEM;
                /* A process that ended meanwhile, or one the reader may not see, is no candidate. */
                if (host_read_file(h, path, HOST_FILE_MAX, &status, NULL) < 0 || proc_status_ppid(status) != 1)
                        continue;
                path = mfree(path);
                if (asprintf(&path, "/proc/%s/limits", *e) < 0)
                        return -ENOMEM;
                if (host_read_file(h, path, HOST_FILE_MAX, &limits, NULL) < 0 ||
                    proc_limits_parse_memlock(limits, &l) < 0 || l.soft >= below)
                        continue;
                grown = reallocarray(list, n + 1, sizeof(MemlockProcess));
                if (!grown)
                        return -ENOMEM;
                list = grown;
                list[n++] = (MemlockProcess){ .pid = (pid_t) strtol(*e, NULL, 10), .soft = l.soft };
        }
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

/* The unit of pid and its LimitMEMLOCKSoft: 0, 1 when it is no service's (a scope, a session, a
 * process that ended), or the errno of asking. */
static int unit_of(sd_bus *bus, pid_t pid, char **ret_id, uint64_t *ret_soft) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = sd_bus_call_method(
                bus,
                SYSTEMD_DESTINATION,
                "/org/freedesktop/systemd1",
                "org.freedesktop.systemd1.Manager",
                "GetUnitByPID",
                &error,
                &reply,
                "u",
                (uint32_t) pid);
        if (r < 0)
                /* An answer that is an error (NoUnitForPID: the process ended meanwhile, or is no unit's)
                 * leaves the process out; no answer at all is the manager's failure. */
                return sd_bus_error_is_set(&error) ? 1 : r;
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        r = sd_bus_get_property_trivial(
                bus,
                SYSTEMD_DESTINATION,
                path,
                "org.freedesktop.systemd1.Service",
                "LimitMEMLOCKSoft",
                &error,
                't',
                ret_soft);
        if (r < 0)
                return 1; /* not a service */
        return sd_bus_get_property_string(
                bus, SYSTEMD_DESTINATION, path, "org.freedesktop.systemd1.Unit", "Id", &error, ret_id);
}

int memlock_stale_services(sd_bus *bus, const Host *h, uint64_t below, char ***ret, char **ret_error) {
        _cleanup_(strv_freep) char **stale = NULL, **seen = NULL;
        _cleanup_(freep) MemlockProcess *procs = NULL;
        size_t n = 0;
        int r;

        /* hidepid= or ProtectProc=invisible (halod's own unit) hide the other users' processes. */
        if (!host_path_exists(h, PROC_PID1_LIMITS))
                return errorf(ret_error, -EACCES, "this process cannot see PID 1 and the services in /proc");
        r = memlock_stale_candidates(h, below, &procs, &n);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return errorf(ret_error, r, "cannot list /proc: %s", strerror(-r));
        for (size_t i = 0; i < n; i++) {
                _cleanup_(freep) char *id = NULL;
                char b[BYTES_STRING_MAX];
                uint64_t soft;

                r = unit_of(bus, procs[i].pid, &id, &soft);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "systemd did not say which unit runs PID %d: %s",
                                (int) procs[i].pid,
                                strerror(-r));
                if (r > 0 || soft <= procs[i].soft || strv_contains(seen, id))
                        continue;
                if (strv_extend(&seen, id) < 0 ||
                    strv_extendf(
                            &stale, "%s (PID %d, %s)", id, (int) procs[i].pid, format_bytes(procs[i].soft, b)) <
                            0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(stale);
        return 0;
}

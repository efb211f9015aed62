/* SPDX-License-Identifier: MIT */
/* rdma.memlock: RLIMIT_MEMLOCK against the profile, limits.conf/limits.d, and /dev/infiniband access. */
#include <stdio.h>
#include <sys/stat.h>

#include "basic/strv.h"
#include "check/check-rdma.h"
#include "nic/fabric.h"

/* "memlock" lines of limits.conf and limits.d, as "file: domain type value". */
static int read_limits(const Host *h, char ***ret) {
        _cleanup_(strv_freep) char **files = NULL, **found = NULL, **dropins = NULL;
        int r;

        r = strv_extend(&files, "/etc/security/limits.conf");
        if (r < 0)
                return r;
        r = host_list_directory(h, "/etc/security/limits.d", &dropins);
        if (r == -ENOMEM)
                return r;
        STRV_FOREACH(d, dropins) {
                size_t n = strlen(*d);

                if (n > 5 && streq(*d + n - 5, ".conf") &&
                    strv_extendf(&files, "/etc/security/limits.d/%s", *d) < 0)
                        return -ENOMEM;
        }

        STRV_FOREACH(f, files) {
                _cleanup_(freep) char *data = NULL;
                char *save = NULL;

                r = host_read_file(h, *f, HOST_FILE_MAX, &data, NULL);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                        char domain[64], type[16], item[32], value[32];
                        char *hash = strchr(line, '#');

                        if (hash)
                                *hash = '\0';
                        if (sscanf(line, "%63s %15s %31s %31s", domain, type, item, value) != 4 ||
                            !streq(item, "memlock"))
                                continue;
                        if (strv_extendf(&found, "%s: %s %s %s", *f, domain, type, value) < 0)
                                return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(found);
        return 0;
}

static int group_id(const Host *h, const char *name, gid_t *ret) {
        _cleanup_(freep) char *data = NULL;
        char *save = NULL;
        size_t n = strlen(name);
        int r;

        r = host_read_file(h, "/etc/group", HOST_FILE_MAX, &data, NULL);
        if (r < 0)
                return r;
        for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                unsigned long gid;
                char *colon, *end;

                if (strncmp(line, name, n) != 0 || line[n] != ':')
                        continue;
                colon = strchr(line + n + 1, ':');
                if (!colon)
                        return -EBADMSG;
                gid = strtoul(colon + 1, &end, 10);
                if (end == colon + 1 || *end != ':')
                        return -EBADMSG;
                *ret = (gid_t) gid;
                return 0;
        }
        return -ENOENT;
}

/* Problems with /dev/infiniband/uverbs*, one line each; good devices in ok. */
static int check_uverbs(const Host *h, char ***problems, char ***ok) {
        _cleanup_(strv_freep) char **entries = NULL;
        gid_t rdma_gid = 0;
        bool have_group;
        unsigned count = 0;
        int r;

        r = host_list_directory(h, "/dev/infiniband", &entries);
        if (r == -ENOMEM)
                return r;
        have_group = group_id(h, "rdma", &rdma_gid) >= 0;

        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *path = NULL, *full = NULL;
                struct stat st;

                if (!startswith(*e, "uverbs"))
                        continue;
                count++;
                if (asprintf(&path, "/dev/infiniband/%s", *e) < 0)
                        return -ENOMEM;
                r = host_path(h, path, &full);
                if (r < 0)
                        return r;
                if (stat(full, &st) < 0) {
                        if (strv_extendf(problems, "cannot stat %s: %m", path) < 0)
                                return -ENOMEM;
                        continue;
                }
                if ((st.st_mode & 0006) == 0006) {
                        if (strv_extendf(ok, "%s usable by everyone", path) < 0)
                                return -ENOMEM;
                } else if (have_group && st.st_gid == rdma_gid && (st.st_mode & 0060) == 0060) {
                        if (strv_extendf(ok, "%s usable by group rdma", path) < 0)
                                return -ENOMEM;
                } else if (
                        strv_extendf(
                                problems,
                                "%s (mode %04o, gid %u) is not read-writable by group rdma: install rdma-core's "
                                "udev rules or make it rdma:0660",
                                path,
                                (unsigned) (st.st_mode & 07777),
                                (unsigned) st.st_gid) < 0)
                        return -ENOMEM;
        }
        if (count == 0 &&
            strv_extend(
                    problems,
                    "no /dev/infiniband/uverbs* device: no RDMA driver is loaded (`modprobe irdma`), "
                    "or rdma-core's udev rules are missing") < 0)
                return -ENOMEM;
        return 0;
}

int check_rdma_memlock_evaluate(const Host *h, rlim_t limit, uint64_t want, PortCheck *ret) {
        _cleanup_(strv_freep) char **problems = NULL, **ok = NULL, **limits = NULL;
        _cleanup_(freep) char *summary = NULL, *configured = NULL;
        char have_s[BYTES_STRING_MAX], want_s[BYTES_STRING_MAX];
        uint64_t have = limit == RLIM_INFINITY ? UINT64_MAX : (uint64_t) limit;
        int r;

        r = read_limits(h, &limits);
        if (r < 0)
                return r;
        configured = limits ? strv_join(limits, "; ")
                            : strdup("no memlock line in /etc/security/limits.conf or limits.d");
        if (!configured)
                return -ENOMEM;
        format_bytes(have, have_s);
        format_bytes(want, want_s);

        if (want > 0 && have < want) {
                if (strv_extendf(
                            &problems,
                            "RLIMIT_MEMLOCK is %s < %s (rdma.memlock): set \"* - memlock %s\" in "
                            "/etc/security/limits.d/90-rdma.conf and log in again, and LimitMEMLOCK=%s in the "
                            "workload's service (%s)",
                            have_s,
                            want_s,
                            want == UINT64_MAX ? "unlimited" : want_s,
                            want == UINT64_MAX ? "infinity" : want_s,
                            configured) < 0)
                        return -ENOMEM;
        } else if (strv_extendf(&ok, "RLIMIT_MEMLOCK %s", have_s) < 0)
                return -ENOMEM;

        r = check_uverbs(h, &problems, &ok);
        if (r < 0)
                return r;

        summary = strv_join(problems ?: ok, "; ");
        if (!summary)
                return -ENOMEM;
        return port_check_set(
                ret, problems ? CHECK_FAIL : CHECK_PASS, want > 0 ? want_s : NULL, have_s, "%s", summary);
}

/* SPDX-License-Identifier: MIT */
/* The ice driver's DDP package state, from devlink's versions or the kernel log. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "nic/ice-ddp.h"

/* Bounds against a log that never ends (a flood of messages while we read). */
#define KMSG_RECORDS_MAX 200000U
#define KMSG_RECORD_MAX 8192U
#define KMSG_FILE_MAX (16U * 1024U * 1024U)

static const char *const ice_ddp_state_table[_ICE_DDP_STATE_MAX] = {
        [ICE_DDP_UNKNOWN] = "unknown",
        [ICE_DDP_LOADED] = "loaded",
        [ICE_DDP_SAFE_MODE] = "safe-mode",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(ice_ddp_state, IceDdpState);

static const char *const ice_ddp_source_table[_ICE_DDP_SOURCE_MAX] = {
        [ICE_DDP_SOURCE_NONE] = "none",
        [ICE_DDP_SOURCE_DEVLINK] = "devlink",
        [ICE_DDP_SOURCE_KERNEL_LOG] = "kernel log",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(ice_ddp_source, IceDdpSource);

int ice_ddp_state_from_devlink(const DevlinkInfo *info, IceDdpState *ret, char **ret_package) {
        const char *name, *version;
        char *package = NULL;

        if (!devlink_info_version(info, DEVLINK_VERSION_RUNNING, "fw.mgmt")) {
                *ret = ICE_DDP_UNKNOWN;
                return 0;
        }
        name = devlink_info_version(info, DEVLINK_VERSION_RUNNING, "fw.app.name");
        version = devlink_info_version(info, DEVLINK_VERSION_RUNNING, "fw.app");
        /* drivers/net/ethernet/intel/ice/devlink/devlink.c prints the active package's version whether
         * or not one is active: all zeros is none. */
        if (isempty(name) || isempty(version) || streq(version, "0.0.0.0")) {
                *ret = ICE_DDP_SAFE_MODE;
                return 0;
        }
        if (ret_package && asprintf(&package, "%s %s", name, version) < 0)
                return -ENOMEM;
        *ret = ICE_DDP_LOADED;
        if (ret_package)
                *ret_package = package;
        return 0;
}

int ice_ddp_package_from_message(const char *message, char **ret) {
        static const char *const markers[] = { "successfully loaded: ", "already present on device: " };

        for (size_t i = 0; message && i < ELEMENTSOF(markers); i++) {
                const char *p = strstr(message, markers[i]);

                if (p && p[strlen(markers[i])] != '\0') {
                        *ret = strdup(p + strlen(markers[i]));
                        return *ret ? 0 : -ENOMEM;
                }
        }
        *ret = NULL;
        return 0;
}

IceDdpState ice_ddp_state_from_message(const char *message, const char *pci) {
        const char *rest;

        if (!message || !pci)
                return ICE_DDP_UNKNOWN;
        rest = startswith(message, "ice ");
        if (!rest)
                return ICE_DDP_UNKNOWN;
        rest = startswith(rest, pci);
        if (!rest || rest[0] != ':')
                return ICE_DDP_UNKNOWN;
        if (strstr(rest, "Safe Mode"))
                return ICE_DDP_SAFE_MODE;
        if (strstr(rest, "DDP package was successfully loaded") || strstr(rest, "DDP package already present"))
                return ICE_DDP_LOADED;
        return ICE_DDP_UNKNOWN;
}

typedef struct Scan {
        const char *pci;
        IceDdpState state;
        char *detail;
        int error;
} Scan;

/* One line of a record: "6,1234,5678,-;text". Continuation lines (" KEY=value") are skipped. */
static void scan_line(Scan *s, const char *line, size_t n) {
        const char *semicolon = memchr(line, ';', n);
        _cleanup_(freep) char *text = NULL;
        IceDdpState st;

        if (n == 0 || line[0] == ' ' || !semicolon)
                return;
        text = strndup(semicolon + 1, n - (size_t) (semicolon + 1 - line));
        if (!text) {
                s->error = -ENOMEM;
                return;
        }
        st = ice_ddp_state_from_message(text, s->pci);
        if (st == ICE_DDP_UNKNOWN)
                return;
        s->state = st; /* the last record wins: the driver may have been reloaded since */
        free(s->detail);
        s->detail = TAKE_PTR(text);
}

static void scan_buffer(Scan *s, const char *buf, size_t size) {
        while (size > 0 && s->error == 0) {
                const char *nl = memchr(buf, '\n', size);
                size_t n = nl ? (size_t) (nl - buf) : size;

                scan_line(s, buf, n);
                if (!nl)
                        break;
                size -= n + 1;
                buf = nl + 1;
        }
}

int ice_ddp_state_from_kmsg(const Host *h, const char *pci, IceDdpState *ret, char **ret_detail) {
        _cleanup_(freep) char *path = NULL;
        _cleanup_(closep) int fd = -EBADF;
        Scan s = { .pci = pci };
        struct stat st;
        int r;

        r = host_path(h, ICE_DDP_KMSG, &path);
        if (r < 0)
                return r;
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();

        if (S_ISREG(st.st_mode)) {
                _cleanup_(freep) char *data = NULL;
                size_t size;

                r = read_full_file(path, KMSG_FILE_MAX, &data, &size);
                if (r < 0)
                        return r;
                scan_buffer(&s, data, size);
        } else {
                /* The live log hands out one record per read() and EAGAIN at its end. */
                char buf[KMSG_RECORD_MAX];

                for (unsigned i = 0; i < KMSG_RECORDS_MAX && s.error == 0; i++) {
                        ssize_t n = read(fd, buf, sizeof(buf));

                        if (n < 0) {
                                if (errno == EPIPE || errno == EINTR)
                                        continue; /* records were overwritten while we read */
                                if (errno == EAGAIN)
                                        break;
                                s.error = negative_errno();
                                break;
                        }
                        if (n == 0)
                                break;
                        scan_buffer(&s, buf, (size_t) n);
                }
        }
        if (s.error < 0) {
                free(s.detail);
                return s.error;
        }
        *ret = s.state;
        if (ret_detail)
                *ret_detail = s.detail;
        else
                free(s.detail);
        return 0;
}

int ice_ddp_state_read(
        const Host *h, const char *pci, IceDdpState *ret, IceDdpSource *ret_source, char **ret_detail) {
        IceDdpState state = ICE_DDP_UNKNOWN;
        char *detail = NULL;
        int r;

        if (host_is_running_system(h)) {
                _cleanup_(devlink_info_done) DevlinkInfo info = {};

                r = devlink_get_pci_info(pci, &info, NULL);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0) {
                        r = ice_ddp_state_from_devlink(&info, &state, &detail);
                        if (r < 0)
                                return r;
                }
                if (state != ICE_DDP_UNKNOWN) {
                        *ret = state;
                        *ret_source = ICE_DDP_SOURCE_DEVLINK;
                        if (ret_detail)
                                *ret_detail = detail;
                        else
                                free(detail);
                        return 0;
                }
        }
        r = ice_ddp_state_from_kmsg(h, pci, &state, ret_detail);
        if (r < 0)
                return r;
        *ret = state;
        *ret_source = state == ICE_DDP_UNKNOWN ? ICE_DDP_SOURCE_NONE : ICE_DDP_SOURCE_KERNEL_LOG;
        return 0;
}

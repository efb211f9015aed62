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

static const char *const ice_ddp_cause_table[_ICE_DDP_CAUSE_MAX] = {
        [ICE_DDP_CAUSE_NONE] = "no failed load",
        [ICE_DDP_CAUSE_NVM_TOO_OLD] = "the device's NVM (firmware) is too old for the kernel's DDP package",
        [ICE_DDP_CAUSE_FILE_MISSING] = "ice found no DDP package file",
        [ICE_DDP_CAUSE_FILE_INVALID] = "the DDP package file is invalid",
        [ICE_DDP_CAUSE_FILE_TOO_NEW] = "the DDP package file is newer than this driver supports",
        [ICE_DDP_CAUSE_FILE_TOO_OLD] = "the DDP package file is older than this driver supports",
        [ICE_DDP_CAUSE_SIGNATURE] = "the DDP package's signature is not valid",
        [ICE_DDP_CAUSE_REVISION_TOO_LOW] = "the DDP package's security revision is too low",
        [ICE_DDP_CAUSE_DEVICE_PACKAGE] = "the device holds a DDP package this driver does not support",
        [ICE_DDP_CAUSE_LOAD_ERROR] = "the device failed while loading the DDP package",
        [ICE_DDP_CAUSE_UNKNOWN] = "no DDP package is loaded",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(ice_ddp_cause, IceDdpCause);

#define ICE_RELOAD "`modprobe -r irdma ice && modprobe ice`"
#define ICE_PACKAGE                                                                                              \
        "intel/ice/ddp/ice.pkg under /lib/firmware (linux-firmware on Fedora and Ubuntu, firmware-misc-nonfree " \
        "on Debian)"

static const char *const ice_ddp_fix_table[_ICE_DDP_CAUSE_MAX] = {
        [ICE_DDP_CAUSE_NONE] = "",
        [ICE_DDP_CAUSE_NVM_TOO_OLD] =
                "update the E810's NVM with Intel's nvmupdate64e (see nic.firmware), then "
                "reboot; a newer package will not help",
        [ICE_DDP_CAUSE_FILE_MISSING] = "install " ICE_PACKAGE
                                       ", rebuild the initramfs when ice loads from it "
                                       "(dracut -f, update-initramfs -u), then reload the driver (" ICE_RELOAD
                                       ")",
        [ICE_DDP_CAUSE_FILE_INVALID] = "reinstall " ICE_PACKAGE ", then reload the driver (" ICE_RELOAD ")",
        [ICE_DDP_CAUSE_FILE_TOO_NEW] =
                "update the kernel (its ice driver), or install the package that came with "
                "this kernel's linux-firmware",
        [ICE_DDP_CAUSE_FILE_TOO_OLD] = "update the package: " ICE_PACKAGE
                                       ", then reload the driver (" ICE_RELOAD ")",
        [ICE_DDP_CAUSE_SIGNATURE] = "install Intel's signed package: " ICE_PACKAGE
                                    ", then reload the driver (" ICE_RELOAD ")",
        [ICE_DDP_CAUSE_REVISION_TOO_LOW] = "update the package: " ICE_PACKAGE
                                           ", then reload the driver (" ICE_RELOAD ")",
        [ICE_DDP_CAUSE_DEVICE_PACKAGE] =
                "another driver (DPDK, an out-of-tree ice) left its package on the "
                "device: power-cycle the node so that ice loads its own",
        [ICE_DDP_CAUSE_LOAD_ERROR] = "reload the driver (" ICE_RELOAD
                                     "); if it fails again, update the NVM "
                                     "with Intel's nvmupdate64e",
        [ICE_DDP_CAUSE_UNKNOWN] = "install " ICE_PACKAGE " and reload the driver (" ICE_RELOAD ")",
};

const char *ice_ddp_cause_fix(IceDdpCause c) {
        return c >= 0 && c < _ICE_DDP_CAUSE_MAX ? ice_ddp_fix_table[c] : NULL;
}

/* Every message of ice_main.c about the package's outcome (v6.8 for Ubuntu 24.04 through v6.17 and
 * later for Fedora 43: the same words, whose case differs from one to the next), specific first. */
static const struct {
        const char *marker;
        IceDdpState state;
        IceDdpCause cause;
} ice_ddp_messages[] = {
        { "DDP package was successfully loaded", ICE_DDP_LOADED, ICE_DDP_CAUSE_NONE },
        { "DDP package already present on device", ICE_DDP_LOADED, ICE_DDP_CAUSE_NONE },
        { "compatible DDP package is already present on the device", ICE_DDP_LOADED, ICE_DDP_CAUSE_NONE },
        { "firmware loaded on the device is not compatible with the DDP package",
          ICE_DDP_SAFE_MODE,
          ICE_DDP_CAUSE_NVM_TOO_OLD },
        { "update the device's NVM", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_NVM_TOO_OLD },
        { "DDP package file was not found or could not be read", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_FILE_MISSING },
        { "DDP package file failed to load", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_FILE_MISSING },
        { "DDP package file is invalid", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_FILE_INVALID },
        { "version is higher than the driver supports", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_FILE_TOO_NEW },
        { "version is lower than the driver supports", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_FILE_TOO_OLD },
        { "signature is not valid", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_SIGNATURE },
        { "security revision is too low", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_REVISION_TOO_LOW },
        { "DDP package that is not supported by the driver", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_DEVICE_PACKAGE },
        /* The device is reset and ice stays in Safe Mode, though the message does not say so. */
        { "error occurred on the device while loading the DDP package",
          ICE_DDP_SAFE_MODE,
          ICE_DDP_CAUSE_LOAD_ERROR },
        { "unknown error occurred when loading the DDP package", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_UNKNOWN },
        /* Any other wording (older and out-of-tree drivers): "... Device now in Safe Mode". */
        { "safe mode", ICE_DDP_SAFE_MODE, ICE_DDP_CAUSE_UNKNOWN },
};

/* The message's text after "ice <pci>: ", or NULL when it is not about that ice device. */
static const char *ice_message_text(const char *message, const char *pci) {
        const char *rest;

        if (!message || !pci)
                return NULL;
        rest = startswith(message, "ice ");
        if (!rest)
                return NULL;
        rest = startswith(rest, pci);
        if (!rest || rest[0] != ':')
                return NULL;
        return rest + 1;
}

static int ice_ddp_message_find(const char *text) {
        for (size_t i = 0; text && i < ELEMENTSOF(ice_ddp_messages); i++)
                if (strcasestr(text, ice_ddp_messages[i].marker))
                        return (int) i;
        return -ENOENT;
}

IceDdpCause ice_ddp_cause_from_message(const char *message) {
        int i = ice_ddp_message_find(message);

        return i < 0 ? ICE_DDP_CAUSE_NONE : ice_ddp_messages[i].cause;
}

IceDdpCause ice_ddp_safe_mode_cause(const char *message) {
        IceDdpCause c = ice_ddp_cause_from_message(message);

        return c == ICE_DDP_CAUSE_NONE ? ICE_DDP_CAUSE_UNKNOWN : c;
}

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

/* "The device has package 'ICE OS Default Package' version 1.3.36.0.  The package file found by the
 * driver: ..." (a compatible package already on the device) names the package in quotes. */
static int package_from_compatible(const char *message, char **ret) {
        static const char marker[] = "The device has package '";
        const char *p = strstr(message, marker), *q, *v, *end;

        *ret = NULL;
        if (!p)
                return 0;
        p += strlen(marker);
        q = strchr(p, '\'');
        if (!q || !(v = startswith(q, "' version ")))
                return 0;
        end = v + strcspn(v, " ");
        if (end > v && end[-1] == '.')
                end--;
        if (end == v)
                return 0;
        return asprintf(ret, "%.*s version %.*s", (int) (q - p), p, (int) (end - v), v) < 0 ? -ENOMEM : 0;
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
        if (message)
                return package_from_compatible(message, ret);
        *ret = NULL;
        return 0;
}

IceDdpState ice_ddp_state_from_message(const char *message, const char *pci) {
        int i = ice_ddp_message_find(ice_message_text(message, pci));

        return i < 0 ? ICE_DDP_UNKNOWN : ice_ddp_messages[i].state;
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
        /* A Safe Mode message that names no cause (older kernels' "... Device now in Safe Mode")
         * follows the one that does: keep the one that says why. */
        if (st == ICE_DDP_SAFE_MODE && s->state == ICE_DDP_SAFE_MODE &&
            ice_ddp_cause_from_message(text) == ICE_DDP_CAUSE_UNKNOWN &&
            ice_ddp_cause_from_message(s->detail) != ICE_DDP_CAUSE_UNKNOWN)
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

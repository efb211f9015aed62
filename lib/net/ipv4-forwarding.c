/* SPDX-License-Identifier: MIT */
/* Reading and writing /proc/sys/net/ipv4/conf/IF/forwarding. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "net/ipv4-forwarding.h"

static int forwarding_path(const char *ifname, char buf[static PATH_MAX]) {
        /* A name with '/' or a dot-only name would leave the directory. */
        if (isempty(ifname) || strchr(ifname, '/') || streq(ifname, ".") || streq(ifname, ".."))
                return -EINVAL;
        if (snprintf(buf, PATH_MAX, "/proc/sys/net/ipv4/conf/%s/forwarding", ifname) >= PATH_MAX)
                return -ENAMETOOLONG;
        return 0;
}

int ipv4_forwarding_read(const Host *h, const char *ifname, bool *ret) {
        _cleanup_(freep) char *value = NULL;
        char path[PATH_MAX];
        int r;

        r = forwarding_path(ifname, path);
        if (r < 0)
                return r;
        r = host_read_line(h, path, &value);
        if (r < 0)
                return r;
        if (!streq(value, "0") && !streq(value, "1"))
                return -EBADMSG;
        *ret = streq(value, "1");
        return 0;
}

int ipv4_forwarding_write(const char *ifname, bool on) {
        _cleanup_(closep) int fd = -EBADF;
        char path[PATH_MAX];
        bool now;
        int r;

        r = forwarding_path(ifname, path);
        if (r < 0)
                return r;
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (write(fd, on ? "1\n" : "0\n", 2) != 2)
                return negative_errno();
        r = ipv4_forwarding_read(&HOST_SYSTEM, ifname, &now);
        if (r < 0)
                return r;
        return now == on ? 0 : -EIO;
}

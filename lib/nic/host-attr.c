/* SPDX-License-Identifier: MIT */
/* Reading and writing one-value attributes below the host root. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "basic/macro.h"
#include "nic/host-attr.h"

int host_attr_read_u64(const Host *h, const char *path, uint64_t *ret) {
        _cleanup_(freep) char *s = NULL;
        unsigned long long v;
        char *end;
        int r;

        r = host_read_line(h, path, &s);
        if (r < 0)
                return r;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || s[0] == ' ' || s[0] == '+')
                return -EBADMSG;
        *ret = v;
        return 0;
}

int host_attr_write(const Host *h, const char *path, const char *value) {
        _cleanup_(freep) char *p = NULL;
        _cleanup_(closep) int fd = -EBADF;
        size_t n = strlen(value);
        ssize_t k;
        int r;

        r = host_path(h, path, &p);
        if (r < 0)
                return r;
        /* O_TRUNC: sysfs and configfs ignore it; a test's regular file needs it. */
        fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        k = write(fd, value, n);
        if (k < 0)
                return negative_errno();
        if ((size_t) k != n)
                return -EIO;
        return 0;
}

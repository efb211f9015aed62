/* SPDX-License-Identifier: MIT */
/* The per-interface IPv4 forwarding switch: read from /proc/sys/net/ipv4/conf/IF/forwarding (read-only
 * is enough, and --root can stand in for it), written over rtnetlink. */
#include <limits.h>
#include <net/if.h>
#include <stdio.h>

#include "net/ipv4-forwarding.h"
#include "net/rtnl.h"

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
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        unsigned ifindex;
        bool now;
        int r;

        if (isempty(ifname))
                return -EINVAL;
        ifindex = if_nametoindex(ifname);
        if (ifindex == 0)
                return negative_errno();
        r = rtnl_open(&rtnl);
        if (r < 0)
                return r;
        r = rtnl_set_ipv4_forwarding(rtnl, (int) ifindex, on, NULL);
        if (r < 0)
                return r;
        r = ipv4_forwarding_read(&HOST_SYSTEM, ifname, &now);
        if (r < 0)
                return r;
        return now == on ? 0 : -EIO;
}

/* SPDX-License-Identifier: MIT */
/* Watching rtnetlink: a socket subscribed to link and IPv4 address changes, parsed into events. */
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "net/rtnl-internal.h"

#define RTNL_MONITOR_BUFFER_SIZE (32U * 1024U)
/* Bursts (a NIC reset announces every address and route) must not overrun the queue. */
#define RTNL_MONITOR_RCVBUF (4U * 1024U * 1024U)

struct RtnlMonitor {
        struct mnl_socket *nl;
        uint8_t *buf;
};

int rtnl_monitor_open(RtnlMonitor **ret) {
        _cleanup_(rtnl_monitor_freep) RtnlMonitor *m = NULL;
        int rcvbuf = RTNL_MONITOR_RCVBUF;

        m = calloc(1, sizeof(RtnlMonitor));
        if (!m)
                return -ENOMEM;
        m->buf = malloc(RTNL_MONITOR_BUFFER_SIZE);
        if (!m->buf)
                return -ENOMEM;
        m->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (!m->nl)
                return negative_errno();
        /* SO_RCVBUFFORCE needs CAP_NET_ADMIN; the plain option is capped by rmem_max but still helps. */
        if (setsockopt(mnl_socket_get_fd(m->nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
                (void) setsockopt(mnl_socket_get_fd(m->nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
        if (mnl_socket_bind(
                    m->nl,
                    (1U << (RTNLGRP_LINK - 1)) | (1U << (RTNLGRP_IPV4_IFADDR - 1)) |
                            (1U << (RTNLGRP_IPV4_ROUTE - 1)),
                    MNL_SOCKET_AUTOPID) < 0)
                return negative_errno();

        *ret = TAKE_PTR(m);
        return 0;
}

RtnlMonitor *rtnl_monitor_free(RtnlMonitor *m) {
        if (!m)
                return NULL;
        if (m->nl)
                (void) mnl_socket_close(m->nl);
        free(m->buf);
        return mfree(m);
}

int rtnl_monitor_fd(const RtnlMonitor *m) {
        return mnl_socket_get_fd(m->nl);
}

int rtnl_monitor_process(RtnlMonitor *m, unsigned max_reads, RtnlEventFunc cb, void *userdata) {
        for (unsigned reads = 0;; reads++) {
                ssize_t n;
                int r;

                if (max_reads > 0 && reads >= max_reads)
                        return 1;
                n = mnl_socket_recvfrom(m->nl, m->buf, RTNL_MONITOR_BUFFER_SIZE);
                if (n < 0) {
                        if (errno == EAGAIN)
                                return 0;
                        if (errno == EINTR)
                                continue;
                        return negative_errno(); /* -ENOBUFS: events were lost */
                }
                r = rtnl_parse_events(m->buf, (size_t) n, cb, userdata);
                if (r < 0)
                        return r;
        }
}

/* SPDX-License-Identifier: MIT */
/* halod's probe port: held on every address of the node, and shared by the sockets its probes and
 * rdma-hellos leave from. */
#include <arpa/inet.h>
#include <linux/filter.h>
#include <sys/socket.h>

#include "peer/peer-source.h"
#include "peer/peer.h"

int peer_probe_port_hold(uint16_t port) {
        struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(peer_probe_port(port)) };
        /* One classic BPF instruction: accept 0 bytes, i.e. drop. Nothing queues on this socket, whatever
         * is sent to the port. */
        struct sock_filter drop = BPF_STMT(BPF_RET | BPF_K, 0);
        struct sock_fprog prog = { .len = 1, .filter = &drop };
        _cleanup_(closep) int fd = -EBADF;

        if (port == 0)
                return -EINVAL;
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &(int){ 1 }, sizeof(int)) < 0)
                return negative_errno();
        /* 0.0.0.0, not the fabric addresses: a process that held the port on another address (even
         * 127.0.0.1) could send from the fabric address with IP_PKTINFO. */
        if (bind(fd, (struct sockaddr *) &any, sizeof(any)) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

int peer_bind_source(int fd, struct in_addr address, uint16_t source_port) {
        struct sockaddr_in local = { .sin_family = AF_INET,
                                     .sin_addr = address,
                                     .sin_port = htons(source_port) };

        if (source_port != 0) {
                if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &(int){ 1 }, sizeof(int)) >= 0 &&
                    bind(fd, (struct sockaddr *) &local, sizeof(local)) >= 0)
                        return 0;
                if (errno != EADDRINUSE && errno != EACCES)
                        return negative_errno();
                /* A socket that failed to bind may bind again, but not with SO_REUSEPORT set. */
                (void) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &(int){ 0 }, sizeof(int));
                local.sin_port = 0;
        }
        if (bind(fd, (struct sockaddr *) &local, sizeof(local)) < 0)
                return negative_errno();
        return 0;
}

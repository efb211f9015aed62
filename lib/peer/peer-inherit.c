/* SPDX-License-Identifier: MIT */
/* The peer channel's sockets that the service manager holds across halod's restarts (halod.socket):
 * checked and made ready before a server adopts one. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/socket.h>

#include "peer/peer.h"

int peer_socket_check_inherited(int fd, int type, uint16_t port) {
        struct sockaddr_in sa = {};
        socklen_t len = sizeof(sa), optlen = sizeof(int);
        int t = 0, listening = 0, flags;

        if (fd < 0)
                return -EBADF;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &optlen) < 0 ||
            getsockname(fd, (struct sockaddr *) &sa, &len) < 0)
                return negative_errno();
        if (t != type || sa.sin_family != AF_INET || ntohs(sa.sin_port) != port)
                return -EINVAL;
        if (type == SOCK_STREAM) {
                optlen = sizeof(int);
                if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) < 0)
                        return negative_errno();
                if (!listening)
                        return -EINVAL;
        }
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
                return negative_errno();
        /* UDP lets any user bind beside a socket with SO_REUSEADDR when it sets it too, whatever the
         * owner (udp_lib_lport_inuse() in the kernel's net/ipv4/udp.c compares no user for it), and a
         * socket on the fabric address is the more specific match. A listening TCP socket conflicts
         * with any other bind of its port, SO_REUSEADDR or not. */
        if (type == SOCK_DGRAM && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 0 }, sizeof(int)) < 0)
                return negative_errno();
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* Hosting the peer channel on this node's fabric addresses: the UDP responder in a thread of its own,
 * the TCP throughput sink as an sd-event io source. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "basic/strv.h"
#include "log.h"
#include "manager-peer-channel.h"
#include "manager.h"
#include "peer/peer-profile.h"
#include "snapshot/rdma-node.h"

/* Datagrams answered per hold of the lock, so that the loop's identity updates never wait long. */
#define RESPONDER_BATCH 64U

/* The other nodes measure how long this one takes to answer: the answer must not wait for whatever
 * the event loop is doing (a verify, libpci, a D-Bus call take milliseconds, tens of them on a slow
 * or sanitized build), or halod would report latency it causes itself. So the responder has a thread
 * that does nothing but answer; the loop only updates what it answers, under the lock. */
struct PeerResponder {
        PeerServer *server;
        pthread_mutex_t lock; /* guards server between the thread and the loop */
        pthread_t thread;
        bool started;
        int stop_fd;
};

static void *responder_run(void *userdata) {
        PeerResponder *p = userdata;
        struct pollfd fds[] = {
                { .fd = peer_server_fd(p->server), .events = POLLIN },
                { .fd = p->stop_fd, .events = POLLIN },
        };

        for (;;) {
                int r = 0;

                if (poll(fds, ELEMENTSOF(fds), -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (fds[1].revents != 0)
                        break;
                if (fds[0].revents == 0)
                        continue;

                (void) pthread_mutex_lock(&p->lock);
                for (unsigned i = 0; i < RESPONDER_BATCH; i++) {
                        r = peer_server_handle(p->server);
                        if (r <= 0)
                                break;
                }
                (void) pthread_mutex_unlock(&p->lock);

                /* A local error (out of memory, a socket in a bad state) that persists must not make
                 * this thread spin: answer more slowly instead. */
                if (r < 0)
                        (void) nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
        }
        return NULL;
}

static PeerResponder *responder_free(PeerResponder *p) {

        if (!p)
                return NULL;
        if (p->started) {
                (void) eventfd_write(p->stop_fd, 1);
                (void) pthread_join(p->thread, NULL);
        }
        safe_close(p->stop_fd);
        (void) pthread_mutex_destroy(&p->lock);
        peer_server_free(p->server);
        return mfree(p);
}
DEFINE_TRIVIAL_CLEANUP_FUNC(PeerResponder *, responder_free);

/* Takes server over, also on failure. */
static int responder_start(PeerServer *server, PeerResponder **ret) {
        _cleanup_(responder_freep) PeerResponder *p = NULL;
        int r;

        p = calloc(1, sizeof(PeerResponder));
        if (!p) {
                peer_server_free(server);
                return -ENOMEM;
        }
        *p = (PeerResponder){ .server = server, .lock = PTHREAD_MUTEX_INITIALIZER, .stop_fd = -EBADF };
        p->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (p->stop_fd < 0)
                return -errno;
        /* The thread inherits the loop's blocked signals: they stay with the signalfd. */
        r = -pthread_create(&p->thread, NULL, responder_run, p);
        if (r < 0)
                return r;
        p->started = true;
        *ret = TAKE_PTR(p);
        return 0;
}

static int on_bulk_server_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        int r;

        /* One call: it reads a bounded amount itself, and a running transfer keeps the fd readable. */
        r = peer_bulk_server_handle(m->bulk_server);
        if (r < 0)
                log_debug("Throughput sink: %s, ignoring.", strerror(-r));
        return 0;
}

static void probe_guard_close(Manager *m) {
        m->probe_guard_fd = safe_close(m->probe_guard_fd);
        m->probe_port = 0;
}

/* Holds the probes' source port; tried again at every reset while it cannot be had. A privileged
 * port: no other user can take it, whether halod holds it or not (between two runs, too). */
static void probe_guard_open(Manager *m, uint16_t port) {
        int fd;

        if (m->probe_guard_fd >= 0 && m->probe_port == peer_probe_port(port))
                return;
        probe_guard_close(m);
        fd = peer_probe_port_hold(port);
        if (fd < 0) {
                _cleanup_(freep) char *error = NULL;

                if (asprintf(
                            &error,
                            "Failed to hold UDP port %u, the source port of this node's peer probes: %s. The "
                            "probes leave from ephemeral ports meanwhile, and the other nodes answer them "
                            "within the budget they give every other process of this node, which a flood "
                            "from any local user can exhaust (see halod(8), PEER CHANNEL). %s",
                            peer_probe_port(port),
                            strerror(-fd),
                            fd == -EACCES ? "A privileged port: halod needs CAP_NET_BIND_SERVICE "
                                            "(AmbientCapabilities= in halod.service)."
                                          : "Which program holds it? ss -ulpn says "
                                            "(retried every health.interval).") < 0)
                        return;
                if (!streq_ptr(error, m->probe_guard_error)) {
                        log_warning("%s", error);
                        free(m->probe_guard_error);
                        m->probe_guard_error = TAKE_PTR(error);
                }
                return;
        }
        m->probe_guard_fd = fd;
        m->probe_port = peer_probe_port(port);
        m->probe_guard_error = mfree(m->probe_guard_error);
}

static void channel_close(Manager *m) {
        m->responder = responder_free(m->responder);
        m->bulk_server_source = sd_event_source_disable_unref(m->bulk_server_source);
        m->bulk_server = peer_bulk_server_free(m->bulk_server);
        m->channel_bind = mfree(m->channel_bind);
        m->channel_peers = mfree(m->channel_peers);
        m->n_channel_bind = m->n_channel_peers = 0;
        m->channel_port = 0;
}

void manager_peer_channel_inherit(Manager *m) {
        _cleanup_(strv_freep) char **names = NULL;
        int n;

        n = sd_listen_fds_with_names(/* unset_environment= */ true, &names);
        if (n < 0) {
                log_warning_errno(n, "Failed to read the sockets passed by the service manager, ignoring: %m");
                return;
        }
        for (int i = 0; i < n; i++) {
                int fd = SD_LISTEN_FDS_START + i;

                if (m->inherited_udp_fd < 0 && sd_is_socket_inet(fd, AF_INET, SOCK_DGRAM, -1, 0) > 0)
                        m->inherited_udp_fd = fd;
                else if (m->inherited_tcp_fd < 0 && sd_is_socket_inet(fd, AF_INET, SOCK_STREAM, 1, 0) > 0)
                        m->inherited_tcp_fd = fd;
                else {
                        log_warning(
                                "Socket %s passed by the service manager is not one of the peer channel's "
                                "(an IPv4 UDP socket and a listening TCP one, see halod.socket), ignoring.",
                                names && names[i] ? names[i] : "(unnamed)");
                        safe_close(fd);
                }
        }
}

/* A copy of an inherited socket for a server to take over, or -EBADF when there is none. */
static int inherited_copy(int fd) {
        int copy;

        if (fd < 0)
                return -EBADF;
        copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        return copy < 0 ? negative_errno() : copy;
}

void manager_peer_channel_done(Manager *m) {
        channel_close(m);
        probe_guard_close(m);
        m->inherited_udp_fd = safe_close(m->inherited_udp_fd);
        m->inherited_tcp_fd = safe_close(m->inherited_tcp_fd);
        m->channel_error = mfree(m->channel_error);
        m->probe_guard_error = mfree(m->probe_guard_error);
}

static bool same_addresses(const struct in_addr *a, size_t n_a, const struct in_addr *b, size_t n_b) {
        if (n_a != n_b)
                return false;
        for (size_t i = 0; i < n_a; i++)
                if (a[i].s_addr != b[i].s_addr)
                        return false;
        return true;
}

/* "192.168.100.1, 192.168.101.1"; NULL when out of memory. */
static char *format_addresses(const struct in_addr *a, size_t n) {
        _cleanup_(strv_freep) char **l = NULL;

        for (size_t i = 0; i < n; i++) {
                char s[INET_ADDRSTRLEN];

                if (strv_extend(&l, inet_ntop(AF_INET, &a[i], s, sizeof(s))) < 0)
                        return NULL;
        }
        return l ? strv_join(l, ", ") : strdup("");
}

/* Logs a failure once until its text changes; NULL clears it. */
static void channel_report(Manager *m, const char *error) {
        if (streq_ptr(error, m->channel_error))
                return;
        free(m->channel_error);
        m->channel_error = error ? strdup(error) : NULL;
        if (error)
                log_warning("%s", error);
}

static void channel_report_failure(Manager *m, const char *format, ...) _printf_(2, 3);
static void channel_report_failure(Manager *m, const char *format, ...) {
        _cleanup_(freep) char *error = NULL;
        va_list ap;
        int r;

        va_start(ap, format);
        r = vasprintf(&error, format, ap);
        va_end(ap);
        if (r >= 0)
                channel_report(m, error);
}

/* Lets the other nodes' `haloctl probe` measure RDMA to this one. Before the responder thread starts,
 * so no lock is needed; the server owns the RDMA responder from here on. */
static void attach_rdma_responder(Manager *m, PeerServer *s) {
        NodeContext c = { .host = &m->host, .profile = m->profile, .node = m->node };
        RdmaResponder *rdma = NULL;
        int r;

        r = rdma_responder_new_for_node(&c, &rdma);
        if (r < 0) {
                /* No RDMA device here (or none bound to the fabric link): hellos get "no-device". */
                log_debug("No RDMA responder on the peer channel: %s", strerror(-r));
                return;
        }
        peer_server_set_rdma(s, rdma_responder_hello, rdma, rdma_responder_destroy);
}

/* Opens with a copy of the inherited socket when there is one for the profile's port, else (none, or
 * halod.socket holds another port: said once) binds the fabric addresses itself. */
static int open_inherited_or_bound(
        Manager *m, int inherited, const char *what, int (*open_fn)(Manager *m, int fd, void *ret), void *ret) {
        int fd, r;

        fd = inherited_copy(inherited);
        if (fd < 0 && fd != -EBADF)
                return fd;
        r = open_fn(m, fd, ret);
        if (r != -EINVAL || fd < 0)
                return r;
        channel_report_failure(
                m,
                "The %s socket of halod.socket is not on port %u, the profile's health.port: halod binds the port "
                "itself, and between two runs of halod another user of this node can take it. Set "
                "ListenDatagram= and ListenStream= of halod.socket to the same port (systemctl edit halod.socket).",
                what,
                m->channel_port);
        return open_fn(m, -EBADF, ret);
}

static int open_server(Manager *m, int fd, void *ret) {
        return peer_server_open_for_profile(m->profile, m->node, m->health, fd, ret);
}

static int open_bulk_server(Manager *m, int fd, void *ret) {
        return peer_bulk_server_open_for_profile(m->profile, m->node, fd, ret);
}

static int open_responder(Manager *m, const char *where) {
        PeerServer *s = NULL;
        int r;

        r = open_inherited_or_bound(m, m->inherited_udp_fd, "UDP", open_server, &s);
        if (r >= 0) {
                attach_rdma_responder(m, s);
                r = responder_start(s, &m->responder);
        }
        if (r < 0) {
                channel_report_failure(
                        m,
                        "Failed to open the peer channel on %s UDP port %u: %s. The other nodes' peer checks of "
                        "this node fail until it opens (retried every health.interval); is another program "
                        "using the port? health.port in the profile changes it.",
                        where,
                        m->channel_port,
                        strerror(-r));
                return r;
        }
        return 0;
}

static int open_sink(Manager *m, const char *where) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *s = NULL;
        int r;

        r = open_inherited_or_bound(m, m->inherited_tcp_fd, "TCP", open_bulk_server, &s);
        if (r >= 0)
                r = sd_event_add_io(
                        m->event, &m->bulk_server_source, peer_bulk_server_fd(s), EPOLLIN, on_bulk_server_io, m);
        if (r < 0) {
                m->bulk_server_source = sd_event_source_disable_unref(m->bulk_server_source);
                channel_report_failure(
                        m,
                        "Failed to open the throughput sink on %s TCP port %u: %s. `haloctl probe` on the other "
                        "nodes cannot measure throughput to this one until it opens (retried every "
                        "health.interval).",
                        where,
                        m->channel_port,
                        strerror(-r));
                return r;
        }
        m->bulk_server = TAKE_PTR(s);
        return 0;
}

int manager_peer_channel_reset(Manager *m) {
        _cleanup_(freep) struct in_addr *bind = NULL, *peers = NULL;
        size_t n_bind = 0, n_peers = 0;
        _cleanup_(freep) char *where = NULL;
        uint16_t port;
        int r, k;

        if (!m->profile || !m->node)
                return 0;

        r = peer_addresses(m->profile, m->node, &bind, &n_bind, &peers, &n_peers);
        if (r < 0)
                return log_warning_errno(r, "Failed to read the peer channel's addresses: %m");
        port = peer_port(m->profile);

        if (m->responder && m->bulk_server && port == m->channel_port &&
            same_addresses(bind, n_bind, m->channel_bind, m->n_channel_bind) &&
            same_addresses(peers, n_peers, m->channel_peers, m->n_channel_peers)) {
                PeerIdentity self;

                probe_guard_open(m, port);
                /* Same sockets; the digest (and the names) may have changed with a reload. */
                r = peer_identity_from_profile(m->profile, m->node, m->health, &self);
                if (r >= 0) {
                        (void) pthread_mutex_lock(&m->responder->lock);
                        peer_server_set_identity(m->responder->server, &self);
                        (void) pthread_mutex_unlock(&m->responder->lock);
                }
                return 0;
        }

        /* The old sockets go first: the new ones may bind the same address and port. */
        channel_close(m);
        if (n_bind == 0) {
                channel_report(m, NULL);
                return 0;
        }
        m->channel_bind = TAKE_PTR(bind);
        m->n_channel_bind = n_bind;
        m->channel_peers = TAKE_PTR(peers);
        m->n_channel_peers = n_peers;
        m->channel_port = port;

        where = format_addresses(m->channel_bind, m->n_channel_bind);
        if (!where)
                return log_error_errno(ENOMEM, "Failed to open the peer channel: %m");
        probe_guard_open(m, port);
        r = open_responder(m, where);
        k = open_sink(m, where);
        if (r < 0 || k < 0)
                return r < 0 ? r : k;

        channel_report(m, NULL);
        log_info(
                "Peer channel open on %s, UDP and TCP port %u, for the profile's %zu other node address%s.",
                where,
                port,
                n_peers,
                n_peers == 1 ? "" : "es");
        return 0;
}

void manager_peer_channel_set_health(Manager *m) {
        if (!m->responder)
                return;
        (void) pthread_mutex_lock(&m->responder->lock);
        peer_server_set_health(m->responder->server, m->health);
        (void) pthread_mutex_unlock(&m->responder->lock);
}

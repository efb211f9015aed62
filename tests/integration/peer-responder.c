/* SPDX-License-Identifier: MIT */
/* A stand-in for halod's peer channel in tests: hosts the UDP responder and the TCP throughput sink
 * for one node of a profile in a plain poll() loop. SIGUSR1 prints the drop counters; SIGTERM ends.
 * Usage: peer-responder PROFILE NODE [--health starting|healthy|degraded|failed] [--ready FILE] */
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>

#include "basic/strv.h"
#include "peer/peer-profile.h"
#include "peer/peer.h"
#include "profile/profile.h"

static void print_stats(const PeerServer *s, const PeerBulkServer *b) {
        const PeerServerStats *st = peer_server_stats(s);
        const PeerBulkStats *bt = peer_bulk_server_stats(b);

        printf("udp answered=%" PRIu64 " refused_source=%" PRIu64 " refused_port=%" PRIu64
               " oversized=%" PRIu64 " malformed=%" PRIu64 " not_request=%" PRIu64 " rate_limited=%" PRIu64
               " rate_limited_halod=%" PRIu64 " send_failed=%" PRIu64 " notices=%" PRIu64 "\n",
               st->answered,
               st->refused_source,
               st->refused_port,
               st->oversized,
               st->malformed,
               st->not_request,
               st->rate_limited,
               st->rate_limited_halod,
               st->send_failed,
               st->notices);
        printf("tcp completed=%" PRIu64 " refused_source=%" PRIu64 " busy=%" PRIu64 " aborted=%" PRIu64
               " header_timeout=%" PRIu64 " bytes=%" PRIu64 "\n",
               bt->completed,
               bt->refused_source,
               bt->busy,
               bt->aborted,
               bt->header_timeout,
               bt->bytes);
        fflush(stdout);
}

int main(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *b = NULL;
        _cleanup_(closep) int sfd = -EBADF;
        const ProfileNode *node;
        Health health = HEALTH_HEALTHY;
        const char *ready = NULL;
        sigset_t mask;
        int r;

        if (argc < 3) {
                fprintf(stderr, "Usage: %s PROFILE NODE [--health H] [--ready FILE]\n", argv[0]);
                return EXIT_FAILURE;
        }
        for (int i = 3; i + 1 < argc; i += 2)
                if (streq(argv[i], "--health"))
                        health = health_from_string(argv[i + 1]);
                else if (streq(argv[i], "--ready"))
                        ready = argv[i + 1];
        if (health < 0) {
                fprintf(stderr, "Unknown --health value.\n");
                return EXIT_FAILURE;
        }

        r = profile_load_file(argv[1], &p, &errors);
        if (r < 0) {
                STRV_FOREACH(e, errors)
                        fprintf(stderr, "%s\n", *e);
                return EXIT_FAILURE;
        }
        node = profile_find_node(p, argv[2]);
        if (!node) {
                fprintf(stderr, "%s: no node '%s'.\n", argv[1], argv[2]);
                return EXIT_FAILURE;
        }

        r = peer_server_open_for_profile(p, node, health, /* fd= */ -EBADF, &s);
        if (r < 0) {
                fprintf(stderr, "Failed to open the peer responder: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }
        r = peer_bulk_server_open_for_profile(p, node, /* fd= */ -EBADF, &b);
        if (r < 0) {
                fprintf(stderr, "Failed to open the throughput sink: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGUSR1);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        sfd = signalfd(-1, &mask, SFD_CLOEXEC);
        if (sfd < 0) {
                fprintf(stderr, "signalfd: %m\n");
                return EXIT_FAILURE;
        }

        if (ready) {
                FILE *f = fopen(ready, "we");
                if (f)
                        fclose(f);
        }

        for (;;) {
                struct pollfd pfd[3] = {
                        { .fd = peer_server_fd(s), .events = POLLIN },
                        { .fd = peer_bulk_server_fd(b), .events = POLLIN },
                        { .fd = sfd, .events = POLLIN },
                };

                if (poll(pfd, ELEMENTSOF(pfd), -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        fprintf(stderr, "poll: %m\n");
                        return EXIT_FAILURE;
                }
                if (pfd[0].revents)
                        while (peer_server_handle(s) > 0)
                                ;
                if (pfd[1].revents)
                        (void) peer_bulk_server_handle(b);
                if (pfd[2].revents) {
                        struct signalfd_siginfo si;

                        if (read(sfd, &si, sizeof(si)) != sizeof(si))
                                continue;
                        print_stats(s, b);
                        if (si.ssi_signo != SIGUSR1)
                                return EXIT_SUCCESS;
                }
        }
}

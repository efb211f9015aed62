/* SPDX-License-Identifier: MIT */
/* Timing probe for bench/daemon.sh: start-to-READY=1 of halod, and the drift reaction from an
 * RTM_DELADDR to the PropertiesChanged signal that announces Health. Run inside the node's netns.
 *
 *   halod-probe ready COUNT HALOD [ARGS...]     spawn halod COUNT times; µs from spawn to READY=1
 *   halod-probe drift COUNT IFNAME A.B.C.D/LEN  delete and re-add the address COUNT times; µs from
 *                                               the netlink request to Health=degraded/healthy */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "basic/time-util.h"

extern char **environ;

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *v, unsigned n) {
        if (n == 0) {
                printf("%s: no samples\n", what);
                return;
        }
        qsort(v, n, sizeof(uint64_t), cmp_u64);
        printf("%s: median %.2f ms (min %.2f, max %.2f, n=%u)\n",
               what,
               v[n / 2] / 1000.0,
               v[0] / 1000.0,
               v[n - 1] / 1000.0,
               n);
}

/* With $HALOD_PROBE_RAW set to a path prefix, appends each sample (µs, one a line) to PREFIX.SUFFIX:
 * bench/drift.sh pools several runs before it takes the median. */
static void save_raw(const char *suffix, const uint64_t *v, unsigned n) {
        const char *prefix = getenv("HALOD_PROBE_RAW");
        char path[4096];
        FILE *f;

        if (!prefix || snprintf(path, sizeof(path), "%s.%s", prefix, suffix) >= (int) sizeof(path))
                return;
        f = fopen(path, "ae");
        if (!f) {
                fprintf(stderr, "cannot append to %s: %m\n", path);
                return;
        }
        for (unsigned i = 0; i < n; i++)
                fprintf(f, "%llu\n", (unsigned long long) v[i]);
        fclose(f);
}

static int run_ready(unsigned count, char **argv) {
        char path[] = "/tmp/halod-probe-XXXXXX", sock_path[64], env[160], buf[4096];
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        posix_spawn_file_actions_t quiet;
        uint64_t *samples = calloc(count, sizeof(uint64_t));
        unsigned n = 0;
        int fd;

        if (!samples || !mkdtemp(path))
                return 1;
        snprintf(sock_path, sizeof(sock_path), "%s/notify", path);
        memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1); /* /tmp/halod-probe-XXXXXX/notify fits */
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                perror("notify socket");
                return 1;
        }
        snprintf(env, sizeof(env), "NOTIFY_SOCKET=%s", sock_path);
        putenv(env);
        /* halod's log lines would interleave with the report. */
        posix_spawn_file_actions_init(&quiet);
        posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&quiet, STDERR_FILENO, "/dev/null", O_WRONLY, 0);

        for (unsigned i = 0; i < count; i++) {
                uint64_t t0 = now(CLOCK_MONOTONIC);
                pid_t pid;
                int status;
                bool ready = false;

                if (posix_spawn(&pid, argv[0], &quiet, NULL, argv, environ) != 0) {
                        perror("posix_spawn");
                        return 1;
                }
                while (!ready) {
                        struct pollfd p = { .fd = fd, .events = POLLIN };
                        ssize_t l;

                        if (poll(&p, 1, 5000) <= 0) {
                                fprintf(stderr, "no READY=1 within 5 s\n");
                                kill(pid, SIGKILL);
                                return 1;
                        }
                        l = recv(fd, buf, sizeof(buf) - 1, 0);
                        if (l < 0)
                                continue;
                        buf[l] = 0;
                        ready = strstr(buf, "READY=1") != NULL;
                }
                samples[n++] = now(CLOCK_MONOTONIC) - t0;
                kill(pid, SIGTERM);
                waitpid(pid, &status, 0);
                /* Drain STOPPING=1. */
                while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
                        ;
        }
        report("start to READY=1", samples, n);
        posix_spawn_file_actions_destroy(&quiet);
        unlink(sock_path);
        rmdir(path);
        free(samples);
        return 0;
}

static int rtnl_address(struct mnl_socket *nl, int type, int ifindex, struct in_addr a, unsigned prefixlen) {
        char buf[MNL_SOCKET_BUFFER_SIZE];
        struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
        struct ifaddrmsg *ifa;

        h->nlmsg_type = type;
        h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (type == RTM_NEWADDR ? NLM_F_CREATE | NLM_F_EXCL : 0);
        h->nlmsg_seq = (unsigned) time(NULL);
        ifa = mnl_nlmsg_put_extra_header(h, sizeof(*ifa));
        ifa->ifa_family = AF_INET;
        ifa->ifa_prefixlen = prefixlen;
        ifa->ifa_index = ifindex;
        mnl_attr_put_u32(h, IFA_LOCAL, a.s_addr);
        mnl_attr_put_u32(h, IFA_ADDRESS, a.s_addr);
        if (mnl_socket_sendto(nl, h, h->nlmsg_len) < 0)
                return -1;
        int l = mnl_socket_recvfrom(nl, buf, sizeof(buf));
        if (l < 0)
                return -1;
        return mnl_cb_run(buf, l, 0, 0, NULL, NULL) < 0 ? -1 : 0;
}

static const char *health_seen;

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        static char value[32];
        const char *iface, *name, *s;

        if (sd_bus_message_read(m, "s", &iface) < 0 || sd_bus_message_enter_container(m, 'a', "{sv}") < 0)
                return 0;
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                if (sd_bus_message_read(m, "s", &name) < 0)
                        return 0;
                if (strcmp(name, "Health") == 0 && sd_bus_message_read(m, "v", "s", &s) >= 0) {
                        snprintf(value, sizeof(value), "%s", s);
                        health_seen = value;
                } else if (sd_bus_message_skip(m, "v") < 0)
                        return 0;
                sd_bus_message_exit_container(m);
        }
        return 0;
}

static int wait_health(sd_bus *bus, const char *want) {
        uint64_t deadline = now(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;

        while (!health_seen || strcmp(health_seen, want) != 0) {
                if (now(CLOCK_MONOTONIC) > deadline)
                        return -1;
                if (sd_bus_process(bus, NULL) > 0)
                        continue;
                sd_bus_wait(bus, 100000);
        }
        health_seen = NULL;
        return 0;
}

#define DRIFT_SPACING_USEC 150000U

static int run_drift(unsigned count, const char *ifname, const char *prefix) {
        uint64_t *down = calloc(count, sizeof(uint64_t)), *up = calloc(count, sizeof(uint64_t));
        struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
        sd_bus *bus = NULL;
        char addr[INET_ADDRSTRLEN];
        struct in_addr a;
        unsigned plen, n = 0;
        int ifindex = (int) if_nametoindex(ifname);

        if (!down || !up || !nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 || ifindex <= 0 ||
            sscanf(prefix, "%15[0-9.]/%u", addr, &plen) != 2 || inet_pton(AF_INET, addr, &a) != 1) {
                fprintf(stderr, "usage: drift COUNT IFNAME A.B.C.D/LEN (inside the node's netns)\n");
                return 1;
        }
        if (sd_bus_open_system(&bus) < 0 ||
            sd_bus_match_signal(
                    bus,
                    NULL,
                    "io.halod1",
                    "/io/halod1",
                    "org.freedesktop.DBus.Properties",
                    "PropertiesChanged",
                    on_properties_changed,
                    NULL) < 0) {
                fprintf(stderr, "cannot watch io.halod1 on the system bus\n");
                return 1;
        }
        /* Let the match reach the bus before the first change. */
        sd_bus_call_method(
                bus,
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.Peer",
                "Ping",
                NULL,
                NULL,
                "");

        for (unsigned i = 0; i < count; i++) {
                uint64_t t0 = now(CLOCK_MONOTONIC);

                if (rtnl_address(nl, RTM_DELADDR, ifindex, a, plen) < 0 || wait_health(bus, "degraded") < 0) {
                        fprintf(stderr, "no Health=degraded after deleting %s\n", prefix);
                        return 1;
                }
                down[n] = now(CLOCK_MONOTONIC) - t0;
                /* Space the changes wider than halod's re-check rate (10 a second after a burst of 5,
                 * halod(8)), so that the figure is the reaction to one drift, not the rate limit. */
                usleep(DRIFT_SPACING_USEC);
                t0 = now(CLOCK_MONOTONIC);
                if (rtnl_address(nl, RTM_NEWADDR, ifindex, a, plen) < 0 || wait_health(bus, "healthy") < 0) {
                        fprintf(stderr, "no Health=healthy after adding %s back\n", prefix);
                        return 1;
                }
                up[n++] = now(CLOCK_MONOTONIC) - t0;
                usleep(DRIFT_SPACING_USEC);
        }
        save_raw("down", down, n);
        save_raw("up", up, n);
        report("drift: RTM_DELADDR to PropertiesChanged Health=degraded", down, n);
        report("repair seen: RTM_NEWADDR to PropertiesChanged Health=healthy", up, n);
        sd_bus_flush_close_unref(bus);
        mnl_socket_close(nl);
        free(down);
        free(up);
        return 0;
}

int main(int argc, char *argv[]) {
        if (argc >= 4 && strcmp(argv[1], "ready") == 0)
                return run_ready((unsigned) atoi(argv[2]), argv + 3);
        if (argc == 5 && strcmp(argv[1], "drift") == 0)
                return run_drift((unsigned) atoi(argv[2]), argv[3], argv[4]);
        fprintf(stderr,
                "usage: %s ready COUNT HALOD [ARGS...] | drift COUNT IFNAME A.B.C.D/LEN\n",
                program_invocation_short_name);
        return 2;
}

/* SPDX-License-Identifier: MIT */
/* A small io.halod1 client for the stress tests: Verify() and Reload() loops, many clients reading
 * every property at once, and a responsiveness probe — each timing every call from one connection,
 * so that what is measured is halod and the bus, not process start-up (as with busctl in a loop).
 *
 *   st-bus verify COUNT                     COUNT Verify() calls; any error fails
 *   st-bus reload COUNT PROFILE GOOD BAD    COUNT Reload() calls, copying BAD then GOOD over PROFILE
 *                                           in turn: BAD must be refused with ProfileInvalid, GOOD
 *                                           accepted; ends with GOOD in force
 *   st-bus getall CLIENTS SECONDS           CLIENTS processes, each with its own connection, call
 *                                           GetAll in a loop for SECONDS
 *   st-bus probe SECONDS INTERVAL_MS        Get(Health) every INTERVAL_MS for SECONDS, or until
 *                                           SIGTERM or SIGINT
 *
 * Each prints "key=value" lines: calls, errors, p50_us, p99_us, max_us (and over_50ms for probe). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/time-util.h"

#define BUS_NAME "io.halod1"
#define OBJECT_PATH "/io/halod1"
#define INTERFACE "io.halod1.Node"
#define CALL_TIMEOUT_USEC (30ULL * 1000000ULL)

/* Latencies in 10 µs buckets up to 2 s, the last bucket holding everything slower: shared by the
 * processes of getall through an anonymous shared mapping. */
#define BUCKET_USEC 10U
#define N_BUCKETS 200000U

typedef struct Histogram {
        _Atomic uint64_t calls;
        _Atomic uint64_t errors;
        _Atomic uint64_t max_usec;
        _Atomic uint64_t over_50ms;
        _Atomic uint64_t buckets[N_BUCKETS];
} Histogram;

static volatile sig_atomic_t stop_requested = 0;

static void on_stop_signal(int sig) {
        stop_requested = 1;
}

static Histogram *histogram_new(void) {
        Histogram *h = mmap(NULL, sizeof(Histogram), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

        return h == MAP_FAILED ? NULL : h;
}

static void histogram_add(Histogram *h, uint64_t usec, bool failed) {
        uint64_t b = usec / BUCKET_USEC, old;

        atomic_fetch_add(&h->calls, 1);
        if (failed)
                atomic_fetch_add(&h->errors, 1);
        if (usec > 50000)
                atomic_fetch_add(&h->over_50ms, 1);
        atomic_fetch_add(&h->buckets[b < N_BUCKETS ? b : N_BUCKETS - 1], 1);
        old = atomic_load(&h->max_usec);
        while (usec > old && !atomic_compare_exchange_weak(&h->max_usec, &old, usec))
                ;
}

static uint64_t histogram_percentile(const Histogram *h, double p) {
        uint64_t n = atomic_load(&h->calls), want = (uint64_t) ((double) n * p), seen = 0;

        if (n == 0)
                return 0;
        if (want >= n)
                want = n - 1;
        for (size_t i = 0; i < N_BUCKETS; i++) {
                seen += atomic_load(&h->buckets[i]);
                if (seen > want)
                        return (uint64_t) (i + 1) * BUCKET_USEC; /* the bucket's upper bound */
        }
        return atomic_load(&h->max_usec);
}

static void histogram_print(const Histogram *h) {
        printf("calls=%llu\nerrors=%llu\np50_us=%llu\np99_us=%llu\nmax_us=%llu\nover_50ms=%llu\n",
               (unsigned long long) atomic_load(&h->calls),
               (unsigned long long) atomic_load(&h->errors),
               (unsigned long long) histogram_percentile(h, 0.50),
               (unsigned long long) histogram_percentile(h, 0.99),
               (unsigned long long) atomic_load(&h->max_usec),
               (unsigned long long) atomic_load(&h->over_50ms));
}

static int open_bus(sd_bus **ret) {
        int r = sd_bus_open_system(ret);

        if (r < 0)
                fprintf(stderr, "Failed to connect to the system bus: %s\n", strerror(-r));
        return r;
}

/* Calls a method of io.halod1.Node; returns 0, or negative errno with the D-Bus error in *error. */
static int call(sd_bus *bus, const char *method, Histogram *h, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint64_t t = now(CLOCK_MONOTONIC);
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, OBJECT_PATH, INTERFACE, method, error, &reply, NULL);
        if (h)
                histogram_add(h, now(CLOCK_MONOTONIC) - t, r < 0);
        return r;
}

static int do_verify(unsigned count, Histogram *h) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        r = open_bus(&bus);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < count; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

                r = call(bus, "Verify", h, &error);
                if (r < 0) {
                        fprintf(stderr, "Verify() #%u failed: %s\n", i + 1, error.message ?: strerror(-r));
                        return r;
                }
        }
        return 0;
}

static int copy_file(const char *from, const char *to) {
        _cleanup_(closep) int in = -EBADF, out = -EBADF;
        struct stat st;

        in = open(from, O_RDONLY | O_CLOEXEC);
        if (in < 0 || fstat(in, &st) < 0)
                return -errno;
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0)
                return -errno;
        if (sendfile(out, in, NULL, (size_t) st.st_size) != st.st_size)
                return -EIO;
        return 0;
}

static int do_reload(unsigned count, const char *profile, const char *good, const char *bad, Histogram *h) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        r = open_bus(&bus);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < count; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                /* Odd calls (1st, 3rd, ...) get the broken profile, so the last of an even count is good. */
                bool broken = i % 2 == 0;

                r = copy_file(broken ? bad : good, profile);
                if (r < 0) {
                        fprintf(stderr, "Failed to write %s: %s\n", profile, strerror(-r));
                        return r;
                }
                r = call(bus, "Reload", h, &error);
                if (broken && !sd_bus_error_has_name(&error, "io.halod1.Error.ProfileInvalid")) {
                        fprintf(stderr,
                                "Reload() #%u of a broken profile: expected io.halod1.Error.ProfileInvalid, got %s\n",
                                i + 1,
                                r < 0 ? strna(error.name) : "success");
                        return -EBADMSG;
                }
                if (!broken && r < 0) {
                        fprintf(stderr,
                                "Reload() #%u of a valid profile failed: %s\n",
                                i + 1,
                                strna(error.message));
                        return r;
                }
        }
        return 0;
}

static int getall_loop(uint64_t until, Histogram *h) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        r = open_bus(&bus);
        if (r < 0)
                return r;
        while (now(CLOCK_MONOTONIC) < until) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                uint64_t t = now(CLOCK_MONOTONIC);

                r = sd_bus_call_method(
                        bus,
                        BUS_NAME,
                        OBJECT_PATH,
                        "org.freedesktop.DBus.Properties",
                        "GetAll",
                        &error,
                        &reply,
                        "s",
                        INTERFACE);
                histogram_add(h, now(CLOCK_MONOTONIC) - t, r < 0);
                if (r < 0)
                        fprintf(stderr, "GetAll failed: %s\n", error.message ?: strerror(-r));
        }
        return 0;
}

static int do_getall(unsigned clients, unsigned seconds, Histogram *h) {
        uint64_t until = now(CLOCK_MONOTONIC) + (uint64_t) seconds * USEC_PER_SEC;
        int status = 0;

        for (unsigned i = 0; i < clients; i++) {
                pid_t pid = fork();

                if (pid < 0)
                        return -errno;
                if (pid == 0)
                        _exit(getall_loop(until, h) < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
        }
        for (unsigned i = 0; i < clients; i++) {
                int st;

                if (wait(&st) < 0)
                        return -errno;
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        status = -ECHILD;
        }
        return status;
}

static int do_probe(unsigned seconds, unsigned interval_ms, Histogram *h) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        uint64_t until = now(CLOCK_MONOTONIC) + (uint64_t) seconds * USEC_PER_SEC;
        int r;

        r = open_bus(&bus);
        if (r < 0)
                return r;
        while (!stop_requested && now(CLOCK_MONOTONIC) < until) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(freep) char *health = NULL;
                uint64_t t = now(CLOCK_MONOTONIC);

                r = sd_bus_get_property_string(
                        bus, BUS_NAME, OBJECT_PATH, INTERFACE, "Health", &error, &health);
                /* The stop signal (no SA_RESTART) can land while a call waits for its reply: that call
                 * is the test's to drop, not an answer halod failed to give (seen once under load). */
                if (r == -EINTR && stop_requested)
                        break;
                histogram_add(h, now(CLOCK_MONOTONIC) - t, r < 0);
                if (r < 0)
                        fprintf(stderr, "Get(Health) failed: %s\n", error.message ?: strerror(-r));
                (void) usleep(interval_ms * 1000U);
        }
        return 0;
}

static unsigned parse_unsigned(const char *s) {
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end || v == 0 || v > 1000000UL) {
                fprintf(stderr, "'%s' is not a number from 1 to 1000000.\n", s);
                exit(64);
        }
        return (unsigned) v;
}

int main(int argc, char *argv[]) {
        Histogram *h;
        int r;

        if (argc < 3) {
                fprintf(stderr,
                        "Usage: %s verify COUNT | reload COUNT PROFILE GOOD BAD | getall CLIENTS SECONDS | "
                        "probe SECONDS INTERVAL_MS\n",
                        argv[0]);
                return 64;
        }
        h = histogram_new();
        if (!h)
                return perror("mmap"), 1;
        (void) signal(SIGPIPE, SIG_IGN);

        if (streq(argv[1], "verify"))
                r = do_verify(parse_unsigned(argv[2]), h);
        else if (streq(argv[1], "reload") && argc == 6)
                r = do_reload(parse_unsigned(argv[2]), argv[3], argv[4], argv[5], h);
        else if (streq(argv[1], "getall") && argc == 4)
                r = do_getall(parse_unsigned(argv[2]), parse_unsigned(argv[3]), h);
        else if (streq(argv[1], "probe") && argc == 4) {
                struct sigaction sa = { .sa_handler = on_stop_signal };

                (void) sigaction(SIGTERM, &sa, NULL);
                (void) sigaction(SIGINT, &sa, NULL);
                r = do_probe(parse_unsigned(argv[2]), parse_unsigned(argv[3]), h);
        } else {
                fprintf(stderr,
                        "Unknown command '%s' or wrong number of arguments; run without any for usage.\n",
                        argv[1]);
                return 64;
        }
        histogram_print(h);
        return r < 0 ? 1 : 0;
}

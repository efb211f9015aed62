/* SPDX-License-Identifier: MIT */
/* haloctl status, verify, reload (and the Apply() call): talking to a running halod over D-Bus. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "basic/json-writer.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "check/check-peer.h"
#include "haloctl-status-reboot.h"
#include "haloctl.h"
#include "net/bus-util.h"
#include "peer/health.h"

#define BUS_NAME "io.halod1"
#define OBJECT_PATH "/io/halod1"
#define INTERFACE "io.halod1.Node"

typedef struct NodeStatus {
        char *node, *cluster, *mode, *profile_path, *backend, *backend_reason, *health, *summary;
        uint64_t last_verify_usec, last_apply_usec;
        CheckList checks;
        PeerStatusList peers;
        bool has_peers;          /* an older halod has no Peers property */
        char **pending_reboot;   /* PendingReboot: pairs of check id and what */
        bool has_pending_reboot; /* an older halod has no PendingReboot property */
} NodeStatus;

static void node_status_done(NodeStatus *s) {
        free(s->node);
        free(s->cluster);
        free(s->mode);
        free(s->profile_path);
        free(s->backend);
        free(s->backend_reason);
        free(s->health);
        free(s->summary);
        check_list_done(&s->checks);
        peer_status_list_done(&s->peers);
        strv_free(s->pending_reboot);
}

static int not_running(const char *why_format, ...) _printf_(1, 2);
static int not_running(const char *why_format, ...) {
        va_list ap;

        fputs("halod is not running (", stderr);
        va_start(ap, why_format);
        vfprintf(stderr, why_format, ap);
        va_end(ap);
        fputs("); try `haloctl check` to run the checks without it.\n", stderr);
        return EX_UNAVAILABLE;
}

static int bus_connect(sd_bus **ret) {
        int r;

        r = sd_bus_open_system(ret);
        if (r < 0)
                return not_running("the system bus is not reachable: %s", strerror(-r));
        /* Lets polkit ask for a password when a person is at the terminal. */
        (void) sd_bus_set_allow_interactive_authorization(*ret, isatty(STDIN_FILENO));
        return 0;
}

/* Maps a D-Bus error of a call to halod to haloctl's message and exit status. */
static int report_bus_error(const char *what, const sd_bus_error *error, int r) {
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                return not_running("io.halod1 has no owner on the system bus");
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED)) {
                fprintf(stderr,
                        "Permission denied: %s. Run it as root (sudo haloctl ...) or have an administrator "
                        "grant the polkit action io.halod1.manage.\n",
                        error->message ?: what);
                return EX_NOPERM;
        }
        if (sd_bus_error_has_name(error, "io.halod1.Error.ProfileInvalid")) {
                fprintf(stderr, "%s\n", error->message);
                return EX_CONFIG;
        }
        /* The same statuses as a local `haloctl apply` (see haloctl(1)). */
        if (sd_bus_error_has_name(error, "io.halod1.Error.VerifyMode")) {
                fprintf(stderr, "%s\n", error->message);
                return EX_NOPERM;
        }
        if (sd_bus_error_has_name(error, "io.halod1.Error.ApplyFailed")) {
                fprintf(stderr, "%s\n", error->message);
                return EXIT_CHECK_FAIL;
        }
        if (error && error->message)
                fprintf(stderr, "Failed to %s: %s\n", what, error->message);
        else
                fprintf(stderr, "Failed to %s: %s\n", what, strerror(r < 0 ? -r : r));
        return EXIT_FAILURE;
}

static int read_string(sd_bus_message *reply, char **ret) {
        const char *s;
        int r;

        r = sd_bus_message_read(reply, "v", "s", &s);
        if (r < 0)
                return r;
        free(*ret);
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int read_checks(sd_bus_message *reply, CheckList *l) {
        const char *id, *outcome, *summary, *expected, *actual;
        int r;

        r = sd_bus_message_enter_container(reply, 'v', "a(sssss)");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(sssss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(sssss)", &id, &outcome, &summary, &expected, &actual)) > 0) {
                CheckOutcome o = check_outcome_from_string(outcome);

                /* An outcome this haloctl does not know yet is shown as a warning, not dropped. */
                r = check_list_add(l, id, o < 0 ? CHECK_WARN : o, expected, actual, "%s", summary);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

static int read_peers(sd_bus_message *reply, PeerStatusList *l) {
        const char *node, *address;
        uint64_t median, p99;
        int reachable, r;

        r = sd_bus_message_enter_container(reply, 'v', "a(ssbtt)");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(ssbtt)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(ssbtt)", &node, &address, &reachable, &median, &p99)) > 0) {
                PeerStatus *p = reallocarray(l->peers, l->n_peers + 1, sizeof(PeerStatus));

                if (!p)
                        return -ENOMEM;
                l->peers = p;
                p = &l->peers[l->n_peers];
                *p = (PeerStatus){
                        .node = strdup(node),
                        .reachable = reachable,
                        .rtt_median_usec = median,
                        .rtt_p99_usec = p99,
                };
                if (!p->node)
                        return -ENOMEM;
                (void) snprintf(p->address, sizeof(p->address), "%s", address);
                l->n_peers++;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

static int parse_properties(sd_bus_message *reply, NodeStatus *s) {
        const char *name;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                struct {
                        const char *name;
                        char **field;
                } strings[] = {
                        { "Node", &s->node },       { "Cluster", &s->cluster },
                        { "Mode", &s->mode },       { "ProfilePath", &s->profile_path },
                        { "Backend", &s->backend }, { "Health", &s->health },
                        { "Summary", &s->summary }, { "BackendReason", &s->backend_reason },
                };
                bool done = false;

                r = sd_bus_message_read(reply, "s", &name);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < ELEMENTSOF(strings) && !done; i++)
                        if (streq(name, strings[i].name)) {
                                r = read_string(reply, strings[i].field);
                                done = true;
                        }
                if (done)
                        ;
                else if (streq(name, "Checks"))
                        r = read_checks(reply, &s->checks);
                else if (streq(name, "Peers")) {
                        r = read_peers(reply, &s->peers);
                        s->has_peers = true;
                } else if (streq(name, "PendingReboot")) {
                        r = status_read_pending_reboot(reply, &s->pending_reboot);
                        s->has_pending_reboot = true;
                } else if (streq(name, "LastVerifyUSec"))
                        r = sd_bus_message_read(reply, "v", "t", &s->last_verify_usec);
                else if (streq(name, "LastApplyUSec"))
                        r = sd_bus_message_read(reply, "v", "t", &s->last_apply_usec);
                else
                        r = sd_bus_message_skip(reply, "v"); /* a newer halod's property */
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

/* Returns 0 and the daemon's state, or haloctl's exit status after saying what went wrong. */
static int get_status(sd_bus *bus, NodeStatus *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(
                bus, BUS_NAME, OBJECT_PATH, "org.freedesktop.DBus.Properties", "GetAll", &error, &reply, "s", INTERFACE);
        if (r < 0)
                return report_bus_error("read halod's properties", &error, r);

        r = parse_properties(reply, ret);
        if (r < 0) {
                fprintf(stderr,
                        "Failed to parse halod's properties: %s. Is haloctl older than halod?\n",
                        strerror(-r));
                return EXIT_FAILURE;
        }
        return 0;
}

static const char *health_dot_color(const char *health) {
        switch (health_from_string(health)) {
        case HEALTH_HEALTHY:
                return ansi_green();
        case HEALTH_DEGRADED:
                return ansi_yellow();
        case HEALTH_FAILED:
                return ansi_red();
        default:
                return ansi_grey();
        }
}

static void print_timestamp(const char *label, uint64_t usec) {
        char buf[64];
        struct tm tm;
        time_t t = (time_t) (usec / USEC_PER_SEC);
        long long ago = (long long) time(NULL) - (long long) t;

        if (usec == 0) {
                printf("%10s: never\n", label);
                return;
        }
        if (!localtime_r(&t, &tm) || strftime(buf, sizeof(buf), "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
                (void) snprintf(buf, sizeof(buf), "@%lld", (long long) t);
        if (ago < 0)
                ago = 0;
        if (ago < 120)
                printf("%10s: %s; %llds ago\n", label, buf, ago);
        else if (ago < 7200)
                printf("%10s: %s; %lldmin ago\n", label, buf, ago / 60);
        else
                printf("%10s: %s; %lldh ago\n", label, buf, ago / 3600);
}

static void print_peers(const NodeStatus *s) {
        size_t width = 0;

        for (size_t i = 0; i < s->peers.n_peers; i++)
                if (strlen(s->peers.peers[i].node) > width)
                        width = strlen(s->peers.peers[i].node);

        for (size_t i = 0; i < s->peers.n_peers; i++) {
                const PeerStatus *p = &s->peers.peers[i];

                printf("%10s%s %s●%s %-*s  %-15s  ",
                       i == 0 ? "Peers" : "",
                       i == 0 ? ":" : " ",
                       p->reachable ? ansi_green() : ansi_red(),
                       ansi_normal(),
                       (int) width,
                       p->node,
                       p->address);
                if (p->reachable)
                        printf("reachable, round trip %" PRIu64 " µs median, %" PRIu64 " µs p99\n",
                               p->rtt_median_usec,
                               p->rtt_p99_usec);
                else
                        printf("%snot answering%s\n", ansi_red(), ansi_normal());
        }
}

/* The id fabric.<node><suffix> (".transport"): its node into node (CHECK_ID_MAX), or false for another id. */
static bool fabric_check_node(const char *id, const char *suffix, char node[static CHECK_ID_MAX]) {
        const char *p = startswith(id, "fabric."), *end;

        if (!p)
                return false;
        end = strchr(p, '.');
        if (!end || end == p || !streq(end, suffix))
                return false;
        snprintf(node, CHECK_ID_MAX, "%.*s", (int) (end - p), p);
        return true;
}

/* One row per peer under label, from its check fabric.<node><suffix>: the summary up to cut (the
 * likely causes of a fallback are in the check's row below), or whole. */
static void print_fabric_rows(const NodeStatus *s, const char *label, const char *suffix, const char *cut_at) {
        char node[CHECK_ID_MAX];
        size_t width = 0;
        bool first = true;

        for (size_t i = 0; i < s->checks.n_checks; i++)
                if (fabric_check_node(s->checks.checks[i].id, suffix, node) && strlen(node) > width)
                        width = strlen(node);
        for (size_t i = 0; i < s->checks.n_checks; i++) {
                const Check *c = &s->checks.checks[i];
                const char *summary = strempty(c->summary), *cut = cut_at ? strstr(summary, cut_at) : NULL;
                const char *color = c->outcome == CHECK_PASS ? ansi_green()
                        : c->outcome == CHECK_SKIP           ? ansi_grey()
                                                             : ansi_yellow();

                if (!fabric_check_node(c->id, suffix, node))
                        continue;
                printf("%10s%s %s●%s %-*s  %.*s\n",
                       first ? label : "",
                       first ? ":" : " ",
                       color,
                       ansi_normal(),
                       (int) width,
                       node,
                       (int) (cut ? (size_t) (cut - summary) : strlen(summary)),
                       summary);
                first = false;
        }
}

static void print_status(const NodeStatus *s) {
        printf("%s●%s %snode %s%s of cluster %s\n",
               health_dot_color(s->health),
               ansi_normal(),
               ansi_bold(),
               strna(s->node),
               ansi_normal(),
               strna(s->cluster));
        printf("%10s: %s%s%s\n", "Health", health_dot_color(s->health), strna(s->health), ansi_normal());
        printf("%10s: %s\n", "Summary", strna(s->summary));
        if (s->has_pending_reboot)
                status_print_pending_reboot(s->pending_reboot);
        printf("%10s: %s (mode %s, backend %s)\n",
               "Profile",
               strna(s->profile_path),
               strna(s->mode),
               strna(s->backend));
        /* An older halod has no BackendReason. */
        if (!isempty(s->backend_reason))
                printf("%10s: %s: %s\n", "Backend", strna(s->backend), s->backend_reason);
        print_timestamp("Verified", s->last_verify_usec);
        print_timestamp("Applied", s->last_apply_usec);
        print_peers(s);
        print_fabric_rows(s, "Fabric use", ".transport", ". Likely causes");
        /* haloctl probe's latest RDMA measurement against its baseline (fabric.<node>.baseline). */
        print_fabric_rows(s, "RDMA path", ".baseline", NULL);
        if (s->checks.n_checks > 0) {
                printf("\n");
                print_checks(&s->checks);
        }
}

static void print_status_json(const NodeStatus *s) {
        JsonWriter w;

        json_writer_init(&w, stdout, true);
        json_begin_object(&w);
        json_kv_string(&w, "node", s->node);
        json_kv_string(&w, "cluster", s->cluster);
        json_kv_string(&w, "mode", s->mode);
        json_kv_string(&w, "profile", s->profile_path);
        json_kv_string(&w, "backend", s->backend);
        json_kv_string(&w, "backend_reason", s->backend_reason);
        json_kv_string(&w, "health", s->health);
        json_kv_string(&w, "summary", s->summary);
        json_kv_uint(&w, "last_verify_usec", s->last_verify_usec);
        json_kv_uint(&w, "last_apply_usec", s->last_apply_usec);
        json_kv_string(&w, "outcome", check_outcome_to_string(check_list_worst(&s->checks)));
        json_checks(&w, &s->checks);
        if (s->has_pending_reboot)
                status_json_pending_reboot(&w, s->pending_reboot);
        if (s->has_peers) {
                json_key(&w, "peers");
                json_begin_array(&w);
                for (size_t i = 0; i < s->peers.n_peers; i++) {
                        const PeerStatus *p = &s->peers.peers[i];

                        json_begin_object(&w);
                        json_kv_string(&w, "node", p->node);
                        json_kv_string(&w, "address", p->address);
                        json_kv_bool(&w, "reachable", p->reachable);
                        json_kv_uint(&w, "rtt_median_usec", p->rtt_median_usec);
                        json_kv_uint(&w, "rtt_p99_usec", p->rtt_p99_usec);
                        json_end_object(&w);
                }
                json_end_array(&w);
        }
        json_end_object(&w);
        json_writer_finish(&w);
}

/* With --only, keeps the Peers rows of the nodes whose peer checks it selects. */
static void filter_peers(PeerStatusList *peers, const CheckList *checks) {
        size_t kept = 0;

        for (size_t i = 0; i < peers->n_peers; i++) {
                PeerStatus *p = &peers->peers[i];
                bool selected = false;
                char prefix[CHECK_ID_MAX];

                (void) snprintf(prefix, sizeof(prefix), "peer.%s.", p->node);
                for (size_t j = 0; j < checks->n_checks && !selected; j++)
                        selected = startswith(checks->checks[j].id, prefix) &&
                                check_id_selected(checks->checks[j].id, arg_only);
                if (selected)
                        peers->peers[kept++] = *p;
                else
                        free(p->node);
        }
        peers->n_peers = kept;
}

static int show_status(sd_bus *bus) {
        _cleanup_(node_status_done) NodeStatus s = {};
        int r;

        r = get_status(bus, &s);
        if (r != 0)
                return r;
        if (arg_only) {
                CheckList selected = {};

                filter_peers(&s.peers, &s.checks);
                r = check_list_take_selected(&selected, &s.checks, arg_only);
                check_list_done(&s.checks);
                s.checks = selected;
                if (r < 0) {
                        fprintf(stderr, "Out of memory.\n");
                        return EXIT_FAILURE;
                }
        }
        if (arg_json)
                print_status_json(&s);
        else
                print_status(&s);
        return exit_code_for_checks(&s.checks);
}

/* Connects to halod, calls its io.halod1.Node method (a method that takes nothing; none when NULL),
 * says done (not with --json) and shows the status. Returns haloctl's exit status. */
static int call_and_show_status(const char *method, const char *what, const char *done) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        r = bus_connect(&bus);
        if (r != 0)
                return r;
        if (method) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

                r = sd_bus_call_method(bus, BUS_NAME, OBJECT_PATH, INTERFACE, method, &error, NULL, NULL);
                if (r < 0)
                        return report_bus_error(what, &error, r);
        }
        if (done && !arg_json)
                printf("%s\n", done);
        return show_status(bus);
}

int verb_status(int argc, char *argv[]) {
        return call_and_show_status(/* method= */ NULL, /* what= */ NULL, /* done= */ NULL);
}

int verb_verify(int argc, char *argv[]) {
        return call_and_show_status("Verify", "run the checks in halod", /* done= */ NULL);
}

int verb_reload(int argc, char *argv[]) {
        return call_and_show_status("Reload", "reload the profile", "halod reloaded its profile.");
}

/* `haloctl apply` when halod runs: the daemon applies through its backend, then re-verifies. */
int bus_call_apply(void) {
        return call_and_show_status("Apply", "apply the profile through halod", /* done= */ NULL);
}

bool halod_is_running(void) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

        if (sd_bus_open_system(&bus) < 0)
                return false;
        return bus_name_has_owner(bus, BUS_NAME, /* timeout_usec= */ 0) > 0;
}

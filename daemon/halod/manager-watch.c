/* SPDX-License-Identifier: MIT */
/* Drift watch: rtnetlink events re-check the link they touch (and the peers over it), firewalld and
 * NetworkManager (re)starting or firewalld reloading re-check every link, a timer re-checks everything. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/checks.h"
#include "check/verify-summary.h"
#include "log.h"
#include "manager-job-verify.h"
#include "manager-job.h"
#include "manager-nic-runtime.h"
#include "manager-peer-channel.h"
#include "manager-peers.h"
#include "manager-verify.h"
#include "manager-watch.h"
#include "manager.h"

/* A re-check starts at once, on the loop's next turn: the events of one change (an address and its
 * prefix route) are queued together and taken in before it, and the events that come while it runs
 * are taken in right before it reads the kernel, or fold into the one re-check that follows it
 * (manager_watch_host_idle()). Waiting for more would only delay the report of a drift. */
#define RECHECK_DELAY_USEC 0
/* Event-driven re-checks: a burst of 5 at once (a drift and its repair, NetworkManager re-activating
 * a link), then at most 10 a second: a storm of events (100 links flapping, a NIC reset) costs a
 * bounded share of a core and the bus stays responsive. */
#define RECHECK_BURST 5U
#define RECHECKS_PER_SEC 10U
/* A storm of events is read in slices of this many datagrams (up to 32 KiB of events each, about 50
 * µs of parsing), the D-Bus clients served in between: no dispatch holds the loop for long. */
#define RTNL_READS_PER_DISPATCH 4U
/* When something keeps undoing what we apply, stop fighting after this many re-applies per window and
 * retry at the next health.interval. */
#define AUTO_APPLY_BURST 10U
#define AUTO_APPLY_WINDOW_USEC (60 * USEC_PER_SEC)

void manager_watch_set_ports(Manager *m, FabricPort *ports, size_t n) {
        /* A link's new netdev is a new instance of its driver, whose runtime state starts over. */
        bool came_back = m->ports && nic_runtime_netdev_came_back(m->ports, m->n_ports, ports, n);

        fabric_ports_free(m->ports, m->n_ports);
        m->ports = ports;
        m->n_ports = n;
        if (came_back)
                manager_nic_runtime_due(m);
}

void manager_watch_refresh_ports(Manager *m) {
        NodeContext ctx = { .host = &m->host, .profile = m->profile, .node = m->node };
        _cleanup_(fabric_ports_done) FabricPorts ports = {};
        int r;

        if (!m->profile)
                return;
        r = fabric_ports_find(&ctx, &ports);
        if (r < 0) {
                /* Without the map every event counts as ours: slower, never blind. */
                log_warning_errno(r, "Failed to resolve the links' netdevs, watching every interface: %m");
                return;
        }
        manager_watch_set_ports(m, TAKE_PTR(ports.ports), ports.n);
        ports.n = 0;
}

static const FabricPort *port_by_event(Manager *m, const RtnlEvent *e) {
        int ifindex = e->link ? e->link->ifindex
                : e->address  ? e->address->ifindex
                : e->route    ? e->route->ifindex
                              : 0;

        for (size_t i = 0; i < m->n_ports; i++) {
                const FabricPort *p = &m->ports[i];

                if ((p->ifindex > 0 && p->ifindex == ifindex) ||
                    (e->link && p->ifname && streq(p->ifname, e->link->name)))
                        return p;
        }
        return NULL;
}

static bool address_is_ours(Manager *m, const RtnlAddress *a) {
        for (size_t i = 0; m->node && i < m->node->n_links; i++)
                if (m->node->links[i].address.address.s_addr == a->address.s_addr)
                        return true;
        return false;
}

static void schedule_recheck(Manager *m) {
        int enabled = SD_EVENT_OFF;
        usec_t t = now(CLOCK_MONOTONIC), next = t + RECHECK_DELAY_USEC;

        (void) sd_event_source_get_enabled(m->recheck_source, &enabled);
        if (enabled != SD_EVENT_OFF)
                return; /* already pending: this event joins the burst */
        /* Out of tokens: wait for the next one, and take it when the re-check runs. */
        m->recheck_owes_token = !token_bucket_take(&m->recheck_bucket, RECHECK_BURST, RECHECKS_PER_SEC, t);
        if (m->recheck_owes_token)
                next = t + USEC_PER_SEC / RECHECKS_PER_SEC;
        if (sd_event_source_set_time(m->recheck_source, next) < 0 ||
            sd_event_source_set_enabled(m->recheck_source, SD_EVENT_ONESHOT) < 0)
                log_warning("Failed to schedule a re-check; the next one runs at health.interval.");
}

static int on_rtnl_event(const RtnlEvent *e, void *userdata) {
        Manager *m = userdata;
        const FabricPort *p = port_by_event(m, e);

        if (p) {
                if (!strv_contains(m->dirty_links, p->link) && strv_extend(&m->dirty_links, p->link) < 0)
                        m->resync = true;
                /* An address or route event re-checks only what it can change; any other, the link. */
                if (!e->address && !e->route && !strv_contains(m->link_events, p->link) &&
                    strv_extend(&m->link_events, p->link) < 0)
                        m->resync = true;
                /* A renamed netdev may no longer be the link's (a match by name), and the watch's ports,
                 * which an address re-check takes as they are, name it as it was: resolve again. So
                 * does a netdev of the link's name with another ifindex (its driver was reloaded):
                 * manager_watch_set_ports() sees it is new. */
                if (e->link && p->ifname && !streq(p->ifname, e->link->name))
                        m->resync = true;
                if (e->type == RTNL_EVENT_NEW_LINK && p->ifindex > 0 && e->link->ifindex != p->ifindex)
                        m->resync = true;
                log_debug(
                        "%s on %s (link %s): re-checking.",
                        rtnl_event_type_to_string(e->type),
                        strna(p->ifname),
                        p->link);
                return 0;
        }

        /* A netdev we did not know may be a link's NIC appearing or being renamed; one of our addresses
         * on a foreign netdev is a conflict the address check reports. */
        if (e->type == RTNL_EVENT_NEW_LINK || e->type == RTNL_EVENT_DEL_LINK ||
            (e->address && address_is_ours(m, e->address)))
                m->resync = true;
        return 0;
}

/* Takes in pending rtnetlink events, at most max_reads datagrams (0: all): the links they touch are
 * re-checked soon. */
static void take_events(Manager *m, unsigned max_reads) {
        int r;

        r = rtnl_monitor_process(m->rtnl, max_reads, on_rtnl_event, m);
        if (r == -ENOBUFS) {
                log_warning("The kernel dropped rtnetlink events (receive queue full): re-reading every link.");
                m->resync = true;
        } else if (r < 0)
                log_warning_errno(r, "Failed to read rtnetlink events, ignoring: %m");

        if (m->resync || m->dirty_links)
                schedule_recheck(m);
}

static int on_rtnl_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        take_events(userdata, RTNL_READS_PER_DISPATCH);
        return 0;
}

void manager_watch_take_events(Manager *m) {
        /* Every event queued now is of a change the job's read sees (halod's own applying, too):
         * taken in here, it costs no second read once a verify from that snapshot covered its link
         * (manager_watch_verified()). */
        if (m->rtnl)
                take_events(m, /* max_reads= */ 0);
}

bool manager_watch_events_queued(const Manager *m) {
        struct pollfd p = { .fd = m->rtnl ? rtnl_monitor_fd(m->rtnl) : -EBADF, .events = POLLIN };

        /* poll() only looks: the socket stays the loop's to read. Unsure counts as queued. */
        return p.fd >= 0 && poll(&p, 1, 0) != 0;
}

void manager_watch_verified(Manager *m, const char *only) {
        _cleanup_(strv_freep) char **left = NULL, **left_events = NULL;

        STRV_FOREACH(l, m->dirty_links) {
                bool link_event = strv_contains(m->link_events, *l);

                if (check_selection_covers_drift(*l, link_event, only))
                        continue;
                if (strv_extend(&left, *l) < 0 || (link_event && strv_extend(&left_events, *l) < 0))
                        return;
        }
        strv_free(m->dirty_links);
        m->dirty_links = TAKE_PTR(left);
        strv_free(m->link_events);
        m->link_events = TAKE_PTR(left_events);
        /* A resync (a netdev appeared, events were dropped) re-resolves the links: it stays. */
        if (!m->resync && !m->dirty_links && m->recheck_source) {
                (void) sd_event_source_set_enabled(m->recheck_source, SD_EVENT_OFF);
                m->recheck_owes_token = false;
        }
}

/* What a verify job does about drift: in enforce mode it judges from its plan whether what it read
 * drifted (plan_drifted()), and re-applies when it did, within AUTO_APPLY_BURST per window. The budget
 * is decided when the job is queued. */
static VerifyRequest enforce_request(Manager *m, const char *only, bool ports) {
        VerifyRequest req = { .only = only, .ports = ports };
        usec_t t = now(CLOCK_MONOTONIC);

        if (!profile_may_change_host(m->profile, /* force= */ false))
                return req;
        req.judge = true;
        if (t >= m->auto_apply_window_usec + AUTO_APPLY_WINDOW_USEC) {
                m->auto_apply_window_usec = t;
                m->auto_apply_count = 0;
        }
        req.enforce = m->auto_apply_count < AUTO_APPLY_BURST;
        return req;
}

/* After a job's checks, in enforce mode: count its re-apply, or, when none was allowed while links
 * are wrong, say once that re-applies pause. */
static void count_enforced(Manager *m, const VerifyOutcome *o) {
        if (!profile_may_change_host(m->profile, /* force= */ false))
                return;
        if (o->enforce_attempted) {
                m->auto_apply_count++;
                return;
        }
        if (m->auto_apply_count >= AUTO_APPLY_BURST && o->drifted && m->auto_apply_count++ == AUTO_APPLY_BURST)
                log_warning(
                        "Something keeps undoing the profile (%u re-applies within %llus); pausing "
                        "re-applies until the next health check. Is another tool managing these links?",
                        AUTO_APPLY_BURST,
                        (unsigned long long) (AUTO_APPLY_WINDOW_USEC / USEC_PER_SEC));
}

/* Whether a drift touched a link that the peer checks probe over: then they run again too. */
static bool drift_concerns_peers(Manager *m) {
        if (m->resync)
                return m->profile && m->profile->health.peers;
        STRV_FOREACH(l, m->dirty_links)
                if (manager_peers_use_link(m, *l))
                        return true;
        return false;
}

/* A re-check's caller: what it selected, whether the peers follow, the dumps when it was queued. */
typedef struct Recheck {
        char *only;
        bool peers;
        uint64_t dumps;
} Recheck;

static void recheck_free(void *p) {
        Recheck *rc = p;

        free(rc->only);
        free(rc);
}

/* The re-check's checks are in, and in enforce mode what drifted was put back and checked again from
 * what the apply read back (one job, one snapshot). */
static void on_rechecked(Manager *m, const VerifyOutcome *o, void *userdata) {
        Recheck *rc = userdata;

        count_enforced(m, o);
        /* After the re-apply: probe the path as it is now, not as it was before. */
        if (rc->peers) {
                log_debug("Re-checked %s: probing the peers over these links again.", rc->only);
                manager_peers_request_all(m);
        }
        log_debug(
                "Re-checked %s with %" PRIu64 " rtnetlink dumps (%" PRIu64 " since halod started).",
                rc->only,
                rtnl_dump_count() - rc->dumps,
                rtnl_dump_count());
}

static int on_recheck(sd_event_source *source, uint64_t usec, void *userdata) {
        _cleanup_(freep) char *only = NULL;
        Manager *m = userdata;
        bool ports = false, seed_ports;
        Recheck *rc;
        bool peers;
        int r;

        if (m->recheck_owes_token)
                (void) token_bucket_take(&m->recheck_bucket, RECHECK_BURST, RECHECKS_PER_SEC, usec);
        m->recheck_owes_token = false;

        /* Work under way (a verify, an apply): this re-check follows it, with the events of meanwhile
         * folded in, and what that work's verify covered left out (manager_watch_verified()). */
        if (job_lane_busy(&m->host_jobs)) {
                m->recheck_after_work = true;
                return 0;
        }

        /* Nothing left (a verify in between covered it). */
        if (!m->resync && !m->dirty_links)
                return 0;
        peers = drift_concerns_peers(m);
        ports = m->resync;
        /* Address and route events move no netdev: the ports resolved before still hold. */
        seed_ports = !m->resync && !m->link_events;
        if (check_selection_for_drift(m->resync ? NULL : m->dirty_links, m->link_events, &only) < 0)
                return 0;
        m->resync = false;
        m->dirty_links = strv_free(m->dirty_links);
        m->link_events = strv_free(m->link_events);
        /* An empty selection would select every check. */
        if (isempty(only))
                return 0;
        log_debug(
                "Re-checking %s after rtnetlink events or a firewalld or NetworkManager restart or reload.",
                only);

        rc = calloc(1, sizeof(Recheck));
        if (rc) {
                *rc = (Recheck){ .only = TAKE_PTR(only), .peers = peers, .dumps = rtnl_dump_count() };
                VerifyRequest req = enforce_request(m, rc->only, ports);
                req.seed_ports = seed_ports;
                r = manager_verify_submit(m, &req, on_rechecked, rc, recheck_free);
                if (r < 0)
                        recheck_free(rc);
        } else
                r = -ENOMEM;
        if (r < 0)
                log_warning_errno(r, "Failed to re-check the links: %m");
        return 0;
}

void manager_watch_host_idle(Manager *m) {
        /* The NIC's runtime settings of a link whose netdev came back, then a re-check that sees them. */
        if (m->nic_runtime_due && manager_apply_nic_runtime(m) > 0)
                m->recheck_after_work = m->resync = true;
        if (!m->recheck_after_work)
                return;
        m->recheck_after_work = false;
        if (m->resync || m->dirty_links)
                schedule_recheck(m);
}

static void on_interval_checked(Manager *m, const VerifyOutcome *o, void *userdata) {
        count_enforced(m, o);
}

static int on_interval(sd_event_source *source, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r;

        if (m->profile) {
                m->auto_apply_count = 0; /* a new chance for paused re-applies */
                VerifyRequest req = enforce_request(m, /* only= */ NULL, /* ports= */ true);
                r = manager_verify_submit(m, &req, on_interval_checked, NULL, NULL);
                if (r < 0)
                        log_warning_errno(r, "Failed to run the checks at health.interval: %m");
        }
        return manager_watch_reset(m);
}

/* The neighbours on the bus whose restart or reload can undo what halod applied: firewalld forgets
 * runtime zones (and the netlink backend's permanent zone when its configuration was replaced), and a
 * NetworkManager coming back may re-activate the links with its own idea of them. */
#define FIREWALLD_BUS_NAME "org.fedoraproject.FirewallD1"
#define NETWORKMANAGER_BUS_NAME "org.freedesktop.NetworkManager"

/* A neighbour changed: re-check every link on the coalescing, token-bucket path of the rtnetlink
 * events (a storm of restarts costs no more than a storm of link events), and in enforce mode put
 * back what it dropped. */
static void neighbour_changed(Manager *m) {
        m->resync = true;
        schedule_recheck(m);
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        const char *name, *old_owner, *new_owner;
        Manager *m = userdata;
        int r;

        r = sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner);
        if (r < 0) {
                log_warning_errno(r, "Failed to parse a NameOwnerChanged signal, ignoring: %m");
                return 0;
        }
        if (!streq(name, FIREWALLD_BUS_NAME) && !streq(name, NETWORKMANAGER_BUS_NAME))
                return 0;

        if (isempty(new_owner))
                log_info("%s left the system bus (stopped?): re-checking the links.", name);
        else if (!streq(name, NETWORKMANAGER_BUS_NAME) || !m->backend || m->backend == &backend_networkmanager)
                log_info(
                        "%s appeared on the system bus (%s): re-checking the links%s.",
                        name,
                        isempty(old_owner) ? "started" : "replaced",
                        m->profile && profile_may_change_host(m->profile, /* force= */ false)
                                ? " and putting back what it dropped"
                                : "");
        else
                /* The backend is chosen at start and at reload only: switching under an apply, or on a
                 * NetworkManager that is only passing through, would be worse than a clear word. */
                log_info(
                        "%s appeared on the system bus, but the links stay configured through the %s backend, "
                        "chosen %s; run `systemctl reload halod` to switch to networkmanager, or stop "
                        "NetworkManager: the two would undo each other's changes. Re-checking the links.",
                        name,
                        m->backend->name,
                        m->backend_name ? "by --backend" : "when halod started or last reloaded");

        neighbour_changed(m);
        return 0;
}

static int on_firewalld_reloaded(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        log_info("firewalld reloaded its configuration, which drops runtime-only zones: re-checking the links.");
        neighbour_changed(m);
        return 0;
}

static int on_match_installed(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        const sd_bus_error *e = sd_bus_message_get_error(message);

        /* Not fatal (sd-bus would close the connection without this callback): a restarted neighbour is
         * then noticed at the next health.interval. */
        if (e)
                log_warning(
                        "The system bus refused halod's subscription to firewalld's and NetworkManager's restarts "
                        "(%s: %s); they are noticed only at the next health.interval. Check the bus's policy.",
                        e->name,
                        strna(e->message));
        return 0;
}

int manager_watch_bus_setup(Manager *m) {
        static const char *const names[] = { FIREWALLD_BUS_NAME, NETWORKMANAGER_BUS_NAME };
        int r;

        /* Asynchronous, so that a slow bus does not hold up the start; floating slots go with the bus. */
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_(freep) char *match = NULL;

                if (asprintf(
                            &match,
                            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                            "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='%s'",
                            names[i]) < 0)
                        return log_error_errno(ENOMEM, "Failed to watch %s on the system bus: %m", names[i]);
                r = sd_bus_add_match_async(m->bus, NULL, match, on_name_owner_changed, on_match_installed, m);
                if (r < 0)
                        return log_error_errno(r, "Failed to watch %s on the system bus: %m", names[i]);
        }

        r = sd_bus_match_signal_async(
                m->bus,
                NULL,
                FIREWALLD_BUS_NAME,
                "/org/fedoraproject/FirewallD1",
                FIREWALLD_BUS_NAME,
                "Reloaded",
                on_firewalld_reloaded,
                on_match_installed,
                m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch firewalld's reloads on the system bus: %m");
        return 0;
}

int manager_watch_setup(Manager *m) {
        int r;

        r = rtnl_monitor_open(&m->rtnl);
        if (r < 0)
                return log_error_errno(r, "Failed to subscribe to rtnetlink link and address events: %m");

        r = sd_event_add_io(m->event, &m->rtnl_source, rtnl_monitor_fd(m->rtnl), EPOLLIN, on_rtnl_io, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the rtnetlink socket: %m");

        /* accuracy 1 µs: the default 250 ms would delay every drift report by that much. */
        r = sd_event_add_time_relative(
                m->event, &m->recheck_source, CLOCK_MONOTONIC, RECHECK_DELAY_USEC, 1, on_recheck, m);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->recheck_source, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the re-check timer: %m");
        return 0;
}

int manager_watch_reset(Manager *m) {
        usec_t interval = m->profile ? m->profile->health.interval_usec : 0;
        int r;

        /* Opens the peer channel when a reload changed its addresses or port, or an earlier attempt
         * failed (the port was taken); otherwise only brings its identity up to date. */
        (void) manager_peer_channel_reset(m);

        if (interval == 0) {
                if (m->interval_source)
                        (void) sd_event_source_set_enabled(m->interval_source, SD_EVENT_OFF);
                return 0;
        }

        /* Coarse accuracy lets the kernel batch this wake-up with others: it is the only one when idle. */
        if (!m->interval_source) {
                r = sd_event_add_time_relative(
                        m->event, &m->interval_source, CLOCK_MONOTONIC, interval, USEC_PER_SEC, on_interval, m);
                if (r < 0)
                        return log_error_errno(r, "Failed to set up the health.interval timer: %m");
                return 0;
        }
        r = sd_event_source_set_time_relative(m->interval_source, interval);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->interval_source, SD_EVENT_ONESHOT);
        if (r < 0)
                return log_error_errno(r, "Failed to re-arm the health.interval timer: %m");
        return 0;
}

void manager_watch_done(Manager *m) {
        m->rtnl_source = sd_event_source_disable_unref(m->rtnl_source);
        m->recheck_source = sd_event_source_disable_unref(m->recheck_source);
        m->interval_source = sd_event_source_disable_unref(m->interval_source);
        m->rtnl = rtnl_monitor_free(m->rtnl);
        fabric_ports_free(m->ports, m->n_ports);
        m->ports = NULL;
        m->n_ports = 0;
        m->dirty_links = strv_free(m->dirty_links);
        m->link_events = strv_free(m->link_events);
}

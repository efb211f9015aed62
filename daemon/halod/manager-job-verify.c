/* SPDX-License-Identifier: MIT */
/* The apply+verify job: every step reads one snapshot of the host (snapshot/snapshot.h), so the checks
 * report from what the apply read back, and an enforcing re-apply is planned from what the checks
 * read. Right before the snapshot reads the kernel, the loop takes in the rtnetlink events queued
 * until then (job_call_loop()), so that the job's verify covers them. The profile it reads stays in
 * force until it ends: only a load job replaces it, and the host lane runs one job at a time. */
#include <assert.h>

#include "apply/apply.h"
#include "check/check-fabric-baseline.h"
#include "check/checks.h"
#include "check/enforce-decide.h"
#include "log.h"
#include "manager-export.h"
#include "manager-helper.h"
#include "manager-job-hosts.h"
#include "manager-job-verify.h"
#include "manager-job.h"
#include "manager-peers.h"
#include "manager-verify.h"
#include "manager-watch.h"

typedef struct VerifyJob {
        Job *job; /* while it runs */
        Manager *manager;
        VerifyRequest req;
        char *only;
        VerifyDoneFunc done;
        void *userdata;
        void (*destroy)(void *);

        /* Inputs, taken from the manager when the job starts (verify_job_capture()). */
        ManagerInputs in;
        CheckHistory before; /* a copy of the manager's history */
        int before_result;   /* 0, or -ENOMEM when it could not be copied: then nothing is kept */
        NodeContext context;
        Snapshot snapshot;
        FabricPorts seed;        /* req.seed_ports: a copy of the watch's ports, taken when the job starts */
        bool hosts_writable;     /* halod may write /etc itself (not in the shipped unit's sandbox) */
        bool networkd_delegated; /* halod may not write networkd's files: halod-helper.service applies */
        char *networkd_wrong;    /* then: what the links lack ("": nothing), for the hosts job */

        /* Outputs, written on the worker. */
        VerifyOutcome outcome;
        char *apply_error;
        PlanChanges changes;
        int ports_result;
        bool ports_ready; /* ports are resolved: the loop may take them over before the job ends */
        FabricPort *ports;
        size_t n_ports;
        CheckList checks;
        PlanChanges enforce_changes;
        char *enforce_error;
        int checks_after_result;
        CheckList checks_after; /* after an enforcing apply that changed something */
        bool link_mtus_read;    /* link_mtus holds the links' MTUs, for the peer rounds */
        PeerLinkMtus link_mtus;
        FabricTransportChanges transport_changes; /* into and out of the fallback, for the journal */
        bool transport_ran;
        FabricTransportState transport_copy; /* then: the history's state after it, for the metrics */
        CheckHistory after;                  /* the history the checks leave (a copy of before, updated) */
        bool after_ready;    /* after replaces the manager's history when the job publishes */
        bool helper_in_play; /* something is halod-helper.service's to write: a hosts job follows */
} VerifyJob;

static void verify_job_free(void *data) {
        VerifyJob *j = data;

        if (j->destroy)
                j->destroy(j->userdata);
        free(j->only);
        snapshot_done(&j->snapshot);
        fabric_ports_done(&j->seed);
        free(j->apply_error);
        plan_changes_done(&j->changes);
        fabric_ports_free(j->ports, j->n_ports);
        check_list_done(&j->checks);
        plan_changes_done(&j->enforce_changes);
        free(j->enforce_error);
        free(j->networkd_wrong);
        check_list_done(&j->checks_after);
        peer_link_mtus_done(&j->link_mtus);
        fabric_transport_changes_done(&j->transport_changes);
        fabric_transport_state_done(&j->transport_copy);
        check_history_done(&j->before);
        check_history_done(&j->after);
        free(j);
}

/* On the loop, right before the job reads the kernel: takes over the ports the job resolved (so that
 * their events count as ours) and the events queued until now. */
static void take_events(Manager *m, void *userdata) {
        VerifyJob *j = userdata;

        if (j->ports_ready && j->ports) {
                manager_watch_set_ports(m, TAKE_PTR(j->ports), j->n_ports);
                j->n_ports = 0;
        }
        manager_watch_take_events(m);
}

static void before_kernel_read(void *userdata) {
        VerifyJob *j = userdata;

        /* Nothing queued (the loop took in what came before the job) and no ports to hand over: no
         * round trip to the loop, two thread wake-ups fewer on the path from a drift to its report. */
        if (!(j->ports_ready && j->ports) && !manager_watch_events_queued(j->manager))
                return;
        job_call_loop(j->job, take_events, j);
}

/* The networkd backend where halod may not write networkd's files: halod-helper.service applies the
 * links as root from the profile (haloctl apply --only networkd), with its rollback; halod only says
 * what differs, for the request and the helper check, and verifies from the kernel afterwards. */
static int delegate_networkd(VerifyJob *j, char **error) {
        return manager_helper_networkd_wrong(&j->snapshot, &j->networkd_wrong, error);
}

static bool delegates_networkd(const VerifyJob *j) {
        return j->networkd_delegated;
}

/* Applies through the backend from the job's snapshot; returns the number of changes, or negative
 * errno with *error set. */
static int apply(VerifyJob *j, PlanChanges *changes, char **error) {
        int r;

        if (!j->in.profile)
                return -ESTALE;
        if (delegates_networkd(j))
                r = delegate_networkd(j, error);
        else
                /* halod in its sandbox may not write /etc: the block is halod-helper.service's (after the
                 * checks). */
                r = apply_node(
                        &j->context,
                        j->in.backend,
                        j->hosts_writable ? 0 : APPLY_NO_HOSTS,
                        &j->snapshot,
                        changes,
                        error);
        if (r < 0 && !*error)
                *error = strdup(strerror(-r));
        return r < 0 ? r : (int) changes->n_changes;
}

/* Whether what the checks read differs from the profile where they looked: from the plan of the same
 * snapshot (nothing ran in between). A plan that cannot be made counts as drifted: the apply then
 * says why. */
static bool drifted(VerifyJob *j) {
        _cleanup_(plan_done) Plan plan = {};

        if (plan_from_snapshot(&j->snapshot, &plan) < 0)
                return true;
        return plan_drifted(&plan, j->only);
}

/* Reads the facts the selected checks judge, once (an apply forgot what it changed), then judges them
 * with the history as it stands: the verify before's, or after an enforcing apply the one the checks
 * before it left. */
static int judge(VerifyJob *j, CheckList *out) {
        _cleanup_(check_history_done) CheckHistory before = {};
        int r = snapshot_read(&j->snapshot, check_registry_parts(&j->context, j->only));

        if (r < 0)
                return r;
        if (!j->after_ready)
                return checks_run(
                        &j->context, &j->snapshot, /* before= */ NULL, /* after= */ NULL, j->only, out);
        r = check_history_copy(&j->after, &before);
        if (r < 0)
                return r;
        return checks_run(&j->context, &j->snapshot, &before, &j->after, j->only, out);
}

static void enforce(VerifyJob *j) {
        VerifyOutcome *o = &j->outcome;

        o->drifted = drifted(j);
        if (!o->drifted || !j->req.enforce)
                return;
        o->enforce_attempted = true;
        o->enforce_result = apply(j, &j->enforce_changes, &j->enforce_error);
        j->checks_after_result = 1;
        if (o->enforce_result > 0)
                j->checks_after_result = judge(j, &j->checks_after);
}

/* The links' MTUs for the peer rounds, which run on the peer lane and may not read this snapshot: a
 * copy, when the job looked at the links (from its link dump when it read one). A job that did not
 * leaves the peer rounds the copy of the one before. */
static void read_link_mtus(VerifyJob *j) {
        if (!j->in.profile->health.peers || !j->in.node || !(j->snapshot.parts & SNAPSHOT_PORTS))
                return;
        j->link_mtus_read = snapshot_read(&j->snapshot, SNAPSHOT_MTU) >= 0 &&
                peer_link_mtus_from_snapshot(&j->snapshot, &j->link_mtus) >= 0;
}

/* The sample of now, taken out of the snapshot (SNAPSHOT_TRANSPORT, read for the fabric. checks):
 * the state keeps it as its last. Without it (no peer to judge) an empty one of now. */
static int take_transport_sample(VerifyJob *j, FabricTransportSample *ret) {
        int r = snapshot_read(&j->snapshot, check_registry_daemon_parts(&j->context, j->only));

        if (r < 0)
                return r;
        if (!j->snapshot.transport) {
                *ret = (FabricTransportSample){ .at = now(CLOCK_MONOTONIC) };
                return 0;
        }
        *ret = *j->snapshot.transport;
        *j->snapshot.transport = (FabricTransportSample){};
        snapshot_forget(&j->snapshot, SNAPSHOT_TRANSPORT);
        return 0;
}

/* fabric.<node>.transport: compares with the sample of the verify before, which the manager keeps. A
 * failure to read is the check's to say; only memory runs out here. */
static int check_transport(VerifyJob *j) {
        _cleanup_(fabric_transport_sample_done) FabricTransportSample sample = {};
        _cleanup_(check_list_done) CheckList checks = {};
        int r;

        if (!j->after_ready || !checks_group_selected("fabric.", j->only))
                return 0;
        r = take_transport_sample(j, &sample);
        if (r < 0)
                return r;
        r = check_fabric_transport(
                &j->context, &j->before.transport, &j->after.transport, &sample, &checks, &j->transport_changes);
        if (r < 0)
                return r;
        r = fabric_transport_state_copy(&j->after.transport, &j->transport_copy);
        if (r < 0)
                return r;
        j->transport_ran = true;
        return check_list_take_selected(&j->checks, &checks, j->only);
}

/* fabric.<link>.loss|congestion, link.<link>.flaps, nic.<link>.errors: the counters this verify read
 * against the manager's history (the host lane runs one verify at a time: nothing writes it meanwhile);
 * the new history goes back on the loop (verify_job_publish()). */
static int check_health(VerifyJob *j) {
        _cleanup_(check_list_done) CheckList checks = {};
        int r;

        if (!j->after_ready ||
            (!checks_group_selected("fabric.", j->only) && !checks_group_selected("link.", j->only) &&
             !checks_group_selected("nic.", j->only)))
                return 0;
        /* Not the transport sample: check_transport() took it and forgot the part, and reading it
         * again would dump the sockets and the QPs a second time in this verify. */
        r = snapshot_read(
                &j->snapshot, check_registry_daemon_parts(&j->context, j->only) & ~SNAPSHOT_TRANSPORT);
        if (r < 0)
                return r;
        if (!(j->snapshot.parts & SNAPSHOT_QOS_COUNTERS))
                return 0; /* nothing to judge: the history stays as it was */
        /* This verify's samples replace the last ones. */
        fabric_health_history_done(&j->after.fabric);
        r = check_fabric_health(&j->context, &j->snapshot, &j->before.fabric, &j->after.fabric, &checks);
        if (r < 0)
                return r;
        return check_list_take_selected(&j->checks, &checks, j->only);
}

static void verify_job_run(Job *job, void *data) {
        VerifyJob *j = data;
        VerifyOutcome *o = &j->outcome;

        j->job = job;
        j->context = (NodeContext){ .host = &j->in.host, .profile = j->in.profile, .node = j->in.node };
        snapshot_init(&j->snapshot, &j->context);
        j->snapshot.before_kernel_read = before_kernel_read;
        /* Another profile's ports (a reload in between) are refused: the snapshot lists the netdevs. */
        if (j->seed.ports)
                (void) snapshot_seed_ports(&j->snapshot, j->seed.ports, j->seed.n);
        j->snapshot.userdata = j;
        /* The history the checks leave starts as the one they judge with. */
        j->after_ready = j->before_result >= 0 && check_history_copy(&j->before, &j->after) >= 0;
        j->hosts_writable = manager_dir_writable("/etc");
        j->networkd_delegated = manager_helper_delegates_networkd(j->in.profile, j->in.backend);

        if (j->req.ports) {
                FabricPorts ports = {};

                /* From the snapshot: the netdev list the checks resolve against, read once. */
                j->ports_result = snapshot_read(&j->snapshot, SNAPSHOT_LOCATED);
                if (j->ports_result >= 0)
                        j->ports_result = fabric_ports_copy(j->snapshot.ports, j->snapshot.n_ports, &ports);
                j->ports = ports.ports;
                j->n_ports = ports.n;
                j->ports_ready = j->ports_result >= 0;
        }
        if (j->req.apply)
                o->apply_result = apply(j, &j->changes, &j->apply_error);

        o->checks_result = judge(j, &j->checks);
        if (o->checks_result >= 0)
                o->checks_result = check_transport(j);
        if (o->checks_result >= 0)
                o->checks_result = check_health(j);
        if (j->req.judge && o->checks_result >= 0)
                enforce(j);

        /* A hosts job follows every run of local checks, a one-link re-check's too (submit_hosts()):
         * that is when the helper's work on the links shows, and an address event changes the CDI
         * spec's GID index. Every run says what networkd's links lack, not only one that
         * applies: else a Verify() or an interval with re-applies paused would drop the networkd part
         * from the request (and pass), and the next enforce job would ask anew, resetting the
         * back-off. A job that cannot read the links leaves the part out: the link checks say why. */
        if (!j->networkd_wrong && delegates_networkd(j)) {
                _cleanup_(freep) char *error = NULL;
                (void) delegate_networkd(j, &error);
        }
        j->helper_in_play = manager_helper_in_play(j->manager, &j->context, delegates_networkd(j));
        read_link_mtus(j);
        j->job = NULL;
}

/* Once each, from the verdict's own transitions (manager_journal_transition() leaves these checks
 * alone): a verify that cannot judge (a skip in between) neither ends nor restarts the fallback. */
static void log_transport_changes(const FabricTransportChanges *c) {
        for (size_t i = 0; i < c->n; i++) {
                const FabricTransportChange *t = &c->changes[i];
                _cleanup_(freep) char *id = NULL;
                bool into = t->transition == TRANSPORT_TRANSITION_INTO_FALLBACK;
                LogFields f = {
                        .message_id = into ? HALOD_MESSAGE_CHECK_FAILED : HALOD_MESSAGE_CHECK_RECOVERED,
                };

                if (asprintf(&id, "fabric.%s.transport", t->node) >= 0)
                        f.check = id;
                if (into)
                        log_struct(
                                LOG_WARNING,
                                &f,
                                "Fabric use towards %s fell back to TCP: %s",
                                t->node,
                                t->summary);
                else
                        log_struct(
                                LOG_NOTICE,
                                &f,
                                "Fabric use towards %s is off the TCP fallback: %s",
                                t->node,
                                t->summary);
        }
}

/* The caller's done, handed to the hosts job that follows: it runs once the helper check is in too.
 * Verify() returns the Summary of every check (io.halod1(5)), the helper check's included, and Apply()
 * and Reload() answer when their checks are in; none of them may answer with the helper's verdict of
 * before. The drift's announcement does not wait: the verify publishes its checks first. */
typedef struct VerifyDone {
        VerifyOutcome outcome;
        char *apply_error;
        VerifyDoneFunc done;
        void *userdata;
        void (*destroy)(void *);
} VerifyDone;

static void verify_done_free(void *p) {
        VerifyDone *d = p;

        if (d->destroy)
                d->destroy(d->userdata);
        free(d->apply_error);
        free(d);
}

static void verify_done_call(Manager *m, void *p) {
        VerifyDone *d = p;

        d->outcome.apply_error = d->apply_error;
        if (d->done)
                d->done(m, &d->outcome, d->userdata);
}

/* Whether a hosts job follows: something is the helper's now, or was at its last step (halod asked, or
 * its check is published), which the next step then takes back. Else nothing of the helper's changed,
 * and no thread is woken for it. */
static bool hosts_follow(Manager *m, const VerifyJob *j) {
        return j->helper_in_play || m->helper.asked ||
                check_list_find(published_checks_list(m->checks), HELPER_CHECK_ID);
}

/* Queues the hosts job with the links this job read, before the checks are published: the export
 * job that publishing starts then follows it, and exports the helper check too. Returns true when the
 * hosts job took the caller's done over. */
static bool submit_hosts(Manager *m, VerifyJob *j) {
        VerifyDone *d;
        int r = -ENOMEM;

        if (!hosts_follow(m, j))
                return false;
        d = calloc(1, sizeof(VerifyDone));
        if (!d)
                goto fail;
        *d = (VerifyDone){
                .outcome = j->outcome, .done = j->done, .userdata = j->userdata, .destroy = j->destroy
        };
        if (j->apply_error) {
                d->apply_error = strdup(j->apply_error);
                if (!d->apply_error) {
                        free(d);
                        goto fail;
                }
        }
        r = manager_hosts_submit(
                m, /* links_read= */ true, &j->networkd_wrong, verify_done_call, d, verify_done_free);
        if (r < 0) {
                free(d->apply_error);
                free(d);
                goto fail;
        }
        j->done = NULL;
        j->destroy = NULL;
        return true;
fail:
        log_warning_errno(r, "Failed to ask halod-helper.service for what halod may not write, ignoring: %m");
        return false;
}

static void verify_job_publish(Manager *m, void *data) {
        VerifyJob *j = data;
        /* Whether the job read the kernel's links, for the watch: asked before the snapshot goes. */
        bool kernel_read = snapshot_read_kernel(&j->snapshot);

        /* First, as publishing the checks starts the export job, which reads it on its worker. */
        manager_export_keep_snapshot(m, &j->in.host, &j->context, &j->snapshot);
        /* The history the checks left, for the next verify. */
        if (j->after_ready) {
                check_history_done(&m->history);
                m->history = j->after;
                j->after = (CheckHistory){};
        }
        /* Before the checks are published, which starts the export job that copies it. */
        if (j->transport_ran) {
                fabric_transport_state_done(&m->transport_published);
                m->transport_published = j->transport_copy;
                j->transport_copy = (FabricTransportState){};
        }
        /* Before the checks are published, which asks for a peer round. */
        if (j->link_mtus_read)
                manager_peers_set_link_mtus(m, &j->link_mtus);

        if (j->req.ports) {
                if (j->ports_result < 0)
                        /* Without the map every event counts as ours: slower, never blind. */
                        log_warning_errno(
                                j->ports_result,
                                "Failed to resolve the links' netdevs, watching every interface: %m");
                else if (j->ports) {
                        manager_watch_set_ports(m, TAKE_PTR(j->ports), j->n_ports);
                        j->n_ports = 0;
                }
        }
        if (j->req.apply)
                manager_apply_report(m, j->outcome.apply_result, &j->changes, j->apply_error);

        (void) submit_hosts(m, j);
        if (manager_publish_local_checks(m, j->only, j->outcome.checks_result, &j->checks, kernel_read) < 0)
                log_warning("Failed to publish the checks: out of memory.");
        log_transport_changes(&j->transport_changes);

        if (j->outcome.enforce_attempted) {
                manager_apply_report(m, j->outcome.enforce_result, &j->enforce_changes, j->enforce_error);
                if (j->checks_after_result <= 0 &&
                    manager_publish_local_checks(
                            m, j->only, j->checks_after_result, &j->checks_after, kernel_read) < 0)
                        log_warning("Failed to publish the checks: out of memory.");
        }

        j->outcome.apply_error = j->apply_error;
        if (j->done)
                j->done(m, &j->outcome, j->userdata);
}

/* Takes the inputs from the manager when the job starts: a queued job sees the state of then. Without
 * a profile (none in force yet) nothing runs. */
static int verify_job_capture(Manager *m, void *data) {
        VerifyJob *j = data;
        int r = manager_inputs_capture(m, &j->in);

        if (r < 0)
                return r;
        j->manager = m;
        /* Out of memory, this verify judges without history, as haloctl check does (no pause frames
         * compared, no fabric.<node>.transport), and leaves the manager's history as it is. */
        j->before_result = check_history_copy(&m->history, &j->before);
        /* Without a copy (out of memory, or no map) the snapshot lists the netdevs itself. */
        if (j->req.seed_ports && m->ports)
                (void) fabric_ports_copy(m->ports, m->n_ports, &j->seed);
        return 0;
}

static void verify_job_fail(Manager *m, void *data, int error) {
        VerifyJob *j = data;

        j->outcome = (VerifyOutcome){ .apply_result = error, .checks_result = error };
        if (j->done)
                j->done(m, &j->outcome, j->userdata);
}

static const JobType verify_job_type = {
        .name = "verify",
        .run = verify_job_run,
        .publish = verify_job_publish,
        .free = verify_job_free,
        .capture = verify_job_capture,
        .fail = verify_job_fail,
};

static VerifyJob *verify_job_new(
        const VerifyRequest *req, VerifyDoneFunc done, void *userdata, void (*destroy)(void *)) {
        VerifyJob *j = calloc(1, sizeof(VerifyJob));

        if (!j)
                return NULL;
        *j = (VerifyJob){ .req = *req, .done = done, .userdata = userdata, .destroy = destroy };
        if (req->only) {
                j->only = strdup(req->only);
                if (!j->only) {
                        j->destroy = NULL; /* the caller keeps userdata on failure */
                        verify_job_free(j);
                        return NULL;
                }
        }
        j->req.only = j->only;
        return j;
}

int manager_verify_submit(
        Manager *m, const VerifyRequest *req, VerifyDoneFunc done, void *userdata, void (*destroy)(void *)) {
        VerifyJob *j = verify_job_new(req, done, userdata, destroy);
        int r;

        if (!j)
                return -ENOMEM;
        r = job_submit(m, &m->host_jobs, &verify_job_type, j);
        if (r < 0) {
                j->destroy = NULL;
                verify_job_free(j);
        }
        return r;
}

int manager_verify_run_now(Manager *m, const VerifyRequest *req) {
        VerifyJob *j = verify_job_new(req, NULL, NULL, NULL);

        if (!j)
                return -ENOMEM;
        return job_run_now(m, &m->host_jobs, &verify_job_type, j);
}

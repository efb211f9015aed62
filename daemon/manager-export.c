/* SPDX-License-Identifier: MIT */
/* What halod leaves on disk after each verify: fabric.env for launchers, the CDI spec for container
 * runtimes, the Prometheus textfile, written by an export job of its own on the host lane, off the loop
 * (manager-job.h). */
#include "manager-export.h"
#include "basic/errorf.h"
#include "export/cdi.h"
#include "export/fabric-env.h"
#include "export/metrics.h"
#include "log.h"
#include "manager-helper.h"
#include "manager-job.h"
#include "manager-verify.h"
#include "manager.h"
#include "profile/profile-digest.h"

/* Logs a failure once until its text changes, and a recovery once; error NULL means it worked. */
static void report(char **last, const char *error, const char *what, const char *path) {
        if (streq_ptr(error, *last))
                return;
        if (error)
                log_warning("Failed to write %s %s: %s.", what, path, error);
        else if (*last)
                log_notice("Wrote %s %s again.", what, path);
        free(*last);
        *last = error ? strdup(error) : NULL;
}

static int fabric_env_path(const char *runtime_dir, char **ret) {
        return asprintf(ret, "%s/fabric.env", runtime_dir ?: HALOD_RUNTIME_DIR_DEFAULT) < 0 ? -ENOMEM : 0;
}

static int cdi_spec_path(const char *cdi_dir, char **ret) {
        return asprintf(ret, "%s/" CDI_SPEC_FILE, cdi_dir) < 0 ? -ENOMEM : 0;
}

VerifiedSnapshot *verified_snapshot_free(VerifiedSnapshot *v) {
        if (!v)
                return NULL;
        snapshot_done(&v->snapshot);
        return mfree(v);
}

void manager_export_keep_snapshot(Manager *m, const Host *host, const NodeContext *c, Snapshot *s) {
        VerifiedSnapshot *v = calloc(1, sizeof(VerifiedSnapshot));

        m->verified = verified_snapshot_free(m->verified);
        if (!v) {
                /* The export then reads its own, as it did before there was one to share. */
                snapshot_done(s);
                return;
        }
        v->profile_generation = m->profile_generation;
        v->host = *host;
        v->context = *c;
        v->context.host = &v->host;
        v->snapshot = *s;
        *s = (Snapshot){};
        v->snapshot.context = &v->context;
        /* What pointed into the verify job: its hand-over of rtnetlink events. */
        v->snapshot.before_kernel_read = NULL;
        v->snapshot.userdata = NULL;
        m->verified = v;
}

/* Copies what the export reads from m (with fabric.env when fabric_env), and takes over m's
 * VerifiedSnapshot. */
static int export_job_init(ExportJob *e, Manager *m, bool fabric_env) {
        int r;

        *e = (ExportJob){
                .host = m->host,
                .profile = m->profile,
                .node = m->node,
                .runtime_dir = m->runtime_dir,
                /* In the shipped unit halod may not write /run/cdi: halod-helper.service writes the spec
                 * (manager-helper.c), and halod only compares. Another --cdi-dir is halod's own. */
                .cdi_dir = m->cdi_dir &&
                                (!streq(m->cdi_dir, CDI_DIR_DEFAULT) || manager_dir_writable(m->cdi_dir))
                        ? m->cdi_dir
                        : NULL,
                .fabric_env = fabric_env,
                .health = m->health,
                .last_verify_usec = m->last_verify_usec,
                .metrics_result = 1,
        };
        /* Only the snapshot read for the profile in force (a reload drops it too). */
        if (m->verified && m->verified->profile_generation == m->profile_generation)
                e->verified = TAKE_PTR(m->verified);
        m->verified = verified_snapshot_free(m->verified);
        if (fabric_env && e->cdi_dir)
                m->cdi_spec_written = true;
        if (!m->profile->health.prometheus_textfile)
                return 0;
        for (size_t i = 0; i < m->checks.n_checks; i++) {
                r = check_list_add_copy(&e->checks, &m->checks.checks[i]);
                if (r < 0)
                        return r;
        }
        r = fabric_transport_state_copy(&m->transport_published, &e->transport);
        if (r < 0)
                return r;
        return peer_status_list_copy(&m->peers_measured, &e->peers);
}

static void export_job_done(ExportJob *e) {
        e->verified = verified_snapshot_free(e->verified);
        check_list_done(&e->checks);
        peer_status_list_done(&e->peers);
        fabric_transport_state_done(&e->transport);
}

static int write_fabric_env(ExportJob *e, const NodeContext *ctx, Snapshot *snapshot) {
        _cleanup_(freep) char *path = NULL;
        FabricEnv env = {};
        int r;

        r = fabric_env_path(e->runtime_dir, &path);
        if (r < 0)
                return r;
        r = fabric_env_derive(ctx, snapshot, &env);
        if (r >= 0)
                r = fabric_env_write(&env, path);
        fabric_env_done(&env);
        return r;
}

static int write_cdi_spec(ExportJob *e, const NodeContext *ctx, Snapshot *snapshot) {
        _cleanup_(freep) char *path = NULL;
        CdiSpec spec = {};
        int r;

        r = cdi_spec_path(e->cdi_dir, &path);
        if (r < 0)
                return r;
        r = cdi_spec_derive(ctx, snapshot, &spec);
        if (r >= 0)
                r = cdi_spec_write(&spec, path);
        cdi_spec_done(&spec);
        return r;
}

static int write_metrics(ExportJob *e, const NodeContext *ctx, Snapshot *s) {
        MetricsNic *nics = NULL;
        MetricsQos *qos = NULL;
        MetricsGid *gids = NULL;
        size_t n_nics = 0, n_qos = 0, n_gids = 0;
        uint8_t digest[PROFILE_DIGEST_SIZE];
        char digest_hex[SHA256_HEX_MAX];
        MetricsInput in;
        int r;

        /* The digest the peers compare, so that an alert compares it across all nodes, not only
         * across those that share a subnet. */
        r = profile_digest(e->profile, digest);
        if (r < 0)
                return r;
        r = metrics_nics_gather(ctx, s, &nics, &n_nics);
        if (r < 0)
                return r;
        r = metrics_qos_gather(ctx, s, &qos, &n_qos);
        if (r >= 0)
                r = metrics_gids_gather(ctx, s, &gids, &n_gids);
        if (r < 0) {
                metrics_nics_free(nics, n_nics);
                metrics_qos_free(qos, n_qos);
                return r;
        }
        in = (MetricsInput){
                .cluster = e->profile->cluster,
                .node = e->node ? e->node->name : NULL,
                .profile_digest = hex_encode(digest, sizeof(digest), digest_hex),
                .health = e->health,
                .checks = &e->checks,
                .peers = e->profile->health.peers ? &e->peers : NULL,
                .nics = nics,
                .n_nics = n_nics,
                .qos = qos,
                .n_qos = n_qos,
                .gids = gids,
                .n_gids = n_gids,
                .last_verify_usec = e->last_verify_usec,
                .transport = &e->transport,
        };
        r = metrics_write_textfile(&in, e->profile->health.prometheus_textfile);
        metrics_nics_free(nics, n_nics);
        metrics_qos_free(qos, n_qos);
        metrics_gids_free(gids, n_gids);
        return r;
}

/* Writes the files: on the worker thread. */
static void export_job_run(ExportJob *e) {
        NodeContext own_ctx = { .host = &e->host, .profile = e->profile, .node = e->node };
        _cleanup_(snapshot_done) Snapshot own = {};
        const NodeContext *ctx = e->verified ? &e->verified->context : &own_ctx;
        Snapshot *s = e->verified ? &e->verified->snapshot : &own;

        /* One snapshot for the three: the verify's, which this job alone reads while it runs (what the
         * verify did not read, it reads into it once); its own only before the first verify. */
        if (!e->verified)
                snapshot_init(&own, &own_ctx);
        if (e->fabric_env)
                e->fabric_env_result = write_fabric_env(e, ctx, s);
        if (e->fabric_env && e->cdi_dir && e->node)
                e->cdi_spec_result = write_cdi_spec(e, ctx, s);
        if (e->profile->health.prometheus_textfile)
                e->metrics_result = write_metrics(e, ctx, s);
        /* The RDMA devices stay open while a snapshot holds them (RdmaDevice.context, a uverbs fd):
         * closed now rather than at the next verify, so that the driver's module is not kept in use for
         * an interval. An export after the peer round reads them again for the GIDs, as each export did
         * before. */
        if (e->verified)
                snapshot_forget(s, SNAPSHOT_RDMA);
}

/* Logs what failed, or recovered, once: on the loop. */
static void manager_export_report(Manager *m, const ExportJob *e) {
        _cleanup_(freep) char *path = NULL, *env_error = NULL, *metrics_error = NULL, *cdi_path = NULL,
                              *cdi_error = NULL;

        if (e->fabric_env && fabric_env_path(e->runtime_dir, &path) >= 0) {
                if (e->fabric_env_result < 0) {
                        (void) errorf(
                                &env_error,
                                e->fabric_env_result,
                                "%s; launchers that source it keep the previous values (is the directory writable? "
                                "--runtime-dir changes it)",
                                strerror(-e->fabric_env_result));
                        report(&m->fabric_env_error,
                               env_error ?: strerror(-e->fabric_env_result),
                               "the fabric environment",
                               path);
                } else {
                        report(&m->fabric_env_error, NULL, "the fabric environment", path);
                        if (e->fabric_env_result > 0)
                                log_info("Fabric environment changed: wrote %s.", path);
                }
        }

        if (e->fabric_env && e->cdi_dir && e->node && cdi_spec_path(e->cdi_dir, &cdi_path) >= 0) {
                if (e->cdi_spec_result < 0) {
                        (void) errorf(
                                &cdi_error,
                                e->cdi_spec_result,
                                "%s; containers started with --device " CDI_KIND
                                "=... get the previous devices and variables (halod(8), CDI SPEC; --cdi-dir \"\" "
                                "writes none)",
                                strerror(-e->cdi_spec_result));
                        report(&m->cdi_spec_error,
                               cdi_error ?: strerror(-e->cdi_spec_result),
                               "the CDI spec",
                               cdi_path);
                } else {
                        report(&m->cdi_spec_error, NULL, "the CDI spec", cdi_path);
                        if (e->cdi_spec_result > 0)
                                log_info(
                                        "Fabric devices or environment changed: wrote the CDI spec %s.",
                                        cdi_path);
                }
        }

        if (e->metrics_result > 0) {
                m->metrics_error = mfree(m->metrics_error);
                return;
        }
        if (e->metrics_result < 0) {
                (void) errorf(
                        &metrics_error,
                        e->metrics_result,
                        "%s; node_exporter keeps serving the previous file (does the directory exist, and may "
                        "halod write to it? halod.service needs ReadWritePaths= for it)",
                        strerror(-e->metrics_result));
                report(&m->metrics_error,
                       metrics_error ?: strerror(-e->metrics_result),
                       "the Prometheus textfile",
                       e->profile->health.prometheus_textfile);
                return;
        }
        report(&m->metrics_error, NULL, "the Prometheus textfile", e->profile->health.prometheus_textfile);
}

/* The export job: what it was asked for, and the ExportJob it fills when it starts. */
typedef struct ExportRequest {
        bool fabric_env;
        ExportJob export;
} ExportRequest;

static void export_request_free(void *data) {
        ExportRequest *q = data;

        export_job_done(&q->export);
        free(q);
}

static int export_capture(Manager *m, void *data) {
        ExportRequest *q = data;

        if (!m->profile)
                return -ESTALE;
        return export_job_init(&q->export, m, q->fabric_env);
}

static void export_run(Job *job, void *data) {
        ExportRequest *q = data;

        export_job_run(&q->export);
}

static void export_publish(Manager *m, void *data) {
        ExportRequest *q = data;

        manager_export_report(m, &q->export);
        /* Back to the manager for the next export, unless a verify published a newer one meanwhile. */
        if (!m->verified && q->export.verified &&
            q->export.verified->profile_generation == m->profile_generation)
                m->verified = TAKE_PTR(q->export.verified);
}

static void export_fail(Manager *m, void *data, int error) {
        if (error != -ESTALE)
                log_warning_errno(error, "Failed to write fabric.env and the Prometheus textfile: %m");
}

static const JobType export_job_type = {
        .name = "export",
        .run = export_run,
        .publish = export_publish,
        .free = export_request_free,
        .capture = export_capture,
        .fail = export_fail,
};

void manager_export(Manager *m, bool local) {
        ExportRequest *q;
        int r;

        if (!m->profile)
                return;
        /* An export waiting to start reads the latest state when it starts: a second one adds nothing
         * but, after local checks, fabric.env (which depends on the host only, not on the peers). */
        q = job_lane_find_queued(&m->host_jobs, &export_job_type, NULL);
        if (q) {
                q->fabric_env = q->fabric_env || local;
                return;
        }
        q = calloc(1, sizeof(ExportRequest));
        if (!q)
                r = -ENOMEM;
        else {
                q->fabric_env = local;
                r = job_submit(m, &m->host_jobs, &export_job_type, q);
                if (r < 0)
                        free(q);
        }
        if (r < 0)
                log_warning_errno(r, "Failed to write fabric.env and the Prometheus textfile: %m");
}

void manager_export_remove(Manager *m) {
        _cleanup_(freep) char *path = NULL;
        int r;

        if (!m->cdi_spec_written || !m->cdi_dir || cdi_spec_path(m->cdi_dir, &path) < 0)
                return;
        r = cdi_spec_remove(path);
        if (r < 0)
                log_warning_errno(r, "Failed to remove the CDI spec %s, ignoring: %m", path);
        else if (r > 0)
                log_info("Removed the CDI spec %s.", path);
        m->cdi_spec_written = false;
}

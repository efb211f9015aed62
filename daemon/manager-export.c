/* SPDX-License-Identifier: MIT */
/* What halod leaves on disk after each verify: fabric.env for launchers, the CDI spec for container
 * runtimes, the Prometheus textfile, written by a work job off the loop (manager-work.c). */
#include "manager-export.h"
#include "basic/errorf.h"
#include "export/cdi.h"
#include "export/fabric-env.h"
#include "export/metrics.h"
#include "log.h"
#include "manager-helper.h"
#include "manager-verify.h"
#include "manager-work.h"
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

int export_job_init(ExportJob *e, Manager *m, bool fabric_env) {
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
        if (fabric_env && e->cdi_dir)
                m->cdi_spec_written = true;
        if (!m->profile->health.prometheus_textfile)
                return 0;
        for (size_t i = 0; i < m->checks.n_checks; i++) {
                r = check_list_add_copy(&e->checks, &m->checks.checks[i]);
                if (r < 0)
                        return r;
        }
        return peer_status_list_copy(&m->peers_measured, &e->peers);
}

void export_job_done(ExportJob *e) {
        check_list_done(&e->checks);
        peer_status_list_done(&e->peers);
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
        };
        r = metrics_write_textfile(&in, e->profile->health.prometheus_textfile);
        metrics_nics_free(nics, n_nics);
        metrics_qos_free(qos, n_qos);
        metrics_gids_free(gids, n_gids);
        return r;
}

void export_job_run(ExportJob *e) {
        NodeContext ctx = { .host = &e->host, .profile = e->profile, .node = e->node };
        _cleanup_(snapshot_done) Snapshot s = {};

        /* One snapshot for the three (the ports, NIC facts, RDMA devices and counters read once): its
         * own, as the verify's is gone by the time this job runs. */
        snapshot_init(&s, &ctx);
        if (e->fabric_env)
                e->fabric_env_result = write_fabric_env(e, &ctx, &s);
        if (e->fabric_env && e->cdi_dir && e->node)
                e->cdi_spec_result = write_cdi_spec(e, &ctx, &s);
        if (e->profile->health.prometheus_textfile)
                e->metrics_result = write_metrics(e, &ctx, &s);
}

void manager_export_report(Manager *m, const ExportJob *e) {
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

void manager_export(Manager *m, bool local) {
        int r;

        if (!m->profile)
                return;
        /* fabric.env depends on the host only, not on what the peers answer. */
        r = manager_work_submit(
                m, WORK_EXPORT | (local ? WORK_EXPORT_ENV : 0), /* only= */ NULL, /* done= */ NULL, NULL, NULL);
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

/* SPDX-License-Identifier: MIT */
/* What halod leaves on disk after each verify: fabric.env for launchers, the Prometheus textfile. */
#include "export/fabric-env.h"
#include "export/metrics.h"
#include "manager.h"

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

static void write_fabric_env(Manager *m) {
        _cleanup_(freep) char *path = NULL;
        NodeContext ctx = { .host = &m->host, .profile = m->profile, .node = m->node };
        FabricEnv env = {};
        int r;

        if (asprintf(&path, "%s/fabric.env", m->runtime_dir ?: HALOD_RUNTIME_DIR_DEFAULT) < 0)
                return;

        r = fabric_env_derive(&ctx, &env);
        if (r >= 0)
                r = fabric_env_write(&env, path);
        fabric_env_done(&env);
        if (r < 0) {
                char error[256];

                (void) snprintf(
                        error,
                        sizeof(error),
                        "%s; launchers that source it keep the previous values (is the directory writable? "
                        "--runtime-dir changes it)",
                        strerror(-r));
                report(&m->fabric_env_error, error, "the fabric environment", path);
                return;
        }
        report(&m->fabric_env_error, NULL, "the fabric environment", path);
        if (r > 0)
                log_info("Fabric environment changed: wrote %s.", path);
}

static void write_metrics(Manager *m, Snapshot *s) {
        const char *path = m->profile->health.prometheus_textfile;
        NodeContext ctx = { .host = &m->host, .profile = m->profile, .node = m->node };
        MetricsNic *nics = NULL;
        size_t n_nics = 0;
        MetricsInput in;
        int r;

        if (!path) {
                m->metrics_error = mfree(m->metrics_error);
                return;
        }

        /* The NIC facts the verify's NIC checks judged, when it read them; a peer run reads them. */
        r = metrics_nics_gather(&ctx, s, &nics, &n_nics);
        if (r >= 0) {
                in = (MetricsInput){
                        .cluster = m->profile->cluster,
                        .node = m->node ? m->node->name : NULL,
                        .health = manager_peer_health(m),
                        .checks = &m->checks,
                        .peers = m->profile->health.peers ? &m->peers_measured : NULL,
                        .nics = nics,
                        .n_nics = n_nics,
                        .last_verify_usec = m->last_verify_usec,
                };
                r = metrics_write_textfile(&in, path);
                metrics_nics_free(nics, n_nics);
        }
        if (r < 0) {
                char error[256];

                (void) snprintf(
                        error,
                        sizeof(error),
                        "%s; node_exporter keeps serving the previous file (does the directory exist, and may "
                        "halod write to it? halod.service needs ReadWritePaths= for it)",
                        strerror(-r));
                report(&m->metrics_error, error, "the Prometheus textfile", path);
                return;
        }
        report(&m->metrics_error, NULL, "the Prometheus textfile", path);
}

void manager_export(Manager *m, bool local, Snapshot *s) {
        if (!m->profile)
                return;
        /* fabric.env depends on the host only, not on what the peers answer. */
        if (local)
                write_fabric_env(m);
        write_metrics(m, s);
}

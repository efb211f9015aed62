/* SPDX-License-Identifier: MIT */
/* Re-runs the helper check when halod-helper.service ends a run (haloctl replaces its result stamp):
 * else what the helper just wrote shows only at the next health.interval, and every start of halod
 * (whose ExecStopPost= removed the CDI spec) stays degraded until then. The stamps' directory exists
 * only after the helper's first run since boot (RuntimeDirectoryPreserve=yes keeps it): until then the
 * parent is watched for it. No inotify source here is ever left disabled: every one is on or freed. */
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "check/helper-ask.h"
#include "log.h"
#include "manager-helper-watch.h"
#include "manager-job-hosts.h"
#include "manager.h"

#define HELPER_RUNTIME_PARENT "/run"

static int watch_runtime_dir(Manager *m);

/* The helper check alone, from a hosts job that reads the spec, the block and networkd's links back,
 * and asks again for what the run missed. One waiting to start is enough for a run's stamp. */
static void helper_recheck(Manager *m) {
        int r;

        r = manager_hosts_recheck(m);
        if (r < 0)
                log_warning_errno(
                        r, "Failed to re-run the helper check after halod-helper.service ran, ignoring: %m");
}

static int on_helper_stamp(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        if (ev->len > 0 && streq(ev->name, HELPER_STAMP_RESULT))
                helper_recheck(userdata);
        return 0;
}

static int on_runtime_parent(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        Manager *m = userdata;

        if (ev->len == 0 || !streq(ev->name, HELPER_RUNTIME_DIR + strlen(HELPER_RUNTIME_PARENT "/")))
                return 0;
        if (watch_runtime_dir(m) >= 0) {
                /* Dropped, not disabled: a disabled source keeps its kernel watch on /run, and libsystemd
                 * before 258 (systemd#38265) then spins in sd_event_wait() on the next entry made in
                 * /run (/run/nologin at shutdown), never to read SIGTERM again. The watch goes now,
                 * the source after this callback; what else was read for /run is dropped. */
                m->helper_parent_source = sd_event_source_disable_unref(m->helper_parent_source);
                /* The directory comes before the run: a check now would find the run not begun
                 * ("has not run since"). Only a run that ended before the watch was set. */
                if (access(HELPER_RUNTIME_DIR "/" HELPER_STAMP_RESULT, F_OK) >= 0)
                        helper_recheck(m);
        }
        return 0;
}

static int watch_runtime_dir(Manager *m) {
        return sd_event_add_inotify(
                m->event,
                &m->helper_stamp_source,
                HELPER_RUNTIME_DIR,
                IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR,
                on_helper_stamp,
                m);
}

int manager_helper_watch_start(Manager *m) {
        int r;

        if (m->helper_stamp_source)
                return 0;
        r = watch_runtime_dir(m);
        if (r != -ENOENT)
                return r;
        if (m->helper_parent_source)
                return 0;
        return sd_event_add_inotify(
                m->event,
                &m->helper_parent_source,
                HELPER_RUNTIME_PARENT,
                IN_CREATE | IN_MOVED_TO | IN_ONLYDIR,
                on_runtime_parent,
                m);
}

void manager_helper_watch_done(Manager *m) {
        m->helper_stamp_source = sd_event_source_disable_unref(m->helper_stamp_source);
        m->helper_parent_source = sd_event_source_disable_unref(m->helper_parent_source);
}

/* SPDX-License-Identifier: MIT */
/* The hosts job: asks halod-helper.service for what halod may not write and publishes the "helper"
 * check, apart from the verify's checks, so that a verify publishes (and a drift is announced) without
 * waiting for the CDI spec to be derived, the /etc/hosts block computed and the helper's stamps read.
 * The check merges into the published list the way the peer checks do (check_list_merge(): a local
 * run keeps it), and a hosts job that finds nothing of the helper's removes it. */
#include "manager-job-hosts.h"
#include "log.h"
#include "manager-helper.h"
#include "manager-job.h"
#include "manager-verify.h"

typedef struct HostsJob {
        Manager *manager;
        bool links_read;
        char *networkd_wrong;
        uint64_t profile_generation; /* of the verify that read the links */
        HostsDoneFunc done;
        void *userdata;
        void (*destroy)(void *);

        /* Inputs, taken from the manager when the job starts. */
        ManagerInputs in;

        /* Outputs. */
        int result; /* manager_helper_step()'s */
        CheckList checks;
} HostsJob;

static void hosts_job_free(void *data) {
        HostsJob *j = data;

        if (j->destroy)
                j->destroy(j->userdata);
        free(j->networkd_wrong);
        check_list_done(&j->checks);
        free(j);
}

/* When the helper applies the links and no verify just read them: from a snapshot of the links alone.
 * A job that cannot read them leaves the part out: the link checks say why. */
static void read_networkd_wrong(HostsJob *j, const NodeContext *c) {
        _cleanup_(freep) char *error = NULL;
        Snapshot s;

        if (j->links_read || !manager_helper_delegates_networkd(j->in.profile, j->in.backend))
                return;
        snapshot_init(&s, c);
        (void) manager_helper_networkd_wrong(&s, &j->networkd_wrong, &error);
        snapshot_done(&s);
}

static void hosts_job_run(Job *job, void *data) {
        HostsJob *j = data;
        NodeContext c = { .host = &j->in.host, .profile = j->in.profile, .node = j->in.node };

        read_networkd_wrong(j, &c);
        j->result = manager_helper_step(j->manager, &c, j->networkd_wrong, /* with_check= */ true, &j->checks);
}

static void hosts_job_publish(Manager *m, void *data) {
        HostsJob *j = data;

        manager_helper_report(m, j->result);
        /* Nothing of the helper's, and no check of it published: nothing to announce. */
        if (j->result != -ENOENT || check_list_find(published_checks_list(m->checks), HELPER_CHECK_ID))
                if (manager_publish_checks(m, HELPER_CHECK_ID, /* peers= */ false, &j->checks) < 0)
                        log_warning("Failed to publish the helper check: out of memory.");
        if (j->done)
                j->done(m, j->userdata);
}

static int hosts_job_capture(Manager *m, void *data) {
        HostsJob *j = data;
        int r = manager_inputs_capture(m, &j->in);

        if (r < 0)
                return r;
        j->manager = m;
        /* A load job ran in between: the links were read for another profile. */
        if (j->profile_generation != m->profile_generation) {
                j->links_read = false;
                j->networkd_wrong = mfree(j->networkd_wrong);
        }
        return 0;
}

static void hosts_job_fail(Manager *m, void *data, int error) {
        HostsJob *j = data;

        if (j->done)
                j->done(m, j->userdata);
}

static const JobType hosts_job_type = {
        .name = "hosts",
        .run = hosts_job_run,
        .publish = hosts_job_publish,
        .free = hosts_job_free,
        .capture = hosts_job_capture,
        .fail = hosts_job_fail,
};

int manager_hosts_submit(
        Manager *m,
        bool links_read,
        char **networkd_wrong,
        HostsDoneFunc done,
        void *userdata,
        void (*destroy)(void *)) {
        HostsJob *j = calloc(1, sizeof(HostsJob));
        int r;

        if (!j)
                return -ENOMEM;
        *j = (HostsJob){
                .links_read = links_read,
                .profile_generation = m->profile_generation,
                .done = done,
                .userdata = userdata,
                .destroy = destroy,
        };
        /* Before it is queued: it may start (and end) within job_submit(). */
        if (links_read && networkd_wrong)
                j->networkd_wrong = *networkd_wrong;
        r = job_submit(m, &m->host_jobs, &hosts_job_type, j);
        if (r < 0) {
                free(j); /* the caller keeps userdata and networkd_wrong */
                return r;
        }
        if (links_read && networkd_wrong)
                *networkd_wrong = NULL;
        return 0;
}

static bool reads_everything(const void *data) {
        const HostsJob *j = data;

        return !j->links_read;
}

int manager_hosts_recheck(Manager *m) {
        HostsJob *j;

        if (!m->profile || job_lane_find_queued(&m->host_jobs, &hosts_job_type, reads_everything))
                return 0;
        /* One queued after a verify read the links before the helper's run: it reads them again. */
        j = job_lane_find_queued(&m->host_jobs, &hosts_job_type, NULL);
        if (j) {
                j->links_read = false;
                j->networkd_wrong = mfree(j->networkd_wrong);
                return 0;
        }
        return manager_hosts_submit(m, /* links_read= */ false, /* networkd_wrong= */ NULL, NULL, NULL, NULL);
}

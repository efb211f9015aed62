/* SPDX-License-Identifier: MIT */
/* The load job: the YAML parser and the profile's checks run on the worker; the loop gets the profile
 * or the reasons it was rejected. */
#include "manager-job-load.h"
#include "manager-job.h"

typedef struct LoadJob {
        /* Inputs: the manager's, which stay while the host lane runs this job. */
        const char *path;
        const char *node_name;
        LoadDoneFunc done;
        void *userdata;
        void (*destroy)(void *);

        /* Outputs. */
        int result;
        Profile *profile;
        const ProfileNode *node;
        char *error;
} LoadJob;

static void load_job_free(void *data) {
        LoadJob *j = data;

        if (j->destroy)
                j->destroy(j->userdata);
        profile_free(j->profile);
        free(j->error);
        free(j);
}

static void load_job_run(Job *job, void *data) {
        LoadJob *j = data;

        j->result = manager_load_profile(j->path, j->node_name, &j->profile, &j->node, &j->error);
}

static void load_job_publish(Manager *m, void *data) {
        LoadJob *j = data;

        if (j->done)
                j->done(m, j->result, &j->profile, j->node, j->error, j->userdata);
}

static const JobType load_job_type = {
        .name = "load",
        .run = load_job_run,
        .publish = load_job_publish,
        .free = load_job_free,
};

int manager_load_submit(Manager *m, LoadDoneFunc done, void *userdata, void (*destroy)(void *)) {
        LoadJob *j = calloc(1, sizeof(LoadJob));
        int r;

        if (!j)
                return -ENOMEM;
        *j = (LoadJob){
                .path = m->profile_path,
                .node_name = m->node_name,
                .done = done,
                .userdata = userdata,
                .destroy = destroy,
        };
        r = job_submit(m, &m->host_jobs, &load_job_type, j);
        if (r < 0)
                free(j); /* the caller keeps userdata */
        return r;
}

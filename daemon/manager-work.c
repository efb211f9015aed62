/* SPDX-License-Identifier: MIT */
/* Host work off the event loop: a worker thread runs one job at a time (loading the profile, applying
 * it, resolving the links' netdevs, the local checks, the exports), each for milliseconds of netlink
 * dumps, sysfs reads and D-Bus calls to firewalld or NetworkManager, and hands the results back
 * through an eventfd; the loop publishes them. Jobs never overlap, so the profile a job reads stays
 * in force until it ends: only the loop replaces it, after a load job, between two jobs. */
#include <assert.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "apply/apply.h"
#include "basic/strv.h"
#include "check/checks.h"
#include "manager-work.h"

struct Work {
        Work *next;
        unsigned steps;
        char *only;
        WorkDoneFunc done;
        void *userdata;
        void (*destroy)(void *);

        /* Inputs, taken from the manager when the job starts. */
        Host host;
        const Profile *profile;
        const ProfileNode *node;
        const Backend *backend;
        const char *profile_path;
        const char *node_name;
        ExportJob export;

        /* Outputs, written by the thread before it signals the eventfd. */
        WorkResult result;
        char **changes;
        int ports_result;
        FabricPort *ports;
        size_t n_ports;
        CheckList checks;

        pthread_t thread;
        int event_fd;
        sd_event_source *source;
};

void work_result_done(WorkResult *r) {
        r->load_error = mfree(r->load_error);
        r->loaded = profile_free(r->loaded);
        r->apply_error = mfree(r->apply_error);
}

static Work *work_free(Work *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        safe_close(w->event_fd);
        if (w->destroy)
                w->destroy(w->userdata);
        free(w->only);
        export_job_done(&w->export);
        work_result_done(&w->result);
        strv_free(w->changes);
        fabric_ports_free(w->ports, w->n_ports);
        check_list_done(&w->checks);
        return mfree(w);
}

static bool work_runs_checks(const Work *w) {
        return (w->steps & WORK_CHECKS) || ((w->steps & WORK_CHECKS_IF_CHANGED) && w->result.apply_result > 0);
}

/* The job itself: on the worker thread (or on the loop's thread before the loop runs). */
static void work_execute(Work *w) {
        NodeContext ctx = { .host = &w->host, .profile = w->profile, .node = w->node };
        WorkResult *res = &w->result;
        int r;

        if (w->steps & WORK_LOAD)
                res->load_result = manager_load_profile(
                        w->profile_path, w->node_name, &res->loaded, &res->loaded_node, &res->load_error);

        if (w->steps & WORK_APPLY) {
                r = w->profile ? apply_node(&ctx, w->backend, &w->changes, &res->apply_error) : -ESTALE;
                if (r < 0 && !res->apply_error)
                        res->apply_error = strdup(strerror(-r));
                res->apply_result = r < 0 ? r : (int) strv_length(w->changes);
        }

        if ((w->steps & WORK_PORTS) && w->profile)
                w->ports_result = fabric_ports_find(&ctx, &w->ports, &w->n_ports);

        res->checks_result = 1;
        if (work_runs_checks(w))
                res->checks_result = w->profile ? checks_run(&ctx, w->only, &w->checks) : -ESTALE;

        if (w->steps & WORK_EXPORT)
                export_job_run(&w->export);
}

static void *work_thread(void *userdata) {
        Work *w = userdata;
        uint64_t one = 1;

        work_execute(w);
        /* The thread's last act: from here on the loop owns everything in w. */
        (void) write(w->event_fd, &one, sizeof(one));
        return NULL;
}

/* Takes the inputs from the manager, now: a queued job sees the state of when it starts. */
static int work_capture(Manager *m, Work *w) {
        w->host = m->host;
        w->profile = m->profile;
        w->node = m->node;
        w->backend = m->backend;
        w->profile_path = m->profile_path;
        w->node_name = m->node_name;
        if ((w->steps & WORK_EXPORT) && m->profile)
                return export_job_init(&w->export, m, w->steps & WORK_EXPORT_ENV);
        w->steps &= ~(unsigned) (WORK_EXPORT | WORK_EXPORT_ENV);
        return 0;
}

/* A job whose inputs could not be taken runs nothing and says so to its caller. */
static void work_fail(Work *w, int error) {
        w->steps = 0;
        w->result.load_result = w->result.apply_result = w->result.checks_result = error;
}

/* Publishes a job's results on the loop, then hands them to its caller. */
static void work_publish(Manager *m, Work *w) {
        if (w->steps & WORK_APPLY)
                manager_apply_report(m, w->result.apply_result, w->changes, w->result.apply_error);

        if ((w->steps & WORK_PORTS) && w->profile) {
                if (w->ports_result < 0)
                        /* Without the map every event counts as ours: slower, never blind. */
                        log_warning_errno(
                                w->ports_result,
                                "Failed to resolve the links' netdevs, watching every interface: %m");
                else {
                        manager_watch_set_ports(m, w->ports, w->n_ports);
                        w->ports = NULL;
                        w->n_ports = 0;
                }
        }

        if (work_runs_checks(w) && w->profile) {
                if (manager_publish_local_checks(m, w->only, w->result.checks_result, &w->checks) < 0)
                        log_warning("Failed to publish the checks: out of memory.");
        }

        if (w->steps & WORK_EXPORT)
                manager_export_report(m, &w->export);

        if (w->done)
                w->done(m, &w->result, w->userdata);
}

static void work_start_next(Manager *m);

static int on_work_done(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        Work *w = m->work;

        (void) pthread_join(w->thread, NULL);
        work_publish(m, w);
        m->work = NULL;
        work_free(w);
        work_start_next(m);
        return 0;
}

/* Starts the first queued job on a thread of its own; runs it here when no thread can be had. */
static void work_start_next(Manager *m) {
        Work *w;
        int r;

        while (!m->work && m->work_queue) {
                w = m->work = m->work_queue;
                m->work_queue = w->next;
                w->next = NULL;

                r = work_capture(m, w);
                if (r < 0)
                        work_fail(w, r);
                else {
                        w->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
                        r = w->event_fd < 0
                                ? -errno
                                : sd_event_add_io(m->event, &w->source, w->event_fd, EPOLLIN, on_work_done, m);
                }
                if (r >= 0)
                        /* The thread inherits the loop's blocked signals: they stay with the signalfd. */
                        r = -pthread_create(&w->thread, NULL, work_thread, w);
                if (r >= 0)
                        return;

                if (w->steps != 0) {
                        log_warning_errno(
                                r, "Failed to start a worker thread, working on the event loop instead: %m");
                        work_execute(w);
                }
                work_publish(m, w);
                m->work = NULL;
                work_free(w);
        }
        if (!m->work)
                manager_watch_work_idle(m);
}

static Work *work_new(
        unsigned steps, const char *only, WorkDoneFunc done, void *userdata, void (*destroy)(void *)) {
        Work *w = calloc(1, sizeof(Work));

        if (!w)
                return NULL;
        *w = (Work){
                .steps = steps,
                .done = done,
                .userdata = userdata,
                .destroy = destroy,
                .event_fd = -EBADF,
        };
        if (only) {
                w->only = strdup(only);
                if (!w->only) {
                        w->destroy = NULL; /* the caller keeps userdata on failure */
                        return work_free(w);
                }
        }
        return w;
}

/* An export waiting to start reads the latest state when it starts: a second one adds nothing. */
static Work *queued_export(Manager *m) {
        for (Work *w = m->work_queue; w; w = w->next)
                if ((w->steps & ~(unsigned) WORK_EXPORT_ENV) == WORK_EXPORT && !w->done)
                        return w;
        return NULL;
}

int manager_work_submit(
        Manager *m, unsigned steps, const char *only, WorkDoneFunc done, void *userdata, void (*destroy)(void *)) {
        Work *w, **tail;

        if ((steps & ~(unsigned) WORK_EXPORT_ENV) == WORK_EXPORT && !done && (w = queued_export(m))) {
                w->steps |= steps;
                return 0;
        }

        w = work_new(steps, only, done, userdata, destroy);
        if (!w)
                return -ENOMEM;
        for (tail = &m->work_queue; *tail; tail = &(*tail)->next)
                ;
        *tail = w;
        work_start_next(m);
        return 0;
}

int manager_work_run(Manager *m, unsigned steps, const char *only, WorkResult *ret) {
        Work *w;
        int r;

        assert(!m->work);
        w = work_new(steps, only, NULL, NULL, NULL);
        if (!w)
                return -ENOMEM;
        r = work_capture(m, w);
        if (r < 0) {
                work_free(w);
                return r;
        }
        /* Jobs that publishing submits are queued meanwhile, and run here too, after this one. */
        m->work = w;
        work_execute(w);
        work_publish(m, w);
        *ret = w->result;
        w->result = (WorkResult){};
        m->work = NULL;
        work_free(w);

        while (m->work_queue) {
                w = m->work = m->work_queue;
                m->work_queue = w->next;
                w->next = NULL;
                r = work_capture(m, w);
                if (r < 0)
                        work_fail(w, r);
                else
                        work_execute(w);
                work_publish(m, w);
                m->work = NULL;
                work_free(w);
        }
        return 0;
}

bool manager_work_busy(const Manager *m) {
        return m->work || m->work_queue;
}

void manager_work_done(Manager *m) {
        if (m->work) {
                /* Milliseconds, or an apply bounded by its backend's timeout. */
                (void) pthread_join(m->work->thread, NULL);
                m->work = work_free(m->work);
        }
        while (m->work_queue) {
                Work *w = m->work_queue;

                m->work_queue = w->next;
                work_free(w);
        }
}

/* SPDX-License-Identifier: MIT */
/* Host work off the event loop: a worker thread runs one job at a time (loading the profile, applying
 * it, resolving the links' netdevs, the local checks, the exports), each for milliseconds of netlink
 * dumps, sysfs reads and D-Bus calls to firewalld or NetworkManager, and hands the results back
 * through an eventfd; the loop publishes them. Jobs never overlap, so the profile a job reads stays
 * in force until it ends: only the loop replaces it, after a load job, between two jobs. Right before
 * a job reads the kernel, the loop takes in the rtnetlink events queued until then (a second eventfd,
 * the job waiting for the answer), so that the job's verify covers them. */
#include <assert.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "apply/apply.h"
#include "basic/errorf.h"
#include "basic/strv.h"
#include "check/checks.h"
#include "log.h"
#include "manager-helper.h"
#include "manager-verify.h"
#include "manager-watch.h"
#include "manager-work.h"
#include "plan/hosts-plan.h"

struct Work {
        Manager *manager;
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
        NodeContext context;
        Snapshot snapshot;
        ExportJob export;
        bool hosts_writable;    /* halod may write /etc itself (not in the shipped unit's sandbox) */
        bool networkd_writable; /* the same for networkd's files: else halod-helper.service applies */
        char *networkd_wrong;   /* then, after an apply: what the links lack ("": nothing), for the helper */

        /* Outputs, written by the thread before it signals the eventfd. */
        WorkResult result;
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

        bool on_loop_thread; /* run by the loop's thread (before the loop runs, or without threads) */
        pthread_t thread;
        int event_fd; /* the thread signals the loop: done */
        int take_fd;  /* the thread asks the loop to take in the rtnetlink events */
        int taken_fd; /* the loop answers: taken (blocking: the thread waits on it) */
        sd_event_source *source;
        sd_event_source *take_source;
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
        sd_event_source_disable_unref(w->take_source);
        safe_close(w->event_fd);
        safe_close(w->take_fd);
        safe_close(w->taken_fd);
        if (w->destroy)
                w->destroy(w->userdata);
        free(w->only);
        snapshot_done(&w->snapshot);
        export_job_done(&w->export);
        work_result_done(&w->result);
        plan_changes_done(&w->changes);
        fabric_ports_free(w->ports, w->n_ports);
        check_list_done(&w->checks);
        plan_changes_done(&w->enforce_changes);
        free(w->enforce_error);
        free(w->networkd_wrong);
        check_list_done(&w->checks_after);
        return mfree(w);
}

/* The snapshot's hook, right before it reads the kernel: the events queued until now are taken in by
 * the loop (which also takes over the ports this job resolved, so that it knows them as ours). */
static void work_before_kernel_read(void *userdata) {
        Work *w = userdata;
        eventfd_t taken;

        if (w->on_loop_thread) {
                manager_watch_take_events(w->manager);
                return;
        }
        if (eventfd_write(w->take_fd, 1) < 0)
                return;
        while (eventfd_read(w->taken_fd, &taken) < 0 && errno == EINTR)
                ;
}

/* A link or qos check that fails or warns: what an enforcing apply may fix (qos.<link>.pause cannot,
 * but applying with nothing planned changes nothing). */
static bool any_bad_link_check(const CheckList *l) {
        for (size_t i = 0; i < l->n_checks; i++)
                if ((startswith(l->checks[i].id, "link.") || startswith(l->checks[i].id, "qos.")) &&
                    (l->checks[i].outcome == CHECK_FAIL || l->checks[i].outcome == CHECK_WARN))
                        return true;
        return false;
}

/* The networkd backend where halod may not write networkd's files: halod-helper.service applies the
 * links as root from the profile (haloctl apply --only networkd), with its rollback; halod only says
 * what differs, for the request and the helper check, and verifies from the kernel afterwards. */
static int work_delegate_networkd(Work *w, char **error) {
        _cleanup_(plan_done) Plan plan = {};
        _cleanup_(strv_freep) char **lines = NULL;
        int r;

        r = plan_from_snapshot(&w->snapshot, &plan);
        if (r < 0)
                return errorf(error, r, "cannot read the link state from the kernel: %s", strerror(-r));
        plan.hosts = hosts_plan_free(plan.hosts);
        r = plan_describe(&plan, &lines);
        if (r < 0)
                return r;
        free(w->networkd_wrong);
        w->networkd_wrong = strv_join(lines, "; ");
        return w->networkd_wrong ? 0 : -ENOMEM;
}

static bool work_delegates_networkd(const Work *w) {
        return w->profile && w->backend == &backend_networkd && !w->networkd_writable &&
                profile_may_change_host(w->profile, false);
}

/* Applies through the backend from the job's snapshot; returns the number of changes, or negative
 * errno with *error set. */
static int work_apply(Work *w, PlanChanges *changes, char **error) {
        int r;

        if (!w->profile)
                return -ESTALE;
        if (work_delegates_networkd(w))
                r = work_delegate_networkd(w, error);
        else
                /* halod in its sandbox may not write /etc: the block is halod-helper.service's (after the
                 * checks). */
                r = apply_node(
                        &w->context,
                        w->backend,
                        w->hosts_writable ? 0 : APPLY_NO_HOSTS,
                        &w->snapshot,
                        changes,
                        error);
        if (r < 0 && !*error)
                *error = strdup(strerror(-r));
        return r < 0 ? r : (int) changes->n_changes;
}

/* The job itself: on the worker thread (or on the loop's thread before the loop runs). */
static void work_execute(Work *w) {
        WorkResult *res = &w->result;

        w->context = (NodeContext){ .host = &w->host, .profile = w->profile, .node = w->node };
        snapshot_init(&w->snapshot, &w->context);
        w->snapshot.before_kernel_read = work_before_kernel_read;
        w->snapshot.userdata = w;
        /* Jobs never overlap: the one running is the only one to read and update it. */
        w->snapshot.pause_history = &w->manager->pause_history;
        w->hosts_writable = manager_dir_writable("/etc");
        w->networkd_writable = manager_dir_writable("/etc/systemd/network");

        if (w->steps & WORK_LOAD)
                res->load_result = manager_load_profile(
                        w->profile_path, w->node_name, &res->loaded, &res->loaded_node, &res->load_error);

        if ((w->steps & WORK_PORTS) && w->profile) {
                FabricPorts ports = {};

                w->ports_result = fabric_ports_find(&w->context, &ports);
                w->ports = ports.ports;
                w->n_ports = ports.n;
                w->ports_ready = w->ports_result >= 0;
        }

        if (w->steps & WORK_APPLY)
                res->apply_result = work_apply(w, &w->changes, &res->apply_error);

        res->checks_result = 1;
        if (w->steps & WORK_CHECKS)
                res->checks_result = w->profile ? checks_run(&w->context, &w->snapshot, w->only, &w->checks)
                                                : -ESTALE;

        /* Planned from the snapshot the checks just read: nothing ran in between. */
        if ((w->steps & WORK_ENFORCE) && res->checks_result >= 0 && any_bad_link_check(&w->checks)) {
                res->enforce_attempted = true;
                res->enforce_result = work_apply(w, &w->enforce_changes, &w->enforce_error);
                w->checks_after_result = 1;
                if (res->enforce_result > 0)
                        w->checks_after_result = checks_run(
                                &w->context, &w->snapshot, w->only, &w->checks_after);
        }

        /* After every run of local checks, a one-link recheck too: that is when the helper's work on the
         * links shows; the CDI spec and the /etc/hosts block are read again with them. */
        bool helper_check = w->steps & WORK_CHECKS;
        /* Every checks job says what networkd's links lack, not only one that applies: else a Verify()
         * or an interval with re-applies paused would drop the networkd part from the request (and
         * pass), and the next enforce job would ask anew, resetting the back-off. A job that cannot
         * read the links leaves the part out: the link checks say why. */
        if (helper_check && !w->networkd_wrong && work_delegates_networkd(w)) {
                _cleanup_(freep) char *error = NULL;
                (void) work_delegate_networkd(w, &error);
        }
        res->helper_ran = w->profile && (helper_check || w->networkd_wrong);
        if (res->helper_ran)
                res->helper_result = manager_helper_step(
                        w->manager, &w->context, w->networkd_wrong, helper_check, &w->checks);

        if (w->steps & WORK_EXPORT)
                export_job_run(&w->export);
}

/* The loop's side of work_before_kernel_read(). */
static int on_take_events(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Work *w = userdata;
        eventfd_t n;

        (void) eventfd_read(fd, &n);
        if (w->ports_ready && w->ports) {
                manager_watch_set_ports(w->manager, TAKE_PTR(w->ports), w->n_ports);
                w->n_ports = 0;
        }
        manager_watch_take_events(w->manager);
        if (eventfd_write(w->taken_fd, 1) < 0)
                log_warning_errno(errno, "Failed to let a worker go on, ignoring: %m");
        return 0;
}

static void *work_thread(void *userdata) {
        Work *w = userdata;

        work_execute(w);
        /* The thread's last act: from here on the loop owns everything in w. */
        (void) eventfd_write(w->event_fd, 1);
        return NULL;
}

/* Takes the inputs from the manager, now: a queued job sees the state of when it starts. */
static int work_capture(Manager *m, Work *w) {
        w->manager = m;
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
        if ((w->steps & WORK_PORTS) && w->profile) {
                if (w->ports_result < 0)
                        /* Without the map every event counts as ours: slower, never blind. */
                        log_warning_errno(
                                w->ports_result,
                                "Failed to resolve the links' netdevs, watching every interface: %m");
                else if (w->ports) {
                        manager_watch_set_ports(m, TAKE_PTR(w->ports), w->n_ports);
                        w->n_ports = 0;
                }
        }

        if (w->steps & WORK_APPLY)
                manager_apply_report(m, w->result.apply_result, &w->changes, w->result.apply_error);

        if ((w->steps & WORK_CHECKS) && w->profile &&
            manager_publish_local_checks(m, w->only, w->result.checks_result, &w->checks, &w->snapshot) < 0)
                log_warning("Failed to publish the checks: out of memory.");

        if (w->result.helper_ran)
                manager_helper_report(m, w->result.helper_result);

        if (w->result.enforce_attempted) {
                manager_apply_report(m, w->result.enforce_result, &w->enforce_changes, w->enforce_error);
                if (w->checks_after_result <= 0 &&
                    manager_publish_local_checks(
                            m, w->only, w->checks_after_result, &w->checks_after, &w->snapshot) < 0)
                        log_warning("Failed to publish the checks: out of memory.");
        }

        if (w->steps & WORK_EXPORT)
                manager_export_report(m, &w->export);

        if (w->done)
                w->done(m, &w->result, w->userdata);
}

static void work_start_next(Manager *m);
static int on_work_done(sd_event_source *s, int fd, uint32_t revents, void *userdata);

/* The job's eventfds: done (thread → loop), take the events (thread → loop), taken (loop → thread). */
static int work_watch(Manager *m, Work *w) {
        int r;

        w->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        w->take_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        w->taken_fd = eventfd(0, EFD_CLOEXEC);
        if (w->event_fd < 0 || w->take_fd < 0 || w->taken_fd < 0)
                return -errno;
        r = sd_event_add_io(m->event, &w->source, w->event_fd, EPOLLIN, on_work_done, m);
        if (r >= 0)
                r = sd_event_add_io(m->event, &w->take_source, w->take_fd, EPOLLIN, on_take_events, w);
        return r;
}

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
                else
                        r = work_watch(m, w);
                if (r >= 0)
                        /* The thread inherits the loop's blocked signals: they stay with the signalfd. */
                        r = -pthread_create(&w->thread, NULL, work_thread, w);
                if (r >= 0)
                        return;

                if (w->steps != 0) {
                        log_warning_errno(
                                r, "Failed to start a worker thread, working on the event loop instead: %m");
                        w->on_loop_thread = true;
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
                .take_fd = -EBADF,
                .taken_fd = -EBADF,
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
        w->on_loop_thread = true;
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
                w->on_loop_thread = true;
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

                /* A job waiting for the loop to take in events goes on without (the loop has ended);
                 * then it ends in milliseconds, or an apply within its backend's timeout. */
                if (m->work->taken_fd >= 0)
                        (void) eventfd_write(m->work->taken_fd, 1);
                (void) pthread_join(m->work->thread, NULL);
                m->work = work_free(m->work);
        }
        while (m->work_queue) {
                Work *w = m->work_queue;

                m->work_queue = w->next;
                work_free(w);
        }
}

/* SPDX-License-Identifier: MIT */
/* The job primitive: each job runs on a thread of its own (the milliseconds of netlink dumps, sysfs
 * reads and D-Bus calls of a verify, the second of a peer round) and tells the loop through an eventfd
 * that it ended; the loop joins it, publishes its results and frees it, then starts the next job of
 * its lane. A job may ask the loop to run a function and wait for it (job_call_loop(): a verify takes
 * in the queued rtnetlink events right before it reads the kernel), through two more eventfds. */
#include <assert.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "log.h"
#include "manager-job.h"
#include "manager.h"

struct Job {
        Manager *manager;
        JobLane *lane;
        Job *next;
        const JobType *type;
        void *data;

        bool on_loop_thread;
        bool thread_started;
        pthread_t thread;
        int done_fd;  /* the thread signals the loop: ended */
        int call_fd;  /* the thread asks the loop to run call_fn */
        int reply_fd; /* the loop answers: it ran (blocking: the thread waits on it) */
        sd_event_source *done_source;
        sd_event_source *call_source;
        void (*call_fn)(Manager *m, void *userdata);
        void *call_userdata;
};

static Job *job_free(Job *j) {
        if (!j)
                return NULL;
        sd_event_source_disable_unref(j->done_source);
        sd_event_source_disable_unref(j->call_source);
        safe_close(j->done_fd);
        safe_close(j->call_fd);
        safe_close(j->reply_fd);
        if (j->type->free)
                j->type->free(j->data);
        return mfree(j);
}

void job_call_loop(Job *j, void (*fn)(Manager *m, void *userdata), void *userdata) {
        eventfd_t n;

        if (j->on_loop_thread) {
                fn(j->manager, userdata);
                return;
        }
        j->call_fn = fn;
        j->call_userdata = userdata;
        if (eventfd_write(j->call_fd, 1) < 0)
                return;
        /* Blocking: the loop answers within one dispatch, or job_lane_stop() lets it go. */
        while (eventfd_read(j->reply_fd, &n) < 0 && errno == EINTR)
                ;
}

static int on_call(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Job *j = userdata;
        eventfd_t n;

        (void) eventfd_read(fd, &n);
        j->call_fn(j->manager, j->call_userdata);
        if (eventfd_write(j->reply_fd, 1) < 0)
                log_warning_errno(errno, "Failed to let a worker go on, ignoring: %m");
        return 0;
}

static void *job_thread(void *userdata) {
        Job *j = userdata;

        j->type->run(j, j->data);
        /* The thread's last act: from here on the loop owns everything in j. */
        (void) eventfd_write(j->done_fd, 1);
        return NULL;
}

static void lane_start_next(Manager *m, JobLane *lane);

/* Publishes a job that ended on the loop and frees it. */
static void job_finish(Manager *m, Job *j, int capture_error) {
        if (capture_error < 0) {
                if (j->type->fail)
                        j->type->fail(m, j->data, capture_error);
        } else if (j->type->publish)
                j->type->publish(m, j->data);
        job_free(j);
}

static int on_done(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Job *j = userdata;
        JobLane *lane = j->lane;
        Manager *m = j->manager;

        assert(lane->running == j);
        (void) pthread_join(j->thread, NULL);
        lane->running = NULL;
        job_finish(m, j, 0);
        lane_start_next(m, lane);
        return 0;
}

static int job_spawn(Manager *m, Job *j) {
        int r;

        j->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        j->call_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        j->reply_fd = eventfd(0, EFD_CLOEXEC);
        if (j->done_fd < 0 || j->call_fd < 0 || j->reply_fd < 0)
                return -errno;
        r = sd_event_add_io(m->event, &j->done_source, j->done_fd, EPOLLIN, on_done, j);
        if (r >= 0)
                r = sd_event_add_io(m->event, &j->call_source, j->call_fd, EPOLLIN, on_call, j);
        if (r < 0)
                return r;
        /* The thread inherits the loop's blocked signals: they stay with the signalfd. */
        r = -pthread_create(&j->thread, NULL, job_thread, j);
        if (r < 0)
                return r;
        j->thread_started = true;
        return 0;
}

/* Takes the next job off the lane's queue; NULL when none waits. */
static Job *lane_pop(JobLane *lane) {
        Job *j = lane->queue;

        if (j) {
                lane->queue = j->next;
                j->next = NULL;
        }
        return j;
}

static void lane_start_next(Manager *m, JobLane *lane) {
        Job *j;
        int r;

        while (!lane->running && (j = lane_pop(lane))) {
                r = j->type->capture ? j->type->capture(m, j->data) : 0;
                if (r < 0) {
                        job_finish(m, j, r);
                        continue;
                }
                lane->running = j;
                r = job_spawn(m, j);
                if (r >= 0)
                        return;

                log_warning_errno(
                        r,
                        "Failed to start a worker thread, running the %s job on the event loop: %m",
                        j->type->name);
                j->on_loop_thread = true;
                j->type->run(j, j->data);
                lane->running = NULL;
                job_finish(m, j, 0);
        }
        if (!lane->running && lane->idle)
                lane->idle(m);
}

static Job *job_new(Manager *m, JobLane *lane, const JobType *type, void *data) {
        Job *j = calloc(1, sizeof(Job));

        if (!j)
                return NULL;
        *j = (Job){
                .manager = m,
                .lane = lane,
                .type = type,
                .data = data,
                .done_fd = -EBADF,
                .call_fd = -EBADF,
                .reply_fd = -EBADF,
        };
        return j;
}

int job_submit(Manager *m, JobLane *lane, const JobType *type, void *data) {
        Job *j = job_new(m, lane, type, data), **tail;

        if (!j)
                return -ENOMEM;
        for (tail = &lane->queue; *tail; tail = &(*tail)->next)
                ;
        *tail = j;
        lane_start_next(m, lane);
        return 0;
}

int job_run_now(Manager *m, JobLane *lane, const JobType *type, void *data) {
        Job *j = job_new(m, lane, type, data);
        int r;

        if (!j) {
                if (type->free)
                        type->free(data);
                return -ENOMEM;
        }
        assert(!lane->running);
        /* Jobs that publishing submits are queued meanwhile (the lane counts as busy until the job is
         * freed), and run here too, after this one: the hosts job that a verify's publishing submits
         * has published the helper check before halod says READY=1. */
        do {
                r = j->type->capture ? j->type->capture(m, j->data) : 0;
                lane->running = j;
                if (r >= 0) {
                        j->on_loop_thread = true;
                        j->type->run(j, j->data);
                }
                job_finish(m, j, r);
                lane->running = NULL;
        } while ((j = lane_pop(lane)));
        return 0;
}

void *job_lane_find_queued(JobLane *lane, const JobType *type, bool (*match)(const void *data)) {
        for (Job *j = lane->queue; j; j = j->next)
                if (j->type == type && (!match || match(j->data)))
                        return j->data;
        return NULL;
}

void *job_lane_running(JobLane *lane, const JobType *type) {
        return lane->running && lane->running->type == type ? lane->running->data : NULL;
}

bool job_lane_busy(const JobLane *lane) {
        return lane->running || lane->queue;
}

/* Waits for the worker's done_fd at most timeout_usec; true when it ended. */
static bool wait_done(Job *j, usec_t timeout_usec) {
        usec_t deadline = now(CLOCK_MONOTONIC) + timeout_usec;

        for (;;) {
                usec_t t = now(CLOCK_MONOTONIC);
                struct pollfd p = { .fd = j->done_fd, .events = POLLIN };
                int r;

                if (t >= deadline)
                        return false;
                r = poll(&p, 1, (int) ((deadline - t + USEC_PER_MSEC - 1) / USEC_PER_MSEC));
                if (r > 0)
                        return true;
                if (r < 0 && errno != EINTR)
                        return false;
        }
}

void job_lane_stop(JobLane *lane, usec_t grace_usec) {
        Job *j = lane->running, *q;

        while ((q = lane_pop(lane)))
                job_free(q);
        if (!j)
                return;
        lane->running = NULL;
        if (j->type->cancel)
                j->type->cancel(j->data);
        /* A worker waiting for the loop goes on without it (the loop has ended). */
        if (j->reply_fd >= 0)
                (void) eventfd_write(j->reply_fd, 1);
        if (!j->thread_started || wait_done(j, grace_usec)) {
                if (j->thread_started)
                        (void) pthread_join(j->thread, NULL);
                job_free(j);
                return;
        }
        /* Stuck (an apply waiting on a bus or the kernel): the process's exit ends it. Its data, and
         * what it points to, stay: the manager knows through lane->abandoned. */
        log_warning(
                "The %s job did not end within %llu ms of the stop; leaving it to halod's exit.",
                j->type->name,
                (unsigned long long) (grace_usec / USEC_PER_MSEC));
        (void) pthread_detach(j->thread);
        lane->abandoned = true;
}

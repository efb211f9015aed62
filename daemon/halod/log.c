/* SPDX-License-Identifier: MIT */
/* halod's logging: structured journal entries with MESSAGE_IDs, and plain lines on stderr. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "log.h"

static int log_max_level = LOG_INFO;
static int stderr_is_journal = -1;

void log_set_max_level(int level) {
        log_max_level = level;
}

/* systemd sets JOURNAL_STREAM=dev:ino when stderr is connected to the journal; then a line on stderr
 * would duplicate the structured entry. */
static bool stderr_is_journal_stream(void) {
        const char *e;
        struct stat st;
        unsigned long long dev, ino;

        if (stderr_is_journal >= 0)
                return stderr_is_journal;

        stderr_is_journal = 0;
        e = getenv("JOURNAL_STREAM");
        if (e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) >= 0 &&
            (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino)
                stderr_is_journal = 1;
        return stderr_is_journal;
}

static void add_field(struct iovec *iov, size_t *n, char **storage, const char *name, const char *value) {
        if (!value || asprintf(&storage[*n], "%s=%s", name, value) < 0)
                return;
        iov[*n] = (struct iovec){ .iov_base = storage[*n], .iov_len = strlen(storage[*n]) };
        (*n)++;
}

static void log_dispatch(int priority, const LogFields *f, const char *message) {
        struct iovec iov[12];
        char *storage[12] = {};
        char prio[2] = { (char) ('0' + (priority & 7)), 0 };
        size_t n = 0;

        if (!stderr_is_journal_stream()) {
                fprintf(stderr, "%s\n", message);
                fflush(stderr);
        }

        add_field(iov, &n, storage, "MESSAGE", message);
        add_field(iov, &n, storage, "PRIORITY", prio);
        add_field(iov, &n, storage, "SYSLOG_IDENTIFIER", program_invocation_short_name);
        if (f) {
                add_field(iov, &n, storage, "MESSAGE_ID", f->message_id);
                add_field(iov, &n, storage, "HALOD_CHECK", f->check);
                add_field(iov, &n, storage, "HALOD_LINK", f->link);
                add_field(iov, &n, storage, "HALOD_EXPECTED", f->expected);
                add_field(iov, &n, storage, "HALOD_ACTUAL", f->actual);
                add_field(iov, &n, storage, "HALOD_FIELD", f->field);
                add_field(iov, &n, storage, "HALOD_FROM", f->from);
                add_field(iov, &n, storage, "HALOD_TO", f->to);
        }
        /* Without journald (tests, containers without it) this fails quietly: stderr has the line. */
        (void) sd_journal_sendv(iov, (int) n);
        for (size_t i = 0; i < n; i++)
                free(storage[i]);
}

int log_struct(int priority, const LogFields *f, const char *format, ...) {
        _cleanup_(freep) char *message = NULL;
        va_list ap;
        int r;

        if ((priority & 7) > log_max_level)
                return 0;

        va_start(ap, format);
        r = vasprintf(&message, format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;

        log_dispatch(priority, f, message);
        return 0;
}

int log_errno(int priority, int error, const char *format, ...) {
        _cleanup_(freep) char *message = NULL;
        va_list ap;
        int r;

        error = error < 0 ? -error : error;
        if ((priority & 7) > log_max_level)
                return -error;

        errno = error; /* for %m */
        va_start(ap, format);
        r = vasprintf(&message, format, ap);
        va_end(ap);
        if (r >= 0)
                log_dispatch(priority, NULL, message);
        return -error;
}

/* SPDX-License-Identifier: MIT */
/* halod's logging, with systemd's semantics: structured entries to the journal (with a MESSAGE_ID
 * where the catalog explains the event), plain lines to stderr unless stderr already is the journal. */
#pragma once

#include <syslog.h>

#include "basic/macro.h"

/* The MESSAGE_IDs that conf/catalog/halod.catalog explains. */
#define HALOD_MESSAGE_CHECK_FAILED "e936f873648546b4b202e0d30c4176e4"
#define HALOD_MESSAGE_CHECK_RECOVERED "8e4cf560ab8a4ef79924c612a0e99f6a"
#define HALOD_MESSAGE_APPLIED "1d0adca7034f447c82fa3e8593500b1e"
#define HALOD_MESSAGE_DRIFT "8f61e7b1525f41db8577835d5519d754"
#define HALOD_MESSAGE_PROFILE_RELOADED "4f7fc1cbb23245249c3398cab1db383b"
#define HALOD_MESSAGE_PROFILE_REJECTED "ddb954fab1f645738ed11df236225b2f"

/* The journal fields of an entry beyond MESSAGE and PRIORITY; NULL ones are left out. */
typedef struct LogFields {
        const char *message_id;
        const char *check;
        const char *link;
        const char *expected;
        const char *actual;
        const char *field; /* a change: what of the link changed ("mtu"), from what, to what */
        const char *from;
        const char *to;
} LogFields;

void log_set_max_level(int level);
/* f may be NULL. */
int log_struct(int priority, const LogFields *f, const char *format, ...) _printf_(3, 4);
/* Logs and returns -abs(error), so that "return log_error_errno(r, ...)" reads naturally; %m is
 * the error's text. */
int log_errno(int priority, int error, const char *format, ...) _printf_(3, 4);
#define log_error(...) log_struct(LOG_ERR, NULL, __VA_ARGS__)
#define log_warning(...) log_struct(LOG_WARNING, NULL, __VA_ARGS__)
#define log_notice(...) log_struct(LOG_NOTICE, NULL, __VA_ARGS__)
#define log_info(...) log_struct(LOG_INFO, NULL, __VA_ARGS__)
#define log_debug(...) log_struct(LOG_DEBUG, NULL, __VA_ARGS__)
#define log_error_errno(e, ...) log_errno(LOG_ERR, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_errno(LOG_WARNING, (e), __VA_ARGS__)

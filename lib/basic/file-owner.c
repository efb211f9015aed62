/* SPDX-License-Identifier: MIT */
/* The owners a reader trusts, and their names for messages. */
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "basic/file-owner.h"

bool file_owner_trusted(uid_t uid) {
        return uid == 0 || uid == geteuid();
}

const char *file_owner_name(uid_t uid, char *buf, size_t size) {
        struct passwd pw, *result = NULL;
        char pwbuf[1024];

        if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &result) == 0 && result)
                (void) snprintf(buf, size, "%s (uid %u)", result->pw_name, (unsigned) uid);
        else
                (void) snprintf(buf, size, "uid %u", (unsigned) uid);
        return buf;
}

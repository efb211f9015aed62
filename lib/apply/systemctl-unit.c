/* SPDX-License-Identifier: MIT */
/* systemctl VERB UNIT, waited for: see systemctl-unit.h. */
#include <spawn.h>
#include <stdio.h>

#include "apply/systemctl-unit.h"
#include "basic/child-wait.h"

extern char **environ;

int systemctl_unit(const char *verb, const char *unit) {
        char *argv[] = { (char *) "systemctl", (char *) verb, (char *) unit, NULL };
        int r;
        pid_t pid;

        /* What this process printed comes before systemctl's message in a shared journal stream. */
        fflush(NULL);
        r = posix_spawnp(&pid, "systemctl", NULL, NULL, argv, environ);
        if (r != 0)
                return -r;
        return child_wait(pid);
}

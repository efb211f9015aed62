/* SPDX-License-Identifier: MIT */
/* systemctl VERB UNIT, waited for: see systemctl-unit.h. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

#include "apply/systemctl-unit.h"

extern char **environ;

int systemctl_unit(const char *verb, const char *unit) {
        char *argv[] = { (char *) "systemctl", (char *) verb, (char *) unit, NULL };
        int status, r;
        pid_t pid;

        /* What this process printed comes before systemctl's message in a shared journal stream. */
        fflush(NULL);
        r = posix_spawnp(&pid, "systemctl", NULL, NULL, argv, environ);
        if (r != 0)
                return -r;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

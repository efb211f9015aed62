/* SPDX-License-Identifier: MIT */
/* child_wait(): see child-wait.h. */
#include <errno.h>
#include <sys/wait.h>

#include "basic/child-wait.h"
#include "basic/macro.h"

int child_wait(pid_t pid) {
        int status;

        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return negative_errno();
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

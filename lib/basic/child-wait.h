/* SPDX-License-Identifier: MIT */
/* Waiting for a program halod ran (the boot loader's tool, systemctl), as a shell reports it. */
#pragma once

#include <sys/types.h>

/* Waits for the child pid, through EINTR: its exit status, 128 + the signal that killed it, or -errno
 * when it cannot be waited for. */
int child_wait(pid_t pid);

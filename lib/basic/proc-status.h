/* SPDX-License-Identifier: MIT */
/* The one number halod takes from /proc/PID/status: the thread group (the process) a task belongs to. */
#pragma once

#include <stdint.h>

/* Tgid of a /proc/PID/status text (fs/proc/array.c, task_state(): "Tgid:\t%d\n"): the process of the
 * task, which is the task itself for a process's main thread. -ENOENT when the text has no Tgid line,
 * -EBADMSG when that line is not "Tgid:" and a number above 0. */
int proc_status_tgid(const char *text, uint32_t *ret);

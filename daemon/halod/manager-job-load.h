/* SPDX-License-Identifier: MIT */
/* The load job (daemon/halod/manager-job-load.c): reads and validates the profile file and picks this
 * machine's node, off the loop. On the host lane, so that no job reads the profile it replaces. */
#pragma once

#include "manager.h"

/* Runs on the loop: r is 0 with the profile (the callee takes *profile over, setting it to NULL) and
 * its node, or negative errno with every reason in error, one per line. */
typedef void (*LoadDoneFunc)(
        Manager *m, int r, Profile **profile, const ProfileNode *node, const char *error, void *userdata);

/* Queues a load of m->profile_path. destroy (may be NULL) releases userdata, also when the job never
 * runs; on failure (-ENOMEM) the caller keeps userdata. */
int manager_load_submit(Manager *m, LoadDoneFunc done, void *userdata, void (*destroy)(void *));

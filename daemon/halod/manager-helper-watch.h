/* SPDX-License-Identifier: MIT */
/* The helper check again when halod-helper.service ends a run (daemon/halod/manager-helper-watch.c). */
#pragma once

typedef struct Manager Manager;

/* Watches the helper's result stamp (or, until the helper first ran, /run for its directory). */
int manager_helper_watch_start(Manager *m);
void manager_helper_watch_done(Manager *m);

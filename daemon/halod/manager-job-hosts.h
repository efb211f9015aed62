/* SPDX-License-Identifier: MIT */
/* The hosts job (daemon/halod/manager-job-hosts.c): one step of what halod asks halod-helper.service for (the
 * CDI spec, the /etc/hosts block, the networkd backend's files, manager-helper.c), and the "helper"
 * check it publishes on its own, as the peer round publishes the peer checks. On the host lane, after
 * the verify whose reading of the host it follows, or when the helper ended a run. */
#pragma once

#include <stdbool.h>

#include "manager.h"

/* Runs on the loop once the helper check is published, or the job could not run; userdata is the
 * caller's. */
typedef void (*HostsDoneFunc)(Manager *m, void *userdata);

/* Queues the job on the host lane. links_read: *networkd_wrong is what the links lacked in the verify
 * just published (NULL: nothing of the helper's there), taken over (set to NULL) on success; else the
 * job reads the links itself when the helper applies them. done may be NULL; destroy (may be NULL)
 * releases userdata, also when the job never runs; on failure (-ENOMEM) the caller keeps userdata. */
int manager_hosts_submit(
        Manager *m,
        bool links_read,
        char **networkd_wrong,
        HostsDoneFunc done,
        void *userdata,
        void (*destroy)(void *));
/* halod-helper.service ended a run: a step that reads everything again (the links too) follows. A
 * step already queued and not started becomes that step. */
int manager_hosts_recheck(Manager *m);

/* SPDX-License-Identifier: MIT */
/* health.hosts: manage when halod may not write /etc (its unit's sandbox): halod asks
 * halod-hosts.service, through halod-hosts.path, to write the block for it. */
#pragma once

#include <stdbool.h>

#include "check/checks.h"

/* The file in halod's runtime directory whose change starts halod-hosts.service. */
#define HOSTS_REQUEST_FILE "hosts-request"

/* Whether this process can replace /etc/hosts itself: /etc writable to its effective ids. */
bool manager_hosts_writable(void);

/* When the profile manages /etc/hosts in enforce mode and the block is not what the profile says,
 * (re)writes runtime_dir/HOSTS_REQUEST_FILE. Returns 1 when it asked, 0 when nothing is to be written,
 * -EBADMSG when the file cannot be managed (a broken block: nothing asked), or negative errno. Runs on the
 * worker thread: it only reads the profile and the file. */
int manager_hosts_request(const NodeContext *c, const char *runtime_dir);

typedef struct Manager Manager;
/* On the loop, with a job's result: says so when halod starts or stops asking, or cannot. */
void manager_hosts_report(Manager *m, int r);

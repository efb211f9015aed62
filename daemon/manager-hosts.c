/* SPDX-License-Identifier: MIT */
/* Asking halod-hosts.service to write halod's /etc/hosts block: halod runs as the user halod with a
 * read-only /etc, and the file is root's. The request carries nothing that the service believes:
 * it reads the profile itself (haloctl apply --only hosts.), so a request can only make it do what
 * the profile says. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "log.h"
#include "manager-hosts.h"
#include "manager.h"
#include "plan/hosts-plan.h"
#include "profile/profile.h"

bool manager_hosts_writable(void) {
        return faccessat(AT_FDCWD, "/etc", W_OK, AT_EACCESS) >= 0;
}

int manager_hosts_request(const NodeContext *c, const char *runtime_dir) {
        _cleanup_(hosts_plan_freep) HostsPlan *hp = NULL;
        _cleanup_(freep) char *path = NULL;
        int r;

        if (!c->profile || c->profile->health.hosts != HOSTS_POLICY_MANAGE ||
            !profile_may_change_host(c->profile, false) || !runtime_dir)
                return 0;
        r = hosts_plan_compute(c, &hp);
        if (r < 0)
                return r;
        /* A block that cannot be managed (broken, or the file unreadable) is not a block that is right:
         * the service would refuse it too, and `haloctl apply --only hosts.` says why. */
        if (hp && hp->error)
                return -EBADMSG;
        if (!hp || !hp->text)
                return 0;
        /* Written anew each time (a rename, which PathChanged= sees), so that a block that goes again
         * after the service wrote it is asked for again. What halod wants, for whoever reads the file by
         * hand: the service does not read it. */
        if (asprintf(&path, "%s/" HOSTS_REQUEST_FILE, runtime_dir) < 0)
                return -ENOMEM;
        r = write_file_atomic(path, hp->text, strlen(hp->text), 0644);
        if (r < 0)
                return r;
        return 1;
}

void manager_hosts_report(Manager *m, int r) {
        if (r == m->hosts_request_last)
                return;
        if (r > 0)
                log_info(
                        "/etc/hosts lacks the other nodes' names as the profile says (health.hosts: manage), and "
                        "halod may not write /etc: asked halod-hosts.service to write them (%s/" HOSTS_REQUEST_FILE
                        ").",
                        m->runtime_dir);
        else if (r < 0)
                log_warning_errno(
                        r,
                        "Failed to ask halod-hosts.service to write /etc/hosts (%s/" HOSTS_REQUEST_FILE
                        "): %m. Run `sudo haloctl apply --only hosts.` instead.",
                        m->runtime_dir);
        else if (m->hosts_request_last > 0)
                log_info("/etc/hosts names the other nodes as the profile says.");
        m->hosts_request_last = r;
}

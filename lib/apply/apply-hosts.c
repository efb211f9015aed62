/* SPDX-License-Identifier: MIT */
/* Writing halod's block of the other nodes' names into /etc/hosts, after the links: the file is the
 * node's own, so the links never wait on it. One rename, so that no reader (a resolver in the workload)
 * sees half a file. */
#include <string.h>

#include "apply/apply-hosts.h"
#include "basic/errorf.h"
#include "basic/fileio.h"
#include "plan/hosts-plan.h"

int apply_hosts(const Plan *p, char **ret_error) {
        const HostsPlan *hp = p->hosts;
        int r;

        if (!hp || !hp->text)
                return 0;
        r = write_file_atomic_keeping(hp->path, hp->text, strlen(hp->text));
        if (r == -EROFS || r == -EACCES || r == -EPERM)
                return errorf(
                        ret_error,
                        r,
                        "cannot write %s: %s. The shipped halod.service runs halod as user halod with "
                        "ProtectSystem=strict, where /etc is read-only: run `sudo haloctl apply /etc/halod/halod.yaml` to write the "
                        "names once, or set health.hosts: check and keep them by hand",
                        hp->path,
                        strerror(-r));
        if (r < 0)
                return errorf(ret_error, r, "cannot write %s: %s", hp->path, strerror(-r));
        return 0;
}

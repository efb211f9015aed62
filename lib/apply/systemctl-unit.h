/* SPDX-License-Identifier: MIT */
/* Having systemd start or restart a unit of its own and waiting for the job: what a root process of
 * halod's asks of systemd instead of doing it with privileges or a sandbox it does not have. */
#pragma once

/* systemctl VERB UNIT (start, restart), over systemd's socket, waiting for the job as systemctl does;
 * systemctl's own message goes to the caller's stderr. Returns systemctl's exit status (0: the job
 * ended well; for a oneshot unit, its ExecStart= exited 0), or -errno when systemctl could not run. */
int systemctl_unit(const char *verb, const char *unit);

/* SPDX-License-Identifier: MIT */
/* haloctl status's line for halod's PendingReboot property, and haloctl check's from its own checks:
 * what a reboot (or a re-exec of the service manager) would bring into force that the running system
 * lacks. */
#pragma once

#include <systemd/sd-bus.h>

#include "basic/json-writer.h"

/* Reads the property's variant a(ss) from a GetAll reply into pairs of check id and what (*ret NULL:
 * nothing pending). Returns 0 or a negative errno. */
int status_read_pending_reboot(sd_bus_message *reply, char ***ret);
/* "    Reboot: not required", or "required to bring into force:" with one line for each. */
void status_print_pending_reboot(char **pairs);
/* "pending_reboot": [ { "check": id, "what": what }, ... ]. */
void status_json_pending_reboot(JsonWriter *w, char **pairs);

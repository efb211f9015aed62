/* SPDX-License-Identifier: MIT */
/* What every client of a service on the system bus asks and says: whether the service's name has an
 * owner, and a failed call in the service's own words. */
#pragma once

#include <stdint.h>
#include <systemd/sd-bus.h>

/* Whether name has an owner on bus: one question to the bus daemon (NameHasOwner), which never starts
 * the service. 1 or 0, or negative errno when the bus does not answer within timeout_usec (0: sd-bus'
 * default). */
int bus_name_has_owner(sd_bus *bus, const char *name, uint64_t timeout_usec);

/* "SERVICE: WHAT: MESSAGE" in *ret_error, with the service's own message when it gave one, else r's;
 * returns r. */
int bus_call_failed(char **ret_error, const char *service, const sd_bus_error *e, int r, const char *what);

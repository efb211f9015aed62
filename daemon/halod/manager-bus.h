/* SPDX-License-Identifier: MIT */
/* The io.halod1.Node object on the system bus (manager-bus.c). */
#pragma once

#include <stdint.h>

#include "check/check.h"

typedef struct Manager Manager;

int manager_bus_setup(Manager *m);
/* Emits PropertiesChanged for the named properties (NULL-terminated; an empty list sends nothing). */
void manager_bus_emit_changed(Manager *m, char **properties);
void manager_bus_emit_check_changed(Manager *m, const Check *c, const char *from);
/* Answers the method calls that waited for the peer run run (and every earlier one). */
void manager_bus_answer_waiters(Manager *m, uint64_t run);
void manager_bus_waiters_free(Manager *m);

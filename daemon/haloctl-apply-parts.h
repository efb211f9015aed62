/* SPDX-License-Identifier: MIT */
/* haloctl apply --only PARTS (daemon/haloctl-apply-parts.c): what halod-helper.service runs for halod. */
#pragma once

#include "profile/node-context.h"

typedef enum ApplyPart {
        APPLY_PART_HOSTS = 1U << 0,    /* the /etc/hosts block (health.hosts: manage) */
        APPLY_PART_CDI = 1U << 1,      /* /run/cdi/halod.json */
        APPLY_PART_NETWORKD = 1U << 2, /* the links, when the backend is systemd-networkd */
} ApplyPart;

/* Parses the comma-separated parts of --only into ApplyPart flags; says what is wrong on stderr and
 * returns -EINVAL for an unknown or missing part. */
int apply_parts_parse(const char *only, unsigned *ret);
/* Derives the CDI spec of c's node, refuses one that is not safe (cdi_spec_check_safe()), writes it to
 * /run/cdi/halod.json when it changed, and says what it did. Returns the exit code. */
int apply_cdi_spec(const NodeContext *c);

/* SPDX-License-Identifier: MIT */
/* A digest of the normalized profile: the same on every node that runs the same profile, however its
 * file is written (comments, whitespace, key and list order, defaults spelled out or not). */
#pragma once

#include <stdint.h>

#include "basic/sha256.h"
#include "profile/profile.h"

#define PROFILE_DIGEST_SIZE SHA256_DIGEST_SIZE
/* The hex prefix shown in summaries, like a short git commit id. */
#define PROFILE_DIGEST_SHORT 12U

/* SHA-256 of the profile's compact JSON (profile_dump_json) after sorting what has no meaningful
 * order (links, nodes, each node's links, kernel parameters, PCI ids) and leaving out the file's
 * path. Returns 0 or -ENOMEM. */
int profile_digest(const Profile *p, uint8_t ret[PROFILE_DIGEST_SIZE]);

/* SPDX-License-Identifier: MIT */
/* The "networkmanager" backend: each link through a halod-<link> profile in NetworkManager (lib/nm). */

#include "config.h"

#include "backend.h"
#include "nm.h"

static int networkmanager_apply_link(const LinkConfig *cfg, char **ret_error) {
        return nm_apply_link(cfg, NM_APPLY_TIMEOUT_MS_DEFAULT, ret_error);
}

const Backend backend_networkmanager = {
        .name = "networkmanager",
        .available = nm_running,
        .apply_link = networkmanager_apply_link,
};

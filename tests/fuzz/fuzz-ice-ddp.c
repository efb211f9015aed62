/* SPDX-License-Identifier: MIT */
/* Fuzzes the reading of ice's kernel log messages about its DDP package: the state, the cause and the
 * package a message names. */
#include <stdint.h>
#include <stdlib.h>

#include "nic/ice-ddp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL, *package = NULL;
        IceDdpState state;
        IceDdpCause cause;

        if (size > 16 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;
        state = ice_ddp_state_from_message(s, "0000:c2:00.0");
        cause = ice_ddp_cause_from_message(s);
        if (state == ICE_DDP_SAFE_MODE && (cause == ICE_DDP_CAUSE_NONE || !ice_ddp_cause_fix(cause)))
                abort(); /* Safe Mode always has a cause to name, even if unknown */
        if (ice_ddp_package_from_message(s, &package) < 0)
                return 0;
        return 0;
}

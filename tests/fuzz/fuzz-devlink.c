/* SPDX-License-Identifier: MIT */
/* Fuzzes the devlink reply parsers (DEVLINK_CMD_INFO_GET, DEVLINK_CMD_PARAM_GET) and what is read from
 * a parsed info: the firmware versions and ice's DDP state. The input is a run of netlink messages. */
#include <libmnl/libmnl.h>
#include <stdint.h>

#include "netlink-walk.h"
#include "nic/devlink.h"
#include "nic/ice-ddp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_one(const struct nlmsghdr *nlh) {
        _cleanup_(devlink_info_done) DevlinkInfo info = {};
        _cleanup_(devlink_param_done) DevlinkParam p = {};
        _cleanup_(freep) char *package = NULL;
        volatile size_t n = 0;

        if (devlink_parse_info(nlh, &info) >= 0) {
                DevlinkFirmware fw;
                IceDdpState s;

                /* Touch what a caller reads, so that a parser bug shows under the sanitizers. */
                for (size_t i = 0; i < info.n_versions; i++)
                        n += strlen(info.versions[i].name) + strlen(info.versions[i].value);
                if (devlink_info_firmware(&info, &fw) >= 0)
                        n += strlen(fw.running) + devlink_firmware_pending(&fw);
                if (ice_ddp_state_from_devlink(&info, &s, &package) >= 0 && package)
                        n += strlen(package);
        }
        if (devlink_parse_param(nlh, &p) >= 0) {
                n += strlen(p.name);
                for (size_t i = 0; i < ELEMENTSOF(p.values); i++)
                        if (p.values[i].string)
                                n += strlen(p.values[i].string);
        }
        (void) n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        fuzz_netlink_walk(data, size, parse_one);
        return 0;
}

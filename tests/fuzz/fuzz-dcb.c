/* SPDX-License-Identifier: MIT */
/* Fuzzes the DCB netlink reply parsers (DCB_CMD_IEEE_GET's state, DCB_CMD_IEEE_SET/DEL's result) and
 * what is read from a parsed state. The input is a run of netlink messages. */
#include <libmnl/libmnl.h>
#include <stdint.h>

#include "net/dcb.h"
#include "netlink-walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_one(const struct nlmsghdr *nlh) {
        static DcbState s;
        char buf[DCB_TRUST_STRING_MAX];
        volatile size_t n = 0;

        if (dcb_parse_get_reply(nlh, &s) >= 0) {
                /* Touch what a caller reads, so that a parser bug shows under the sanitizers. */
                n += strlen(dcb_pfc_to_string(s.pfc.pfc_en, buf));
                n += strlen(dcb_trust_to_string(s.trust, s.n_trust, buf));
                for (size_t i = 0; i < s.n_apps; i++)
                        n += (size_t) dcb_state_app_priority(&s, s.apps[i].selector, s.apps[i].protocol);
                n += dcb_state_count_selector(&s, IEEE_8021QAZ_APP_SEL_DSCP);
        }
        n += (size_t) dcb_parse_set_reply(nlh);
        (void) n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        fuzz_netlink_walk(data, size, parse_one);
        return 0;
}

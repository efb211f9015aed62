/* SPDX-License-Identifier: MIT */
/* Fuzzes what the host's qos part parses: a driver's ethtool statistic names (the pause counters
 * picked out of them); and puts the plan's ECN and ToS change records into words (typed records, read
 * by their values: the first byte gives the priority, the switches and the op). The input is split at
 * newlines: each line a statistic name, and the first two also a change's from and to. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "plan/qos-plan-host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char names[64][ETH_GSTRING_LEN] = {};
        uint64_t values[64] = {};
        char *lines[2] = { (char *) "", (char *) "" };
        _cleanup_(freep) char *text = NULL;
        EthtoolStats s = { .names = names, .values = values };
        PauseCounters p;
        char *line, *save = NULL;

        text = strndup((const char *) data, size);
        if (!text)
                return 0;
        for (line = strtok_r(text, "\n", &save); line && s.n < ELEMENTSOF(names);
             line = strtok_r(NULL, "\n", &save)) {
                (void) snprintf(names[s.n], ETH_GSTRING_LEN, "%s", line);
                values[s.n] = s.n;
                if (s.n < ELEMENTSOF(lines))
                        lines[s.n] = line;
                s.n++;
        }
        pause_counters_from_stats(&s, &p);
        (void) pause_counters_total(&p);

        for (LinkField f = LINK_FIELD_QOS_ECN; f <= LINK_FIELD_QOS_TOS; f++) {
                uint8_t bits = size > 0 ? data[0] : 0;
                PlanChange c = { .link = (char *) "rdma0",
                                 .ifname = (char *) "eth0",
                                 .field = f,
                                 .op = (bits >> 6) % _PLAN_CHANGE_OP_MAX,
                                 .from = lines[0],
                                 .to = lines[1],
                                 .ecn = { .priority = bits & 7U,
                                          .np_from = bits & 8U,
                                          .rp_from = bits & 16U,
                                          .on = bits & 32U } };

                free(plan_change_describe(&c));
        }
        return 0;
}

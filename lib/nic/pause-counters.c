/* SPDX-License-Identifier: MIT */
/* The pause frame counters among a driver's ethtool statistics, and a netdev's packet counters. */
#include <stdio.h>

#include "nic/host-attr.h"
#include "nic/pause-counters.h"

/* Whether name is prefix, one priority digit and suffix, and nothing else: "rx_prio3_pause" but not
 * "rx_prio3_pause_duration". */
static bool match_priority(const char *name, const char *prefix, const char *suffix, unsigned *ret) {
        const char *p = startswith(name, prefix);

        if (!p || p[0] < '0' || p[0] >= '0' + (int) QOS_PRIORITIES || !streq(p + 1, suffix))
                return false;
        *ret = (unsigned) (p[0] - '0');
        return true;
}

void pause_counters_from_stats(const EthtoolStats *s, PauseCounters *ret) {
        static const struct {
                const char *prefix, *suffix;
                bool tx;
        } names[] = {
                { "rx_prio", "_pause", false },         /* mlx5 */
                { "tx_prio", "_pause", true },          /* mlx5 */
                { "rx_priority_", "_xoff.nic", false }, /* ice */
                { "tx_priority_", "_xoff.nic", true },  /* ice */
                { "rx_priority_", "_xoff", false },     /* ice, should it drop the suffix */
                { "tx_priority_", "_xoff", true },
        };
        PauseCounters c = {};

        for (size_t i = 0; i < s->n; i++)
                for (size_t k = 0; k < ELEMENTSOF(names); k++) {
                        unsigned p;

                        if (!match_priority(s->names[i], names[k].prefix, names[k].suffix, &p))
                                continue;
                        if (names[k].tx)
                                c.tx[p] = s->values[i];
                        else
                                c.rx[p] = s->values[i];
                        c.known |= 1U << p;
                        break;
                }
        *ret = c;
}

uint64_t pause_counters_total(const PauseCounters *p) {
        uint64_t t = 0;

        for (unsigned i = 0; i < QOS_PRIORITIES; i++)
                t += p->rx[i] + p->tx[i];
        return t;
}

int netdev_packets_read(const Host *h, const char *ifname, uint64_t *ret) {
        uint64_t sum = 0;

        if (isempty(ifname) || strchr(ifname, '/'))
                return -EINVAL;
        for (unsigned k = 0; k < 2; k++) {
                _cleanup_(freep) char *path = NULL;
                uint64_t v;
                int r;

                if (asprintf(&path, "/sys/class/net/%s/statistics/%s", ifname, k == 0 ? "rx_packets" : "tx_packets") <
                    0)
                        return -ENOMEM;
                r = host_attr_read_u64(h, path, &v);
                if (r < 0)
                        return r;
                sum += v;
        }
        *ret = sum;
        return 0;
}

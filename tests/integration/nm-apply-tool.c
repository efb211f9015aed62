/* SPDX-License-Identifier: MIT */
/* Test driver for the NetworkManager backend: applies one link as the backend would, or asks whether
 * NetworkManager runs. Used by test-apply-nm.sh and bench/apply-nm.sh.
 *
 *   nm-apply-tool running
 *   nm-apply-tool apply LINK IFNAME ADDRESS/PREFIX [--mtu N] [--zone Z] [--ipv6] [--timeout-ms N]
 *
 * Without --timeout-ms it goes through backend_networkmanager.apply_link (the default timeout). Exit
 * status: 0 success, 1 failure (the error on stderr), 2 usage. */

#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"

#include "apply/backend.h"
#include "apply/nm.h"
#include "basic/macro.h"

static int parse_prefix(const char *s, Ipv4Prefix *ret) {
        _cleanup_(freep) char *copy = strdup(s);
        char *slash, *end;

        if (!copy)
                return -ENOMEM;
        slash = strchr(copy, '/');
        if (!slash)
                return -EINVAL;
        *slash = '\0';
        unsigned long len = strtoul(slash + 1, &end, 10);
        if (*end != '\0' || len < 1 || len > 32 || inet_pton(AF_INET, copy, &ret->address) != 1)
                return -EINVAL;
        ret->prefixlen = (uint8_t) len;
        return 0;
}

static int usage(void) {
        fprintf(stderr,
                "usage: nm-apply-tool running\n"
                "       nm-apply-tool apply LINK IFNAME ADDRESS/PREFIX [--mtu N] [--zone Z] [--ipv6] "
                "[--timeout-ms N]\n");
        return 2;
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "mtu", required_argument, NULL, 'm' },
                { "zone", required_argument, NULL, 'z' },
                { "ipv6", no_argument, NULL, '6' },
                { "timeout-ms", required_argument, NULL, 't' },
                {},
        };
        LinkPlan lp = {};
        unsigned long timeout_ms = 0;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'm':
                        lp.want.mtu = (uint32_t) strtoul(optarg, NULL, 10);
                        break;
                case 'z':
                        lp.want.zone = optarg;
                        break;
                case '6':
                        lp.want.ipv6 = true;
                        break;
                case 't':
                        timeout_ms = strtoul(optarg, NULL, 10);
                        break;
                default:
                        return usage();
                }

        if (optind < argc && streq(argv[optind], "running") && optind + 1 == argc) {
                bool running = nm_running();
                printf("%s\n", running ? "yes" : "no");
                return running ? 0 : 1;
        }
        if (optind + 4 != argc || !streq(argv[optind], "apply"))
                return usage();
        lp.link = argv[optind + 1];
        lp.ifname = argv[optind + 2];
        if (parse_prefix(argv[optind + 3], &lp.address) < 0) {
                fprintf(stderr, "Invalid address '%s': expected a.b.c.d/len\n", argv[optind + 3]);
                return 2;
        }

        _cleanup_(freep) char *error = NULL;
        int r = timeout_ms > 0 ? nm_apply_link(&lp, (unsigned) timeout_ms, &error)
                               : backend_networkmanager.apply_link(&lp, &error);
        if (r < 0) {
                fprintf(stderr,
                        "Failed to apply %s on %s: %s (%s)\n",
                        lp.link,
                        lp.ifname,
                        strna(error),
                        strerror(-r));
                return 1;
        }
        printf("%s applied on %s\n", lp.link, lp.ifname);
        return 0;
}

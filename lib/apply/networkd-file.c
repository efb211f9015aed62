/* SPDX-License-Identifier: MIT */
/* Writes the text of halod's .network file for a link: match, MTU, address, routes, forwarding. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>

#include "apply/networkd-file.h"
#include "basic/macro.h"

int networkd_match_on_permanent(int permanent_result) {
        if (permanent_result >= 0)
                return 1;
        return permanent_result == -ENODATA ? 0 : permanent_result;
}

int networkd_file_text(const NetworkdFileConfig *cfg, char **ret) {
        _cleanup_(freep) char *text = NULL;
        size_t size = 0;
        _cleanup_(fclosep) FILE *f = NULL;
        char a[IPV4_PREFIX_STRING_MAX], via[INET_ADDRSTRLEN];

        if (!cfg || !cfg->link || (!cfg->permanent_mac && !cfg->ifname))
                return -EINVAL;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;

        fprintf(f,
                "# Written by halod for link %s of its profile; halod rewrites it on every apply.\n"
                "# Edit the profile instead: see halod(8), BACKENDS.\n",
                cfg->link);
        fputs("\n[Match]\n", f);
        /* The permanent address survives a rename; a device without one (a veth) is taken by name. */
        if (cfg->permanent_mac)
                fprintf(f, "PermanentMACAddress=%s\n", cfg->permanent_mac);
        else
                fprintf(f, "Name=%s\n", cfg->ifname);

        if (cfg->mtu > 0)
                fprintf(f, "\n[Link]\nMTUBytes=%" PRIu32 "\n", cfg->mtu);

        fputs("\n[Network]\n", f);
        if (cfg->address.prefixlen > 0)
                fprintf(f, "Address=%s\n", ipv4_prefix_to_string(&cfg->address, a));
        /* A fabric link keeps its address when the cable or the peer is down, as with the other
         * backends; without it networkd would hold the link in "configuring" until a carrier comes. */
        fputs("ConfigureWithoutCarrier=yes\n", f);
        if (cfg->forwarding)
                fputs(cfg->forwarding_key == NETWORKD_FORWARDING_IPV4FORWARDING ? "IPv4Forwarding=yes\n"
                                                                                : "IPForward=ipv4\n",
                      f);

        for (size_t i = 0; i < cfg->n_routes; i++) {
                const NodeRoute *rt = &cfg->routes[i];

                if (!streq(rt->link, cfg->link))
                        continue;
                fprintf(f,
                        "\n[Route]\nDestination=%s\nGateway=%s\n",
                        ipv4_prefix_to_string(&rt->to, a),
                        inet_ntop(AF_INET, &rt->via, via, sizeof(via)));
                if (rt->has_metric)
                        fprintf(f, "Metric=%" PRIu32 "\n", rt->metric);
        }

        if (fflush(f) != 0 || ferror(f))
                return -ENOMEM;
        fclose(TAKE_PTR(f));
        *ret = TAKE_PTR(text);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* Refusing a .network file of halod's that would take more than its link, before it is written. */
#include "apply/networkd-file-scope.h"
#include "basic/errorf.h"
#include "basic/ifname-syntax.h"
#include "basic/strv.h"
#include "basic/untrusted-string.h"
#include "net/networkd-match.h"

int networkd_file_check_name(const char *link, const char *ifname, char **ret_error) {
        _cleanup_(freep) char *problem = NULL, *shown = NULL;
        int r;

        r = ifname_syntax_check(ifname, IFNAME_SYNTAX_NETWORKD_NAME, &problem);
        if (r != -EINVAL)
                return r;
        shown = untrusted_escape_dup(ifname);
        if (!shown)
                return -ENOMEM;
        return errorf(
                ret_error,
                -EINVAL,
                "link %s: its interface %s. halod writes no .network file that could take more than link "
                "%s's interface: give it a plain name (ip link set dev '%s' name NAME) or match the link by "
                "pci: in the profile",
                link,
                problem,
                link,
                shown);
}

int networkd_file_check_scope(
        const char *text,
        const char *link,
        int ifindex,
        const RtnlLink *links,
        size_t n,
        char *const *permanent,
        char **ret_error) {
        _cleanup_(strv_freep) char **others = NULL;
        _cleanup_(freep) char *list = NULL;
        bool self = false;
        int r;

        for (size_t i = 0; i < n; i++) {
                char mac[3 * RTNL_MAC_MAX];
                NetdevIdentity id = {
                        .ifname = links[i].name,
                        .mac = links[i].mac_len > 0 ? rtnl_link_mac_to_string(&links[i], mac) : NULL,
                        .permanent_mac = permanent ? permanent[i] : NULL,
                };
                bool takes;

                r = networkd_file_matches(text, &id, &takes);
                if (r < 0)
                        return r;
                if (!takes)
                        continue;
                if (links[i].ifindex == ifindex)
                        self = true;
                else {
                        _cleanup_(freep) char *shown = untrusted_escape_dup(links[i].name);

                        if (!shown || strv_extend(&others, shown) < 0)
                                return -ENOMEM;
                }
        }
        if (others) {
                list = strv_join(others, ", ");
                if (!list)
                        return -ENOMEM;
                return errorf(
                        ret_error,
                        -EMLINK,
                        "link %s: the file's [Match] would also take %s, which the profile does not name; not "
                        "written. Match the link by pci: in the profile",
                        link,
                        list);
        }
        if (!self)
                return errorf(
                        ret_error,
                        -ENODEV,
                        "link %s: the file's [Match] would not take its own interface (index %d): not written",
                        link,
                        ifindex);
        return 0;
}

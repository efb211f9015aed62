/* SPDX-License-Identifier: MIT */
/* Resolving a profile link's match to one netdev through /sys/class/net below the host root. */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <strings.h>

#include "basic/errorf.h"
#include "basic/strv.h"
#include "nic/ethtool.h"
#include "snapshot/link-match.h"

static void netdev_info_done(NetdevInfo *n) {
        if (!n)
                return;
        n->name = mfree(n->name);
        n->driver = mfree(n->driver);
        n->pci = mfree(n->pci);
        n->mac = mfree(n->mac);
        n->permanent_mac = mfree(n->permanent_mac);
}

void netdev_info_array_free(NetdevInfo *a, size_t n) {
        for (size_t i = 0; i < n; i++)
                netdev_info_done(&a[i]);
        free(a);
}

/* The last path component a symlink points to, or NULL when there is none or it is not a symlink. */
static int read_link_basename(const Host *h, const char *path, char **ret) {
        int r;

        r = host_readlink_basename(h, path, ret);
        if (r == -ENOENT || r == -EINVAL) {
                *ret = NULL;
                return 0;
        }
        return r;
}

static void ascii_lowercase(char *s) {
        for (; s && *s; s++)
                if (*s >= 'A' && *s <= 'Z')
                        *s = (char) (*s - 'A' + 'a');
}

static int netdev_read(const Host *h, const char *name, NetdevInfo *ret) {
        _cleanup_(netdev_info_done) NetdevInfo n = {};
        _cleanup_(freep) char *path = NULL;
        int r;

        n.name = strdup(name);
        if (!n.name)
                return -ENOMEM;

        if (asprintf(&path, "/sys/class/net/%s/device", name) < 0)
                return -ENOMEM;
        r = read_link_basename(h, path, &n.pci);
        if (r < 0)
                return r;
        if (n.pci) {
                free(path);
                if (asprintf(&path, "/sys/class/net/%s/device/driver", name) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                r = read_link_basename(h, path, &n.driver);
                if (r < 0)
                        return r;
        }

        free(path);
        if (asprintf(&path, "/sys/class/net/%s/address", name) < 0) {
                path = NULL;
                return -ENOMEM;
        }
        r = host_read_line(h, path, &n.mac);
        if (r < 0 && r != -ENOENT)
                return r;
        ascii_lowercase(n.mac);

        if (host_is_running_system(h)) {
                char permanent[18];

                if (ethtool_get_permanent_address(name, permanent) >= 0) {
                        n.permanent_mac = strdup(permanent);
                        if (!n.permanent_mac)
                                return -ENOMEM;
                }
        }

        *ret = n;
        n = (NetdevInfo){};
        return 0;
}

static int netdev_compare(const void *a, const void *b) {
        return strcmp(((const NetdevInfo *) a)->name, ((const NetdevInfo *) b)->name);
}

int netdev_list(const Host *h, NetdevInfo **ret, size_t *ret_n) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_(freep) char *path = NULL;
        NetdevInfo *a = NULL;
        size_t n = 0;
        struct dirent *de;
        int r;

        r = host_path(h, "/sys/class/net", &path);
        if (r < 0)
                return r;
        d = opendir(path);
        if (!d)
                return negative_errno();

        while ((errno = 0, de = readdir(d))) {
                NetdevInfo *b;

                if (de->d_name[0] == '.')
                        continue;
                b = reallocarray(a, n + 1, sizeof(NetdevInfo));
                if (!b) {
                        r = -ENOMEM;
                        goto fail;
                }
                a = b;
                r = netdev_read(h, de->d_name, &a[n]);
                if (r == -ENOENT)
                        continue; /* vanished while we looked */
                if (r < 0)
                        goto fail;
                n++;
        }
        if (errno != 0) {
                r = negative_errno();
                goto fail;
        }

        if (n > 0)
                qsort(a, n, sizeof(NetdevInfo), netdev_compare);
        *ret = a;
        *ret_n = n;
        return 0;

fail:
        netdev_info_array_free(a, n);
        return r;
}

bool link_match_test(const LinkMatch *m, const NetdevInfo *n) {
        if (m->driver && !streq_ptr(m->driver, n->driver))
                return false;
        if (m->pci && (!n->pci || strcasecmp(m->pci, n->pci) != 0))
                return false;
        if (m->mac && (!(n->permanent_mac ?: n->mac) || strcasecmp(m->mac, n->permanent_mac ?: n->mac) != 0))
                return false;
        if (m->name && fnmatch(m->name, n->name, 0) != 0)
                return false;
        return true;
}

char *link_match_describe(const LinkMatch *m) {
        _cleanup_(strv_freep) char **parts = NULL;

        if ((m->driver && strv_extendf(&parts, "driver %s", m->driver) < 0) ||
            (m->pci && strv_extendf(&parts, "pci %s", m->pci) < 0) ||
            (m->mac && strv_extendf(&parts, "mac %s", m->mac) < 0) ||
            (m->name && strv_extendf(&parts, "name %s", m->name) < 0))
                return NULL;
        if (!parts)
                return strdup("an empty match");
        return strv_join(parts, ", ");
}

/* "enp1s0 (driver igc, pci 0000:01:00.0, mac 6c:fe:54:00:00:01)" */
static char *netdev_describe(const NetdevInfo *n) {
        char *s;

        if (n->pci)
                return asprintf(
                               &s,
                               "%s (driver %s, pci %s, mac %s)",
                               n->name,
                               strna(n->driver),
                               n->pci,
                               strna(n->permanent_mac ?: n->mac)) < 0
                        ? NULL
                        : s;
        return asprintf(&s, "%s (virtual, mac %s)", n->name, strna(n->mac)) < 0 ? NULL : s;
}

static int describe_list(const NetdevInfo *a, size_t n, const bool *selected, char **ret) {
        _cleanup_(strv_freep) char **l = NULL;

        for (size_t i = 0; i < n; i++) {
                if (selected && !selected[i])
                        continue;
                if (strv_consume(&l, netdev_describe(&a[i])) < 0)
                        return -ENOMEM;
        }
        *ret = l ? strv_join(l, ", ") : strdup("none");
        return *ret ? 0 : -ENOMEM;
}

int netdev_list_read(const Host *h, NetdevList *ret) {
        int r;

        *ret = (NetdevList){};
        r = netdev_list(h, &ret->netdevs, &ret->n);
        if (r == -ENOMEM)
                return r;
        ret->error = r < 0 ? r : 0;
        return 0;
}

void netdev_list_done(NetdevList *l) {
        netdev_info_array_free(l->netdevs, l->n);
        *l = (NetdevList){};
}

int link_match_resolve(const Host *h, const LinkMatch *m, char **ret_ifname, char **ret_error) {
        _cleanup_(netdev_list_done) NetdevList l = {};
        int r;

        r = netdev_list_read(h, &l);
        if (r < 0)
                return r;
        return link_match_resolve_in(&l, m, ret_ifname, ret_error);
}

int link_match_resolve_in(const NetdevList *l, const LinkMatch *m, char **ret_ifname, char **ret_error) {
        _cleanup_(freep) char *what = NULL, *list = NULL;
        _cleanup_(freep) bool *selected = NULL;
        const NetdevInfo *a = l->netdevs;
        size_t n = l->n, n_selected = 0, last = 0;
        char *ifname;
        int r;

        what = link_match_describe(m);
        if (!what)
                return -ENOMEM;

        if (l->error < 0)
                return errorf(
                        ret_error,
                        l->error,
                        "cannot list network interfaces in /sys/class/net: %s",
                        strerror(-l->error));

        selected = calloc(n ?: 1, sizeof(bool));
        if (!selected)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (link_match_test(m, &a[i])) {
                        selected[i] = true;
                        n_selected++;
                        last = i;
                }

        if (n_selected == 1) {
                ifname = strdup(a[last].name);
                if (!ifname)
                        return -ENOMEM;
                *ret_ifname = ifname;
                return 0;
        }

        if (n_selected == 0) {
                r = describe_list(a, n, NULL, &list);
                if (r < 0)
                        return r;
                return errorf(
                        ret_error, -ENOENT, "no network interface matches %s; interfaces present: %s", what, list);
        }
        r = describe_list(a, n, selected, &list);
        if (r < 0)
                return r;
        return errorf(
                ret_error,
                -ENOTUNIQ,
                "%zu network interfaces match %s: %s; add pci or mac to the match so that it names one",
                n_selected,
                what,
                list);
}

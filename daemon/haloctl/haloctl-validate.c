/* SPDX-License-Identifier: MIT */
/* haloctl validate: checks a profile and shows what it asks of each node; also the profile and node
 * loading that every verb shares. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "basic/errorf.h"
#include "basic/json-writer.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "basic/untrusted-string.h"
#include "haloctl.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

const char *profile_path_arg(int argc, char *argv[]) {
        return argc > 1 ? argv[1] : PROFILE_DEFAULT_PATH;
}

/* The exit code for a failed profile_load_file() or profile_load_trusted(). */
static int exit_code_for_load(int r) {
        if (r == -EINVAL || r == -EPERM || r == -ELOOP) /* invalid, or not trusted */
                return EX_CONFIG;
        if (r == -ENOMEM)
                return EX_OSERR;
        return EX_NOINPUT;
}

static void print_load_errors(const char *path, int r, char **errors) {
        size_t n = strv_length(errors);

        STRV_FOREACH(e, errors)
                fprintf(stderr, "%s\n", *e);
        if (r == -ENOMEM)
                fprintf(stderr, "%s: out of memory while loading the profile.\n", path);
        else if (r == -EINVAL && n > PROFILE_ERRORS_MAX)
                fprintf(stderr,
                        "%s: not a valid profile (more than %u errors); nothing was changed.\n",
                        path,
                        PROFILE_ERRORS_MAX);
        else if (r == -EINVAL)
                fprintf(stderr,
                        "%s: not a valid profile (%zu error%s); nothing was changed.\n",
                        path,
                        n,
                        n == 1 ? "" : "s");
}

/* The root helper's node (apply --only, run by halod-helper.service for halod): by --node or the
 * hostname, which only root sets, never by a local address: the user halod (CAP_NET_ADMIN) can add any
 * address, and with it make root write another node's links. */
static int select_helper_node(const Profile *p, const char *hostname, const ProfileNode **ret, char **ret_error) {
        _cleanup_(strv_freep) char **names = NULL;
        _cleanup_(freep) char *list = NULL, *shown = NULL;
        int r;

        r = profile_select_node(p, /* node_name= */ NULL, hostname, NULL, 0, ret, ret_error);
        if (r != -ENOENT)
                return r;
        for (size_t i = 0; i < p->n_nodes; i++)
                if (strv_extendf(
                            &names,
                            "%s (hostname %s)",
                            p->nodes[i].name,
                            p->nodes[i].hostname ?: p->nodes[i].name) < 0)
                        return -ENOMEM;
        list = strv_join(names, ", ");
        shown = untrusted_escape_dup(strempty(hostname));
        if (!list || !shown)
                return -ENOMEM;
        free(*ret_error);
        return errorf(
                ret_error,
                -ENOENT,
                "haloctl apply --only (halod-helper.service) picks its node by its hostname or --node, never by "
                "a local address, which the user halod can add: hostname '%s' is none of the profile's nodes: %s. "
                "Give each node its hostname: in the profile, or pass --node NAME in a drop-in "
                "(systemctl edit halod-helper.service, and halod-helper-boot.service for kernel.boot: manage)",
                shown,
                list);
}

/* Picks this machine's node; on failure ret_error says why and lists the nodes. */
static int select_node(const Profile *p, const ProfileNode **ret, char **ret_error) {
        _cleanup_(freep) struct in_addr *addresses = NULL;
        char hostname[HOST_NAME_MAX + 1] = "";
        size_t n_addresses = 0;

        if (!arg_node) {
                if (gethostname(hostname, sizeof(hostname) - 1) < 0)
                        hostname[0] = '\0';
                if (arg_only)
                        return select_helper_node(p, hostname[0] ? hostname : NULL, ret, ret_error);
                /* Without addresses the hostname alone decides; the message then says "no IPv4 addresses". */
                if (local_ipv4_addresses(&addresses, &n_addresses) < 0)
                        n_addresses = 0;
        }
        return profile_select_node(
                p, arg_node, hostname[0] ? hostname : NULL, addresses, n_addresses, ret, ret_error);
}

int load_profile_and_node(const char *path, Profile **ret_profile, const ProfileNode **ret_node) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *error = NULL;
        const ProfileNode *node = NULL;
        int r;

        /* Every verb that acts on this machine refuses a profile others could have written (validate,
         * which only reads, does not), judged on the descriptor that is read. */
        r = profile_load_trusted(path, &p, &errors);
        if (r < 0) {
                print_load_errors(path, r, errors);
                return exit_code_for_load(r);
        }

        r = select_node(p, &node, &error);
        if (r == -ENOMEM) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, strna(error));
                /* A wrong --node is a usage error; a machine the profile does not describe is a config error. */
                return arg_node ? EX_USAGE : EX_CONFIG;
        }

        *ret_node = node;
        *ret_profile = TAKE_PTR(p);
        return 0;
}

static void print_match(const LinkMatch *m) {
        const char *sep = "";

        if (m->driver) {
                printf("%sdriver %s", sep, m->driver);
                sep = ", ";
        }
        if (m->pci) {
                printf("%spci %s", sep, m->pci);
                sep = ", ";
        }
        if (m->mac) {
                printf("%smac %s", sep, m->mac);
                sep = ", ";
        }
        if (m->name)
                printf("%sname %s", sep, m->name);
}

/* "; QoS PFC on 3, trust dscp (DSCP 26 → 3), ECN on, RoCE ToS 106", what the link's qos: asks for. */
static void print_qos(const char *link, const ProfileQos *q) {
        const char *sep = " ";

        if (!q->present)
                return;
        printf("; QoS");
        if (q->has_pfc) {
                printf("%sPFC %s", sep, q->pfc == 0 ? "off" : "on");
                for (unsigned i = 0, n = 0; i < QOS_PRIORITIES; i++)
                        if (q->pfc & (1U << i))
                                printf("%s%u", n++ > 0 ? "," : " ", i);
                sep = ", ";
        }
        if (q->trust >= 0) {
                printf("%strust %s", sep, qos_trust_to_string(q->trust));
                sep = ", ";
        }
        if (q->has_dscp_map) {
                const char *inner = " (DSCP ";

                printf("%sdscp-priority", sep);
                for (unsigned d = 0; d < QOS_DSCP_VALUES; d++)
                        if (q->dscp_priority[d] >= 0) {
                                printf("%s%u → %d", inner, d, q->dscp_priority[d]);
                                inner = ", ";
                        }
                printf("%s", streq(inner, ", ") ? ")" : " empty");
                sep = ", ";
        }
        if (q->ecn >= 0) {
                printf("%sECN %s", sep, q->ecn ? "on" : "off");
                sep = ", ";
        }
        if (q->roce_tos >= 0) {
                int prio = profile_qos_roce_priority(q);

                printf("%sRoCE ToS %d", sep, q->roce_tos);
                if (prio >= 0)
                        printf(" (priority %d)", prio);
                else if (q->trust == QOS_TRUST_DSCP)
                        printf(" (priority: the NIC's DSCP map, which qos.%s.trust reads on the node)", link);
                sep = ", ";
        }
        if (streq(sep, " "))
                printf(" nothing asked");
}

static void print_links(const Profile *p) {
        printf("\n%sLinks%s\n", ansi_bold(), ansi_normal());
        for (size_t i = 0; i < p->n_links; i++) {
                const ProfileLink *l = &p->links[i];

                printf("  %-8s ", l->name);
                if (link_match_is_empty(&l->match))
                        printf("the interface each node names");
                else {
                        printf("the interface with ");
                        print_match(&l->match);
                }
                if (l->mtu > 0)
                        printf("; MTU %u", l->mtu);
                else
                        printf("; MTU left alone");
                if (l->firewall_zone)
                        printf("; firewall zone %s", l->firewall_zone);
                /* Only the NetworkManager backend acts on ipv6:; which backend applies is decided on the
                 * node at apply time, so the summary says both. */
                printf("; IPv6 %s through NetworkManager (the netlink and networkd backends leave IPv6 alone)",
                       l->ipv6 ? "link-local only" : "off");
                print_qos(l->name, &l->qos);
                printf("\n");
        }
}

static void print_nodes(const Profile *p, const ProfileNode *selected) {
        int width = 0, host_width = 0;

        for (size_t i = 0; i < p->n_nodes; i++) {
                width = MAX(width, (int) strlen(p->nodes[i].name));
                host_width = MAX(host_width, (int) strlen(p->nodes[i].hostname ?: "(any)"));
        }

        printf("\n%sNodes%s\n", ansi_bold(), ansi_normal());
        for (size_t i = 0; i < p->n_nodes; i++) {
                const ProfileNode *n = &p->nodes[i];

                printf("  %-*s  hostname %-*s", width, n->name, host_width, n->hostname ?: "(any)");
                for (size_t j = 0; j < n->n_links; j++) {
                        char a[IPV4_PREFIX_STRING_MAX];

                        printf("  %s %s", n->links[j].link, ipv4_prefix_to_string(&n->links[j].address, a));
                        if (!link_match_is_empty(&n->links[j].match)) {
                                printf(" (");
                                print_match(&n->links[j].match);
                                printf(")");
                        }
                }
                if (n == selected)
                        printf("  %s← this machine%s", ansi_green(), ansi_normal());
                printf("\n");
                /* Under the node's line: where it routes through a peer, and whether it forwards. */
                for (size_t j = 0; j < n->n_routes; j++) {
                        const NodeRoute *rt = &n->routes[j];
                        char t[IPV4_PREFIX_STRING_MAX], v[INET_ADDRSTRLEN];

                        printf("  %-*s  route %s via %s on %s",
                               width,
                               "",
                               ipv4_prefix_to_string(&rt->to, t),
                               inet_ntop(AF_INET, &rt->via, v, sizeof(v)) ?: "?",
                               rt->link);
                        if (rt->has_metric)
                                printf(" metric %u", rt->metric);
                        printf("\n");
                }
                if (n->forwarding)
                        printf("  %-*s  forwards IPv4 between its links\n", width, "");
        }
}

static void print_nic(const ProfileNic *nic) {
        printf("PCI id");
        for (size_t i = 0; i < nic->n_pci_ids; i++)
                printf("%s %04x:%04x", i == 0 ? "" : " or", nic->pci_ids[i].vendor, nic->pci_ids[i].device);
        if (nic->n_pci_ids == 0)
                printf(" any");
        printf("; driver %s; firmware %s%s; PCIe link ",
               nic->driver ?: "any",
               nic->firmware_min ?: "any",
               nic->firmware_min ? " or newer" : "");
        if (nic->pcie_min_width > 0)
                printf("x%u or wider", nic->pcie_min_width);
        else
                printf("width not checked");
        if (nic->speed_min_mbit > 0)
                printf("; speed %" PRIu32 " Gbit/s or faster", nic->speed_min_mbit / 1000);
}

static bool profile_has_node_nic(const Profile *p) {
        for (size_t i = 0; i < p->n_nodes; i++)
                if (p->nodes[i].nic.present)
                        return true;
        return false;
}

/* Where a node's NIC comes from, as validate says it. */
static const char *node_nic_source(const Profile *p, const ProfileNode *n) {
        if (n->nic.present)
                return "node";
        return p->nic.present ? "profile" : "none";
}

static void print_nics(const Profile *p) {
        int width = 0;

        printf("\n%sNIC%s     ", ansi_bold(), ansi_normal());
        /* One line for the cluster while every node takes the profile's nic:. */
        if (!profile_has_node_nic(p)) {
                if (!p->nic.present)
                        printf("not checked (no nic: section)\n");
                else {
                        print_nic(&p->nic);
                        printf("\n");
                }
                return;
        }

        for (size_t i = 0; i < p->n_nodes; i++)
                width = MAX(width, (int) strlen(p->nodes[i].name));
        for (size_t i = 0; i < p->n_nodes; i++) {
                const ProfileNode *n = &p->nodes[i];
                const ProfileNic *nic = profile_node_nic(p, n);

                printf("%s%-*s  ", i == 0 ? "" : "        ", width, n->name);
                if (!nic->present) {
                        printf("not checked (no nic: section, neither its own nor the profile's)\n");
                        continue;
                }
                print_nic(nic);
                printf(" (%s)\n", n->nic.present ? "its own nic:" : "the profile's nic:");
        }
}

/* Bytes as the profile writes a size: "512M", "120G"; the largest suffix that divides them. */
static const char *format_size(uint64_t bytes, char buf[static 32]) {
        static const char suffixes[] = "KMGT";
        int i = -1;

        while (i + 1 < (int) strlen(suffixes) && bytes > 0 && bytes % 1024 == 0) {
                bytes /= 1024;
                i++;
        }
        if (i < 0)
                snprintf(buf, 32, "%" PRIu64 " bytes", bytes);
        else
                snprintf(buf, 32, "%" PRIu64 "%c", bytes, suffixes[i]);
        return buf;
}

/* The gpu: section and memory-min, as --json's "gpu" and "memory-min" give them. */
static void print_gpu_memory(const Profile *p) {
        char size[32];

        printf("%sGPU%s     ", ansi_bold(), ansi_normal());
        if (!p->gpu.present)
                printf("not checked (no gpu: section)\n");
        else if (p->gpu.vram_max > 0)
                printf("an amdgpu GPU on every node; firmware carve-out (VRAM) %s or less\n",
                       format_size(p->gpu.vram_max, size));
        else
                printf("an amdgpu GPU on every node; firmware carve-out (VRAM) not checked\n");

        printf("%sMemory%s  ", ansi_bold(), ansi_normal());
        if (p->memory_min > 0)
                printf("MemTotal %s or more on every node\n", format_size(p->memory_min, size));
        else
                printf("not checked (no memory-min:)\n");
}

static void print_rdma_kernel_health(const Profile *p) {
        const ProfileRdma *rdma = &p->rdma;
        uint64_t interval = p->health.interval_usec;

        printf("%sRDMA%s    ", ansi_bold(), ansi_normal());
        if (!rdma->present)
                printf("not checked (no rdma: section)\n");
        else {
                printf("%s; GID type %s; active MTU ",
                       rdma->required ? "required (problems fail the checks)"
                                      : "optional (problems are warnings)",
                       rdma_gid_type_to_string(rdma->gid));
                if (rdma->min_active_mtu > 0)
                        printf("%u or more", rdma->min_active_mtu);
                else
                        printf("not checked");
                if (rdma->memlock == UINT64_MAX)
                        printf("; memlock unlimited\n");
                else if (rdma->memlock > 0)
                        printf("; memlock at least %" PRIu64 " bytes\n", rdma->memlock);
                else
                        printf("; memlock not checked\n");
        }

        printf("%sKernel%s  ", ansi_bold(), ansi_normal());
        if (strv_length(p->kernel_cmdline) == 0)
                printf("no required command-line parameters\n");
        else {
                _cleanup_(freep) char *joined = strv_join(p->kernel_cmdline, " ");

                printf("command line must carry: %s\n", strna(joined));
        }

        printf("%sHealth%s  every check every ", ansi_bold(), ansi_normal());
        if (interval % USEC_PER_SEC == 0)
                printf("%" PRIu64 "s; ", interval / USEC_PER_SEC);
        else
                printf("%" PRIu64 "ms; ", interval / USEC_PER_MSEC);
        if (p->health.peers)
                printf("peers probed on UDP port %u", p->health.port);
        else
                printf("peers not probed");
        if (p->health.hosts == HOSTS_POLICY_MANAGE)
                printf("; the other nodes' names kept in a block of /etc/hosts (health.hosts: manage)");
        printf("\n");
}

static void print_summary(const Profile *p, const char *path, const ProfileNode *node, const char *node_error) {
        printf("%s%s%s is a valid profile for cluster %s%s%s, mode %s (%s).\n",
               ansi_green(),
               path,
               ansi_normal(),
               ansi_bold(),
               p->cluster,
               ansi_normal(),
               profile_mode_to_string(p->mode),
               profile_may_change_host(p, /* force= */ false)
                       ? "halod applies the network settings and keeps them applied"
                       : "halod only checks, it never changes the host");
        if (node)
                printf("This machine is node %s%s%s%s%s%s.\n",
                       ansi_bold(),
                       node->name,
                       ansi_normal(),
                       node->hostname ? " (hostname " : "",
                       strempty(node->hostname),
                       node->hostname ? ")" : "");
        else
                printf("%sNo node selected%s: %s.\n"
                       "That is fine for validate; check, apply and halod need one.\n",
                       ansi_yellow(),
                       ansi_normal(),
                       strna(node_error));

        print_links(p);
        print_nodes(p, node);
        print_nics(p);
        print_rdma_kernel_health(p);
        print_gpu_memory(p);
}

/* {"head": {"from": "profile", "nic": {…}}, "worker": {"from": "node", "nic": {…}}}: the NIC each
 * node is checked against and where it comes from ("node", "profile", or "none" with nic null). */
static void print_json_nics(JsonWriter *w, const Profile *p) {
        json_begin_object(w);
        for (size_t i = 0; i < p->n_nodes; i++) {
                const ProfileNode *n = &p->nodes[i];
                const ProfileNic *nic = profile_node_nic(p, n);

                json_key(w, n->name);
                json_begin_object(w);
                json_kv_string(w, "from", node_nic_source(p, n));
                json_key(w, "nic");
                if (nic->present)
                        profile_nic_dump_json(nic, w);
                else
                        json_null(w);
                json_end_object(w);
        }
        json_end_object(w);
}

static void print_json(
        const Profile *p, const char *path, const ProfileNode *node, const char *node_error, char **errors) {
        JsonWriter w;

        json_writer_init(&w, stdout, true);
        json_begin_object(&w);
        json_kv_string(&w, "path", path);
        json_kv_bool(&w, "valid", p != NULL);
        if (p) {
                json_kv_string(&w, "node", node ? node->name : NULL);
                json_kv_string(&w, "node-error", node_error);
                json_key(&w, "nics");
                print_json_nics(&w, p);
                json_key(&w, "profile");
                profile_dump_json(p, &w);
        } else {
                json_key(&w, "errors");
                json_begin_array(&w);
                STRV_FOREACH(e, errors)
                        json_string(&w, *e);
                json_end_array(&w);
        }
        json_end_object(&w);
        json_writer_finish(&w);
}

int verb_validate(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *node_error = NULL;
        const ProfileNode *node = NULL;
        const char *path;
        int r;

        if (argc > 2) {
                fprintf(stderr,
                        "validate takes at most one PROFILE argument, got %d. Try 'haloctl --help'.\n",
                        argc - 1);
                return EX_USAGE;
        }
        path = profile_path_arg(argc, argv);

        r = profile_load_file(path, &p, &errors);
        if (r < 0) {
                print_load_errors(path, r, errors);
                if (arg_json && r == -EINVAL)
                        print_json(NULL, path, NULL, NULL, errors);
                return exit_code_for_load(r);
        }

        r = select_node(p, &node, &node_error);
        if (r == -ENOMEM) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }
        if (r < 0 && arg_node) {
                fprintf(stderr, "%s: %s\n", path, strna(node_error));
                return EX_USAGE;
        }

        if (arg_json)
                print_json(p, path, node, node_error, NULL);
        else
                print_summary(p, path, node, node_error);
        return EXIT_SUCCESS;
}

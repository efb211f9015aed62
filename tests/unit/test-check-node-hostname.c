/* SPDX-License-Identifier: MIT */
/* node.hostname on host trees (--root) carrying the /etc/hosts and /etc/hostname that the installers
 * write: Debian's (netcfg: "127.0.1.1\tFQDN\tHOSTNAME" after localhost), Ubuntu's cloud images
 * (cloud-init's templates/hosts.debian.tmpl: "127.0.1.1 {{fqdn}} {{hostname}}" first), Fedora's (the
 * setup package: localhost only), and a file fixed as the Debian Reference says (the permanent address
 * in place of 127.0.1.1). */
#include <sys/stat.h>

#include "basic/fileio.h"
#include "check-read.h"
#include "check-test.h"
#include "check/check-node.h"
#include "tests.h"

static const char debian_hosts[] =
        "127.0.0.1\tlocalhost\n"
        "127.0.1.1\thalo-1.lab.example\thalo-1\n"
        "\n"
        "# The following lines are desirable for IPv6 capable hosts\n"
        "::1     localhost ip6-localhost ip6-loopback\n"
        "ff02::1 ip6-allnodes\n"
        "ff02::2 ip6-allrouters\n";

static const char cloudinit_hosts[] =
        "# Your system has configured 'manage_etc_hosts' as True.\n"
        "# As a result, if you wish for changes to this file to persist\n"
        "# then you will need to either\n"
        "# a.) make changes to the master file in /etc/cloud/templates/hosts.debian.tmpl\n"
        "# b.) change or remove the value of 'manage_etc_hosts' in\n"
        "#     /etc/cloud/cloud.cfg or cloud-config from user-data\n"
        "#\n"
        "127.0.1.1 halo-1.lab.example halo-1\n"
        "127.0.0.1 localhost\n"
        "\n"
        "# The following lines are desirable for IPv6 capable hosts\n"
        "::1 localhost ip6-localhost ip6-loopback\n";

static const char fedora_hosts[] =
        "# Loopback entries; do not change.\n"
        "# For historical reasons, localhost precedes localhost.localdomain:\n"
        "127.0.0.1   localhost localhost.localdomain localhost4 localhost4.localdomain4\n"
        "::1         localhost localhost.localdomain localhost6 localhost6.localdomain6\n";

/* The Gentoo Handbook's example (Configuring the system, "Host information"): the host's names on the
 * localhost line, "127.0.0.1 tux.homenetwork tux localhost". */
static const char gentoo_hosts[] = "127.0.0.1\thalo-1.lab.example halo-1 localhost\n";

/* A container's, as gVisor and this machine's sandbox write it: the hostname on a 127.0.0.1 line of its
 * own. */
static const char container_hosts[] =
        "127.0.0.1 localhost\n"
        "127.0.0.1 halo-1\n";

static const char fixed_hosts[] =
        "127.0.0.1\tlocalhost\n"
        "192.168.100.1\thalo-1.lab.example\thalo-1\n";

/* Two nodes known by name: the cluster uses names. */
static const char named_yaml[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "nodes:\n"
        "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { hostname: halo-2, links: { rdma0: 192.168.100.2/30 } }\n";

/* Only this node has a name: nothing in the profile resolves names, a workload still may. */
static const char unnamed_yaml[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "nodes:\n"
        "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n";

/* text with its "%s" (the looked-up file's tree) replaced by root. */
static char *with_root(const char *text, const char *root) {
        const char *at = strstr(text, "%s");
        char *s;

        if (!at)
                s = strdup(text);
        else
                ASSERT_TRUE(asprintf(&s, "%.*s%s%s", (int) (at - text), text, root, at + 2) > 0);
        ASSERT_TRUE(s);
        return s;
}

static void test_cases(void) {
        static const struct {
                const char *name;
                const char *hosts;
                const char *hostname; /* etc/hostname; NULL: none (the profile's hostname is used) */
                const char *yaml;
                CheckOutcome outcome;
                const char *actual;
                const char *summary_has;
        } cases[] = {
                { "Debian",
                  debian_hosts,
                  "halo-1\n",
                  named_yaml,
                  CHECK_FAIL,
                  "127.0.1.1",
                  "this node's hostname halo-1 resolves to the loopback address 127.0.1.1 (looked up through "
                  "%s/etc/hosts; line 2 of /etc/hosts, \"127.0.1.1\thalo-1.lab.example\thalo-1\"): Gloo "
                  "(torch.distributed) and MPI launchers that resolve their own name announce 127.0.1.1 to the "
                  "other nodes, who cannot reach it; make that line \"192.168.100.1 halo-1\" in /etc/hosts, "
                  "this node's fabric address instead of Debian's 127.0.1.1" },
                { "Debian, no other node named",
                  debian_hosts,
                  "halo-1\n",
                  unnamed_yaml,
                  CHECK_WARN,
                  "127.0.1.1",
                  "to the other nodes (this profile names none, but a workload may)" },
                { "Ubuntu cloud image",
                  cloudinit_hosts,
                  "halo-1\n",
                  named_yaml,
                  CHECK_FAIL,
                  "127.0.1.1",
                  "line 8 of /etc/hosts, \"127.0.1.1 halo-1.lab.example halo-1\"" },
                { "no etc/hostname: the profile's",
                  debian_hosts,
                  NULL,
                  named_yaml,
                  CHECK_FAIL,
                  "127.0.1.1",
                  "hostname halo-1 resolves" },
                { "the FQDN in etc/hostname",
                  debian_hosts,
                  "halo-1.lab.example\n",
                  named_yaml,
                  CHECK_FAIL,
                  "127.0.1.1",
                  "make that line \"192.168.100.1 halo-1.lab.example\"" },
                /* Rewriting that line would take localhost off 127.0.0.1 too. */
                { "the hostname on the localhost line",
                  gentoo_hosts,
                  "halo-1\n",
                  named_yaml,
                  CHECK_FAIL,
                  "127.0.0.1",
                  "line 1 of /etc/hosts, \"127.0.0.1\thalo-1.lab.example halo-1 localhost\"): Gloo "
                  "(torch.distributed) and MPI launchers that resolve their own name announce 127.0.0.1 to the "
                  "other nodes, who cannot reach it; take halo-1 off that line (its other names stay) and add "
                  "\"192.168.100.1 halo-1\" to /etc/hosts, this node's fabric address instead of 127.0.0.1" },
                { "a line of its own on 127.0.0.1",
                  container_hosts,
                  "halo-1\n",
                  named_yaml,
                  CHECK_FAIL,
                  "127.0.0.1",
                  "line 2 of /etc/hosts, \"127.0.0.1 halo-1\"): Gloo (torch.distributed) and MPI launchers that "
                  "resolve their own name announce 127.0.0.1 to the other nodes, who cannot reach it; make that "
                  "line \"192.168.100.1 halo-1\" in /etc/hosts, this node's fabric address instead of 127.0.0.1" },
                { "Fedora",
                  fedora_hosts,
                  "halo-1\n",
                  named_yaml,
                  CHECK_WARN,
                  "",
                  "this node's hostname halo-1 does not resolve" },
                { "fixed",
                  fixed_hosts,
                  "halo-1\n",
                  named_yaml,
                  CHECK_PASS,
                  "192.168.100.1",
                  "this node's hostname halo-1 resolves to 192.168.100.1, its fabric address (looked up "
                  "through %s/etc/hosts), not to loopback" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(profile_freep) Profile *p = test_profile_load(cases[i].yaml);
                _cleanup_(snapshot_done) Snapshot s = {};
                _cleanup_(check_list_done) CheckList l = {};
                _cleanup_(freep) char *path = NULL, *summary = NULL;
                char *root = strdup("/tmp/halod-hostname-XXXXXX");
                Host h = {};
                NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
                const Check *check;

                fprintf(stderr, "case: %s\n", cases[i].name);
                ASSERT_TRUE(root && mkdtemp(root));
                h.root = root;
                ASSERT_TRUE(asprintf(&path, "%s/etc", root) > 0);
                ASSERT_TRUE(mkdir(path, 0755) == 0);
                free(path);
                ASSERT_TRUE(asprintf(&path, "%s/etc/hosts", root) > 0);
                ASSERT_OK(write_file_atomic(path, cases[i].hosts, strlen(cases[i].hosts), 0644));
                if (cases[i].hostname) {
                        free(path);
                        ASSERT_TRUE(asprintf(&path, "%s/etc/hostname", root) > 0);
                        ASSERT_OK(write_file_atomic(path, cases[i].hostname, strlen(cases[i].hostname), 0644));
                }

                snapshot_init(&s, &c);
                test_read_for(&c, &s, "node.hostname");
                ASSERT_OK(check_node_hostname(&c, &s, &l));
                check = check_list_find(&l, "node.hostname");
                ASSERT_TRUE(check);
                summary = with_root(cases[i].summary_has, root);
                if (check->outcome != cases[i].outcome || !strstr(check->summary, summary))
                        fprintf(stderr, "got %s: %s\n", check_outcome_to_string(check->outcome), check->summary);
                ASSERT_INT_EQ(check->outcome, cases[i].outcome);
                ASSERT_TRUE(strstr(check->summary, summary));
                ASSERT_STR_EQ(check->actual, cases[i].actual);
                ASSERT_STR_EQ(check->expected, "not loopback");
                remove_tree(root);
        }
}

int main(void) {
        test_cases();
        printf("test-check-node-hostname: ok\n");
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* Loading a profile (read, parse, validate, all or nothing), freeing it, and looking things up in it. */
#include <stdio.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "profile/profile-internal.h"
#include "profile/profile-trust.h"

static const char *const profile_mode_table[_PROFILE_MODE_MAX] = {
        [PROFILE_MODE_ENFORCE] = "enforce",
        [PROFILE_MODE_VERIFY] = "verify",
};

static const char *const rdma_gid_type_table[_RDMA_GID_TYPE_MAX] = {
        [RDMA_GID_ROCE_V2] = "roce-v2",
        [RDMA_GID_ROCE_V1] = "roce-v1",
        [RDMA_GID_IB] = "ib",
};

static const char *const qos_trust_table[_QOS_TRUST_MAX] = {
        [QOS_TRUST_PCP] = "pcp",
        [QOS_TRUST_DSCP] = "dscp",
};

DEFINE_STRING_TABLE_LOOKUP(profile_mode, ProfileMode);

static const char *const hosts_policy_table[_HOSTS_POLICY_MAX] = {
        [HOSTS_POLICY_CHECK] = "check",
        [HOSTS_POLICY_MANAGE] = "manage",
};

DEFINE_STRING_TABLE_LOOKUP(hosts_policy, HostsPolicy);

static const char *const boot_policy_table[_BOOT_POLICY_MAX] = {
        [BOOT_POLICY_CHECK] = "check",
        [BOOT_POLICY_MANAGE] = "manage",
};

DEFINE_STRING_TABLE_LOOKUP(boot_policy, BootPolicy);

static const char *const rdma_setup_policy_table[_RDMA_SETUP_POLICY_MAX] = {
        [RDMA_SETUP_CHECK] = "check",
        [RDMA_SETUP_MANAGE] = "manage",
};

DEFINE_STRING_TABLE_LOOKUP(rdma_setup_policy, RdmaSetupPolicy);

DEFINE_STRING_TABLE_LOOKUP(qos_trust, QosTrust);

DEFINE_STRING_TABLE_LOOKUP(rdma_gid_type, RdmaGidType);

unsigned qos_suggested_roce_priority(uint8_t pfc_mask) {
        for (unsigned p = 1; p < QOS_PRIORITIES; p++)
                if (pfc_mask & (1U << p))
                        return p;
        return 0;
}

int profile_qos_roce_priority(const ProfileQos *q) {
        if (!q->present || q->roce_tos < 0)
                return -ENOENT;
        if (q->trust == QOS_TRUST_DSCP)
                return q->dscp_priority[q->roce_tos >> 2] >= 0 ? q->dscp_priority[q->roce_tos >> 2] : -ENODATA;
        if (q->trust == QOS_TRUST_PCP && q->has_pfc && q->pfc != 0 && (q->pfc & (q->pfc - 1)) == 0)
                return __builtin_ctz(q->pfc);
        return -ENODATA;
}

bool qos_wants_dcb(const ProfileQos *q) {
        return q->present && (q->has_pfc || q->trust >= 0 || q->has_dscp_map);
}

uint8_t roce_ecn_wanted_priorities(const ProfileQos *q) {
        return q->has_pfc ? q->pfc : 0xff;
}

bool profile_may_change_host(const Profile *p, bool force) {
        return force || p->mode == PROFILE_MODE_ENFORCE;
}

static void profile_nic_done(ProfileNic *nic) {
        nic->pci_ids = mfree(nic->pci_ids);
        nic->driver = mfree(nic->driver);
        nic->firmware_min = mfree(nic->firmware_min);
}

Profile *profile_free(Profile *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_links; i++) {
                free(p->links[i].name);
                link_match_done(&p->links[i].match);
                free(p->links[i].firewall_zone);
        }
        free(p->links);
        for (size_t i = 0; i < p->n_nodes; i++) {
                for (size_t j = 0; j < p->nodes[i].n_links; j++) {
                        free(p->nodes[i].links[j].link);
                        link_match_done(&p->nodes[i].links[j].match);
                }
                free(p->nodes[i].links);
                for (size_t j = 0; j < p->nodes[i].n_routes; j++)
                        free(p->nodes[i].routes[j].link);
                free(p->nodes[i].routes);
                free(p->nodes[i].name);
                free(p->nodes[i].hostname);
                profile_nic_done(&p->nodes[i].nic);
        }
        free(p->nodes);
        profile_nic_done(&p->nic);
        free(p->health.prometheus_textfile);
        strv_free(p->kernel_cmdline);
        free(p->cluster);
        free(p->path);
        return mfree(p);
}

static void ynode_donep(YNode *n) {
        ynode_done(n);
}

static void profile_errors_donep(ProfileErrors *e) {
        profile_errors_done(e);
}

/* Hands the collected errors to the caller. Returns r, or -ENOMEM. */
static int return_errors(ProfileErrors *e, int r, char ***ret_errors) {
        char **l = NULL;
        int k;

        if (!ret_errors)
                return e->oom ? -ENOMEM : r;
        k = profile_errors_to_strv(e, &l);
        if (k < 0)
                return k;
        *ret_errors = l;
        return r;
}

/* The one error of a profile over the size cap; returns -EINVAL, or -ENOMEM. */
static int return_too_large(ProfileErrors *e, char ***ret_errors) {
        profile_errors_add(
                e,
                1,
                1,
                NULL,
                "profile is larger than the cap of %u bytes (expected a profile of at most 1 MiB)",
                PROFILE_SIZE_MAX);
        return return_errors(e, -EINVAL, ret_errors);
}

int profile_load_string(
        const char *display_path, const char *data, size_t size, Profile **ret, char ***ret_errors) {
        _cleanup_(profile_errors_donep) ProfileErrors e = {};
        _cleanup_(ynode_donep) YNode root = {};
        _cleanup_(profile_freep) Profile *p = NULL;
        int r;

        r = profile_errors_init(&e, display_path);
        if (r < 0)
                return r;

        if (size > PROFILE_SIZE_MAX)
                return return_too_large(&e, ret_errors);

        r = yaml_parse_tree(data, size, &e, &root);
        if (r < 0)
                return r;

        p = calloc(1, sizeof(Profile));
        if (!p)
                return -ENOMEM;
        if (display_path && !(p->path = strdup(display_path)))
                return -ENOMEM;
        if (!e.fatal) {
                r = profile_build(&root, &e, p);
                if (r < 0)
                        return r;
        }

        if (e.oom)
                return -ENOMEM;
        if (e.n_items > 0 || e.overflow)
                return return_errors(&e, -EINVAL, ret_errors);

        if (ret)
                *ret = TAKE_PTR(p);
        if (ret_errors)
                *ret_errors = NULL;
        return 0;
}

/* The one error of a profile that cannot be read; returns r, or -ENOMEM. */
static int return_unreadable(const char *path, int r, char ***ret_errors) {
        _cleanup_(strv_freep) char **l = NULL;
        char buf[MESSAGE_TEXT_BUF];

        if (!ret_errors)
                return r;
        if (strv_extendf(
                    &l,
                    "%s: cannot read the profile: %s (expected a readable YAML file; pass its path as the PROFILE argument)",
                    text_for_message(path, buf),
                    strerror(-r)) < 0)
                return -ENOMEM;
        *ret_errors = TAKE_PTR(l);
        return r;
}

/* Loads what read() returned; r is its result. */
static int load_read_result(
        const char *path, int r, const char *data, size_t size, Profile **ret, char ***ret_errors) {
        if (r == -EFBIG) {
                _cleanup_(profile_errors_donep) ProfileErrors e = {};
                int k;

                k = profile_errors_init(&e, path);
                if (k < 0)
                        return k;
                return return_too_large(&e, ret_errors);
        }
        if (r < 0)
                return return_unreadable(path, r, ret_errors);
        return profile_load_string(path, data, size, ret, ret_errors);
}

int profile_load_file(const char *path, Profile **ret, char ***ret_errors) {
        _cleanup_(freep) char *data = NULL;
        size_t size = 0;
        int r;

        r = read_full_file(path, PROFILE_SIZE_MAX, &data, &size);
        return load_read_result(path, r, data, size, ret, ret_errors);
}

/* profile_load_file() from an open file (from its offset on); display_path names it in the errors. */
static int profile_load_fd(int fd, const char *display_path, Profile **ret, char ***ret_errors) {
        _cleanup_(freep) char *data = NULL;
        size_t size = 0;
        int r;

        r = read_full_fd(fd, PROFILE_SIZE_MAX, &data, &size);
        return load_read_result(display_path, r, data, size, ret, ret_errors);
}

int profile_load_trusted(const char *path, Profile **ret, char ***ret_errors) {
        _cleanup_(closep) int fd = -EBADF;
        _cleanup_(freep) char *error = NULL;
        int r;

        r = profile_open_trusted(path, &fd, ret_errors ? &error : NULL);
        if (r < 0) {
                if (ret_errors && error) {
                        _cleanup_(strv_freep) char **l = NULL;

                        if (strv_extend(&l, error) < 0)
                                return -ENOMEM;
                        *ret_errors = TAKE_PTR(l);
                }
                return r;
        }
        return profile_load_fd(fd, path, ret, ret_errors);
}

const ProfileLink *profile_find_link(const Profile *p, const char *name) {
        for (size_t i = 0; p && name && i < p->n_links; i++)
                if (streq(p->links[i].name, name))
                        return &p->links[i];
        return NULL;
}

bool node_wants_zones(const Profile *p, const ProfileNode *node) {
        for (size_t i = 0; i < node->n_links; i++) {
                const ProfileLink *pl = profile_find_link(p, node->links[i].link);

                if (pl && pl->firewall_zone)
                        return true;
        }
        return false;
}

const ProfileNode *profile_find_node(const Profile *p, const char *name) {
        for (size_t i = 0; p && name && i < p->n_nodes; i++)
                if (streq(p->nodes[i].name, name))
                        return &p->nodes[i];
        return NULL;
}

bool profile_node_has_address(const ProfileNode *n, struct in_addr a) {
        for (size_t i = 0; i < n->n_links; i++)
                if (n->links[i].address.address.s_addr == a.s_addr)
                        return true;
        return false;
}

const ProfileNode *profile_find_node_by_address(const Profile *p, struct in_addr a) {
        for (size_t i = 0; p && i < p->n_nodes; i++)
                if (profile_node_has_address(&p->nodes[i], a))
                        return &p->nodes[i];
        return NULL;
}

bool link_match_is_empty(const LinkMatch *m) {
        return !m || (!m->driver && !m->pci && !m->mac && !m->name);
}

const LinkMatch *profile_node_link_match(const Profile *p, const NodeLink *nl) {
        const ProfileLink *l;

        if (!link_match_is_empty(&nl->match))
                return &nl->match;
        l = profile_find_link(p, nl->link);
        return l ? &l->match : &nl->match;
}

const ProfileNic *profile_node_nic(const Profile *p, const ProfileNode *node) {
        return node && node->nic.present ? &node->nic : &p->nic;
}

/* SPDX-License-Identifier: MIT */
/* The libibverbs test double: device list, open/close, port and GID queries, over tables a test sets
 * (the queue-pair side is fake-verbs-qp.c).
 * ibv_query_port() is a static inline in <infiniband/verbs.h>: for a context that is not an
 * extended verbs_context (abi_compat != __VERBS_ABI_IS_EXTENDED, as here) it calls the exported
 * ibv_query_port() with the compat struct, which is what this file defines. ibv_query_gid_ex()
 * and ibv_query_gid_table() are inlines over _ibv_query_gid_ex() and _ibv_query_gid_table(). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake-verbs-internal.h"

pthread_mutex_t fake_verbs_lock = PTHREAD_MUTEX_INITIALIZER;

static FakeVerbsDevice *fake_devices;
static size_t fake_n_devices;
static int fake_list_errno;
static int fake_open_contexts;
static bool fake_called;
static unsigned fake_table_queries[16];

void fake_verbs_setup(FakeVerbsDevice *devices, size_t n, int list_errno) {
        fake_devices = devices;
        fake_n_devices = n;
        fake_list_errno = list_errno;
        fake_open_contexts = 0;
        memset(fake_table_queries, 0, sizeof(fake_table_queries));
        fake_verbs_qp_reset();
}

int fake_verbs_open_contexts(void) {
        return fake_open_contexts;
}

bool fake_verbs_called(void) {
        return fake_called;
}

struct ibv_gid_entry fake_gid_ipv4(uint32_t index, const char *ipv4, enum ibv_gid_type type, uint32_t ifindex) {
        struct ibv_gid_entry e = { .gid_index = index, .port_num = 1, .gid_type = type, .ndev_ifindex = ifindex };
        struct in_addr a;

        if (inet_pton(AF_INET, ipv4, &a) != 1)
                abort();
        e.gid.raw[10] = 0xff;
        e.gid.raw[11] = 0xff;
        memcpy(&e.gid.raw[12], &a, 4);
        return e;
}

struct ibv_gid_entry
        fake_gid_link_local(uint32_t index, uint64_t interface_id, enum ibv_gid_type type, uint32_t ifindex) {
        struct ibv_gid_entry e = { .gid_index = index, .port_num = 1, .gid_type = type, .ndev_ifindex = ifindex };

        e.gid.raw[0] = 0xfe;
        e.gid.raw[1] = 0x80;
        for (int i = 0; i < 8; i++)
                e.gid.raw[8 + i] = (uint8_t) (interface_id >> (56 - 8 * i));
        return e;
}

void fake_gids_irdma(
        struct ibv_gid_entry gids[FAKE_IRDMA_GIDS], uint64_t interface_id, const char *ipv4, uint32_t ifindex) {
        gids[0] = fake_gid_link_local(0, interface_id, IBV_GID_TYPE_ROCE_V2, ifindex);
        gids[1] = fake_gid_ipv4(1, ipv4, IBV_GID_TYPE_ROCE_V2, ifindex);
}

FakeVerbsDevice fake_device_active(const char *name, const struct ibv_gid_entry *gids, size_t n_gids) {
        return (FakeVerbsDevice){
                .name = name,
                .state = IBV_PORT_ACTIVE,
                .phys_state = 5,
                .active_mtu = IBV_MTU_4096,
                .max_mtu = IBV_MTU_4096,
                .gids = gids,
                .n_gids = n_gids,
        };
}

size_t fake_gids_mlx5(
        struct ibv_gid_entry *gids,
        uint64_t interface_id,
        const char *const *ipv4,
        size_t n_ipv4,
        uint32_t ifindex) {
        size_t n = 0;

        gids[n] = fake_gid_link_local(n, interface_id, IBV_GID_TYPE_ROCE_V1, ifindex);
        n++;
        gids[n] = fake_gid_link_local(n, interface_id, IBV_GID_TYPE_ROCE_V2, ifindex);
        n++;
        for (size_t i = 0; i < n_ipv4; i++) {
                gids[n] = fake_gid_ipv4(n, ipv4[i], IBV_GID_TYPE_ROCE_V1, ifindex);
                n++;
                gids[n] = fake_gid_ipv4(n, ipv4[i], IBV_GID_TYPE_ROCE_V2, ifindex);
                n++;
        }
        return n;
}

void fake_connectx5_dual(
        FakeConnectX5 *x, const char *ipv4_0, uint32_t ifindex0, const char *ipv4_1, uint32_t ifindex1) {
        static const char *const names[2] = { "mlx5_0", "mlx5_1" };
        const char *ipv4[2] = { ipv4_0, ipv4_1 };
        uint32_t ifindex[2] = { ifindex0, ifindex1 };

        *x = (FakeConnectX5){};
        for (size_t i = 0; i < 2; i++) {
                /* The EUI-64 interface id of the port's MAC, b8:ce:f6:12:34:56 and :57. */
                size_t n = ipv4[i]
                        ? fake_gids_mlx5(x->gids[i], 0xbacef6fffe123456ULL + i, &ipv4[i], 1, ifindex[i])
                        : 0;

                x->devices[i] = fake_device_active(names[i], x->gids[i], n);
        }
}

static size_t fake_index(const FakeVerbsDevice *f) {
        return (size_t) (f - fake_devices);
}

void fake_verbs_current_table(const FakeVerbsDevice *f, const struct ibv_gid_entry **ret, size_t *ret_n) {
        unsigned q = fake_table_queries[fake_index(f) % 16];
        bool after = f->flip ? (q % 2 == 1) : (f->gids_after && f->move_after > 0 && q >= f->move_after);

        *ret = after ? f->gids_after : f->gids;
        *ret_n = after ? f->n_gids_after : f->n_gids;
}

struct ibv_device **ibv_get_device_list(int *num_devices) {
        struct ibv_device **list;

        fake_called = true;
        if (fake_list_errno != 0) {
                errno = fake_list_errno;
                return NULL;
        }
        list = calloc(fake_n_devices + 1, sizeof(struct ibv_device *));
        if (!list)
                return NULL;
        for (size_t i = 0; i < fake_n_devices; i++) {
                /* A device is followed by a pointer back to its fake, for ibv_open_device(). */
                struct ibv_device *d = calloc(1, sizeof(struct ibv_device) + sizeof(FakeVerbsDevice *));

                if (!d)
                        abort();
                strncpy(d->name, fake_devices[i].name, sizeof(d->name) - 1);
                strncpy(d->dev_name, "uverbs0", sizeof(d->dev_name) - 1);
                memcpy(d + 1, &(FakeVerbsDevice *){ &fake_devices[i] }, sizeof(FakeVerbsDevice *));
                list[i] = d;
        }
        if (num_devices)
                *num_devices = (int) fake_n_devices;
        return list;
}

void ibv_free_device_list(struct ibv_device **list) {
        for (size_t i = 0; list && list[i]; i++)
                free(list[i]);
        free(list);
}

const char *ibv_get_device_name(struct ibv_device *device) {
        return device->name;
}

struct ibv_context *ibv_open_device(struct ibv_device *device) {
        FakeVerbsDevice *f;
        FakeContext *c;

        memcpy(&f, device + 1, sizeof(f));
        if (f->open_fails) {
                errno = EACCES;
                return NULL;
        }
        c = calloc(1, sizeof(FakeContext));
        if (!c)
                return NULL;
        c->context.device = device;
        c->context.abi_compat = NULL; /* not extended: the inline ibv_query_port() calls ours */
        c->fake = f;
        fake_verbs_install_ops(&c->context);
        (void) pthread_mutex_lock(&fake_verbs_lock);
        fake_open_contexts++;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return &c->context;
}

int ibv_close_device(struct ibv_context *context) {
        (void) pthread_mutex_lock(&fake_verbs_lock);
        fake_open_contexts--;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        free(context);
        return 0;
}

static FakeVerbsDevice *fake_of(struct ibv_context *context) {
        return ((FakeContext *) context)->fake;
}

int(ibv_query_port)(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr) {
        FakeVerbsDevice *f = fake_of(context);
        struct ibv_port_attr *a = (struct ibv_port_attr *) port_attr;

        if (port_num != 1)
                return EINVAL;
        *a = (struct ibv_port_attr){
                .state = f->state,
                .max_mtu = f->max_mtu,
                .active_mtu = f->active_mtu,
                .gid_tbl_len = 16,
                .phys_state = f->phys_state,
                .link_layer = IBV_LINK_LAYER_ETHERNET,
        };
        return 0;
}

int _ibv_query_gid_ex(
        struct ibv_context *context,
        uint32_t port_num,
        uint32_t gid_index,
        struct ibv_gid_entry *entry,
        uint32_t flags,
        size_t entry_size) {
        const struct ibv_gid_entry *t;
        int r = ENODATA;
        size_t n;

        if (entry_size != sizeof(struct ibv_gid_entry) || flags != 0)
                return EINVAL;
        (void) pthread_mutex_lock(&fake_verbs_lock);
        fake_verbs_current_table(fake_of(context), &t, &n);
        for (size_t i = 0; i < n; i++)
                if (t[i].port_num == port_num && t[i].gid_index == gid_index) {
                        *entry = t[i];
                        r = 0;
                        break;
                }
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return r;
}

ssize_t _ibv_query_gid_table(
        struct ibv_context *context,
        struct ibv_gid_entry *entries,
        size_t max_entries,
        uint32_t flags,
        size_t entry_size) {
        FakeVerbsDevice *f = fake_of(context);
        const struct ibv_gid_entry *t;
        size_t n;

        if (entry_size != sizeof(struct ibv_gid_entry) || flags != 0)
                return -EINVAL;
        if (f->table_unsupported)
                return -EOPNOTSUPP;
        (void) pthread_mutex_lock(&fake_verbs_lock);
        fake_verbs_current_table(f, &t, &n);
        if (n <= max_entries) {
                if (n > 0)
                        memcpy(entries, t, n * sizeof(*t));
                fake_table_queries[fake_index(f) % 16]++;
        }
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return n > max_entries ? -EINVAL : (ssize_t) n;
}

/* SPDX-License-Identifier: MIT */
/* Derives NCCL_SOCKET_IFNAME, NCCL_IB_HCA, NCCL_IB_GID_INDEX, GLOO_SOCKET_IFNAME and VLLM_HOST_IP from
 * the fabric ports and their RDMA devices, NCCL_IB_TC and NCCL_IB_SL from the links' qos:, and
 * renders or writes them. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>

#include "basic/fileio.h"
#include "basic/ifname-syntax.h"
#include "basic/strv.h"
#include "export/fabric-env.h"
#include "nic/nic-family.h"
#include "rdma/rdma.h"
#include "snapshot/fabric.h"
#include "snapshot/rdma-node.h"
#include "snapshot/snapshot-rdma.h"

static const char *const fabric_env_var_table[_FABRIC_ENV_VAR_MAX] = {
        [FABRIC_ENV_NCCL_SOCKET_IFNAME] = "NCCL_SOCKET_IFNAME",
        [FABRIC_ENV_NCCL_IB_HCA] = "NCCL_IB_HCA",
        [FABRIC_ENV_NCCL_IB_GID_INDEX] = "NCCL_IB_GID_INDEX",
        [FABRIC_ENV_NCCL_IB_TC] = "NCCL_IB_TC",
        [FABRIC_ENV_NCCL_IB_SL] = "NCCL_IB_SL",
        [FABRIC_ENV_GLOO_SOCKET_IFNAME] = "GLOO_SOCKET_IFNAME",
        [FABRIC_ENV_VLLM_HOST_IP] = "VLLM_HOST_IP",
};

DEFINE_STRING_TABLE_LOOKUP(fabric_env_var, FabricEnvVar);

void fabric_env_done(FabricEnv *e) {
        for (int i = 0; i < _FABRIC_ENV_VAR_MAX; i++) {
                e->values[i] = mfree(e->values[i]);
                e->reasons[i] = mfree(e->reasons[i]);
        }
}

static bool fabric_env_var_is_optional(FabricEnvVar v) {
        return v == FABRIC_ENV_NCCL_IB_TC || v == FABRIC_ENV_NCCL_IB_SL;
}

bool fabric_env_applies(const FabricEnv *e, FabricEnvVar v) {
        return e->values[v] || e->reasons[v] || !fabric_env_var_is_optional(v);
}

bool fabric_env_complete(const FabricEnv *e) {
        for (int i = 0; i < _FABRIC_ENV_VAR_MAX; i++)
                if (!e->values[i] && fabric_env_applies(e, i))
                        return false;
        return true;
}

/* Records why v is not set (the first reason wins: it is usually the root cause). */
static int set_reason(FabricEnv *e, FabricEnvVar v, const char *format, ...) _printf_(3, 4);
static int set_reason(FabricEnv *e, FabricEnvVar v, const char *format, ...) {
        va_list ap;
        int r;

        if (e->reasons[v])
                return 0;
        va_start(ap, format);
        r = vasprintf(&e->reasons[v], format, ap);
        va_end(ap);
        if (r < 0) {
                e->reasons[v] = NULL;
                return -ENOMEM;
        }
        return 0;
}

/* Whether name (an interface's or an RDMA device's, which the user halod can rename) reads as itself in
 * NCCL's and Gloo's lists: 1, or 0 after recording why not for each of vars (n of them). */
static int name_fits_list(FabricEnv *e, const char *link, const char *name, const FabricEnvVar *vars, size_t n) {
        _cleanup_(freep) char *problem = NULL;
        int r;

        r = ifname_syntax_check(name, IFNAME_SYNTAX_NCCL_LIST, &problem);
        if (r != -EINVAL)
                return r < 0 ? r : 1;
        for (size_t i = 0; i < n; i++) {
                r = set_reason(e, vars[i], "link %s: %s; give it a plain name", link, problem);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Why the port has no RDMA device, for the user; NULL when out of memory. */
static char *rdma_error_reason(const NodeContext *c, const FabricPort *port, int r) {
        _cleanup_(freep) char *load = NULL;
        char *s;

        switch (r) {
        case -ENODEV:
                load = nic_family_modprobe(nic_family_of_pci(c->host, port->pci), NIC_MODULE_RDMA);
                if (!load)
                        return NULL;
                return asprintf(&s, "no RDMA device on this interface: is the RDMA module loaded (%s)?", load) <
                                0
                        ? NULL
                        : s;
        case -ENOSYS:
                return strdup("this kernel has no RDMA support (no /sys/class/infiniband)");
        case -EOPNOTSUPP:
                return strdup("halod was built without libibverbs");
        default:
                return strdup(strerror(-r));
        }
}

/* The RDMA device of one port and the GID index of its address; appends to hcas, sets *gid_index
 * (-1 until the first) or records why not. */
static int derive_rdma(
        const NodeContext *c, const Snapshot *s, size_t i, FabricEnv *e, char ***hcas, long *gid_index) {
        const FabricPort *port = &s->ports[i];
        RdmaGidType type = rdma_node_gid_type(c);
        char addr[INET_ADDRSTRLEN];
        RdmaDevice *dev;
        RdmaGid gid;
        int r;

        dev = snapshot_rdma_device(s, i, &r);
        if (!dev) {
                _cleanup_(freep) char *why = rdma_error_reason(c, port, r);

                if (!why)
                        return -ENOMEM;
                r = set_reason(e, FABRIC_ENV_NCCL_IB_HCA, "%s (%s): %s", port->ifname, port->link, why);
                if (r < 0)
                        return r;
                return set_reason(
                        e, FABRIC_ENV_NCCL_IB_GID_INDEX, "%s (%s): %s", port->ifname, port->link, why);
        }
        r = name_fits_list(e, port->link, dev->name, (const FabricEnvVar[]){ FABRIC_ENV_NCCL_IB_HCA }, 1);
        if (r <= 0)
                return r;
        r = strv_extend(hcas, dev->name);
        if (r < 0)
                return r;

        (void) inet_ntop(AF_INET, &port->address, addr, sizeof(addr));
        r = rdma_device_find_gid(dev, type, port->address, &gid);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return set_reason(
                        e,
                        FABRIC_ENV_NCCL_IB_GID_INDEX,
                        "%s port %" PRIu32 " has no %s GID for %s%s: see rdma.gid",
                        dev->name,
                        dev->port,
                        strna(rdma_gid_type_to_string(type)),
                        addr,
                        r == -EAGAIN ? " that stays put (the table kept changing)" : "");
        if (*gid_index >= 0 && *gid_index != (long) gid.index)
                return set_reason(
                        e,
                        FABRIC_ENV_NCCL_IB_GID_INDEX,
                        "the links use different GID indexes (%ld and %" PRIu32 "), and NCCL takes only one",
                        *gid_index,
                        gid.index);
        *gid_index = gid.index;
        return 0;
}

/* Sets v to the one value that every link gives (values[i] < 0: link i gives none); leaves it alone
 * when no link gives one; else records why not, naming each link's. */
static int derive_common(
        FabricEnv *e, FabricEnvVar v, const NodeLink *links, const int *values, size_t n, const char *what) {
        _cleanup_(strv_freep) char **each = NULL;
        _cleanup_(freep) char *list = NULL;
        bool any = false, same = true;
        int r;

        for (size_t i = 0; i < n; i++) {
                any = any || values[i] >= 0;
                same = same && values[i] == values[0];
        }
        if (!any)
                return 0;
        if (same)
                return asprintf(&e->values[v], "%d", values[0]) < 0 ? -ENOMEM : 0;

        for (size_t i = 0; i < n; i++) {
                r = values[i] >= 0 ? strv_extendf(&each, "%s %d", links[i].link, values[i])
                                   : strv_extendf(&each, "%s none", links[i].link);
                if (r < 0)
                        return r;
        }
        list = strv_join(each, ", ");
        if (!list)
                return -ENOMEM;
        return set_reason(
                e, v, "the links differ in %s (%s), and NCCL takes only one for every HCA", what, list);
}

/* RCCL's own queue pairs take their traffic class and service level from NCCL_IB_TC and NCCL_IB_SL,
 * not from rdma_cm's default ToS: without them its traffic leaves with ToS 0 on priority 0, outside
 * the lossless class that qos: sets up. Both come from the profile alone. */
static int derive_qos(const NodeContext *c, const char *link, FabricEnv *e) {
        _cleanup_(freep) int *tos = NULL, *prio = NULL;
        _cleanup_(freep) NodeLink *links = NULL;
        size_t n = 0;
        int r;

        if (c->node->n_links == 0)
                return 0;
        tos = calloc(c->node->n_links, sizeof(int));
        prio = calloc(c->node->n_links, sizeof(int));
        links = calloc(c->node->n_links, sizeof(NodeLink));
        if (!tos || !prio || !links)
                return -ENOMEM;
        /* Every link of the node, or the one link asked for (a CDI device's own variables). */
        for (size_t i = 0; i < c->node->n_links; i++) {
                const ProfileLink *l = profile_find_link(c->profile, c->node->links[i].link);

                if (link && !streq(c->node->links[i].link, link))
                        continue;
                links[n] = c->node->links[i];
                tos[n] = l && l->qos.present ? l->qos.roce_tos : -1;
                prio[n] = l ? profile_qos_roce_priority(&l->qos) : -ENOENT;
                n++;
        }
        if (n == 0)
                return 0;
        r = derive_common(e, FABRIC_ENV_NCCL_IB_TC, links, tos, n, "qos.roce-tos");
        if (r < 0)
                return r;
        return derive_common(e, FABRIC_ENV_NCCL_IB_SL, links, prio, n, "the priority of their qos.roce-tos");
}

/* VLLM_HOST_IP (the address of first, the one link asked for; NULL: the node's first link's), and a
 * reason for every variable that applies and has no value, none for one that has. */
static int finish(const NodeContext *c, const FabricPort *first, FabricEnv *e) {
        if (first ? first->has_address : c->node->n_links > 0) {
                char addr[INET_ADDRSTRLEN];

                (void) inet_ntop(
                        AF_INET,
                        first ? &first->address : &c->node->links[0].address.address,
                        addr,
                        sizeof(addr));
                e->values[FABRIC_ENV_VLLM_HOST_IP] = strdup(addr);
                if (!e->values[FABRIC_ENV_VLLM_HOST_IP])
                        return -ENOMEM;
        } else if (set_reason(e, FABRIC_ENV_VLLM_HOST_IP, "node %s has no links in the profile", c->node->name) < 0)
                return -ENOMEM;
        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++) {
                if (e->values[v])
                        e->reasons[v] = mfree(e->reasons[v]);
                else if (
                        fabric_env_applies(e, v) &&
                        set_reason(e, v, "node %s has no fabric links in the profile", c->node->name) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int fabric_env_derive_link(const NodeContext *c, Snapshot *s, const char *link, FabricEnv *ret) {
        _cleanup_(strv_freep) char **ifnames = NULL, **hcas = NULL;
        _cleanup_(snapshot_done) Snapshot own = {};
        const FabricPort *first = NULL;
        FabricEnv e = {};
        long gid_index = -1;
        size_t n_used = 0;
        int r;

        if (!c->node || !c->profile)
                return -EINVAL;

        s = snapshot_or_own(s, &own, c);
        r = snapshot_read(s, SNAPSHOT_RDMA);
        if (r < 0)
                return r;

        for (size_t i = 0; i < s->n_ports; i++) {
                const FabricPort *port = &s->ports[i];

                if (link && !streq(port->link, link))
                        continue;
                n_used++;
                if (!first)
                        first = port;
                if (!port->ifname) {
                        for (FabricEnvVar v = 0; v < FABRIC_ENV_VLLM_HOST_IP; v++) {
                                /* The ToS and the priority come from the profile, not the host. */
                                if (fabric_env_var_is_optional(v))
                                        continue;
                                r = set_reason(
                                        &e,
                                        v,
                                        "no interface found for link %s: %s",
                                        port->link,
                                        strna(port->problem));
                                if (r < 0)
                                        goto fail;
                        }
                        continue;
                }
                r = name_fits_list(
                        &e,
                        port->link,
                        port->ifname,
                        (const FabricEnvVar[]){ FABRIC_ENV_NCCL_SOCKET_IFNAME, FABRIC_ENV_GLOO_SOCKET_IFNAME },
                        2);
                if (r > 0)
                        r = strv_extend(&ifnames, port->ifname);
                if (r < 0)
                        goto fail;
                r = derive_rdma(c, s, i, &e, &hcas, &gid_index);
                if (r < 0)
                        goto fail;
        }

        /* A variable is set only when every link contributed: a partial list would send NCCL down
         * the wrong path without a word. */
        if (link && n_used == 0) {
                r = -ENOENT;
                goto fail;
        }
        if (ifnames && strv_length(ifnames) == n_used) {
                e.values[FABRIC_ENV_NCCL_SOCKET_IFNAME] = strv_join(ifnames, ",");
                e.values[FABRIC_ENV_GLOO_SOCKET_IFNAME] = strv_join(ifnames, ",");
                if (!e.values[FABRIC_ENV_NCCL_SOCKET_IFNAME] || !e.values[FABRIC_ENV_GLOO_SOCKET_IFNAME])
                        goto oom;
        }
        if (hcas && strv_length(hcas) == n_used) {
                e.values[FABRIC_ENV_NCCL_IB_HCA] = strv_join(hcas, ",");
                if (!e.values[FABRIC_ENV_NCCL_IB_HCA])
                        goto oom;
        }
        r = derive_qos(c, link, &e);
        if (r < 0)
                goto fail;
        if (gid_index >= 0 && !e.reasons[FABRIC_ENV_NCCL_IB_GID_INDEX] &&
            asprintf(&e.values[FABRIC_ENV_NCCL_IB_GID_INDEX], "%ld", gid_index) < 0)
                goto oom;
        if (finish(c, link ? first : NULL, &e) < 0)
                goto oom;

        *ret = e;
        return 0;

oom:
        r = -ENOMEM;
fail:
        fabric_env_done(&e);
        return r;
}

int fabric_env_derive(const NodeContext *c, Snapshot *s, FabricEnv *ret) {
        return fabric_env_derive_link(c, s, /* link= */ NULL, ret);
}

static bool value_is_plain(const char *s) {
        if (isempty(s))
                return false;
        for (const char *p = s; *p; p++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._,:/@+=-", *p))
                        return false;
        return true;
}

static void put_value(FILE *f, const char *s) {
        if (value_is_plain(s)) {
                fputs(s, f);
                return;
        }
        fputc('\'', f);
        for (const char *p = s; *p; p++)
                if (*p == '\'')
                        fputs("'\\''", f);
                else
                        fputc(*p, f);
        fputc('\'', f);
}

int fabric_env_render(const FabricEnv *e, FabricEnvFormat format, char **ret) {
        _cleanup_(freep) char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (format < 0 || format >= _FABRIC_ENV_FORMAT_MAX)
                return -EINVAL;

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        if (format == FABRIC_ENV_FORMAT_FILE)
                fputs("# The fabric environment of this node, written by halod (see haloctl(1), env).\n"
                      "# Use it as a systemd EnvironmentFile=, a container env file, or in a shell:\n"
                      "#   set -a; . " FABRIC_ENV_PATH "; set +a\n",
                      f);
        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++) {
                if (!fabric_env_applies(e, v))
                        continue;
                if (!e->values[v]) {
                        if (format == FABRIC_ENV_FORMAT_FILE)
                                fprintf(f,
                                        "# %s not set: %s\n",
                                        fabric_env_var_to_string(v),
                                        strna(e->reasons[v]));
                        continue;
                }
                fprintf(f,
                        "%s%s=",
                        format == FABRIC_ENV_FORMAT_SHELL ? "export " : "",
                        fabric_env_var_to_string(v));
                put_value(f, e->values[v]);
                fputc('\n', f);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

void fabric_env_dump_json(const FabricEnv *e, JsonWriter *w) {
        json_begin_object(w);
        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                if (e->values[v])
                        json_kv_string(w, fabric_env_var_to_string(v), e->values[v]);
        json_key(w, "missing");
        json_begin_object(w);
        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                if (!e->values[v] && fabric_env_applies(e, v))
                        json_kv_string(w, fabric_env_var_to_string(v), strna(e->reasons[v]));
        json_end_object(w);
        json_end_object(w);
}

int fabric_env_write(const FabricEnv *e, const char *path) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = fabric_env_render(e, FABRIC_ENV_FORMAT_FILE, &text);
        if (r < 0)
                return r;
        return write_file_atomic_if_changed(path, text, 0644);
}

/* SPDX-License-Identifier: MIT */
/* Derives, renders and writes the CDI spec of the fabric: device nodes from sysfs, the environment
 * from fabric-env.c. */
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "export/cdi.h"
#include "rdma/rdma-sysfs.h"
#include "snapshot/fabric.h"

void cdi_spec_done(CdiSpec *s) {
        for (size_t i = 0; i < s->n_devices; i++) {
                free(s->devices[i].name);
                strv_free(s->devices[i].nodes);
                fabric_env_done(&s->devices[i].env);
        }
        s->devices = mfree(s->devices);
        s->n_devices = 0;
        s->host_root = mfree(s->host_root);
        s->problems = strv_free(s->problems);
}

bool cdi_spec_complete(const CdiSpec *s) {
        if (s->problems)
                return false;
        for (size_t i = 0; i < s->n_devices; i++)
                if (!fabric_env_complete(&s->devices[i].env))
                        return false;
        return true;
}

/* CDI's rule for device names: a letter or digit, then letters, digits, '_', '-', '.' and ':'. */
static bool cdi_name_valid(const char *name) {
        if (isempty(name) ||
            !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", name[0]))
                return false;
        for (const char *p = name; *p; p++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:", *p))
                        return false;
        return true;
}

/* The uverbs node of the port's RDMA device, appended to nodes, or why not to problems. */
static int add_uverbs(
        const NodeContext *c, const FabricPort *port, const FabricEnv *env, CdiSpec *s, char ***nodes) {
        _cleanup_(freep) char *found = NULL, *uverbs = NULL;
        const char *ibdev = env->values[FABRIC_ENV_NCCL_IB_HCA];
        int r;

        if (!ibdev) {
                r = rdma_sysfs_device_of_pci(c->host, port->pci, &found);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return strv_extendf(
                                &s->problems,
                                "%s: no RDMA device%s%s%s, so no /dev/infiniband/uverbs* for it",
                                port->link,
                                port->pci ? " on " : "",
                                strempty(port->pci),
                                r == -ENOSYS ? " (no /sys/class/infiniband: no RDMA driver is loaded)" : "");
                ibdev = found;
        }
        r = rdma_sysfs_uverbs_of_device(c->host, ibdev, &uverbs);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return strv_extendf(
                        &s->problems,
                        "%s: %s has no uverbs device in /sys/class/infiniband_verbs: is ib_uverbs loaded "
                        "(modprobe ib_uverbs)?",
                        port->link,
                        ibdev);
        r = strv_extendf(nodes, "/dev/infiniband/%s", uverbs);
        if (r < 0)
                return r;
        return 0;
}

static int add_device(CdiSpec *s, const char *name, char **nodes, FabricEnv *env) {
        CdiDevice *d;

        d = reallocarray(s->devices, s->n_devices + 1, sizeof(CdiDevice));
        if (!d)
                return -ENOMEM;
        s->devices = d;
        d = &s->devices[s->n_devices];
        *d = (CdiDevice){ .name = strdup(name), .nodes = nodes };
        if (!d->name)
                return -ENOMEM;
        d->env = *env;
        *env = (FabricEnv){};
        s->n_devices++;
        return 0;
}

/* Whether the host has rdma_cm's node, as the runtime that reads the spec will find it: 1, 0 (a problem
 * says why), or -ENOMEM. stat(), not access(): access() asks the device cgroup too (the kernel's
 * inode_permission()), and under systemd's DevicePolicy= (halod.service and halod-helper.service allow
 * only infiniband_verbs) a node it does not allow looks missing (EPERM), although it exists. */
static int find_rdma_cm(const NodeContext *c, CdiSpec *s) {
        _cleanup_(freep) char *path = NULL;
        struct stat st;
        int r;

        r = host_path(c->host, "/dev/infiniband/rdma_cm", &path);
        if (r < 0)
                return r;
        if (stat(path, &st) >= 0)
                return 1;
        if (errno == ENOENT || errno == ENOTDIR)
                r = strv_extend(
                        &s->problems,
                        "no /dev/infiniband/rdma_cm: librdmacm in the container cannot resolve addresses "
                        "(modprobe rdma_ucm)");
        else
                r = strv_extendf(
                        &s->problems,
                        "cannot tell whether /dev/infiniband/rdma_cm exists (%s), so it is left out: can this "
                        "process search /dev/infiniband?",
                        strerror(errno));
        return r < 0 ? r : 0;
}

static int derive(const NodeContext *c, Snapshot *snapshot, CdiSpec *s) {
        const FabricPort *ports = snapshot->ports;
        size_t n = snapshot->n_ports;
        _cleanup_(strv_freep) char **all_nodes = NULL;
        FabricEnv env = {};
        bool has_rdma_cm;
        int r;

        r = find_rdma_cm(c, s);
        if (r < 0)
                return r;
        has_rdma_cm = r > 0;

        for (size_t i = 0; i < n; i++) {
                _cleanup_(strv_freep) char **nodes = NULL;

                if (!cdi_name_valid(ports[i].link) || streq(ports[i].link, CDI_DEVICE_ALL)) {
                        r = strv_extendf(
                                &s->problems,
                                "%s: not a CDI device name (a letter or digit, then letters, digits, _-.: and not "
                                "\"" CDI_DEVICE_ALL "\"): only in \"" CDI_DEVICE_ALL "\"",
                                ports[i].link);
                        if (r < 0)
                                return r;
                        continue;
                }
                r = fabric_env_derive_link(c, snapshot, ports[i].link, &env);
                if (r < 0)
                        return r;
                r = add_uverbs(c, &ports[i], &env, s, &nodes);
                if (r >= 0 && has_rdma_cm)
                        r = strv_extend(&nodes, "/dev/infiniband/rdma_cm");
                if (r >= 0)
                        r = add_device(s, ports[i].link, nodes, &env);
                if (r < 0) {
                        fabric_env_done(&env);
                        return r;
                }
                TAKE_PTR(nodes);
        }

        /* "all": every link's nodes once (two links may share a device), and fabric.env's variables. */
        for (size_t i = 0; i < s->n_devices; i++)
                STRV_FOREACH(node, s->devices[i].nodes)
                        if (!strv_contains(all_nodes, *node) && !streq(*node, "/dev/infiniband/rdma_cm")) {
                                r = strv_extend(&all_nodes, *node);
                                if (r < 0)
                                        return r;
                        }
        if (has_rdma_cm) {
                r = strv_extend(&all_nodes, "/dev/infiniband/rdma_cm");
                if (r < 0)
                        return r;
        }
        r = fabric_env_derive(c, snapshot, &env);
        if (r < 0)
                return r;
        r = add_device(s, CDI_DEVICE_ALL, all_nodes, &env);
        if (r < 0) {
                fabric_env_done(&env);
                return r;
        }
        TAKE_PTR(all_nodes);
        return 0;
}

int cdi_spec_derive(const NodeContext *c, Snapshot *snapshot, CdiSpec *ret) {
        _cleanup_(snapshot_done) Snapshot own = {};
        CdiSpec s = {};
        int r;

        if (!c->node || !c->profile)
                return -EINVAL;

        s.host_root = strdup(host_is_running_system(c->host) ? "" : c->host->root);
        if (!s.host_root)
                return -ENOMEM;
        snapshot = snapshot_or_own(snapshot, &own, c);
        r = snapshot_read(snapshot, SNAPSHOT_RDMA);
        if (r >= 0)
                r = derive(c, snapshot, &s);
        if (r < 0) {
                cdi_spec_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

static bool has_env(const FabricEnv *e) {
        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                if (e->values[v])
                        return true;
        return false;
}

/* The spec as JSON (CDI's own format, not haloctl's --json). */
static void cdi_spec_dump_json(const CdiSpec *s, JsonWriter *w) {
        json_begin_object(w);
        json_kv_string(w, "cdiVersion", CDI_VERSION);
        json_kv_string(w, "kind", CDI_KIND);
        json_key(w, "devices");
        json_begin_array(w);
        for (size_t i = 0; i < s->n_devices; i++) {
                const CdiDevice *d = &s->devices[i];

                json_begin_object(w);
                json_kv_string(w, "name", d->name);
                json_key(w, "containerEdits");
                json_begin_object(w);
                if (has_env(&d->env)) {
                        json_key(w, "env");
                        json_begin_array(w);
                        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                                if (d->env.values[v]) {
                                        _cleanup_(freep) char *kv = NULL;

                                        if (asprintf(&kv, "%s=%s", fabric_env_var_to_string(v), d->env.values[v]) <
                                            0)
                                                kv = NULL;
                                        json_string(w, kv);
                                }
                        json_end_array(w);
                }
                if (d->nodes) {
                        json_key(w, "deviceNodes");
                        json_begin_array(w);
                        /* No type, major or minor: the runtime reads them from the node when it starts
                         * the container, so that a spec written before a driver reload stays right. */
                        STRV_FOREACH(node, d->nodes) {
                                json_begin_object(w);
                                json_kv_string(w, "path", *node);
                                if (!isempty(s->host_root)) {
                                        _cleanup_(freep) char *host = NULL;

                                        if (asprintf(&host, "%s%s", s->host_root, *node) < 0)
                                                host = NULL;
                                        json_kv_string(w, "hostPath", host);
                                }
                                json_end_object(w);
                        }
                        json_end_array(w);
                }
                json_end_object(w);
                json_end_object(w);
        }
        json_end_array(w);
        json_end_object(w);
}

int cdi_spec_render(const CdiSpec *s, char **ret) {
        _cleanup_(freep) char *text = NULL;
        size_t size = 0;
        JsonWriter w;
        FILE *f;

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        json_writer_init(&w, f, /* pretty= */ true);
        cdi_spec_dump_json(s, &w);
        json_writer_finish(&w);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

int cdi_spec_write(const CdiSpec *s, const char *path) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = cdi_spec_render(s, &text);
        if (r < 0)
                return r;
        return write_file_atomic_if_changed(path, text, 0644);
}

/* A node the helper lets through: /dev/infiniband/ and one name that cannot climb out of it. */
static bool cdi_node_safe(const char *node) {
        const char *name = startswith(node, "/dev/infiniband/");

        return name && cdi_name_valid(name) && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..");
}

int cdi_spec_check_safe(const CdiSpec *s, char **ret_reason) {
        const char *why = NULL, *what = NULL;

        for (size_t i = 0; i < s->n_devices && !why; i++) {
                if (!cdi_name_valid(s->devices[i].name)) {
                        why = "a device name that CDI does not allow";
                        what = s->devices[i].name;
                }
                STRV_FOREACH(node, s->devices[i].nodes)
                        if (!why && !cdi_node_safe(*node)) {
                                why = "a device node outside /dev/infiniband";
                                what = *node;
                        }
        }
        if (!why)
                return 0;
        if (ret_reason && asprintf(ret_reason, "%s: '%s'", why, strempty(what)) < 0)
                *ret_reason = NULL;
        return -EPERM;
}

int cdi_spec_remove(const char *path) {
        if (unlink(path) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        return 1;
}

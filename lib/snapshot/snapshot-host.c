/* SPDX-License-Identifier: MIT */
/* Reading the snapshot's host facts: /proc/cmdline, the boot configuration, the amdgpu cards and TTM's
 * page limit, /proc/meminfo, /etc/hosts and the host's own name, the memlock limits' sources, /etc/group,
 * the device nodes. */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "basic/etc-group.h"
#include "basic/etc-hosts.h"
#include "basic/meminfo.h"
#include "basic/strv.h"
#include "net/netplan-match.h"
#include "net/nss-resolve.h"
#include "snapshot/amdgpu.h"
#include "snapshot/snapshot.h"

static void bytes_done(SnapshotBytes *b) {
        free(b->path);
        free(b->text);
}

static void conf_files_done(SnapshotConfFiles *c) {
        for (size_t i = 0; i < c->n; i++) {
                free(c->files[i].path);
                free(c->files[i].text);
        }
        *c = (SnapshotConfFiles){ .files = mfree(c->files) };
}

void snapshot_forget_host(Snapshot *s, SnapshotPart parts) {
        SnapshotHost *h = &s->host;

        if (parts & SNAPSHOT_CMDLINE) {
                h->cmdline = mfree(h->cmdline);
                h->cmdline_parsed = kernel_cmdline_free(h->cmdline_parsed);
                h->cmdline_error = 0;
        }
        if (parts & SNAPSHOT_BOOT) {
                h->boot = boot_config_free(h->boot);
                h->boot_failed_path = mfree(h->boot_failed_path);
                h->boot_error = 0;
                boot_fix_facts_done(&h->boot_fix);
        }
        if (parts & SNAPSHOT_GPUS) {
                for (size_t i = 0; i < h->n_gpus; i++) {
                        free(h->gpus[i].card);
                        free(h->gpus[i].pci);
                        bytes_done(&h->gpus[i].vram);
                        bytes_done(&h->gpus[i].gtt);
                        pci_iommu_done(&h->gpus[i].iommu);
                }
                h->gpus = mfree(h->gpus);
                h->n_gpus = 0;
                h->drm = strv_free(h->drm);
                h->drm_error = h->gpus_error = 0;
                h->ttm_text = mfree(h->ttm_text);
                h->ttm_pages_limit = 0;
                h->ttm_path = NULL;
                h->ttm_error = 0;
        }
        if (parts & SNAPSHOT_MEMINFO) {
                h->mem_total = 0;
                h->meminfo_error = h->mem_total_error = 0;
        }
        if (parts & SNAPSHOT_ETC_HOSTS) {
                h->etc_hosts = mfree(h->etc_hosts);
                h->etc_hosts_error = 0;
                h->hostname = mfree(h->hostname);
                h->hostname_error = 0;
        }
        if (parts & SNAPSHOT_MEMLOCK) {
                memlock_facts_done(&h->memlock);
                h->memlock = (MemlockFacts){};
        }
        if (parts & SNAPSHOT_ETC_GROUP) {
                h->etc_group = mfree(h->etc_group);
                h->etc_group_error = 0;
        }
        if (parts & SNAPSHOT_NET_CONFIG) {
                conf_files_done(&h->network_files);
                conf_files_done(&h->netplan_files);
        }
        if (parts & SNAPSHOT_NAMES) {
                for (size_t i = 0; i < h->n_names; i++) {
                        free(h->names[i].name);
                        free(h->names[i].addresses);
                }
                h->names = mfree(h->names);
                h->n_names = 0;
        }
        if (parts & SNAPSHOT_DEVICES) {
                device_nodes_done(&h->uverbs);
                device_nodes_done(&h->render);
                device_node_done(&h->kfd);
                h->uverbs = h->render = (DeviceNodes){};
                h->kfd = (DeviceNode){};
                h->kfd_in_sysfs = false;
                h->nic_family = NIC_FAMILY_UNKNOWN;
        }
        s->parts &= ~(parts & SNAPSHOT_HOST_PARTS);
}

static int read_cmdline(const Host *host, SnapshotHost *h) {
        _cleanup_(freep) char *raw = NULL;
        int r;

        r = host_read_line(host, PROC_CMDLINE, &raw);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                h->cmdline = TAKE_PTR(raw);
                r = kernel_cmdline_parse(h->cmdline, &h->cmdline_parsed);
                if (r == -ENOMEM)
                        return r;
        }
        h->cmdline_error = r < 0 ? r : 0;
        return 0;
}

static int read_boot(const Host *host, SnapshotHost *h) {
        int r;

        r = boot_config_load(host, &h->boot, &h->boot_failed_path);
        if (r == -ENOMEM)
                return r;
        h->boot_error = r < 0 ? r : 0;
        return boot_fix_facts_read(host, h->boot, &h->boot_fix);
}

static int read_bytes(const Host *host, const char *card, const char *attribute, SnapshotBytes *ret) {
        int r;

        r = amdgpu_card_read_bytes(host, card, attribute, &ret->path, &ret->text, &ret->bytes);
        if (r == -ENOMEM)
                return r;
        ret->error = r < 0 ? r : 0;
        return 0;
}

static int read_gpu(const Host *host, const char *card, SnapshotGpu *g) {
        int r;

        g->card = strdup(card);
        if (!g->card)
                return -ENOMEM;
        r = drm_card_pci_address(host, card, &g->pci);
        if (r == -ENOMEM)
                return r;
        g->pci_error = r < 0 ? r : 0;
        if (g->pci) {
                r = pci_iommu_read(host, g->pci, &g->iommu);
                if (r < 0)
                        return r;
        }
        r = read_bytes(host, card, "mem_info_vram_total", &g->vram);
        if (r < 0)
                return r;
        return read_bytes(host, card, "mem_info_gtt_total", &g->gtt);
}

static int read_gpus(const Host *host, SnapshotHost *h) {
        _cleanup_(strv_freep) char **cards = NULL;
        int r;

        r = host_list_directory(host, DRM_CLASS_DIR, &h->drm);
        if (r == -ENOMEM)
                return r;
        h->drm_error = r < 0 ? r : 0;
        h->gpus_error = r < 0 && r != -ENOENT && r != -ENOTDIR ? r : 0;
        r = amdgpu_cards_filter(host, h->drm, &cards);
        if (r < 0)
                return r;
        h->gpus = calloc(strv_length(cards) ?: 1, sizeof(SnapshotGpu));
        if (!h->gpus)
                return -ENOMEM;
        STRV_FOREACH(card, cards) {
                r = read_gpu(host, *card, &h->gpus[h->n_gpus++]);
                if (r < 0)
                        return r;
        }
        r = ttm_read_pages_limit(host, &h->ttm_path, &h->ttm_text, &h->ttm_pages_limit);
        if (r == -ENOMEM)
                return r;
        h->ttm_error = r < 0 ? r : 0;
        return 0;
}

static int read_meminfo(const Host *host, SnapshotHost *h) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = host_read_file(host, PROC_MEMINFO, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        h->meminfo_error = r < 0 ? r : 0;
        if (r >= 0) {
                r = meminfo_total(text, &h->mem_total);
                h->mem_total_error = r < 0 ? r : 0;
        }
        return 0;
}

static int read_hostname(const Host *host, SnapshotHost *h) {
        char name[HOST_NAME_MAX + 1] = {};
        int r;

        if (host_is_running_system(host)) {
                if (gethostname(name, sizeof(name) - 1) < 0) {
                        h->hostname_error = -errno;
                        return 0;
                }
                h->hostname = strdup(name);
                return h->hostname ? 0 : -ENOMEM;
        }
        r = host_read_line(host, ETC_HOSTNAME_PATH, &h->hostname);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && isempty(h->hostname)) {
                h->hostname = mfree(h->hostname);
                r = -ENODATA;
        }
        h->hostname_error = r < 0 ? r : 0;
        return 0;
}

static int read_etc_hosts(const Host *host, SnapshotHost *h) {
        int r;

        r = read_hostname(host, h);
        if (r < 0)
                return r;
        r = host_read_file(host, ETC_HOSTS_PATH, HOST_FILE_MAX, &h->etc_hosts, NULL);
        if (r == -ENOENT) {
                h->etc_hosts = strdup("");
                r = h->etc_hosts ? 0 : -ENOMEM;
        }
        if (r == -ENOMEM)
                return r;
        h->etc_hosts_error = r < 0 ? r : 0;
        return 0;
}

static int read_memlock(const Host *host, SnapshotHost *h) {
        return memlock_facts_read(host, &h->memlock);
}

static int read_etc_group(const Host *host, SnapshotHost *h) {
        int r;

        r = host_read_file(host, ETC_GROUP_PATH, HOST_FILE_MAX, &h->etc_group, NULL);
        if (r == -ENOMEM)
                return r;
        h->etc_group_error = r < 0 ? r : 0;
        return 0;
}

static int read_devices(const Host *host, SnapshotHost *h) {
        int r;

        r = device_nodes_read(host, UVERBS_DIR, "uverbs", &h->uverbs);
        if (r >= 0)
                r = device_node_read(host, KFD_NODE, &h->kfd);
        if (r >= 0)
                r = device_nodes_read(host, DRI_DIR, "renderD", &h->render);
        if (r < 0)
                return r;
        h->kfd_in_sysfs = host_path_exists(host, KFD_SYSFS);
        /* Which RDMA module to name when there is no uverbs device and the fabric NIC is not known. */
        h->nic_family = h->uverbs.n == 0 ? nic_family_on_host(host) : NIC_FAMILY_UNKNOWN;
        return 0;
}

/* Through NSS, as the workload resolves them: each other node's hostname, when it has fabric addresses to
 * compare with (the hosts. checks judge nothing else). */
static int read_names(const NodeContext *c, SnapshotHost *h) {
        if (!host_is_running_system(c->host) || !c->profile || !c->node)
                return 0;
        h->names = calloc(c->profile->n_nodes ?: 1, sizeof(SnapshotName));
        if (!h->names)
                return -ENOMEM;
        for (size_t i = 0; i < c->profile->n_nodes; i++) {
                const ProfileNode *peer = &c->profile->nodes[i];
                SnapshotName *e = &h->names[h->n_names];

                if (peer == c->node || streq(peer->name, c->node->name) || !peer->hostname ||
                    peer->n_links == 0)
                        continue;
                e->name = strdup(peer->hostname);
                if (!e->name)
                        return -ENOMEM;
                h->n_names++;
                e->error = nss_resolve_ipv4(e->name, &e->addresses, &e->n, &e->gai_error);
                if (e->error == -ENOMEM)
                        return -ENOMEM;
        }
        return 0;
}

static int read_conf_files(
        const Host *host,
        const char *const *dirs,
        size_t n_dirs,
        const char *suffix,
        size_t max,
        SnapshotConfFiles *ret) {
        _cleanup_(strv_freep) char **paths = NULL;
        int r;

        r = host_conf_files(host, dirs, n_dirs, suffix, &paths);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                ret->error = r;
                return 0;
        }
        ret->files = calloc(strv_length(paths) ?: 1, sizeof(SnapshotConfFile));
        if (!ret->files)
                return -ENOMEM;
        STRV_FOREACH(p, paths) {
                SnapshotConfFile *f = &ret->files[ret->n++];

                f->path = strdup(*p);
                if (!f->path)
                        return -ENOMEM;
                r = host_read_file(host, *p, max, &f->text, &f->size);
                if (r == -ENOMEM)
                        return r;
                f->error = r < 0 ? r : 0;
        }
        return 0;
}

static int read_net_config(const Host *host, SnapshotHost *h) {
        static const char *const networkd[] = { NETWORKD_DIRS }, *const netplan[] = { NETPLAN_DIR };
        int r;

        r = read_conf_files(
                host, networkd, ELEMENTSOF(networkd), ".network", NETWORK_FILE_MAX, &h->network_files);
        if (r < 0)
                return r;
        return read_conf_files(
                host, netplan, ELEMENTSOF(netplan), ".yaml", NETPLAN_FILE_MAX, &h->netplan_files);
}

int snapshot_read_host(Snapshot *s, SnapshotPart parts) {
        const Host *host = s->context->host;
        static const struct {
                SnapshotPart part;
                int (*read)(const Host *host, SnapshotHost *h);
        } readers[] = {
                { SNAPSHOT_CMDLINE, read_cmdline },
                { SNAPSHOT_BOOT, read_boot },
                { SNAPSHOT_GPUS, read_gpus },
                { SNAPSHOT_MEMINFO, read_meminfo },
                { SNAPSHOT_ETC_HOSTS, read_etc_hosts },
                { SNAPSHOT_MEMLOCK, read_memlock },
                { SNAPSHOT_ETC_GROUP, read_etc_group },
                { SNAPSHOT_DEVICES, read_devices },
                { SNAPSHOT_NET_CONFIG, read_net_config },
        };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(readers); i++) {
                if (!(parts & readers[i].part))
                        continue;
                r = readers[i].read(host, &s->host);
                if (r < 0) {
                        snapshot_forget_host(s, readers[i].part);
                        return r;
                }
                s->parts |= readers[i].part;
        }
        if (parts & SNAPSHOT_NAMES) {
                r = read_names(s->context, &s->host);
                if (r < 0) {
                        snapshot_forget_host(s, SNAPSHOT_NAMES);
                        return r;
                }
                s->parts |= SNAPSHOT_NAMES;
        }
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The snapshot's facts of the host itself, each read once and kept with its error, for the kernel.,
 * gpu. and node. checks: the running kernel's command line (SNAPSHOT_CMDLINE), the next boot's
 * configuration (SNAPSHOT_BOOT), the DRM cards and amdgpu's view of each (SNAPSHOT_GPUS) and
 * MemTotal (SNAPSHOT_MEMINFO), /etc/hosts with the host's own name (SNAPSHOT_ETC_HOSTS), and the memlock
 * limits a workload gets (SNAPSHOT_MEMLOCK), /etc/group (SNAPSHOT_ETC_GROUP) and the device nodes a
 * workload opens (SNAPSHOT_DEVICES), and what NSS gives the other nodes' names (SNAPSHOT_NAMES). A check
 * that finds an error here reports that it could not look (inside halod's sandbox /proc or /boot may be out
 * of reach), never what it did not see. */
#pragma once

#include <netinet/in.h>
#include <stdint.h>

#include "basic/device-node.h"
#include "boot/boot-fix-facts.h"
#include "boot/bootcfg.h"
#include "boot/cmdline.h"
#include "limits/memlock-facts.h"
#include "nic/nic-family.h"
#include "nic/pci-iommu.h"

#define PROC_CMDLINE "/proc/cmdline"
#define PROC_MEMINFO "/proc/meminfo"
#define UVERBS_DIR "/dev/infiniband"
#define KFD_NODE "/dev/kfd"
#define KFD_SYSFS "/sys/class/kfd/kfd"
#define DRI_DIR "/dev/dri"

/* One of amdgpu's byte counts of a card (mem_info_vram_total, mem_info_gtt_total). */
typedef struct SnapshotBytes {
        uint64_t bytes; /* valid when error is 0 */
        char *path;     /* the attribute below the host root, for messages */
        char *text;     /* what it holds; NULL when it could not be read */
        int error;      /* the errno of reading it; -EBADMSG: it holds no decimal byte count */
} SnapshotBytes;

/* The directories networkd reads .network files from, first wins for a name (systemd.network(5)). */
#define NETWORKD_DIRS                                                                     \
        "/etc/systemd/network", "/run/systemd/network", "/usr/local/lib/systemd/network", \
                "/usr/lib/systemd/network", "/lib/systemd/network"
#define NETPLAN_DIR "/etc/netplan"
#define NETWORK_FILE_MAX (64U * 1024U)

/* One configuration file, as read. */
typedef struct SnapshotConfFile {
        char *path; /* below the host root, as host_conf_files() names it */
        char *text; /* NULL: error says why */
        size_t size;
        int error;
} SnapshotConfFile;

/* The files of one kind, in the order their reader takes them. */
typedef struct SnapshotConfFiles {
        SnapshotConfFile *files;
        size_t n;
        int error; /* the errno of listing them (host_conf_files()); the files are then none */
} SnapshotConfFiles;

/* What NSS said of one hostname. */
typedef struct SnapshotName {
        char *name;
        struct in_addr *addresses; /* each once, in NSS's order; NULL when the name does not resolve */
        size_t n;
        int error;     /* nss_resolve_ipv4()'s errno: -EAGAIN with gai_error, or NSS's */
        int gai_error; /* getaddrinfo()'s EAI_* code with -EAGAIN; 0 otherwise */
} SnapshotName;

/* One DRM card that amdgpu drives. */
typedef struct SnapshotGpu {
        char *card; /* "card1" */
        char *pci;  /* its PCI device ("0000:c3:00.0"); NULL: pci_error says why */
        int pci_error;
        SnapshotBytes vram; /* mem_info_vram_total: the carve-out */
        SnapshotBytes gtt;  /* mem_info_gtt_total */
        PciIommu iommu;     /* how the IOMMU treats the PCI device, when pci is known */
} SnapshotGpu;

typedef struct SnapshotHost {
        /* SNAPSHOT_CMDLINE: /proc/cmdline as read (NULL: it could not be read) and split (NULL:
         * cmdline_error, the errno of reading or of splitting it, says why). */
        char *cmdline;
        KernelCmdline *cmdline_parsed;
        int cmdline_error;

        /* SNAPSHOT_BOOT: boot_config_load()'s answer: boot, or boot_error and the path it failed on
         * (-ENOENT: no boot configuration found). */
        BootConfig *boot;
        char *boot_failed_path;
        int boot_error;
        /* SNAPSHOT_BOOT too: what the advice on a next boot that lacks parameters reads. */
        BootFixFacts boot_fix;

        /* SNAPSHOT_GPUS: the entries of DRM_CLASS_DIR (drm_error: the errno of listing it), and the
         * cards among them that amdgpu drives, in number order; gpus_error is drm_error unless the
         * directory is absent (no GPU driver at all: no cards, no error). */
        char **drm;
        int drm_error;
        SnapshotGpu *gpus;
        size_t n_gpus;
        int gpus_error;
        /* SNAPSHOT_GPUS too: TTM's page limit (TTM_PAGES_LIMIT_PATH, pages of 4 KiB), which KFD takes as
         * the most ROCm may allocate (amdgpu_amdkfd_gpuvm.c: max_ttm_mem_limit = ttm_tt_pages_limit() <<
         * PAGE_SHIFT); ttm_text as read (NULL: unread); ttm_error: the errno of reading it, -EBADMSG
         * when it holds no page count. */
        uint64_t ttm_pages_limit;
        const char *ttm_path; /* TTM_PAGES_LIMIT_PATH or AMDTTM_PAGES_LIMIT_PATH */
        char *ttm_text;
        int ttm_error;

        /* SNAPSHOT_MEMINFO: MemTotal in bytes; meminfo_error: the errno of reading PROC_MEMINFO;
         * mem_total_error: of its MemTotal line (-ENOENT: none, -EBADMSG: not "<number> kB"). */
        uint64_t mem_total;
        int meminfo_error;
        int mem_total_error;

        /* SNAPSHOT_ETC_HOSTS: ROOT/etc/hosts ("" when there is none; NULL: etc_hosts_error says why).
         * Below --root names resolve from it; on the running system through NSS, and the file only
         * says which of its lines gave an answer. */
        char *etc_hosts;
        int etc_hosts_error;
        /* And the host's own name: the running system's (gethostname(2)), or below --root the first
         * line of ROOT/etc/hostname, which systemd-hostnamed and Debian's hostname.sh set it from; NULL:
         * hostname_error says why (-ENOENT: no such file). */
        char *hostname;
        int hostname_error;

        /* SNAPSHOT_MEMLOCK: what each source of a workload's memlock limit gives, each with why it could
         * not be read (memlock_facts_read()). */
        MemlockFacts memlock;

        /* SNAPSHOT_ETC_GROUP: /etc/group below the host root as read (NULL: etc_group_error, the errno
         * of reading it, says why). */
        char *etc_group;
        int etc_group_error;

        /* SNAPSHOT_DEVICES: the uverbs devices (UVERBS_DIR), ROCm's nodes (KFD_NODE, the render nodes in
         * DRI_DIR), whether sysfs has KFD (KFD_SYSFS), and, when there is no uverbs device, the NIC family
         * of the host's PCI bus (nic_family_on_host(); NIC_FAMILY_UNKNOWN otherwise). */
        DeviceNodes uverbs;
        DeviceNode kfd;
        DeviceNodes render;
        bool kfd_in_sysfs;
        NicFamily nic_family;

        /* SNAPSHOT_NAMES: on the running system, one entry for each other node of the profile that has a
         * hostname and fabric addresses, in profile order; none below --root. */
        SnapshotName *names;
        size_t n_names;

        /* SNAPSHOT_NET_CONFIG: the .network files of NETWORKD_DIRS, in networkd's order, and the .yaml
         * files of NETPLAN_DIR. */
        SnapshotConfFiles network_files;
        SnapshotConfFiles netplan_files;
} SnapshotHost;

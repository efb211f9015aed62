/* SPDX-License-Identifier: MIT */
/* For the e2e test: reads every source the checks read, with the library's own readers, and prints
 * one line per source: "readable", "hidden" (it exists, or should, and cannot be read here: the
 * error follows) or "absent" (this host has none: no PCI device, no boot entry, no RDMA). Run once as
 * root and once inside halod's sandbox, the sources readable only as root are what the unit hides
 * from the checks; halod(8) lists them under SECURITY.
 *
 * Usage: e2e-sandbox-sources IFNAME     (IFNAME: the fabric interface, for the ethtool ioctl)
 * Output: STATE <tab> SOURCE <tab> CHECKS <tab> DETAIL, sorted as the checks run. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "basic/host.h"
#include "basic/netlink.h"
#include "basic/strv.h"
#include "boot/bootcfg.h"
#include "boot/modprobe-conf.h"
#include "check/check-gpu.h"
#include "limits/memlock-sources.h"
#include "net/firewalld.h"
#include "net/rtnl.h"
#include "net/sock-diag.h"
#include "nic/devlink.h"
#include "nic/ethtool.h"
#include "nic/ice-ddp.h"
#include "rdma/rdma-qp-dump.h"
#include "rdma/taskstats.h"

static const Host host = { .root = "" };

static void report(const char *source, const char *checks, int r, const char *detail) {
        const char *state = r > 0 ? "absent" : r == 0 ? "readable" : "hidden";

        printf("%s\t%s\t%s\t%s\n", state, source, checks, detail ?: (r < 0 ? strerror(-r) : ""));
}

/* 1 when path does not exist (nothing to read on this host), else 0 or the error. */
static int absent_if_enoent(int r) {
        return r == -ENOENT || r == -ENOTDIR ? 1 : r;
}

static void probe_file(const char *path, const char *checks) {
        _cleanup_(freep) char *text = NULL;

        report(path, checks, absent_if_enoent(host_read_file(&host, path, HOST_FILE_MAX, &text, NULL)), NULL);
}

static void probe_directory(const char *path, const char *checks) {
        _cleanup_(strv_freep) char **entries = NULL;
        int r = host_list_directory(&host, path, &entries);

        report(path, checks, r == 0 && !entries ? 1 : absent_if_enoent(r), NULL);
}

static void probe_boot_config(void) {
        _cleanup_(boot_config_freep) BootConfig *b = NULL;
        _cleanup_(freep) char *failed = NULL;
        int r = boot_config_load(&host, &b, &failed);

        report("the boot configuration (" BOOT_CONFIG_SEARCHED ")",
               "kernel.cmdline-next",
               r == -ENOENT ? 1 : r,
               failed);
}

/* PCI config space past byte 64 of the first device: the kernel hands it only to CAP_SYS_ADMIN
 * (libpci reads the same file). */
static void probe_pci_config(void) {
        _cleanup_(strv_freep) char **devices = NULL;
        _cleanup_(freep) char *path = NULL;
        _cleanup_(closep) int fd = -EBADF;
        uint8_t buf[4];
        ssize_t n;

        if (host_list_directory(&host, "/sys/bus/pci/devices", &devices) < 0 || !devices) {
                report("/sys/bus/pci/devices/*/config past byte 64", "nic.pcie,kernel.aspm", 1, NULL);
                return;
        }
        if (asprintf(&path, "/sys/bus/pci/devices/%s/config", devices[0]) < 0)
                abort();
        fd = open(path, O_RDONLY | O_CLOEXEC);
        n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf), 64);
        report("/sys/bus/pci/devices/*/config past byte 64",
               "nic.pcie,kernel.aspm",
               n == (ssize_t) sizeof(buf) ? 0
                       : n < 0            ? negative_errno()
                                          : -EACCES,
               n == 0 ? "the kernel hands out only the first 64 bytes" : NULL);
}

/* The sysfs link attributes nic.pcie falls back to, of the first device that has them. */
static void probe_pci_link_attributes(void) {
        _cleanup_(strv_freep) char **devices = NULL;
        int r = 1;

        (void) host_list_directory(&host, "/sys/bus/pci/devices", &devices);
        STRV_FOREACH(d, devices) {
                _cleanup_(freep) char *path = NULL, *text = NULL;

                if (asprintf(&path, "/sys/bus/pci/devices/%s/current_link_speed", *d) < 0)
                        abort();
                r = absent_if_enoent(host_read_line(&host, path, &text));
                if (r <= 0)
                        break;
        }
        report("/sys/bus/pci/devices/*/current_link_speed", "nic.pcie", r, NULL);
}

/* A device node: stat() is all gpu.devices does with it. */
static void probe_node(const char *path, const char *checks) {
        struct stat st;

        report(path, checks, stat(path, &st) < 0 ? absent_if_enoent(-errno) : 0, NULL);
}

/* amdgpu's carve-out of the first card it drives. */
static void probe_vram(void) {
        _cleanup_(strv_freep) char **cards = NULL;
        _cleanup_(freep) char *path = NULL, *text = NULL;
        int r = amdgpu_cards_find(&host, &cards);

        if (r >= 0 && !cards)
                r = 1;
        if (r == 0) {
                if (asprintf(&path, DRM_CLASS_DIR "/%s/device/mem_info_vram_total", cards[0]) < 0)
                        abort();
                r = absent_if_enoent(host_read_line(&host, path, &text));
        }
        report(DRM_CLASS_DIR "/card*/device/mem_info_vram_total", "gpu.vram", r, NULL);
}

/* The first PCI device's attribute below /sys/bus/pci/devices/ADDR/ that exists. */
static void probe_pci_attribute(const char *attribute, const char *checks) {
        _cleanup_(strv_freep) char **devices = NULL;
        _cleanup_(freep) char *source = NULL;
        int r = 1;

        (void) host_list_directory(&host, "/sys/bus/pci/devices", &devices);
        STRV_FOREACH(d, devices) {
                _cleanup_(freep) char *path = NULL, *text = NULL;

                if (asprintf(&path, "/sys/bus/pci/devices/%s/%s", *d, attribute) < 0)
                        abort();
                r = absent_if_enoent(host_read_line(&host, path, &text));
                if (r <= 0)
                        break;
        }
        if (asprintf(&source, "/sys/bus/pci/devices/*/%s", attribute) < 0)
                abort();
        report(source, checks, r, NULL);
}

static void probe_kernel_log(void) {
        IceDdpState s;

        /* No device has this address: only whether the log can be read matters. */
        report(ICE_DDP_KMSG " (the kernel log)",
               "nic.driver,rdma.device",
               ice_ddp_state_from_kmsg(&host, "ffff:ff:1f.7", &s, NULL),
               NULL);
}

static void probe_ethtool(const char *ifname) {
        EthtoolDriverInfo info;

        report("SIOCETHTOOL ETHTOOL_GDRVINFO",
               "nic.driver,nic.firmware",
               ethtool_get_driver_info(ifname, &info),
               NULL);
}

static void probe_ethtool_link(const char *ifname) {
        EthtoolLinkSettings link;

        report("SIOCETHTOOL ETHTOOL_GLINKSETTINGS", "nic.speed", ethtool_get_link_settings(ifname, &link), NULL);
}

/* devlink over generic netlink, for the first PCI device: a kernel without devlink, or a device
 * without a devlink instance, has nothing to read; anything else it answers is readable or not. */
static void probe_devlink(void) {
        _cleanup_(devlink_info_done) DevlinkInfo info = {};
        _cleanup_(strv_freep) char **devices = NULL;
        _cleanup_(freep) char *error = NULL;
        int r = 1;

        if (host_list_directory(&host, "/sys/bus/pci/devices", &devices) >= 0 && devices) {
                r = devlink_get_pci_info(devices[0], &info, &error);
                if (r == -EPROTONOSUPPORT || r == -ENODEV)
                        r = 1;
        }
        report("devlink (generic netlink)", "nic.firmware,nic.driver,nic.roce", r, error);
}

static void probe_modprobe_conf(void) {
        _cleanup_(module_block_done) ModuleBlock block = {};
        _cleanup_(strv_freep) char **unreadable = NULL;
        _cleanup_(freep) char *joined = NULL;
        int r = module_find_block(&host, "irdma", &block, &unreadable);

        if (r >= 0 && unreadable) {
                joined = strv_join(unreadable, ", ");
                r = -EACCES;
        }
        report("modprobe.d (/etc, /run, /usr/local/lib, /usr/lib, /lib)", "rdma.driver", r < 0 ? r : 0, joined);
}

static void probe_limits(void) {
        _cleanup_(limits_conf_done) LimitsConf c = {};
        _cleanup_(freep) char *unreadable = NULL;
        int r = limits_conf_read(&host, &c);

        if (r >= 0 && c.unreadable) {
                unreadable = strv_join(c.unreadable, ", ");
                r = -EACCES;
        }
        report(LIMITS_CONF_FILE " and limits.d", "rdma.memlock", r, unreadable);
}

static void probe_containers_conf(void) {
        _cleanup_(containers_conf_done) ContainersConf c = {};
        _cleanup_(freep) char *unreadable = NULL;
        int r = containers_conf_read(&host, &c);

        if (r >= 0 && c.unreadable) {
                unreadable = strv_join(c.unreadable, ", ");
                r = -EACCES;
        }
        if (r == 0 && access("/etc/containers/containers.conf", F_OK) < 0 &&
            access("/usr/share/containers/containers.conf", F_OK) < 0)
                r = 1;
        report("containers.conf", "rdma.memlock", r, unreadable);
}

static void probe_systemd(void) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(freep) char *error = NULL;
        MemlockLimit l;
        int r;

        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = systemd_default_memlock(bus, &l, &error);
        report("systemd's DefaultLimitMEMLOCK (D-Bus)", "rdma.memlock", r, error);
}

static void probe_rtnetlink(void) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(freep) char *error = NULL;
        RtnlState state = {};
        int r;

        r = rtnl_open(&rtnl);
        if (r >= 0)
                r = rtnl_dump(rtnl, &state, &error);
        rtnl_state_done(&state);
        report("rtnetlink (links and addresses)", "link.*", r, error);
}

static void probe_firewalld(void) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r = firewalld_open(&bus);

        if (r > 0)
                r = firewalld_is_running(bus);
        report("firewalld (D-Bus)", "link.*.zone", r < 0 ? r : r > 0 ? 0 : 1, NULL);
}

/* fabric.<node>.transport's TCP side: every TCP socket of the namespace with tcp_info, as the check
 * dumps them (no address filter here: only whether the kernel answers matters). */
static void probe_sock_diag(void) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *nl = NULL;
        _cleanup_(freep) SockDiagTcp *tcp = NULL;
        size_t n = 0;
        int r;

        r = netlink_socket_open(NETLINK_SOCK_DIAG, &nl);
        if (r >= 0)
                r = sock_diag_dump_tcp(nl, NULL, 0, &tcp, &n, NULL);
        report("NETLINK_SOCK_DIAG (TCP sockets with tcp_info)", "fabric.*.transport", r, NULL);
}

/* The first RDMA device of the host, 1 when it has none. */
static int first_rdma_device(char **ret) {
        _cleanup_(strv_freep) char **devices = NULL;
        int r = absent_if_enoent(host_list_directory(&host, "/sys/class/infiniband", &devices));

        if (r != 0)
                return r;
        if (!devices)
                return 1;
        *ret = strdup(devices[0]);
        return *ret ? 0 : -ENOMEM;
}

/* fabric.<node>.transport's QP holders: RDMA netlink's resource tracking (rdma res show qp), where
 * the host has an RDMA device (without one there is nothing to dump, and no ib_core to answer). */
static void probe_rdma_qps(void) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *nl = NULL;
        _cleanup_(freep) RdmaQp *qps = NULL;
        _cleanup_(freep) char *dev = NULL;
        size_t n = 0;
        int r = first_rdma_device(&dev);

        if (r == 0)
                r = netlink_socket_open(NETLINK_RDMA, &nl);
        if (r == 0)
                r = rdma_qp_dump(nl, &qps, &n);
        report("RDMA netlink (RDMA_NLDEV_CMD_RES_QP_GET)", "fabric.*.transport", r, NULL);
}

/* One counter of the first RDMA device's first port below DIRECTORY (counters or hw_counters):
 * fabric.<node>.transport reads the port's volume from there. */
static void probe_rdma_counters(const char *directory) {
        _cleanup_(strv_freep) char **ports = NULL, **counters = NULL;
        _cleanup_(freep) char *dev = NULL, *ports_dir = NULL, *dir = NULL, *path = NULL, *text = NULL,
                              *source = NULL;
        int r = first_rdma_device(&dev);

        if (r == 0 && asprintf(&ports_dir, "/sys/class/infiniband/%s/ports", dev) < 0)
                abort();
        if (r == 0)
                r = absent_if_enoent(host_list_directory(&host, ports_dir, &ports));
        if (r == 0 && !ports)
                r = 1;
        if (r == 0 && asprintf(&dir, "%s/%s/%s", ports_dir, ports[0], directory) < 0)
                abort();
        if (r == 0)
                r = absent_if_enoent(host_list_directory(&host, dir, &counters));
        if (r == 0 && !counters)
                r = 1;
        if (r == 0 && asprintf(&path, "%s/%s", dir, counters[0]) < 0)
                abort();
        if (r == 0)
                r = absent_if_enoent(host_read_line(&host, path, &text));
        if (asprintf(&source, "/sys/class/infiniband/*/ports/*/%s", directory) < 0)
                abort();
        report(source, "fabric.*.transport", r, path);
}

/* The name of a process that holds QPs, which fabric.<node>.transport reads from /proc/PID/comm. The
 * workload runs as another user than halod: PID 1 (root's) stands in for it. */
static void probe_other_comm(void) {
        _cleanup_(freep) char *text = NULL;
        int r = host_read_line(&host, "/proc/1/comm", &text);

        /* With ProtectProc=invisible another user's /proc/PID is not there at all: ENOENT means
         * hidden here, since PID 1 always exists. */
        report("/proc/PID/comm of another user's process",
               "fabric.*.transport",
               r == -ENOENT ? -EACCES : r,
               r == -ENOENT ? "/proc/1 is invisible" : NULL);
}

/* PID 1's limits, which rdma.memlock reads for what su and runuser sessions keep, and (as for every
 * running service's main process) to tell the services that started before DefaultLimitMEMLOCK was
 * raised. */
static void probe_other_limits(void) {
        _cleanup_(freep) char *text = NULL;
        int r = host_read_file(&host, "/proc/1/limits", HOST_FILE_MAX, &text, NULL);

        report("/proc/PID/limits of another user's process",
               "rdma.memlock",
               r == -ENOENT ? -EACCES : r,
               r == -ENOENT ? "/proc/1 is invisible" : NULL);
}

/* Where /proc hides it, fabric.<node>.transport names a QP holder from the kernel's task statistics
 * (generic netlink, CAP_NET_ADMIN); a kernel without CONFIG_TASKSTATS has none to ask. */
static void probe_taskstats(void) {
        _cleanup_(taskstats_closep) Taskstats *t = NULL;
        char name[64];
        int r = taskstats_open(&t);

        if (r >= 0)
                r = taskstats_comm(t, 1, name, sizeof(name));
        report("taskstats (generic netlink) name of another user's process",
               "fabric.*.transport",
               r == -ENOENT ? 1 : r,
               r == -ENOENT ? "no TASKSTATS family (CONFIG_TASKSTATS)" : NULL);
}

int main(int argc, char *argv[]) {
        if (argc != 2) {
                fprintf(stderr, "Usage: %s IFNAME\n", program_invocation_short_name);
                return EXIT_FAILURE;
        }
        probe_file("/proc/cmdline", "kernel.cmdline,gpu.gtt");
        probe_boot_config();
        probe_pci_attribute("iommu_group/type", "kernel.iommu");
        probe_pci_attribute("link/l1_aspm", "kernel.aspm");
        probe_directory("/sys/class/drm", "gpu.*,kernel.iommu");
        probe_vram();
        probe_node("/dev/kfd", "gpu.devices");
        probe_directory("/dev/dri", "gpu.devices");
        probe_directory("/sys/class/kfd", "gpu.devices");
        probe_file("/proc/meminfo", "node.memory");
        probe_file("/etc/hosts", "node.hostname,hosts.*");
        probe_directory("/sys/class/net", "nic.*,link.*.present");
        probe_directory("/sys/bus/pci/devices", "nic.pci");
        probe_pci_config(); /* nic.pcie, kernel.aspm */
        probe_pci_link_attributes();
        probe_ethtool(argv[1]);
        probe_ethtool_link(argv[1]);
        probe_devlink();
        probe_kernel_log();
        probe_directory("/sys/class/infiniband", "rdma.*");
        probe_directory("/sys/module", "rdma.driver");
        probe_modprobe_conf();
        probe_directory("/dev/infiniband", "rdma.memlock");
        probe_file("/etc/group", "rdma.memlock,gpu.devices");
        probe_limits();
        probe_other_limits();
        probe_containers_conf();
        probe_systemd();
        probe_rtnetlink();
        probe_firewalld();
        probe_sock_diag();
        probe_rdma_qps();
        probe_rdma_counters("counters");
        probe_rdma_counters("hw_counters");
        probe_other_comm();
        probe_taskstats();
        return EXIT_SUCCESS;
}

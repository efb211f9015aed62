#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The check room judges facts; it does not read the host (issue 33: "libhalod-check.a references no
file, socket, bus, device or probe I/O"). This lists the undefined symbols of the check library
(nm -u) and fails on every I/O entry point one of its objects references that the allowlist does not
name for that object, and on every allowlist line that no longer holds: the list can only shrink.
Issue 33 wants it empty.

An I/O entry point is a libc, libsystemd, libibverbs or libpci call that opens, reads, lists, stats,
talks over a socket or the bus, or probes a device, or one of halod's own readers in the rooms below
(IO_READERS): a function those rooms export that does that I/O itself.

Usage: check-io-symbols.py NM LIBRARY ALLOWLIST
"""
import re
import subprocess
import sys

# libc and system libraries: files, directories, sockets, polling, name lookup, devices, the bus.
IO_LIBC = {
    "open", "open64", "openat", "openat64", "creat", "read", "pread", "pread64", "readv", "write",
    "pwrite", "close", "fopen", "fopen64", "fdopen", "freopen", "fread", "fgets", "getline",
    "getdelim", "opendir", "fdopendir", "readdir", "readdir64", "scandir", "closedir", "glob",
    "stat", "stat64", "lstat", "lstat64", "fstat", "fstat64", "fstatat", "fstatat64", "statx",
    "access", "faccessat", "readlink", "readlinkat", "realpath", "socket", "socketpair",
    "connect", "bind", "listen", "accept", "accept4", "send", "sendto", "sendmsg", "recv",
    "recvfrom", "recvmsg", "setsockopt", "getsockopt", "poll", "ppoll", "select", "pselect",
    "epoll_create1", "epoll_ctl", "epoll_wait", "ioctl", "mmap", "mmap64", "getaddrinfo",
    "freeaddrinfo", "gethostbyname", "getnameinfo", "getpwnam", "getgrnam", "getgrgid",
    "getpwuid", "dlopen", "dlsym", "sd_booted",
}
IO_PREFIXES = ("sd_bus_", "sd_netlink_", "sd_device_", "ibv_", "mnl_", "pci_")

# halod's readers in the rooms below lib/check: each opens, lists, stats or probes.
IO_READERS = {
    # basic/
    "host_read_file", "host_read_line", "host_list_directory", "host_path_exists",
    "host_readlink_basename", "host_conf_files", "device_node_read", "device_nodes_read",
    "netlink_socket_open", "netlink_socket_close",
    "taskstats_close", "sock_diag_dump_tcp",
    # boot/
    "boot_config_load_grub_default", "boot_loader_tool", "kernel_install_add_command",
    "module_find_block_with_cmdline", "module_state_read", "boot_fix_facts_read",
    # limits/
    "memlock_facts_read", "memlock_facts_read_files", "limits_conf_read", "containers_conf_read",
    "memlock_stale_candidates", "memlock_stale_services", "systemd_default_memlock",
    # net/, nic/
    "nss_resolve_ipv4",
    "ethtool_get_driver_info", "ethtool_get_permanent_address", "ice_ddp_state_read",
    "netdev_read_uint", "nic_family_on_host", "pci_devices_find_ids", "pci_library_load",
    # rdma/, peer/
    "rdma_library_load", "rdma_probe", "rdma_qp_dump", "rdma_qp_holders", "rdma_sysfs_find_device",
    "rdma_sysfs_read_hw_counter", "rdma_sysfs_read_port_counter", "rdma_task_from_proc_or_taskstats",
    "rdma_device_find_gid", "rdma_link_device", "peer_probe_round", "peer_round_run",
    # snapshot/: reads the parts it is asked for that it has not read yet
    "snapshot_read",
}


def is_io(symbol):
    return symbol in IO_LIBC or symbol in IO_READERS or symbol.startswith(IO_PREFIXES)


def referenced(nm, library):
    """{(symbol, source file)} of the I/O entry points the library's objects reference."""
    out = subprocess.run([nm, "-A", "-u", library], check=True, capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        obj = fields[0].rstrip(":").split("/")[-1]
        source = re.sub(r"\.o$", "", obj)
        symbol = fields[-1].split("@")[0]
        if is_io(symbol):
            found.add((symbol, source))
    return found


def allowlist(path):
    allowed = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            if len(fields) != 2:
                sys.exit(f"{path}:{number}: want \"SYMBOL FILE.c\", got \"{line}\"")
            allowed.add((fields[0], fields[1]))
    return allowed


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    nm, library, path = sys.argv[1:]
    found = referenced(nm, library)
    allowed = allowlist(path)
    failed = False
    for symbol, source in sorted(found - allowed, key=lambda p: (p[1], p[0])):
        print(f"FAIL {source} calls {symbol}: lib/check judges facts; read it in a fact room "
              f"(lib/snapshot/ or below) and hand the check the value")
        failed = True
    for symbol, source in sorted(allowed - found, key=lambda p: (p[1], p[0])):
        print(f"FAIL {path} allows \"{symbol} {source}\", which the library no longer references: "
              f"remove the line")
        failed = True
    if failed:
        return 1
    print(f"ok: {len(found)} I/O references left in {library.split('/')[-1]}, each in {path.split('/')[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the nic-* fixture host trees (a fake sysfs, pci.ids, kernel log, /etc) that the NIC and
# RDMA tests read. The trees are committed; this script says how they were made. Run it from
# anywhere: python3 tests/data/hosts/make-nic-fixtures.py
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
BRIDGE = "pci0000:c0/0000:c0:01.1"
E810 = "0000:c2:00.0"
IFNAME = "enp194s0np0"

# pci.ids, trimmed to the devices of the trees (upstream text, so names match the real list).
PCI_IDS = """# Trimmed from the PCI ID Repository (https://pci-ids.ucw.cz) for halod's tests.
10ec  Realtek Semiconductor Co., Ltd.
\t8125  RTL8125 2.5GbE Controller
15b3  Mellanox Technologies
\t1017  MT27800 Family [ConnectX-5]
\t\t15b3 0006  ConnectX-5 EN network interface card, 100GbE single-port QSFP28, PCIe3.0 x16, tall bracket; MCX515A-CCAT
\t\t15b3 0007  Mellanox ConnectX-5 MCX516A-CCAT
\t1019  MT28800 Family [ConnectX-5 Ex]
\t101b  MT28908 Family [ConnectX-6]
\t101d  MT2892 Family [ConnectX-6 Dx]
\t1021  MT2910 Family [ConnectX-7]
8086  Intel Corporation
\t1592  Ethernet Controller E810-C for QSFP
\t\t8086 0001  Ethernet Network Adapter E810-C-Q1
\t1593  Ethernet Controller E810-C for SFP
"""


def config_space(vendor, device, link_status_width, link_cap_width=16, speed=4, size=256,
                 subsystem=(0x8086, 0x0001), speeds=0x1e, link_control=0x0000, class_code=0x020000):
    """Type 0 header with one capability, PCI Express at 0x40, from a real E810 dump. Link
    Capabilities at 0x4c, Link Control at 0x50 (bits 0-1: ASPM L0s, L1 enabled), Link Status at 0x52;
    speed 4 is 16 GT/s, 3 is 8 GT/s; speeds is Link Capabilities 2's vector of supported speeds
    (0x1e: 2.5 to 16 GT/s, 0x0e: 2.5 to 8 GT/s)."""
    c = bytearray(256)
    c[0:4] = vendor.to_bytes(2, "little") + device.to_bytes(2, "little")
    c[4:8] = bytes([0x06, 0x04, 0x10, 0x00])  # command; status: capability list present
    c[8:12] = bytes([0x02]) + class_code.to_bytes(3, "little")  # revision 2, class
    c[0x0c:0x10] = bytes([0x08, 0x00, 0x00, 0x00])
    c[0x2c:0x30] = subsystem[0].to_bytes(2, "little") + subsystem[1].to_bytes(2, "little")
    c[0x34] = 0x40  # capabilities pointer
    c[0x3c:0x3e] = bytes([0xff, 0x01])
    c[0x40:0x44] = bytes([0x10, 0x00, 0x02, 0x00])  # PCIe capability, next 0, version 2, endpoint
    c[0x44:0x48] = bytes([0xa2, 0x8f, 0x00, 0x10])  # Device Capabilities
    c[0x48:0x4c] = bytes([0x37, 0x29, 0x10, 0x00])  # Device Control / Status
    lnkcap = 0x0043F000 | (link_cap_width << 4) | speed
    c[0x4c:0x50] = lnkcap.to_bytes(4, "little")
    c[0x50:0x52] = link_control.to_bytes(2, "little")  # Link Control
    lnksta = 0x1000 | (link_status_width << 4) | speed
    c[0x52:0x54] = lnksta.to_bytes(2, "little")
    c[0x64:0x68] = bytes([0x92, 0x1b, 0x70, 0x00])  # Device Capabilities 2
    c[0x6c:0x70] = bytes([speeds, 0x00, 0x00, 0x00])  # Link Capabilities 2
    return bytes(c[:size])


def write(root, path, data):
    p = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def symlink(root, path, target):
    p = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    os.symlink(target, p)


def pci_device(root, address, vendor, device, driver, config, cur_width=4, max_width=16,
               speed="16.0 GT/s PCIe", bridge=BRIDGE, max_speed="16.0 GT/s PCIe", subsystem=(0x8086, 0x0001),
               class_code="0x020000"):
    d = f"/sys/devices/{bridge}/{address}"
    write(root, d + "/config", config)
    for name, value in (("vendor", f"0x{vendor:04x}"), ("device", f"0x{device:04x}"),
                        ("class", class_code), ("subsystem_vendor", f"0x{subsystem[0]:04x}"),
                        ("subsystem_device", f"0x{subsystem[1]:04x}"), ("revision", "0x02"), ("irq", "0"),
                        ("current_link_speed", speed), ("max_link_speed", max_speed),
                        ("current_link_width", str(cur_width)), ("max_link_width", str(max_width))):
        write(root, f"{d}/{name}", value + "\n")
    write(root, d + "/resource", "0x0000000000000000 0x0000000000000000 0x0000000000000000\n" * 13)
    symlink(root, f"/sys/bus/pci/devices/{address}", f"../../../devices/{bridge}/{address}")
    if driver:
        write(root, f"/sys/bus/pci/drivers/{driver}/uevent", f"DRIVER={driver}\n")
        depth = "../" * (2 + bridge.count("/") + 1)
        symlink(root, f"{d}/driver", f"{depth}bus/pci/drivers/{driver}")
    return d


def netdev(root, device_dir, ifname, ifindex, mac, mtu, speed, operstate="up"):
    n = f"{device_dir}/net/{ifname}"
    for name, value in (("ifindex", ifindex), ("address", mac), ("mtu", mtu), ("speed", speed),
                        ("operstate", operstate)):
        write(root, f"{n}/{name}", f"{value}\n")
    symlink(root, f"{n}/device", "../../../" + os.path.basename(device_dir))
    symlink(root, f"/sys/class/net/{ifname}", "../.." + n[len("/sys"):])


def module(root, name):
    """A loaded module as /sys/module shows it (rdma.driver looks for the directory)."""
    write(root, f"/sys/module/{name}/initstate", "live\n")


def uverbs(root, index, rdma):
    """ib_uverbs' character device for an RDMA device (/dev/infiniband/uverbsN, major 231, minor
    192 + N), as /sys/class/infiniband_verbs shows it; the class also holds abi_version."""
    write(root, "/sys/class/infiniband_verbs/abi_version", "6\n")
    write(root, f"/sys/class/infiniband_verbs/uverbs{index}/ibdev", f"{rdma}\n")
    write(root, f"/sys/class/infiniband_verbs/uverbs{index}/dev", f"231:{192 + index}\n")


def pi6(words):
    """A GID as ib_core's show_port_gid() prints it, "%pI6": eight groups of four hex digits."""
    return ":".join(f"{w:04x}" for w in words)


def gid_link_local(mac):
    """The default GID: fe80::/64 with the EUI-64 of the MAC (ib_core's roce_gid_mgmt.c, and irdma's and
    mlx5's node GUID)."""
    b = [int(x, 16) for x in mac.split(":")]
    eui = [b[0] ^ 0x02, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]]
    return pi6([0xfe80, 0, 0, 0] + [eui[i] << 8 | eui[i + 1] for i in range(0, 8, 2)])


def gid_ipv4(address):
    """The GID of an IPv4 address: its IPv4-mapped IPv6 form, ::ffff:a.b.c.d."""
    a = [int(x) for x in address.split(".")]
    return pi6([0, 0, 0, 0, 0, 0xffff, a[0] << 8 | a[1], a[2] << 8 | a[3]])


def gid_iwarp(mac):
    """irdma's iWARP GID (irdma_query_gid()): the MAC in the first six bytes, the rest zero."""
    b = [int(x, 16) for x in mac.split(":")]
    return pi6([b[0] << 8 | b[1], b[2] << 8 | b[3], b[4] << 8 | b[5], 0, 0, 0, 0, 0])


def ib_device(root, parent_dir, name, node_type, mac, ports, rxe_parent=None):
    """An RDMA device as ib_core's sysfs.c makes it: node_type ("%u: %s", node_type_string()), node_guid
    and ports/N; its class link, and its "device" link to parent_dir (none for rxe, which names its netdev
    in its own "parent" attribute, rxe_verbs.c). ports: (number, state, phys_state, link_layer, gids,
    gid_tbl_len) with gids {index: (gid, type, ndev)}. ib_core makes gids/N for every slot of the table
    (setup_port()) and gid_attrs/types/N and ndevs/N beside them (setup_gid_attrs()); an empty slot
    reads as the zero GID and its attributes fail with EINVAL, which a copied tree cannot hold: they are
    left out here."""
    d = f"{parent_dir}/infiniband/{name}"
    eui = gid_link_local(mac).split(":")[4:]
    write(root, f"{d}/node_type", f"{node_type}\n")
    write(root, f"{d}/node_guid", ":".join(eui) + "\n")
    if rxe_parent:
        write(root, f"{d}/parent", f"{rxe_parent}\n")
    else:
        symlink(root, f"{d}/device", "../../../" + os.path.basename(parent_dir))
    symlink(root, f"/sys/class/infiniband/{name}", "../.." + d[len("/sys"):])
    for number, state, phys_state, link_layer, gids, size in ports:
        p = f"{d}/ports/{number}"
        write(root, f"{p}/state", f"{state}\n")
        write(root, f"{p}/phys_state", f"{phys_state}\n")
        write(root, f"{p}/link_layer", f"{link_layer}\n")
        for i in range(size):
            gid, gid_type, ndev = gids.get(i, (pi6([0] * 8), None, None))
            write(root, f"{p}/gids/{i}", f"{gid}\n")
            if gid_type:
                write(root, f"{p}/gid_attrs/types/{i}", f"{gid_type}\n")
                write(root, f"{p}/gid_attrs/ndevs/{i}", f"{ndev}\n")
    return d


ACTIVE = ("4: ACTIVE", "5: LinkUp")  # state_show(), phys_state_show()
DOWN = ("1: DOWN", "3: Disabled")


def irdma(root, pci_dir, mac, ifname, address, iwarp=False, port_state=ACTIVE):
    """irdma on ice's auxiliary device: ice plugs ice.roce.N or ice.iwarp.N by its RDMA mode (ice_idc.c,
    ice_plug_aux_dev()), and irdma binds to it. In RoCE mode a CA with a RoCE v2 GID per address only
    (irdma_roce_port_immutable(): RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP) in a table of 32 (irdma_query_port());
    in iWARP mode an RNIC with a table of one, the MAC (irdma_query_gid()), which ib_core's non-RoCE cache
    types IB (cache.c, config_non_roce_gid_cache(): "IB/RoCE v1")."""
    aux = f"{pci_dir}/ice.{'iwarp' if iwarp else 'roce'}.0"
    write(root, "/sys/bus/auxiliary/drivers/irdma/uevent", "DRIVER=irdma\n")
    symlink(root, f"{aux}/driver", "../" * (aux.count("/") - 1) + "bus/auxiliary/drivers/irdma")
    if iwarp:
        gids, size, node = {0: (gid_iwarp(mac), "IB/RoCE v1", ifname)}, 1, "4: RNIC"
    else:
        gids = {0: (gid_link_local(mac), "RoCE v2", ifname)}
        if address:
            gids[1] = (gid_ipv4(address), "RoCE v2", ifname)
        size, node = 32, "1: CA"
    return ib_device(root, aux, "irdma0", node, mac, [(1, *port_state, "Ethernet", gids, size)])


def mlx5_gids(mac, ifname, address, size=16):
    """mlx5's table: each address once as RoCE v1 and once as RoCE v2 (the port declares both,
    mlx5_port_immutable(): RDMA_CORE_PORT_IBA_ROCE | RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP), the default GID
    first. The firmware's table has 255 slots; the fixture keeps the first 16, as empty as the rest."""
    gids = {0: (gid_link_local(mac), "IB/RoCE v1", ifname), 1: (gid_link_local(mac), "RoCE v2", ifname)}
    if address:
        gids[2] = (gid_ipv4(address), "IB/RoCE v1", ifname)
        gids[3] = (gid_ipv4(address), "RoCE v2", ifname)
    return gids, size


def loopback(root):
    for name, value in (("ifindex", 1), ("address", "00:00:00:00:00:00"), ("mtu", 65536)):
        write(root, f"/sys/devices/virtual/net/lo/{name}", f"{value}\n")
    symlink(root, "/sys/class/net/lo", "../../devices/virtual/net/lo")


def common(root, kmsg):
    write(root, "/usr/share/misc/pci.ids", PCI_IDS)
    write(root, "/dev/kmsg", kmsg)
    write(root, "/etc/group", "root:x:0:\nrdma:x:985:\n")
    write(root, "/etc/security/limits.d/90-rdma.conf", "# RDMA needs pinned memory\n*  -  memlock  unlimited\n")
    loopback(root)


KMSG_LOADED = (
    "6,1021,4562210,-;ice: Intel(R) Ethernet Connection E800 Series Linux Driver\n"
    " SUBSYSTEM=pci\n"
    f"6,1024,4855347,-;ice {E810}: The DDP package was successfully loaded: ICE OS Default Package version 1.3.36.0\n"
    f" DEVICE=+pci:{E810}\n"
    f"6,1025,4889912,-;ice {E810}: 63.012 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x4 link at 0000:c0:01.1 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)\n"
)
# ice_main.c's words (ice_request_fw(), ice_init_ddp_config(), ice_log_pkg_init()), double spaces and
# the lower-case "safe mode" of the NVM message as the driver writes them.
KMSG_SAFE_MODE = (
    f"3,1024,4855347,-;ice {E810}: The DDP package file was not found or could not be read. Entering Safe Mode\n"
    f" DEVICE=+pci:{E810}\n"
    f"3,1025,4855350,-;ice {E810}: Fail during requesting FW: -2\n"
    f" DEVICE=+pci:{E810}\n"
)
# A firmware (NVM) too old for the kernel's DDP package: ice loads no package, and says so in lower case.
KMSG_OLD_NVM = (
    "6,1021,4562210,-;ice: Intel(R) Ethernet Connection E800 Series Linux Driver\n"
    " SUBSYSTEM=pci\n"
    f"3,1024,4855347,-;ice {E810}: The firmware loaded on the device is not compatible with the DDP package.  "
    "Please update the device's NVM.  Entering safe mode.\n"
    f" DEVICE=+pci:{E810}\n"
)


E810_MAC = "6c:fe:54:12:34:56"


def e810_tree(name, cur_width, kmsg=KMSG_LOADED, with_netdev=True, driver="ice", config_size=256, iwarp=False,
              address="192.168.100.1", port_state=ACTIVE, mtu=9000, device=0x1592, speed=100000):
    root = os.path.join(HERE, name)
    common(root, kmsg)
    d = pci_device(root, E810, 0x8086, device, driver,
                   config_space(0x8086, device, cur_width, size=config_size), cur_width=cur_width)
    if with_netdev:
        netdev(root, d, IFNAME, 4, E810_MAC, mtu, speed)
        if kmsg not in (KMSG_SAFE_MODE, KMSG_OLD_NVM):
            irdma(root, d, E810_MAC, IFNAME, address, iwarp=iwarp, port_state=port_state)
            uverbs(root, 0, "irdma0")
    # irdma loads with ice through the auxiliary bus, unless ice runs the device in Safe Mode.
    if driver == "ice" and kmsg not in (KMSG_SAFE_MODE, KMSG_OLD_NVM):
        module(root, "irdma")


# A ConnectX-5 (PCIe 3.0 x16) in a PCIe 4.0 x4 slot, as on the reference board: it trains at 8 GT/s x4.
CX_BRIDGE = "pci0000:00/0000:00:01.1"
CX5 = "0000:01:00.0"


def kmsg_connectx(functions):
    """What mlx5_core logs when it probes a ConnectX-5: no ice line at all."""
    lines = []
    seq = 1021
    for address, ifname in functions:
        lines += [
            f"6,{seq},4562210,-;mlx5_core {address}: firmware version: 16.35.2000\n",
            " SUBSYSTEM=pci\n",
            f" DEVICE=+pci:{address}\n",
            f"6,{seq + 1},4562480,-;mlx5_core {address}: 31.504 Gb/s available PCIe bandwidth, limited by 8.0 GT/s "
            f"PCIe x4 link at 0000:00:01.1 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)\n",
            f"6,{seq + 2},4563010,-;mlx5_core {address}: Port module event: module {address[-1]}, Cable plugged\n",
            f"6,{seq + 3},4901100,-;mlx5_core {address} {ifname}: renamed from eth{address[-1]}\n",
        ]
        seq += 4
    return "".join(lines)


def connectx_tree(name, ports, subsystem):
    """ports: (function, ifname, ifindex, mac, speed, operstate, rdma device, uverbs index, IPv4 address)
    for each PCI function; mlx5 makes one RDMA device per PCI function, its device link pointing at the
    function, with one port whose state follows the netdev's carrier."""
    root = os.path.join(HERE, name)
    common(root, kmsg_connectx([(f"0000:01:00.{p[0]}", p[1]) for p in ports]))
    module(root, "mlx5_ib")
    for function, ifname, ifindex, mac, speed, operstate, rdma, uverbs_index, ip in ports:
        address = f"0000:01:00.{function}"
        d = pci_device(root, address, 0x15b3, 0x1017, "mlx5_core",
                       config_space(0x15b3, 0x1017, 4, speed=3, subsystem=subsystem, speeds=0x0e),
                       cur_width=4, speed="8.0 GT/s PCIe", max_speed="8.0 GT/s PCIe", bridge=CX_BRIDGE,
                       subsystem=subsystem)
        netdev(root, d, ifname, ifindex, mac, 9000, speed, operstate)
        gids, size = mlx5_gids(mac, ifname, ip)
        state = ACTIVE if operstate == "up" else DOWN
        ib_device(root, d, rdma, "1: CA", mac, [(1, *state, "Ethernet", gids, size)])
        uverbs(root, uverbs_index, rdma)


VIRTIO_MAC = "52:54:00:12:34:56"


def virtio_tree(name, mtu):
    """A virtio NIC, as in a VM: the netdev hangs off the virtio device virtio2, whose parent is the PCI
    device (/sys/devices/pci0000:00/0000:00:03.0/virtio2/net/enp0s3)."""
    root = os.path.join(HERE, name)
    common(root, "6,1,1,-;Linux version 6.18.4\n")
    write(root, "/usr/share/misc/pci.ids",
          PCI_IDS + "1af4  Red Hat, Inc.\n\t1041  Virtio 1.0 network device\n")
    d = pci_device(root, "0000:00:03.0", 0x1af4, 0x1041, "virtio-pci", config_space(0x1af4, 0x1041, 1, 1, 1),
                   cur_width=1, max_width=1, speed="2.5 GT/s PCIe", bridge="pci0000:00")
    v = d + "/virtio2"
    write(root, v + "/vendor", "0x1af4\n")
    write(root, v + "/device", "0x0001\n")
    write(root, "/sys/bus/virtio/drivers/virtio_net/uevent", "DRIVER=virtio_net\n")
    symlink(root, v + "/subsystem", "../../../../bus/virtio")
    symlink(root, v + "/driver", "../../../../bus/virtio/drivers/virtio_net")
    symlink(root, "/sys/bus/virtio/devices/virtio2", "../../../devices/pci0000:00/0000:00:03.0/virtio2")
    netdev(root, v, "enp0s3", 2, VIRTIO_MAC, mtu, -1)
    return root


def main():
    for name in os.listdir(HERE):
        if name.startswith("nic-") and os.path.isdir(os.path.join(HERE, name)):
            shutil.rmtree(os.path.join(HERE, name))

    # The reference board: an x16 E810-CQDA1 in an x4 slot.
    e810_tree("nic-e810-x4", 4)
    e810_tree("nic-e810-x16", 16)
    # The reference board whose irdma runs iWARP (devlink's enable_iwarp, or Intel's out-of-tree irdma):
    # ice plugs ice.iwarp.0, and irdma0 is an RNIC with the MAC for its one GID.
    e810_tree("nic-e810-iwarp", 4, iwarp=True)
    # The same card with no DDP package: ice runs it in Safe Mode.
    e810_tree("nic-e810-safe-mode", 16, kmsg=KMSG_SAFE_MODE)
    # The same card whose NVM is older than the kernel's DDP package needs: Safe Mode too.
    e810_tree("nic-e810-old-nvm", 4, kmsg=KMSG_OLD_NVM)
    # The driver failed to probe: the device is there, unbound, without netdev.
    e810_tree("nic-no-netdev", 16, with_netdev=False, driver=None,
              kmsg=f"3,1024,4855347,-;ice {E810}: probe of {E810} failed with error -5\n")
    # What a non-root caller sees: only the first 64 bytes of config space; sysfs has the link.
    e810_tree("nic-e810-config-64", 8, config_size=64)
    # The 25 GbE sibling that ice also drives: pci.ids' "E810-C for SFP" (8086:1593, E810-XXVDA2).
    e810_tree("nic-e810-sfp-x4", 4, device=0x1593, speed=25000)

    # A single-port ConnectX-5 (MCX515A-CCAT) in the reference board's x4 slot.
    connectx_tree("nic-cx5-x4",
                  [(0, "enp1s0f0np0", 4, "b8:ce:f6:12:34:56", 100000, "up", "mlx5_0", 0, "192.168.100.1")],
                  subsystem=(0x15b3, 0x0006))
    # A dual-port ConnectX-5 (MCX516A-CCAT), a daisy chain's middle node: two PCI functions, a netdev
    # and an RDMA device each. Port 1's cable is not plugged in yet: its netdev reports no speed, so
    # nic.pcie takes the line rate from the PCI id. uverbs numbers follow the order in which ib_uverbs
    # met the devices, not the functions: here mlx5_1 came first, so its node is uverbs0.
    connectx_tree("nic-cx5-dual-x4",
                  [(0, "enp1s0f0np0", 4, "b8:ce:f6:12:34:56", 100000, "up", "mlx5_0", 1, "10.0.1.2"),
                   (1, "enp1s0f1np1", 5, "b8:ce:f6:12:34:57", -1, "down", "mlx5_1", 0, "10.0.2.2")],
                  subsystem=(0x15b3, 0x0007))

    # No E810 at all, only the board's Realtek.
    root = os.path.join(HERE, "nic-absent")
    common(root, "6,1,1,-;Linux version 6.18.4\n")
    d = pci_device(root, "0000:01:00.0", 0x10ec, 0x8125, "r8169", config_space(0x10ec, 0x8125, 1, 1, 2),
                   cur_width=1, max_width=1, speed="5.0 GT/s PCIe", bridge="pci0000:00/0000:00:02.1")
    netdev(root, d, "enp1s0", 2, "9c:6b:00:01:02:03", 1500, 2500)

    # A virtio NIC, as in a VM.
    virtio_tree("nic-virtio", 1500)

    # soft-RoCE on a VM's virtio NIC (`rdma link add rxe0 type rxe netdev enp0s3`), as in the QEMU guests:
    # rxe0 is a virtual device (/sys/devices/virtual/infiniband, no "device" link) that names its netdev
    # in "parent"; RoCE v2 GIDs only (rxe_port_immutable(): RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP) in a table
    # of 1024 (RXE_PORT_GID_TBL_LEN), of which the fixture keeps the first 16.
    root = virtio_tree("nic-rxe-virtio", 9000)
    mac = VIRTIO_MAC
    module(root, "rdma_rxe")
    ib_device(root, "/sys/devices/virtual", "rxe0", "1: CA", mac,
              [(1, *ACTIVE, "Ethernet", {0: (gid_link_local(mac), "RoCE v2", "enp0s3"),
                                         1: (gid_ipv4("192.168.100.1"), "RoCE v2", "enp0s3")}, 16)],
              rxe_parent="enp0s3")
    uverbs(root, 0, "rxe0")


if __name__ == "__main__":
    main()

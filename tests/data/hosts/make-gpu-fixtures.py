#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the gpu-* fixture host trees that the gpu., node., kernel.iommu and kernel.aspm checks read:
# an AMD Strix Halo board (Radeon 8060S, 1002:1586, driven by amdgpu) with the reference E810 in its
# x4 slot, as sysfs, /proc and /dev show them. The trees are committed; this script says how they were
# made. Run it from anywhere: python3 tests/data/hosts/make-gpu-fixtures.py
#
# Device nodes are empty regular files: git keeps neither device numbers nor modes and owners, so
# the tests that judge who may open /dev/kfd and /dev/dri/renderD128 copy a tree and set those.
#
# MemTotal is the installed memory less the iGPU's carve-out and about 2.2 GiB that the firmware
# and the kernel's early reservations keep; the figures are of that shape, not a dump of one board.
import importlib.util
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("nic_fixtures", os.path.join(HERE, "make-nic-fixtures.py"))
nic = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nic)

GPU = "0000:c3:00.0"
GPU_BRIDGE = "pci0000:00/0000:00:08.1"
GPU_GROUP = 17
NIC_GROUP = 12
MIB = 1024 * 1024
GIB = 1024 * MIB

CMDLINE_OK = ("BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.17.7-300.fc43.x86_64 root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-0d8e7b6a5c4d "
              "ro rootflags=subvol=root rhgb quiet iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 "
              "ttm.pages_limit=32505856\n")
# The guide's older form: amdgpu.gttsize alone. amdgpu's GTT follows it, TTM's page limit stays at its
# default, half of RAM (ttm_device.c), and KFD caps ROCm there (amdgpu_amdkfd_gpuvm.c).
CMDLINE_GTTSIZE_ONLY = ("BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.18.0-65.fc43.x86_64 "
                        "root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-0d8e7b6a5c4d ro rootflags=subvol=root rhgb quiet iommu=pt "
                        "pci=realloc pcie_aspm=off amdgpu.gttsize=126976\n")
# A fresh install, before the guide's GRUB edit.
CMDLINE_STOCK = ("BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.17.7-300.fc43.x86_64 root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-0d8e7b6a5c4d "
                 "ro rootflags=subvol=root rhgb quiet\n")
PARAMS = "iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856"

# Fedora's /etc/group on such a board: render and video are the GPU's groups.
GROUP = "root:x:0:\nvideo:x:39:\nrender:x:105:\nrdma:x:985:\nhalod:x:986:\n"

PCI_IDS_GPU = "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n\t1586  Strix Halo [Radeon Graphics / Radeon 8050S / 8060S]\n"


def meminfo(total_kib):
    free = total_kib - 4 * MIB // 1024
    return (f"MemTotal:       {total_kib} kB\n"
            f"MemFree:        {free} kB\n"
            f"MemAvailable:   {free + 1048576} kB\n"
            "Buffers:            6612 kB\n"
            "Cached:          1468480 kB\n"
            "SwapCached:            0 kB\n"
            "Unevictable:       22680 kB\n"
            "Mlocked:           22680 kB\n"
            "SwapTotal:       8388604 kB\n"
            "SwapFree:        8388604 kB\n"
            "HugePages_Total:       0\n"
            "Hugepagesize:       2048 kB\n")


def iommu_group(root, device_dir, group, kind):
    nic.write(root, f"/sys/kernel/iommu_groups/{group}/type", kind + "\n")
    depth = "../" * (device_dir.count("/") - 1)
    nic.symlink(root, f"{device_dir}/iommu_group", f"{depth}kernel/iommu_groups/{group}")


def gpu(root, vram, gtt, iommu):
    config = nic.config_space(0x1002, 0x1586, 16, speed=4, subsystem=(0xf111, 0x000a), class_code=0x030000)
    d = nic.pci_device(root, GPU, 0x1002, 0x1586, "amdgpu", config, cur_width=16, max_width=16,
                       bridge=GPU_BRIDGE, subsystem=(0xf111, 0x000a), class_code="0x030000")
    nic.write(root, d + "/mem_info_vram_total", f"{vram}\n")
    nic.write(root, d + "/mem_info_gtt_total", f"{gtt}\n")
    for name in ("card1", "renderD128"):
        nic.write(root, f"{d}/drm/{name}/dev", "226:1\n" if name == "card1" else "226:128\n")
        nic.symlink(root, f"{d}/drm/{name}/device", "../../../" + GPU)
        nic.symlink(root, f"/sys/class/drm/{name}", f"../../devices/{GPU_BRIDGE}/{GPU}/drm/{name}")
        nic.write(root, f"/dev/dri/{name}", "")
    if iommu:
        iommu_group(root, d, GPU_GROUP, iommu)
    # The compute interface ROCm opens, a virtual device of its own.
    nic.write(root, "/sys/devices/virtual/kfd/kfd/dev", "235:0\n")
    nic.symlink(root, "/sys/class/kfd/kfd", "../../devices/virtual/kfd/kfd")
    nic.write(root, "/dev/kfd", "")


def ttm_pages_limit(cmdline, memtotal_kib):
    """What /sys/module/ttm/parameters/pages_limit shows: ttm.pages_limit from the command line, else
    the half of RAM in 4 KiB pages that ttm_global_init() (ttm_device.c) hands ttm_tt_mgr_init()."""
    for word in cmdline.split():
        if word.startswith("ttm.pages_limit="):
            return int(word.split("=", 1)[1])
    return memtotal_kib // 4 // 2


def strix_tree(name, vram, memtotal_kib, cmdline=CMDLINE_OK, iommu="identity", link_control=0x0000,
               sysfs_aspm=None):
    """sysfs_aspm: (l0s, l1) for link/l0s_aspm and link/l1_aspm, which the kernel makes only when it
    manages ASPM (not with pcie_aspm=off)."""
    root = os.path.join(HERE, name)
    nic.common(root, nic.KMSG_LOADED)
    nic.write(root, "/usr/share/misc/pci.ids", nic.PCI_IDS + PCI_IDS_GPU)
    nic.write(root, "/etc/group", GROUP)
    nic.write(root, "/proc/cmdline", cmdline)
    nic.write(root, "/etc/kernel/cmdline", PARAMS + "\n")
    nic.write(root, "/proc/meminfo", meminfo(memtotal_kib))
    # module_param_named(pages_limit, ttm_pages_limit, ulong, 0644): param_get_ulong() prints "%lu\n".
    nic.write(root, "/sys/module/ttm/parameters/pages_limit", f"{ttm_pages_limit(cmdline, memtotal_kib)}\n")
    config = nic.config_space(0x8086, 0x1592, 4, link_control=link_control)
    d = nic.pci_device(root, nic.E810, 0x8086, 0x1592, "ice", config, cur_width=4)
    nic.netdev(root, d, nic.IFNAME, 4, "6c:fe:54:12:34:56", 9000, 100000)
    nic.symlink(root, "/sys/class/infiniband/irdma0/device", "../../../devices/" + nic.BRIDGE + "/" + nic.E810)
    nic.module(root, "irdma")
    if iommu:
        iommu_group(root, d, NIC_GROUP, iommu)
    if sysfs_aspm:
        nic.write(root, d + "/link/l0s_aspm", f"{sysfs_aspm[0]}\n")
        nic.write(root, d + "/link/l1_aspm", f"{sysfs_aspm[1]}\n")
    # amdgpu.gttsize=126976 sets the GTT whatever the carve-out: 124 GiB.
    gpu(root, vram, 126976 * MIB, iommu)


def main():
    for name in os.listdir(HERE):
        if name.startswith("gpu-") and os.path.isdir(os.path.join(HERE, name)):
            shutil.rmtree(os.path.join(HERE, name))

    # The reference board as the guide leaves it: 128 GB, the carve-out at 512 MiB, booted with the
    # guide's parameters, the BIOS's ASPM off.
    strix_tree("gpu-strix-ok", 512 * MIB, 131413440)
    # The same board at the vendor's defaults: a 16 GiB carve-out, which MemTotal loses, and ASPM L1
    # left enabled by the firmware on the NIC's link, which pcie_aspm=off does not undo.
    strix_tree("gpu-strix-vendor-default", 16 * GIB, 115160512, link_control=0x0002)
    # A 64 GB board in a 128 GB cluster: the guide's "two of nothing".
    strix_tree("gpu-strix-64g", 512 * MIB, 64884576)
    # Before the guide's GRUB edit: the IOMMU translates (DMA-FQ, the default), and the kernel
    # manages ASPM and shows it in sysfs.
    strix_tree("gpu-strix-stock-kernel", 512 * MIB, 131413440, cmdline=CMDLINE_STOCK, iommu="DMA-FQ",
               link_control=0x0002, sysfs_aspm=(0, 1))
    # The guide's older form, amdgpu.gttsize without ttm.pages_limit, on 6.18: amdgpu's GTT is 124 GiB,
    # what ROCm may allocate is TTM's half of RAM.
    strix_tree("gpu-strix-gttsize-only", 512 * MIB, 131413440, cmdline=CMDLINE_GTTSIZE_ONLY)
    # The IOMMU off in the BIOS: no IOMMU groups at all.
    strix_tree("gpu-strix-no-iommu", 512 * MIB, 131413440, iommu=None)


if __name__ == "__main__":
    main()

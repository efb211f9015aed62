#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl check --only gpu.,kernel.,node.memory against the Strix Halo fixture hosts in tests/data/hosts/gpu-*
# (make-gpu-fixtures.py): the carve-out left at the vendor's default, a 64 GB board in a 128 GB
# cluster, a kernel booted without the guide's parameters, the IOMMU off, ASPM left on by the
# firmware; the exact lines, the totals and the exit codes.
# Usage: haloctl-check-gpu.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup gpu-cli "$@"

# The shipped profile asks what a 128 GB Strix Halo cluster asks of its GPU and memory.
grep -q '^  vram-max: 512M' "$profile" && grep -q '^memory-min: 120G' "$profile" ||
        { echo "FAIL: conf/halod.yaml no longer ships gpu.vram-max 512M and memory-min 120G"; exit 1; }

# tree HOST KFD_MODE RENDER_MODE: a copy of the fixture with the device nodes' modes and group render
# (105 in the tree's /etc/group), as udev sets them; git keeps neither. Prints the copy's path.
tree() {
        local copy=$tmp/$1-$2-$3
        mkdir -p "$copy"
        cp -a "$hosts/$1/." "$copy/"
        chmod "$2" "$copy/dev/kfd"
        chmod "$3" "$copy/dev/dri/renderD128"
        if ! chgrp 105 "$copy/dev/kfd" "$copy/dev/dri/renderD128" 2>/dev/null; then
                # Only root can give a file to another group.
                [ "${CI:-}" != true ] || { echo "FAIL: CI runs this test as root"; exit 1; }
                echo "skipping $1: not root" >&2
                return 1
        fi
        echo "$copy"
}

# gcheck NAME EXPECTED_EXIT ROOT [more haloctl arguments]
gcheck() {
        local name=$1 want=$2 root=$3
        shift 3
        check "$name" "$want" check --root "$root" --node head --only gpu.,kernel.,node.memory "$@" "$profile"
}

if root=$(tree gpu-strix-ok 0666 0660); then
        # No boot loader entry in the tree: /etc/kernel/cmdline tells only what kernel-install writes next.
        gcheck "the reference board" 1 "$root"
        line "the reference board" "pass  kernel.cmdline       the running kernel has all 5 required parameters"
        line "the reference board" "warn  kernel.cmdline-next  no boot loader entry found (looked for /efi/loader/entries/*.conf, /boot/loader/entries/*.conf, /boot/efi/loader/entries/*.conf, /etc/kernel/cmdline, /boot/grub/grub.cfg, /boot/grub2/grub.cfg, /etc/default/grub): cannot tell what the next boot gets; /etc/kernel/cmdline, which kernel-install writes into new entries, carries all 5 required parameters"
        line "the reference board" "pass  kernel.iommu         the fabric NIC 0000:c2:00.0 (rdma0) and the GPU 0000:c3:00.0 (card1) are in identity IOMMU domains (iommu_group/type in sysfs): their DMA bypasses translation, as iommu=pt asks"
        line "the reference board" "pass  kernel.aspm          ASPM is off on the PCIe link of 0000:c2:00.0 (the PCIe Link Control register in config space)"
        line "the reference board" "pass  gpu.vram             the iGPU's VRAM carve-out is 512 MiB on card1 (/sys/class/drm/card1/device/mem_info_vram_total), within gpu.vram-max 512 MiB"
        line "the reference board" "pass  gpu.gtt              ROCm gets 124.0 GiB on card1 (133143986176 bytes): amdgpu's GTT (mem_info_gtt_total), within TTM's page limit of 32505856 pages (124.0 GiB, /sys/module/ttm/parameters/pages_limit, from ttm.pages_limit=32505856 on the kernel command line)"
        line "the reference board" "pass  gpu.devices          /dev/kfd (group render, mode 0666), /dev/dri/renderD128 (group render, mode 0660): the workload's user must be in group render (usermod -aG render USER)"
        line "the reference board" "pass  node.memory          MemTotal is 125.3 GiB (/proc/meminfo), at least memory-min 120 GiB"
        line "the reference board" "8 checks: 7 pass, 1 warn, 0 fail, 0 skip"
fi

if root=$(tree gpu-strix-vendor-default 0666 0666); then
        gcheck "the vendor's defaults" 2 "$root"
        line "the vendor's defaults" "fail  kernel.aspm          ASPM L1 is enabled on the PCIe link of 0000:c2:00.0 (the PCIe Link Control register in config space): the link sleeps between bursts and every RDMA round trip pays its wake-up; pcie_aspm=off leaves what the firmware set, so turn ASPM off for the slot in the BIOS (until the next boot: setpci -s 0000:c2:00.0 CAP_EXP+10.w=0:3)"
        line "the vendor's defaults" "fail  gpu.vram             the iGPU's VRAM carve-out is 16 GiB on card1 (/sys/class/drm/card1/device/mem_info_vram_total), above gpu.vram-max 512 MiB: set \"UMA Frame Buffer Size\" (or \"iGPU Memory\") in the BIOS to 512 MiB; the 15.5 GiB above it are memory that the GTT (and the model in it) cannot use"
        line "the vendor's defaults" "fail  node.memory          MemTotal is 109.8 GiB (/proc/meminfo), below memory-min 120 GiB: this node cannot hold its share of a model sized for the others (a board with less memory than the rest of the cluster?), or the iGPU's carve-out took it (see gpu.vram)"
        line "the vendor's defaults" "fail  gpu.gtt              amdgpu GTT is 124.0 GiB on card1, more than the node has: MemTotal is 109.8 GiB (/proc/meminfo), so the GPU can map at most ~108 GiB here (a smaller board than the others, or the iGPU's carve-out: see gpu.vram and node.memory); past that a model fails to load or the node swaps. Size kernel.cmdline for the smallest node (amdgpu.gttsize=110592 ttm.pages_limit=28311552 fits this one), or swap the board"
        line "the vendor's defaults" "pass  gpu.devices          /dev/kfd (group render, mode 0666), /dev/dri/renderD128 (group render, mode 0666): every user may open them"
        line "the vendor's defaults" "8 checks: 3 pass, 1 warn, 4 fail, 0 skip"
        # Failures first.
        head -n1 "$tmp/out" | grep -q '^fail' || { echo "FAIL the vendor's defaults: first row is not a failure"; failures=$((failures + 1)); }
fi

if root=$(tree gpu-strix-64g 0666 0666); then
        gcheck "two of nothing" 2 "$root" --only node.memory,gpu.gtt
        line "two of nothing" "fail  gpu.gtt      amdgpu GTT is 124.0 GiB on card1, more than the node has: MemTotal is 61.9 GiB (/proc/meminfo), so the GPU can map at most ~60 GiB here (a smaller board than the others, or the iGPU's carve-out: see gpu.vram and node.memory); past that a model fails to load or the node swaps. Size kernel.cmdline for the smallest node (amdgpu.gttsize=61440 ttm.pages_limit=15728640 fits this one), or swap the board"
        line "two of nothing" "fail  node.memory  MemTotal is 61.9 GiB (/proc/meminfo), below memory-min 120 GiB: this node cannot hold its share of a model sized for the others (a board with less memory than the rest of the cluster?), or the iGPU's carve-out took it (see gpu.vram)"
        line "two of nothing" "2 checks: 0 pass, 0 warn, 2 fail, 0 skip"
fi

# amdgpu.gttsize without ttm.pages_limit on 6.18: amdgpu's GTT is 124 GiB, TTM's page limit stays at half of
# MemTotal, and KFD caps ROCm there.
gcheck "gttsize alone" 2 "$hosts/gpu-strix-gttsize-only" --only gpu.gtt
line "gttsize alone" "fail  gpu.gtt  ROCm gets 62.7 GiB, not the 124.0 GiB on card1 (133143986176 bytes) of amdgpu's GTT: TTM's page limit is 16426680 pages (/sys/module/ttm/parameters/pages_limit, TTM's default, half of MemTotal (ttm_device.c): nothing sets ttm.pages_limit), and KFD caps what ROCm may allocate at it (amdgpu_amdkfd_gpuvm.c); the profile asks 124.0 GiB: boot with ttm.pages_limit=32505856 (see kernel.cmdline)"

gcheck "before the GRUB edit" 2 "$hosts/gpu-strix-stock-kernel" --only kernel.iommu,kernel.aspm
line "before the GRUB edit" "fail  kernel.iommu  the fabric NIC 0000:c2:00.0 (rdma0) is DMA-FQ and the GPU 0000:c3:00.0 (card1) is DMA-FQ in iommu_group/type, not identity: the IOMMU translates their DMA, so iommu=pt is not in force; boot with it (kernel.cmdline and kernel.cmdline-next say where it is missing)"
line "before the GRUB edit" "fail  kernel.aspm   ASPM L1 is enabled on the PCIe link of 0000:c2:00.0 (sysfs link/l0s_aspm and link/l1_aspm): the link sleeps between bursts and every RDMA round trip pays its wake-up; pcie_aspm=off leaves what the firmware set, so turn ASPM off for the slot in the BIOS (until the next boot: setpci -s 0000:c2:00.0 CAP_EXP+10.w=0:3)"

gcheck "the IOMMU off" 0 "$hosts/gpu-strix-no-iommu" --only kernel.iommu
line "the IOMMU off" "pass  kernel.iommu  the fabric NIC 0000:c2:00.0 (rdma0) and the GPU 0000:c3:00.0 (card1) are in no IOMMU group (sysfs has no iommu_group link): the IOMMU is off, and DMA is untranslated, as with iommu=pt"

# The device nodes as git checks them out (0644): only their owner may write them.
gcheck "device nodes 0644" 2 "$hosts/gpu-strix-ok" --only gpu.devices --json
expect "device nodes 0644" "$tmp/out" '"summary": "/dev/kfd \(group [^,]*, mode 0644\), /dev/dri/renderD128 \(group [^,]*, mode 0644\): only the owner may open /dev/kfd and /dev/dri/renderD128, so the workload.s user cannot use the GPU'

# kernel.gtt still selects gpu.gtt.
gcheck "kernel.gtt" 0 "$hosts/gpu-strix-ok" --only kernel.gtt
line "kernel.gtt" "pass  gpu.gtt  ROCm gets 124.0 GiB on card1 (133143986176 bytes): amdgpu's GTT (mem_info_gtt_total), within TTM's page limit of 32505856 pages (124.0 GiB, /sys/module/ttm/parameters/pages_limit, from ttm.pages_limit=32505856 on the kernel command line)"

# The shipped profile on a host without a Strix Halo (the E810 fixture: no amdgpu card, no meminfo):
# what cannot be judged is skipped and says why; gpu.devices fails, since the profile says the node
# has a GPU.
gcheck "the shipped profile, no GPU" 2 "$hosts/nic-e810-x4" --only gpu.,node.memory
line "the shipped profile, no GPU" "skip  gpu.vram     no GPU driven by amdgpu in /sys/class/drm: the carve-out cannot be checked"
line "the shipped profile, no GPU" "skip  node.memory  could not look at /proc/meminfo: No such file or directory"
expect "the shipped profile, no GPU" "$tmp/out" '^fail  gpu\.devices  no /dev/kfd: '

# Without gpu: and memory-min: (a ConnectX server cluster's profile): nothing to judge, said so.
sed -e '/^gpu:/,/^$/d' -e '/^memory-min:/d' "$src/conf/halod.yaml" >"$profile"
gcheck "without gpu: and memory-min:" 0 "$hosts/gpu-strix-ok" --only gpu.vram,node.memory
line "without gpu: and memory-min:" "skip  gpu.vram     the profile has no gpu: section"
line "without gpu: and memory-min:" "skip  node.memory  the profile sets no memory-min"

if [ "$failures" -gt 0 ]; then
        echo "$failures failure(s)"
        exit 1
fi
echo "all passed ($passes checks)"

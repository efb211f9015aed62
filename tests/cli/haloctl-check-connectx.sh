#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl check --only nic.,rdma. with the ConnectX examples (conf/examples/connectx-2.yaml,
# daisy-chain-connectx.yaml) against the ConnectX-5 fixture hosts (tests/data/hosts/nic-cx5-*): the
# ConnectX named from pci.ids, its PCIe bound against its line rate, mlx5_core accepted without a
# word about ice's DDP package, and the suggestions naming mlx5_ib. The RDMA devices, ports and GIDs
# are read from the tree's sysfs (mlx5: one device per PCI function, a RoCE v1 and a v2 GID per address),
# never from the running kernel.
# Usage: haloctl-check-connectx.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup connectx-cli "$@"

# Like conf/halod.yaml in lib.sh: copies the examples belong to whoever runs the test.
for f in connectx-2 daisy-chain-connectx; do
        cp "$src/conf/examples/$f.yaml" "$tmp/$f.yaml"
        chmod 644 "$tmp/$f.yaml"
done

# ccheck NAME EXPECTED_EXIT HOST NODE PROFILE [more haloctl arguments]: keeps stdout in $tmp/out.
ccheck() {
        local name=$1 want=$2 host=$3 node=$4 file=$5
        shift 5
        check "$name" "$want" check --root "$hosts/$host" --node "$node" --only nic.,rdma. --color never "$@" "$file"
}

ccheck "single-port ConnectX-5 in an x4 slot" 2 nic-cx5-x4 head "$tmp/connectx-2.yaml"
n="single port"
expect "$n" "$tmp/out" '^pass  nic\.pci  +Mellanox Technologies MT27800 Family \[ConnectX-5\] at 0000:01:00\.0$'
expect "$n" "$tmp/out" '^pass  nic\.pcie  +PCIe 8 GT/s x4 \(capable x16\): at most ~32 Gbit/s of the NIC.s 100$'
expect "$n" "$tmp/out" '^pass  nic\.driver  +mlx5_core drives enp1s0f0np0$'
expect "$n" "$tmp/out" '^pass  rdma\.driver  +mlx5_ib is loaded, and nothing in modprobe\.d or on the kernel command line keeps it from loading with mlx5_core at boot$'
expect "$n" "$tmp/out" '^skip  nic\.firmware  +the firmware version comes from the running kernel'
expect "$n" "$tmp/out" '^pass  rdma\.device  +mlx5_0 port 1 on enp1s0f0np0$'
expect "$n" "$tmp/out" '^pass  rdma\.port  +mlx5_0 port 1 is ACTIVE, LINK_UP$'
expect "$n" "$tmp/out" '^pass  rdma\.gid  +RoCE v2 GID index 3 for 192\.168\.100\.1$'
expect "$n" "$tmp/out" '^pass  rdma\.mtu  +active MTU 4096 on mlx5_0 port 1 \(enp1s0f0np0 MTU 9000, less mlx5.s 96 bytes of RoCE headers\); from the netdev MTU by mlx5.s rule, as sysfs has no active MTU$'
expect "$n" "$tmp/out" '^fail  rdma\.memlock  +no /dev/infiniband/uverbs\* device: no RDMA driver is loaded \(`modprobe mlx5_ib` for ConnectX\)'
expect_not "$n" "$tmp/out" '\b(irdma|ice)\b|DDP|Safe Mode|E810'

# The middle node of the daisy chain: rdma0 on function .0, rdma1 on .1 (port 1 without cable: the
# line rate comes from the PCI id).
ccheck "dual-port ConnectX-5, middle node" 2 nic-cx5-dual-x4 node2 "$tmp/daisy-chain-connectx.yaml"
n="dual port"
expect "$n" "$tmp/out" '^pass  nic\.pci  +rdma0: Mellanox Technologies MT27800 Family \[ConnectX-5\] at 0000:01:00\.0; rdma1: Mellanox Technologies MT27800 Family \[ConnectX-5\] at 0000:01:00\.1$'
expect "$n" "$tmp/out" '^pass  nic\.pcie  +rdma0: PCIe 8 GT/s x4 \(capable x16\): at most ~32 Gbit/s of the NIC.s 100; rdma1: PCIe 8 GT/s x4 \(capable x16\): at most ~32 Gbit/s of the NIC.s 100$'
expect "$n" "$tmp/out" '^pass  nic\.driver  +rdma0: mlx5_core drives enp1s0f0np0; rdma1: mlx5_core drives enp1s0f1np1$'
expect "$n" "$tmp/out" '^pass  rdma\.device  +rdma0: mlx5_0 port 1 on enp1s0f0np0; rdma1: mlx5_1 port 1 on enp1s0f1np1$'
expect "$n" "$tmp/out" '^fail  rdma\.port  +rdma0: mlx5_0 port 1 is ACTIVE, LINK_UP; rdma1: mlx5_1 port 1 is DOWN \(physical state DISABLED\)'
expect "$n" "$tmp/out" '^pass  rdma\.gid  +rdma0: RoCE v2 GID index 3 for 10\.0\.1\.2; rdma1: RoCE v2 GID index 3 for 10\.0\.2\.2$'
expect_not "$n" "$tmp/out" '\b(irdma|ice)\b|DDP|Safe Mode|E810'

# The end nodes: node1 has its one cable on port 1 (by PCI function), node4 on port 0 (by name).
ccheck "dual-port ConnectX-5, first node" 2 nic-cx5-dual-x4 node1 "$tmp/daisy-chain-connectx.yaml"
expect "first node" "$tmp/out" '^pass  nic\.pci  +Mellanox Technologies MT27800 Family \[ConnectX-5\] at 0000:01:00\.1$'
expect "first node" "$tmp/out" '^pass  nic\.driver  +mlx5_core drives enp1s0f1np1$'
ccheck "dual-port ConnectX-5, last node" 2 nic-cx5-dual-x4 node4 "$tmp/daisy-chain-connectx.yaml"
expect "last node" "$tmp/out" '^pass  nic\.driver  +mlx5_core drives enp1s0f0np0$'

# The E810 profile on a ConnectX host: nothing matches driver ice, and no device has its ids.
ccheck "E810 profile on a ConnectX host" 2 nic-cx5-x4 head "$profile"
expect "E810 profile" "$tmp/out" '^fail  nic\.pci  +no PCI device with nic\.pci-ids \(8086:1592\) on this machine'

# The ConnectX profile on the E810 reference board.
ccheck "ConnectX profile on an E810 host" 2 nic-e810-x4 head "$tmp/connectx-2.yaml"
expect "ConnectX profile" "$tmp/out" '^fail  nic\.pci  +no PCI device with nic\.pci-ids \(15b3:1017, 15b3:1019\) on this machine'

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]

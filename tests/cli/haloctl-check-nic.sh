#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl check --only nic. (and rdma. for the RDMA facts of the trees' sysfs) against the fixture hosts
# in tests/data/hosts/nic-*: the table rows, --json and the exit codes (0: all pass or skip, 2: some fail).
# Usage: haloctl-check-nic.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup nic-cli "$@"

# ncheck NAME EXPECTED_EXIT HOST [more haloctl arguments]: keeps stdout in $tmp/out.
ncheck() {
        local name=$1 want=$2 host=$3
        shift 3
        check "$name" "$want" check --root "$hosts/$host" --node head --only nic. --color never "$@" "$profile"
}

ncheck "reference board (x16 card in an x4 slot)" 0 nic-e810-x4
expect "x4" "$tmp/out" '^pass  nic\.pci  +Intel Corporation Ethernet Controller E810-C for QSFP at 0000:c2:00\.0$'
expect "x4" "$tmp/out" '^pass  nic\.pcie  +PCIe 16 GT/s x4 \(capable x16\): at most ~63 Gbit/s of the NIC.s 100$'
expect "x4" "$tmp/out" '^pass  nic\.driver  +ice drives enp194s0np0, DDP package ICE OS Default Package version 1\.3\.36\.0 \(kernel log\)$'
expect "x4" "$tmp/out" '^skip  nic\.firmware  +the firmware version comes from the running kernel'

ncheck "Safe Mode" 2 nic-e810-safe-mode
expect "Safe Mode" "$tmp/out" '^fail  nic\.driver  +ice runs enp194s0np0 in Safe Mode: ice found no DDP package file \(kernel log: "ice 0000:c2:00\.0: The DDP package file was not found or could not be read\. Entering Safe Mode"\), so RDMA and the offloads are off; install intel/ice/ddp/ice\.pkg under /lib/firmware'

# The NVM is older than the kernel's DDP package: ice says "safe mode" in lower case, and the fix is
# the NVM, not the package.
ncheck "old NVM" 2 nic-e810-old-nvm
expect "old NVM" "$tmp/out" "^fail  nic\\.driver  +ice runs enp194s0np0 in Safe Mode: the device's NVM \\(firmware\\) is too old for the kernel's DDP package \\(kernel log: \"ice 0000:c2:00\\.0: The firmware loaded on the device is not compatible with the DDP package\\.  Please update the device's NVM\\.  Entering safe mode\\.\"\\), so RDMA and the offloads are off; update the E810's NVM with Intel's nvmupdate64e \\(see nic\\.firmware\\), then reboot"

ncheck "no E810" 2 nic-absent
expect "no E810" "$tmp/out" '^fail  nic\.pci  +no PCI device with nic\.pci-ids \(8086:1592\) on this machine'

ncheck "json" 0 nic-e810-x16 --json
if command -v jq >/dev/null; then
        got=$(jq -r '[.checks[] | select(.id == "nic.pcie") | .summary] | first' "$tmp/out" 2>/dev/null)
        if [ "$got" != "PCIe 16 GT/s x16: ~252 Gbit/s, enough for the NIC's 100" ]; then
                echo "FAIL json: nic.pcie summary is \"$got\""
                sed 's/^/  /' "$tmp/out"
                failures=$((failures + 1))
        fi
else
        expect "json" "$tmp/out" '"nic\.pcie"'
fi

# A cluster that mixes NICs: the worker's own nic: (a ConnectX-5) replaces the profile's (the E810)
# for the worker only. On the E810 board head passes; the worker's link (its own match: driver
# mlx5_core) finds no NIC, and nic.pci looks for the worker's pci-ids, not the E810's.
mixed=$tmp/mixed.yaml
cp "$src/conf/examples/mixed-e810-connectx.yaml" "$mixed"
chmod 644 "$mixed"
check "mixed cluster, head" 0 check --root "$hosts/nic-e810-x4" --node head --only nic. --color never "$mixed"
expect "mixed head" "$tmp/out" '^pass  nic\.pci  +Intel Corporation Ethernet Controller E810-C for QSFP at 0000:c2:00\.0$'
expect "mixed head" "$tmp/out" '^pass  nic\.driver  +ice drives enp194s0np0, DDP package ICE OS Default Package version 1\.3\.36\.0 \(kernel log\)$'
check "mixed cluster, worker" 2 check --root "$hosts/nic-e810-x4" --node worker --only nic. --color never "$mixed"
expect "mixed worker" "$tmp/out" '^fail  nic\.pci  +no PCI device with nic\.pci-ids \(15b3:1017\) on this machine'
expect "mixed worker" "$tmp/out" '^skip  nic\.driver  +no fabric NIC found for link rdma0'
# The same worker whose link finds the E810: judged by its own nic:, which the E810 is not.
sed 's/match: { driver: mlx5_core }/match: { driver: ice }/' "$mixed" >"$tmp/mixed-ice.yaml"
chmod 644 "$tmp/mixed-ice.yaml"
check "mixed cluster, worker on the E810" 2 check --root "$hosts/nic-e810-x4" --node worker --only nic. --color never "$tmp/mixed-ice.yaml"
expect "worker on the E810" "$tmp/out" '^fail  nic\.pci  +.* at 0000:c2:00\.0 is 8086:1592, not one of nic\.pci-ids \(15b3:1017\)'
expect "worker on the E810" "$tmp/out" '^fail  nic\.driver  +enp194s0np0 is driven by ice, not mlx5_core \(nic\.driver\)'
check "mixed cluster, worker, json" 2 --json check --root "$hosts/nic-e810-x4" --node worker --only nic. "$mixed"
expect "mixed worker json" "$tmp/out" '"expected": "15b3:1017"'

# The RDMA facts come from the tree's sysfs too: the reference board in RoCE v2 mode, and the same board
# whose irdma runs iWARP (ice.iwarp.0, node type RNIC), judged as what it is.
check "RDMA, RoCE v2" 2 check --root "$hosts/nic-e810-x4" --node head --only rdma. --color never "$profile"
expect "RoCE v2" "$tmp/out" '^pass  rdma\.device  +irdma0 port 1 on enp194s0np0$'
expect "RoCE v2" "$tmp/out" '^pass  rdma\.gid  +RoCE v2 GID index 1 for 192\.168\.100\.1$'
check "RDMA, iWARP" 2 check --root "$hosts/nic-e810-iwarp" --node head --only rdma. --color never "$profile"
expect "iWARP" "$tmp/out" '^fail  rdma\.device  +irdma0 port 1 on enp194s0np0 runs iWARP \(node type RNIC, on ice\.iwarp\.0\), not RoCE.*`devlink dev param set pci/0000:c2:00\.0 name enable_iwarp value false cmode runtime`, then `devlink dev param set pci/0000:c2:00\.0 name enable_roce value true cmode runtime`'
expect "iWARP" "$tmp/out" '^skip  rdma\.gid  +irdma0 port 1 runs iWARP'

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]

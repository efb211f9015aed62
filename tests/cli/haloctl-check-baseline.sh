#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl check --only fabric. against the E810 board in an x4 Gen4 slot (tests/data/hosts/nic-e810-x4,
# 100 Gbit/s, MTU 9000) with an RDMA baseline file below the tree (halod(8), FILES): none yet, the
# guide's numbers, a measurement below its baseline and the ceiling, baselines taken with another PCIe
# link or MTU (stale), a file root does not trust, a corrupt one; the table rows, --json and the exit
# codes.
# Usage: haloctl-check-baseline.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup baseline-cli "$@"

# A copy of the tree that belongs to whoever runs the test, as the baseline's trust rule wants.
tree=$tmp/host
cp -r "$hosts/nic-e810-x4" "$tree"
mkdir -p "$tree/var/lib/halod"
chmod 755 "$tree/var/lib/halod"
file=$tree/var/lib/halod/rdma-baseline

# section NODE KIND TAKEN_USEC WRITE_BYTES RTT_NSEC PCIE_WIDTH MTU: one section, 2 s of RDMA WRITE.
section() {
        printf '\n[%s %s]\ntaken-usec %s\nlink rdma0\ndevice irdma0\npath-mtu 4096\npings 1000\n' "$1" "$2" "$3"
        printf 'rtt-median-nsec %s\nrtt-p99-nsec 6900\nwrite-bytes %s\nwrite-nsec 2000000000\n' "$5" "$4"
        printf 'firmware 4.91 0x8001a2ff 1.3682.0\npcie-speed-mts 16000\npcie-width %s\nmtu %s\nport-mbit 100000\n' "$6" "$7"
}
T0=1764295800000000 # 2025-11-28 02:10 UTC
T1=1764299400000000 # an hour later
# baseline BASELINE_BYTES LATEST_BYTES [PCIE_WIDTH [MTU]]: the file, mode 0644.
baseline() {
        {
                printf '# written by the test\nformat 1\n'
                section worker baseline "$T0" "$1" 5100 "${3:-4}" "${4:-9000}"
                section worker last "$T1" "$2" 5200 "${3:-4}" "${4:-9000}"
        } >"$file"
        chmod 644 "$file"
}
bcheck() {
        local name=$1 want=$2
        shift 2
        check "$name" "$want" check --root "$tree" --node head --only fabric. --color never "$@" "$profile"
}

bcheck "no baseline yet" 0
expect "none" "$tmp/out" "^skip  fabric\.worker\.baseline  +No RDMA baseline for worker yet: run 'haloctl probe worker' as root to record one"

# The guide's: 50.6 Gbit/s (12.65 GB in 2 s) through the x4 Gen4 slot, about 5 µs.
baseline 12650000000 12525000000
bcheck "the guide's numbers" 0
expect "guide" "$tmp/out" "^pass  fabric\.worker\.baseline  +RDMA to worker over rdma0: 5\.2 µs median round trip, 50\.1 Gbit/s RDMA WRITE \(measured 2025-11-28 03:10 UTC, within the baseline's 5\.1 µs and 50\.6 Gbit/s of 2025-11-28 02:10 UTC\); ceiling ~63 Gbit/s from PCIe 16 GT/s x4$"

# 30 Gbit/s: below 75% of the baseline and below 60% of the x4 Gen4 link's 63 Gbit/s.
baseline 12650000000 7500000000
bcheck "below the baseline and the ceiling" 1
expect "below" "$tmp/out" "^warn  fabric\.worker\.baseline  +RDMA to worker over rdma0, measured 2025-11-28 03:10 UTC: RDMA WRITE 30\.0 Gbit/s is well below the ~63 Gbit/s that PCIe 16 GT/s x4 allows; RDMA WRITE 30\.0 Gbit/s is 41% below the baseline's 50\.6 Gbit/s"

# Taken while the card trained x16 (another slot), and at MTU 1500: stale, not compared.
baseline 12650000000 7500000000 16
bcheck "stale: another PCIe link" 0
expect "stale pcie" "$tmp/out" "^skip  fabric\.worker\.baseline  +Not compared: the RDMA baseline to worker \(2025-11-28 02:10 UTC\) was taken before the node changed \(PCIe 16 GT/s x16 → PCIe 16 GT/s x4\); run 'haloctl probe worker' as root to re-take the baseline$"
baseline 12650000000 7500000000 4 1500
bcheck "stale: another MTU" 0
expect "stale mtu" "$tmp/out" "^skip  fabric\.worker\.baseline  +Not compared: .*\(MTU 1500 → 9000\)"

# Writable by its group: someone other than root could have written it.
baseline 12650000000 12525000000
chmod 664 "$file"
bcheck "a group-writable file" 1
expect "untrusted" "$tmp/out" "^warn  fabric\.worker\.baseline  +Cannot hold the RDMA path to worker against its baseline: $file: not trusted: owned by .* with mode 0664, so its group could have written it"

printf 'format 1\n[worker baseline]\nspeed 5\n' >"$file"
chmod 644 "$file"
bcheck "a corrupt file" 1
expect "corrupt" "$tmp/out" "^warn  fabric\.worker\.baseline  +Cannot hold the RDMA path to worker against its baseline: $file: line 3: unknown key 'speed'; remove it and run 'haloctl probe' as root"

baseline 12650000000 12525000000
bcheck "json" 0 --json
expect "json" "$tmp/out" '"id": "fabric\.worker\.baseline"'
expect "json" "$tmp/out" '"actual": "50\.1 Gbit/s, 5\.2 µs"'

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: what the NIC facts cost a check run, before and after issue 12 added the negotiated
# speed (ETHTOOL_GLINKSETTINGS), devlink (dev info, enable_roce, enable_iwarp) and the RDMA module
# check, side by side with the commands a user would otherwise type, in one run. The interface is
# this machine's first netdev with a PCI device (a virtio NIC here: devlink is asked and answers
# that the kernel has none, which is what most of today's kernels without a devlink NIC say).
# Per repetition, interleaved so that every variant sees the same machine:
#   old      `haloctl check --only nic.,rdma.` of the build given as OLD_BUILD_DIR
#   new      the same with BUILD_DIR's haloctl
#   by hand  `ethtool -i IF; ethtool IF; devlink dev info pci/ADDR; devlink dev param show pci/ADDR
#            name enable_roce` (what the new facts replace), failures and all
# Usage (root): OLD_BUILD_DIR=../old/build BUILD_DIR=build bench/nic-facts.sh [REPETITIONS]   (25)
set -euo pipefail
reps=${1:-25}
old=${OLD_BUILD_DIR:?OLD_BUILD_DIR names the build to compare with}/daemon/haloctl
new=${BUILD_DIR:-build}/daemon/haloctl
[ -x "$old" ] && [ -x "$new" ] || { echo "need $old and $new" >&2; exit 1; }

ifname= pci=
for n in /sys/class/net/*; do
        dev=$(readlink -f "$n/device" 2>/dev/null) || continue
        while [ -n "$dev" ] && [ "$dev" != / ]; do
                case $(basename "$dev") in
                [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:*) pci=$(basename "$dev"); break ;;
                esac
                dev=$(dirname "$dev")
        done
        [ -n "$pci" ] && { ifname=$(basename "$n"); break; }
done
[ -n "$ifname" ] || { echo "no netdev with a PCI device here" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/halod.yaml" <<EOF
cluster: bench
mode: verify
links:
  rdma0: { match: { name: "$ifname" } }
nic: { driver: virtio_net }
rdma: { required: false }
nodes:
  head: { links: { rdma0: 192.0.2.201/30 } }
EOF
chmod 644 "$dir/halod.yaml"

# Each haloctl must run the checks (exit 0, 1 or 2), not stop at the profile.
for h in "$old" "$new"; do
        rc=0
        "$h" --node head --only nic.,rdma. --color never check "$dir/halod.yaml" >"$dir/out" 2>&1 || rc=$?
        [ "$rc" -le 2 ] || { echo "$h check exited $rc:" >&2; cat "$dir/out" >&2; exit 1; }
done

now_ns() { date +%s%N; }
declare -A times
for i in $(seq "$reps"); do
        for v in old new hand; do
                t0=$(now_ns)
                case $v in
                old) "$old" --node head --only nic.,rdma. --color never check "$dir/halod.yaml" >/dev/null 2>&1 || true ;;
                new) "$new" --node head --only nic.,rdma. --color never check "$dir/halod.yaml" >/dev/null 2>&1 || true ;;
                hand)
                        { ethtool -i "$ifname"; ethtool "$ifname"; devlink dev info "pci/$pci"
                          devlink dev param show "pci/$pci" name enable_roce; } >/dev/null 2>&1 || true ;;
                esac
                t1=$(now_ns)
                times[$v]+="$(((t1 - t0) / 1000)) "
        done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "interface $ifname (PCI $pci), $reps repetitions, medians in ms:"
for v in old new hand; do
        m=$(median <<<"${times[$v]}")
        printf '  %-5s %6.2f\n' "$v" "$(awk -v m="$m" 'BEGIN { print m / 1000 }')"
done

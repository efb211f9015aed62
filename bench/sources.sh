#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark (a count, not a time): how often one `haloctl check` and one daemon verify read each
# kernel source: the netdev list (/sys/class/net), the PCI scan (/sys/bus/pci/devices), the kernel
# command line (/proc/cmdline), the DRM cards (/sys/class/drm), the RDMA devices
# (/sys/class/infiniband), MemTotal (/proc/meminfo), the boot configuration, and the rtnetlink link
# and address dumps. Counted with strace on the real processes (openat of the path, a directory for
# the listings, or its access(2) probe; a sent RTM_GETLINK or RTM_GETADDR with NLM_F_DUMP; a search
# of the boot configuration by its first path, BLS's /boot/loader/entries: one search tries up to six
# paths), so any build can be measured:
#   --root     `haloctl check --root tests/data/hosts/gpu-strix-ok` (a Strix Halo board with an E810
#              and amdgpu, as sysfs, /proc and /boot show them): every group, the profile asks for
#              everything
#   veth       `haloctl check` on a veth in a network namespace (the running kernel: rtnetlink)
#   verify     one Verify() of halod (verify mode) on that veth, on a private system bus: from the
#              call until its reply
#   drift      one drift re-check of that halod (the address deleted) and the export after it, 1 s
#   peers      one Verify() of halod with health.peers: true, a second halod (node worker) answering:
#              the verify and the peer round that follows it on the peer lane (2 s after the reply)
#   exports    the same with a Prometheus textfile: per export job of that Verify() and of its peer
#              round, the RDMA device look-ups (access(2) of /sys/class/infiniband) / all its reads there
# Usage (root): BUILD_DIR=build bench/sources.sh
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

harness_init src
require_root
require_tools ip dbus-daemon busctl strace
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
STRACE=(strace -f -qq -e trace=openat,access,faccessat,faccessat2,socket,sendto,sendmsg -e signal=none)
TREE=$SOURCE_DIR/tests/data/hosts/gpu-strix-ok

# The sources, as "label|extended regex on an strace line".
SOURCES=(
        'netdev list (/sys/class/net)|openat\(.*/sys/class/net", [^)]*O_DIRECTORY'
        'PCI scan (/sys/bus/pci/devices)|openat\(.*/sys/bus/pci/devices", [^)]*O_DIRECTORY'
        'kernel command line (/proc/cmdline)|openat\(.*/proc/cmdline"'
        'DRM cards (/sys/class/drm)|openat\(.*/sys/class/drm", [^)]*O_DIRECTORY'
        'RDMA devices (/sys/class/infiniband)|(openat|access|faccessat2?)\(.*/sys/class/infiniband"'
        'MemTotal (/proc/meminfo)|openat\(.*/proc/meminfo"'
        'boot configuration searches|openat\(.*/boot/loader/entries"'
        'rtnetlink link dump|RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST\|NLM_F_DUMP'
        'rtnetlink address dump|RTM_GETADDR, nlmsg_flags=NLM_F_REQUEST\|NLM_F_DUMP'
)

# count LOG: one line per source, the times the log shows it.
count() {
        local s label re
        for s in "${SOURCES[@]}"; do
                label=${s%%|*}
                re=${s#*|}
                printf '  %-42s %s\n' "$label" "$(grep -cE "$re" "$1" || true)"
        done
}

echo "halod $("$BUILD_DIR/daemon/halod" --version | cut -d' ' -f2), kernel $(uname -r)"
echo

P_ROOT=$TEST_DIR/root.yaml
cat >"$P_ROOT" <<EOF
cluster: strix-halo
links: { rdma0: { match: { driver: ice } } }
nic: { driver: ice, pci-ids: ["8086:1592", "8086:1593"] }
rdma: { required: true, gid: roce-v2 }
kernel: { cmdline: [iommu=pt, pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856] }
gpu: { vram-max: 512M }
memory-min: 120G
nodes:
  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }
  worker: { hostname: halo-2, links: { rdma0: 192.168.100.2/30 } }
EOF
echo "== haloctl --root tests/data/hosts/gpu-strix-ok --node head check"
"${STRACE[@]}" -o "$TEST_DIR/root.log" "$HALOCTL" --root "$TREE" --node head check "$P_ROOT" >/dev/null 2>&1 || true
count "$TEST_DIR/root.log"

start_dbus
dm_install_bus_policy
netns_pair
P=$TEST_DIR/halod.yaml
ip -n "$NS_A" addr add 10.77.0.1/30 dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" up mtu 9000
cat >"$P" <<EOF
cluster: src-test
mode: verify
links:
  fab0:
    mtu: 9000
nic: { driver: veth }
rdma: { required: false }
kernel: { cmdline: [iommu=pt, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856] }
gpu: { vram-max: 512M }
memory-min: 1G
nodes:
  a: { hostname: src-a, links: { fab0: { address: 10.77.0.1/30, match: { name: $IF_A } } } }
  b: { hostname: src-b, links: { fab0: { address: 10.77.0.2/30, match: { name: $IF_B } } } }
health: { interval: 600s, peers: false }
EOF

echo
echo "== haloctl --node a check, on a veth (the running kernel)"
in_ns "$NS_A" "${STRACE[@]}" -o "$TEST_DIR/veth.log" "$HALOCTL" --node a check "$P" >/dev/null 2>&1 || true
count "$TEST_DIR/veth.log"

echo
echo "== one Verify() of halod, verify mode, on that veth"
STRACE_LOG=$TEST_DIR/halod.log
dm_start_halod "$NS_A" a "$P" "${STRACE[@]}" -o "$STRACE_LOG"
wait_notify "$NOTIFY_OUT" 'READY=1' 30
sleep 1
# The lines strace has written so far are the start's; what follows up to the reply is the verify's.
before=$(wc -l <"$STRACE_LOG")
busctl call "${HALOD_BUS[@]}" Verify >/dev/null
sleep 0.5
tail -n +"$((before + 1))" "$STRACE_LOG" >"$TEST_DIR/verify.log"
count "$TEST_DIR/verify.log"

echo
echo "== one drift re-check of that halod (RTM_DELADDR) and the export after it"
before=$(wc -l <"$STRACE_LOG")
ip -n "$NS_A" addr del 10.77.0.1/30 dev "$IF_A"
sleep 1
tail -n +"$((before + 1))" "$STRACE_LOG" >"$TEST_DIR/drift.log"
count "$TEST_DIR/drift.log"
printf '  %-42s %s\n' "opens and access(2) probes, all paths" "$(grep -cE '^[0-9]+ +(openat|access|faccessat2?)\(' "$TEST_DIR/drift.log" || true)"
# The peer round (health.peers: true, no MTU in the profile: the MTU probe takes the local netdev's),
# which runs on halod's peer lane after the verify's checks, with node worker's halod answering.
P_HEAD=$TEST_DIR/head.yaml
P_WORKER=$TEST_DIR/worker.yaml
netns_pair p
ip -n "$NS_A" addr add 10.77.0.1/30 dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" up mtu 9000
ip -n "$NS_B" addr add 10.77.0.2/30 dev "$IF_B"
ip -n "$NS_B" link set "$IF_B" up mtu 9000
for f in "$P_HEAD" "$P_WORKER"; do
        cat >"$f" <<EOF2
cluster: src-test
mode: verify
links: { fab0: {} }
nodes:
  head: { links: { fab0: { address: 10.77.0.1/30, match: { name: $IF_A } } } }
  worker: { links: { fab0: { address: 10.77.0.2/30, match: { name: $IF_B } } } }
health: { interval: 600s, peers: true }
EOF2
done
dm_two_buses
echo
echo "== one Verify() of halod with health.peers: true and the peer round after it (a second halod answering)"
on worker dm_start_halod "$NS_B" worker "$P_WORKER"
wait_notify "$NOTIFY_OUT" 'READY=1' 30
STRACE_LOG=$TEST_DIR/halod-head.log
on head dm_start_halod "$NS_A" head "$P_HEAD" "${STRACE[@]}" -o "$STRACE_LOG"
wait_notify "$NOTIFY_OUT" 'READY=1' 30
sleep 2
before=$(wc -l <"$STRACE_LOG")
on head busctl call "${HALOD_BUS[@]}" Verify >/dev/null
# The peer round's probes end within a few milliseconds with a peer that answers; 2 s covers it.
sleep 2
tail -n +"$((before + 1))" "$STRACE_LOG" >"$TEST_DIR/verify-peers.log"
count "$TEST_DIR/verify-peers.log"
on head busctl get-property "${HALOD_BUS[@]}" Checks | grep -o 'peer.worker.mtu" "[a-z]*' || true

# The same two nodes, the head with a Prometheus textfile: each export (a job thread of its own, the one
# that renames the textfile into place) of one Verify() and of its peer round, and how often it
# looked up the RDMA devices (rdma_device_find()'s access(2) probe) and read anything below
# /sys/class/infiniband.
echo
echo "== the exports of one Verify() and of its peer round, with a Prometheus textfile (RDMA look-ups / reads per export)"
# halod itself, strace's first traced process: strace would detach and leave it running.
kill -TERM "$(awk 'NR == 1 {print $1}' "$STRACE_LOG")"
dm_wait_exit "$HALOD_PID" 10
PROM=$TEST_DIR/head.prom
sed -i "s|peers: true }|peers: true, prometheus-textfile: $PROM }|" "$P_HEAD"
STRACE_LOG=$TEST_DIR/halod-head-prom.log
on head dm_start_halod "$NS_A" head "$P_HEAD" strace -f -qq -e trace=openat,access,faccessat,faccessat2,rename -e signal=none -o "$STRACE_LOG"
wait_notify "$NOTIFY_OUT" 'READY=1' 30
sleep 2
before=$(wc -l <"$STRACE_LOG")
on head busctl call "${HALOD_BUS[@]}" Verify >/dev/null
sleep 2
tail -n +"$((before + 1))" "$STRACE_LOG" >"$TEST_DIR/verify-prom.log"
n=0
for t in $(grep -E "^[0-9]+ +rename\(.*\"$PROM\"" "$TEST_DIR/verify-prom.log" | awk '{print $1}'); do
        n=$((n + 1))
        printf '  %-42s %s / %s\n' "export $n (thread $t)" \
                "$(grep -cE "^$t +(access|faccessat2?)\(.*/sys/class/infiniband\"" "$TEST_DIR/verify-prom.log" || true)" \
                "$(grep -cE "^$t +(openat|access|faccessat2?)\(.*/sys/class/infiniband\"" "$TEST_DIR/verify-prom.log" || true)"
done

#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl validate as documented in haloctl(1): exit 0 valid (with or without a node), 78 invalid with
# every error on stderr, 64 usage, 66 unreadable; --json prints the normalized profile and the node.
# Usage: test-haloctl-validate.sh HALOCTL SOURCE_ROOT
set -uo pipefail
haloctl=$(realpath "$1")
root=$2
tmp=$(mktemp -d /tmp/halod-profile-validate.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0

expect() { # expect CODE DESCRIPTION -- ARGS...
        local want=$1 what=$2 got
        shift 3
        "$haloctl" "$@" >"$tmp/out" 2>"$tmp/err"
        got=$?
        if [ "$got" != "$want" ]; then
                echo "FAIL: $what: exit $got, expected $want"
                sed 's/^/  stdout: /' "$tmp/out"
                sed 's/^/  stderr: /' "$tmp/err"
                failed=1
        fi
}

contains() { # contains FILE TEXT DESCRIPTION
        if ! grep -qF -- "$2" "$1"; then
                echo "FAIL: $3: '$2' not in $1:"
                sed 's/^/  /' "$1"
                failed=1
        fi
}

cd "$root"

expect 0 "reference profile, as node head" -- validate --node head conf/halod.yaml
contains "$tmp/out" "conf/halod.yaml is a valid profile for cluster strix-halo" "summary"
contains "$tmp/out" "This machine is node head (hostname halo-1)." "selected node"
contains "$tmp/out" "rdma0    the interface with driver ice; MTU 9000; firewall zone trusted; IPv6 off through NetworkManager (the netlink and networkd backends leave IPv6 alone)" "links"
contains "$tmp/out" "rdma0 192.168.100.2/30" "worker address"
contains "$tmp/out" "PCI id 8086:1592; driver ice; firmware 4.91 or newer; PCIe link x4 or wider; speed 100 Gbit/s or faster" "nic"
contains "$tmp/out" "required (problems fail the checks); GID type roce-v2; active MTU 4096 or more; memlock unlimited" "rdma"
contains "$tmp/out" "iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856" "kernel"
contains "$tmp/out" "every check every 60s; peers probed on UDP port 7739" "health"
# The text says what --json says: the gpu: section and memory-min.
contains "$tmp/out" "GPU     an amdgpu GPU on every node; firmware carve-out (VRAM) 512M or less" "gpu"
contains "$tmp/out" "Memory  MemTotal 120G or more on every node" "memory-min"
[ -s "$tmp/err" ] && { echo "FAIL: stderr not empty for a valid profile"; failed=1; }

# A machine that is none of the nodes: valid all the same. The hostname of this test machine is
# not halo-1/halo-2 and no 192.168.100.x address is configured here (checked, so the test cannot lie).
if [ "$(hostname)" != halo-1 ] && [ "$(hostname)" != halo-2 ] && ! ip -4 -o addr 2>/dev/null | grep -q ' 192\.168\.100\.[12]/'; then
        expect 0 "not a node" -- validate conf/halod.yaml
        contains "$tmp/out" "No node selected: this machine (hostname '$(hostname)'" "not a node"
        contains "$tmp/out" "is none of the profile's nodes: head (halo-1, 192.168.100.1), worker (halo-2, 192.168.100.2); pass --node NAME." "candidates"
        contains "$tmp/out" "That is fine for validate" "still valid"
fi

for f in conf/examples/*.yaml tests/data/profiles/good/*.yaml; do
        expect 0 "$f" -- validate "$f"
done
# What the shipped profiles say in their comments holds: a link mtu's "needs at least N" is the least
# MTU the validator accepts for that link's NIC (rdma.min-active-mtu 4096 as the driver computes it),
# and no example asks for ecn: on an E810, where halod can neither read nor set it (qos.LINK.ecn skips).
for f in conf/halod.yaml conf/examples/*.yaml; do
        least=$(grep -oE '^    mtu: 9000 +#.* needs at least [0-9]+' "$f" | grep -oE '[0-9]+$')
        [ -n "$least" ] || continue
        sed -E "s/^(    mtu: )9000 /\1$least /" "$f" >"$tmp/least.yaml"
        expect 0 "$f with the mtu its comment says is enough ($least)" -- validate "$tmp/least.yaml"
        sed -E "s/^(    mtu: )9000 /\1$((least - 1)) /" "$f" >"$tmp/least.yaml"
        expect 78 "$f with one byte less than its comment says is enough ($((least - 1)))" -- validate "$tmp/least.yaml"
done
for f in conf/halod.yaml conf/examples/*.yaml; do
        "$haloctl" --json validate "$f" >"$tmp/out" 2>/dev/null
        python3 - "$tmp/out" "$f" <<'PY' || failed=1
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
nics = [p["nic"]] + [n["nic"] for n in p["nodes"].values() if n["nic"]]
if any(n and n.get("driver") == "ice" for n in nics):
    for name, link in p["links"].items():
        if link["qos"] and link["qos"].get("ecn") is not None:
            print(f"FAIL: {sys.argv[2]}: links.{name}.qos.ecn on an E810, which halod neither applies nor checks")
            sys.exit(1)
PY
done

# The guide's switched fabric without a DSCP map of its own: where DSCP 26 lands is the NIC's map.
expect 0 "the guide's switched-fabric QoS" -- validate tests/data/profiles/good/switched-guide-qos.yaml
contains "$tmp/out" "trust dscp, ECN on, RoCE ToS 106 (priority: the NIC's DSCP map, which qos.rdma0.trust reads on the node)" "qos summary"

expect 0 "--json" -- --json validate --node worker conf/halod.yaml
contains "$tmp/out" '"valid": true' "json valid"
contains "$tmp/out" '"node": "worker"' "json node"
contains "$tmp/out" '"firmware-min": "4.91"' "json profile"
contains "$tmp/out" '"from": "profile"' "json nic from the profile"
if command -v python3 >/dev/null; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["profile"]["nodes"]["worker"]["links"]["rdma0"]["address"] == "192.168.100.2/30"' "$tmp/out" ||
                { echo "FAIL: --json output does not parse"; failed=1; }
fi

# Without a node's own nic: the NIC is one line for the cluster (asserted above); with one, a line per
# node that says whose nic: it is.
f=conf/examples/mixed-e810-connectx.yaml
expect 0 "mixed NICs" -- validate --node worker "$f"
contains "$tmp/out" "NIC     head    PCI id 8086:1592; driver ice; firmware 4.91 or newer; PCIe link x4 or wider; speed 100 Gbit/s or faster (the profile's nic:)" "head's NIC"
contains "$tmp/out" "        worker  PCI id 15b3:1017; driver mlx5_core; firmware 16.35.2000 or newer; PCIe link x4 or wider; speed 100 Gbit/s or faster (its own nic:)" "worker's NIC"
grep -q "^NIC     PCI id" "$tmp/out" && { echo "FAIL: mixed NICs: a cluster-wide NIC line"; failed=1; }
expect 0 "mixed NICs, --json" -- --json validate --node worker "$f"
contains "$tmp/out" '"from": "node"' "json nic source"
if command -v python3 >/dev/null; then
        python3 - "$tmp/out" <<'PY' || { echo "FAIL: --json nics of the mixed example"; failed=1; }
import json, sys
d = json.load(open(sys.argv[1]))
head, worker = d["nics"]["head"], d["nics"]["worker"]
assert head["from"] == "profile" and head["nic"]["driver"] == "ice", head
assert head["nic"]["pci-ids"] == ["8086:1592"], head
assert worker["from"] == "node" and worker["nic"]["driver"] == "mlx5_core", worker
assert worker["nic"]["pci-ids"] == ["15b3:1017"] and worker["nic"]["firmware-min"] == "16.35.2000", worker
assert worker["nic"]["speed-min"] == "100G" and worker["nic"]["speed-min-mbit"] == 100000, worker
# In the normalized profile: the worker's own nic:, the head's null (it takes the profile's).
assert d["profile"]["nodes"]["worker"]["nic"]["driver"] == "mlx5_core"
assert d["profile"]["nodes"]["head"]["nic"] is None
assert d["profile"]["nic"]["driver"] == "ice"
PY
fi
# A node with no nic: of its own in a profile without one is not checked, and says so.
printf 'cluster: x\nlinks: { rdma0: { match: { name: fab0 } } }\nnodes:\n  a: { links: { rdma0: 10.0.0.1/24 }, nic: { driver: mlx5_core } }\n  b: { links: { rdma0: 10.0.0.2/24 } }\n' >"$tmp/one-nic.yaml"
expect 0 "one node with a nic:" -- validate --node a "$tmp/one-nic.yaml"
contains "$tmp/out" "NIC     a  PCI id any; driver mlx5_core; firmware any; PCIe link width not checked (its own nic:)" "a's NIC"
contains "$tmp/out" "        b  not checked (no nic: section, neither its own nor the profile's)" "b without NIC"
expect 0 "one node with a nic:, --json" -- --json validate --node a "$tmp/one-nic.yaml"
contains "$tmp/out" '"from": "none"' "json no nic"

expect 78 "invalid profile" -- validate tests/data/profiles/bad/mtu-too-large.yaml
contains "$tmp/err" "tests/data/profiles/bad/mtu-too-large.yaml:5:10: links.rdma0.mtu: 9217 is out of range (expected an MTU from 68 to 9216, like 9000)" "error line"
contains "$tmp/err" "not a valid profile (1 error); nothing was changed." "error summary"
[ -s "$tmp/out" ] && { echo "FAIL: stdout not empty for an invalid profile"; failed=1; }

printf 'cluster: x\nmode: enforse\nlinks: {}\n' >"$tmp/several.yaml"
expect 78 "several errors" -- validate "$tmp/several.yaml"
[ "$(grep -c "^$tmp/several.yaml:[0-9]*:[0-9]*: " "$tmp/err")" = 3 ] || { echo "FAIL: expected 3 error lines"; cat "$tmp/err"; failed=1; }

expect 78 "invalid, --json" -- --json validate tests/data/profiles/bad/empty.yaml
contains "$tmp/out" '"valid": false' "json invalid"
contains "$tmp/out" 'profile is empty' "json errors"

expect 66 "missing file" -- validate "$tmp/nonexistent.yaml"
contains "$tmp/err" "$tmp/nonexistent.yaml: cannot read the profile: No such file or directory" "missing file message"
expect 66 "directory" -- validate "$tmp"
expect 64 "two profiles" -- validate conf/halod.yaml conf/halod.yaml
expect 64 "unknown node" -- validate --node nobody conf/halod.yaml
contains "$tmp/err" "the profile has no node 'nobody'; its nodes are: head (halo-1, 192.168.100.1), worker (halo-2, 192.168.100.2)" "unknown node message"
expect 64 "unknown option" -- validate --frobnicate conf/halod.yaml

exit $failed

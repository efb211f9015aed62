#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl env --cdi against fixture hosts: the CDI spec (kind halod.io/fabric, a device per link and
# all) with each link's uverbs node from sysfs (on the dual-port ConnectX-5, mlx5_1 is uverbs0), host
# paths below --root, the variables, and on stderr what is left out and why (exit 1). The RDMA devices
# and GID indexes are read from the trees' sysfs (irdma: the address's RoCE v2 GID at 1; mlx5: at 3,
# after its RoCE v1 twin), never from the running kernel.
# Usage: haloctl-env-cdi.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup env-cdi-cli "$@"
cp "$src/conf/examples/daisy-chain-connectx.yaml" "$tmp/chain.yaml"
chmod 644 "$tmp/chain.yaml"

# spec EXPRESSION: evaluates a Python expression over the spec in $tmp/out (s) and prints it.
spec() {
        python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$tmp/out" "$1"
}

# expect_eq NAME GOT WANT
expect_eq() {
        if [ "$2" != "$3" ]; then
                echo "FAIL $1: got '$2', expected '$3'"
                failures=$((failures + 1))
        fi
}

nodes='" ".join(n["path"] + "=" + n["hostPath"] for n in d["containerEdits"].get("deviceNodes", []))'
env='" ".join(d["containerEdits"]["env"])'

check "E810 reference board" 1 env --cdi --root "$hosts/nic-e810-x4" --node head "$profile"
expect_eq "E810: kind and version" "$(spec 's["kind"] + " " + s["cdiVersion"]')" "halod.io/fabric 0.5.0"
expect_eq "E810: devices" "$(spec '" ".join(d["name"] for d in s["devices"])')" "rdma0 all"
expect_eq "E810: rdma0's nodes" "$(spec "[$nodes for d in s['devices']][0]")" \
        "/dev/infiniband/uverbs0=$hosts/nic-e810-x4/dev/infiniband/uverbs0"
expect_eq "E810: rdma0's variables" "$(spec "[$env for d in s['devices']][0]")" \
        "NCCL_SOCKET_IFNAME=enp194s0np0 NCCL_IB_HCA=irdma0 NCCL_IB_GID_INDEX=1 GLOO_SOCKET_IFNAME=enp194s0np0 VLLM_HOST_IP=192.168.100.1"
expect "E810: rdma_cm" "$tmp/err" '^no /dev/infiniband/rdma_cm: librdmacm in the container cannot resolve addresses \(modprobe rdma_ucm\)$'
expect_not "E810: NCCL_IB_HCA" "$tmp/err" 'NCCL_IB_HCA not set'
# The reference profile has no qos.roce-tos: NCCL_IB_TC and NCCL_IB_SL are not this node's, as in plain
# env (haloctl(1)), and count neither in the output nor in the exit status (test-cdi).
expect_not "E810: no NCCL_IB_TC or NCCL_IB_SL" "$tmp/err" 'NCCL_IB_(TC|SL)'

check "daisy chain's middle node on a dual-port ConnectX-5" 1 env --cdi --root "$hosts/nic-cx5-dual-x4" \
        --node node2 "$tmp/chain.yaml"
expect_eq "dual: devices" "$(spec '" ".join(d["name"] for d in s["devices"])')" "rdma0 rdma1 all"
expect_eq "dual: nodes" "$(spec "' | '.join($nodes for d in s['devices'])" | sed "s|$hosts/nic-cx5-dual-x4|R|g")" \
        "/dev/infiniband/uverbs1=R/dev/infiniband/uverbs1 | /dev/infiniband/uverbs0=R/dev/infiniband/uverbs0 | /dev/infiniband/uverbs1=R/dev/infiniband/uverbs1 /dev/infiniband/uverbs0=R/dev/infiniband/uverbs0"
expect_eq "dual: rdma1's variables" "$(spec "[$env for d in s['devices']][1]")" \
        "NCCL_SOCKET_IFNAME=enp1s0f1np1 NCCL_IB_HCA=mlx5_1 NCCL_IB_GID_INDEX=3 GLOO_SOCKET_IFNAME=enp1s0f1np1 VLLM_HOST_IP=10.0.2.2"
expect_eq "dual: all's variables" "$(spec "[$env for d in s['devices']][2]")" \
        "NCCL_SOCKET_IFNAME=enp1s0f0np0,enp1s0f1np1 NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_IB_GID_INDEX=3 GLOO_SOCKET_IFNAME=enp1s0f0np0,enp1s0f1np1 VLLM_HOST_IP=10.0.1.2"

check "--cdi with --json" 64 env --cdi --json --root "$hosts/nic-e810-x4" --node head "$profile"
expect "--cdi with --json" "$tmp/err" 'drop --json'
check "--cdi with another verb" 64 check --cdi --root "$hosts/nic-e810-x4" --node head "$profile"
expect "--cdi with another verb" "$tmp/err" '^--cdi is an option of env only'

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]

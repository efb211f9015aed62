#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl env --format=hostfile|llama-rpc|ray: the launch files from the profile's nodes and their
# first fabric address, on the two-node reference profile and the four-node daisy chain; a changed
# address changes them; --slots and --port, --json, and the options refused where they do not apply.
# Usage: haloctl-env-launch.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup env-launch-cli "$@"
cp "$src/conf/examples/daisy-chain-4.yaml" "$tmp/chain.yaml"
chmod 644 "$tmp/chain.yaml"

# expect_out NAME WANT: stdout without its comment lines is exactly WANT.
expect_out() {
        local got
        got=$(grep -v '^#' "$tmp/out")
        if [ "$got" != "$2" ]; then
                echo "FAIL $1: got:"
                printf '%s\n' "$got" | sed 's/^/  /'
                echo "  expected:"
                printf '%s\n' "$2" | sed 's/^/  /'
                failures=$((failures + 1))
        fi
}

check "hostfile, default slots" 0 env --format=hostfile --node head "$profile"
expect_out "hostfile" $'192.168.100.1 slots=1\n192.168.100.2 slots=1'
expect "hostfile names the cluster" "$tmp/out" '^# MPI hostfile of cluster strix-halo'
check "hostfile --slots 8" 0 env --format=hostfile --slots 8 --node worker "$profile"
expect_out "hostfile --slots" $'192.168.100.1 slots=8\n192.168.100.2 slots=8'
check "hostfile of the chain" 0 env --format=hostfile --node node3 "$tmp/chain.yaml"
expect_out "chain hostfile" $'10.0.1.1 slots=1\n10.0.1.2 slots=1\n10.0.2.3 slots=1\n10.0.3.4 slots=1'

check "llama-rpc on the head" 0 env --format=llama-rpc --node head "$profile"
expect_out "llama-rpc head" "192.168.100.2:50052"
check "llama-rpc of the chain, --port" 0 env --format=llama-rpc --port 50100 --node node2 "$tmp/chain.yaml"
expect_out "llama-rpc chain" "10.0.1.1:50100,10.0.2.3:50100,10.0.3.4:50100"

check "ray on the worker" 0 env --format=ray --node worker "$profile"
expect_out "ray worker" $'export RAY_ADDRESS=192.168.100.1:6379\nexport RAY_NODE_IP_ADDRESS=192.168.100.2'
check "ray --port on the chain's last node" 0 env --format=ray --port 6380 --node node4 "$tmp/chain.yaml"
expect_out "ray chain" $'export RAY_ADDRESS=10.0.1.1:6380\nexport RAY_NODE_IP_ADDRESS=10.0.3.4'

# The files follow the profile: a node's new address is in every one of them.
sed -i 's|192.168.100.1/30|192.168.100.5/29|; s|192.168.100.2/30|192.168.100.3/29|' "$profile"
check "hostfile after an address change" 0 env --format=hostfile --node head "$profile"
expect_out "changed hostfile" $'192.168.100.5 slots=1\n192.168.100.3 slots=1'
check "llama-rpc after an address change" 0 env --format=llama-rpc --node head "$profile"
expect_out "changed llama-rpc" "192.168.100.3:50052"
check "ray after an address change" 0 env --format=ray --node worker "$profile"
expect_out "changed ray" $'export RAY_ADDRESS=192.168.100.5:6379\nexport RAY_NODE_IP_ADDRESS=192.168.100.3'

check "--json" 0 env --format=ray --json --node worker "$profile"
got=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["format"], d["head"], d["port"], " ".join(n["node"] + "=" + n["address"] for n in d["nodes"]), repr(d["text"]))' "$tmp/out")
want="ray head 6379 head=192.168.100.5 worker=192.168.100.3 'export RAY_ADDRESS=192.168.100.5:6379\\nexport RAY_NODE_IP_ADDRESS=192.168.100.3\\n'"
if [ "$got" != "$want" ]; then
        echo "FAIL --json: got $got"
        failures=$((failures + 1))
fi
check "--format=env is the variables" 1 env --format=env --root "$hosts/nic-e810-x4" --node head "$profile"
expect "--format=env" "$tmp/out" '^export VLLM_HOST_IP=192.168.100.5$'

check "unknown format" 64 env --format=slurm --node head "$profile"
expect "unknown format" "$tmp/err" "^Unknown --format 'slurm': expected env, hostfile, llama-rpc or ray\.$"
check "--slots 0" 64 env --format=hostfile --slots 0 --node head "$profile"
expect "--slots 0" "$tmp/err" "^Invalid --slots '0'"
check "--slots without hostfile" 64 env --format=ray --slots 2 --node head "$profile"
expect "--slots without hostfile" "$tmp/err" '^--slots is an option of env --format=hostfile only'
check "--port 70000" 64 env --format=ray --port 70000 --node head "$profile"
expect "--port 70000" "$tmp/err" "^Invalid --port '70000'"
check "--port with hostfile" 64 env --format=hostfile --port 1 --node head "$profile"
expect "--port with hostfile" "$tmp/err" '^--port is an option of env --format=llama-rpc and --format=ray only'
check "--format with --cdi" 64 env --format=ray --cdi --node head "$profile"
expect "--format with --cdi" "$tmp/err" 'give one of them'
check "--format with another verb" 64 check --format=ray --node head "$profile"
expect "--format with another verb" "$tmp/err" '^--format is an option of env only'

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]

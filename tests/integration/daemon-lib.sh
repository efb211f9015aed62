# SPDX-License-Identifier: MIT
# Helpers for the halod daemon tests, sourced after lib.sh: the io.halod1 bus policy, a test profile
# that a veth can satisfy, starting halod in a namespace with an sd_notify receiver, and reading its
# properties with busctl.

HALOD_BUS=(io.halod1 /io/halod1 io.halod1.Node)

# dm_install_bus_policy [TAG]: put conf/dbus-1/io.halod1.conf into the private bus started with TAG
# and have the bus re-read its configuration.
dm_install_bus_policy() {
        local tag=${1:+-$1}
        cp "$SOURCE_DIR/conf/dbus-1/io.halod1.conf" "$TEST_DIR/dbus$tag/system.d/"
        busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null
}

# dm_two_buses: a private bus each for the nodes head and worker, with io.halod1's policy, their
# addresses in BUS_HEAD and BUS_WORKER; then `on NODE COMMAND...` runs COMMAND (a program or a
# daemon-lib function) against NODE's bus.
dm_two_buses() {
        start_dbus head
        BUS_HEAD=$DBUS_SYSTEM_BUS_ADDRESS
        dm_install_bus_policy head
        start_dbus worker
        BUS_WORKER=$DBUS_SYSTEM_BUS_ADDRESS
        dm_install_bus_policy worker
}

on() {
        local node=$1 bus
        shift
        case $node in
        head) bus=$BUS_HEAD ;;
        worker) bus=$BUS_WORKER ;;
        *) fail "on: no node $node" ;;
        esac
        DBUS_SYSTEM_BUS_ADDRESS=$bus "$@"
}

# dm_write_profile FILE MODE ADDR_A ADDR_B [PEERS]: a two-node profile whose one link (fab0, MTU
# 9000) is IF_A on node a and IF_B on node b; PEERS (default false) is health.peers. No nic:, rdma:
# or kernel: sections: every check can pass on a veth, so that "healthy" is real and degradation is
# observable.
dm_write_profile() {
        local file=$1 mode=$2 a=$3 b=$4 peers=${5:-false}
        cat >"$file" <<EOF
cluster: dm-test
mode: $mode
links:
  fab0:
    mtu: 9000
nodes:
  a: { links: { fab0: { address: $a, match: { name: $IF_A } } } }
  b: { links: { fab0: { address: $b, match: { name: $IF_B } } } }
health: { interval: 60s, peers: $peers }
EOF
}

# dm_head_worker NET [HEAD_MTU]: the nodes head and worker in a namespace pair (netns_pair: head in
# NS_A on IF_A, worker in NS_B on IF_B), their links up at MTU HEAD_MTU (default 9000) and 9000 and
# addressed NET.1/30 and NET.2/30. Sets HEAD_ADDR and WORKER_ADDR.
dm_head_worker() {
        local net=$1 head_mtu=${2:-9000}
        netns_pair
        HEAD_ADDR=$net.1
        WORKER_ADDR=$net.2
        ip -n "$NS_A" link set "$IF_A" mtu "$head_mtu" up
        ip -n "$NS_B" link set "$IF_B" mtu 9000 up
        ip -n "$NS_A" addr add "$HEAD_ADDR/30" dev "$IF_A"
        ip -n "$NS_B" addr add "$WORKER_ADDR/30" dev "$IF_B"
}

# dm_head_worker_profile FILE CLUSTER INTERVAL [HEALTH...]: the profile of dm_head_worker's two nodes
# (mode: verify, one link fab0 at MTU 9000; health.interval INTERVAL, health.peers true, and HEALTH,
# further health: entries such as "prometheus-textfile: PATH").
dm_head_worker_profile() {
        local file=$1 cluster=$2 interval=$3 health="interval: $3, peers: true"
        shift 3
        [ $# -eq 0 ] || health+=", $*"
        cat >"$file" <<EOF
cluster: $cluster
mode: verify
links:
  fab0:
    mtu: 9000
nodes:
  head:   { links: { fab0: { address: $HEAD_ADDR/30, match: { name: $IF_A } } } }
  worker: { links: { fab0: { address: $WORKER_ADDR/30, match: { name: $IF_B } } } }
health: { $health }
EOF
}

# dm_hosts_file NODE PROFILE: write an /etc/hosts for NODE's halod and print its path. The machine's
# own name maps to NODE's first fabric address, as node.hostname wants it: the host's own /etc/hosts
# (Debian's "127.0.1.1 HOSTNAME", a container's "127.0.0.1 HOSTNAME") is no fact of the test, and
# would leave every test's halod degraded by node.hostname. Without an address (a profile that does
# not load) only localhost is there.
dm_hosts_file() {
        local node=$1 profile=$2 file=$TEST_DIR/hosts-$1 address
        address=$("$BUILD_DIR/daemon/haloctl" --json validate --node "$node" "$profile" 2>/dev/null |
                /usr/bin/python3 -c 'import json, sys
try:
    links = json.load(sys.stdin)["profile"]["nodes"][sys.argv[1]]["links"]
    print(next(iter(links.values()))["address"].split("/")[0])
except (ValueError, KeyError, TypeError, StopIteration):
    pass' "$node")
        {
                printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n'
                [ -z "$address" ] || printf '%s\t%s\n' "$address" "$(hostname)"
        } >"$file"
        chmod 0644 "$file"
        echo "$file"
}

# dm_start_halod NS NODE PROFILE [WRAPPER...]: start halod (under WRAPPER, e.g. valgrind) as NODE in
# namespace NS with the netlink backend and a NOTIFY_SOCKET receiver, on the bus that
# DBUS_SYSTEM_BUS_ADDRESS names. fabric.env goes to $RUNTIME_DIRECTORY when it is set (as systemd
# sets it), else to --runtime-dir $TEST_DIR/run-NODE: never to the host's /run/halod; the CDI spec to
# --cdi-dir $TEST_DIR/cdi-NODE, never to the host's /run/cdi. halod sees the /etc/hosts of
# dm_hosts_file, bind-mounted in a mount namespace of its own. Sets HALOD_PID,
# HALOD_LOG (its stderr) and NOTIFY_OUT (one datagram per line).
dm_start_halod() {
        local ns=$1 node=$2 profile=$3 runtime=() hosts
        shift 3
        [ -n "${RUNTIME_DIRECTORY:-}" ] || runtime=(--runtime-dir "$TEST_DIR/run-$node")
        NOTIFY_OUT=$TEST_DIR/notify-$node.out
        HALOD_LOG=$TEST_DIR/logs/halod-$node.log
        hosts=$(dm_hosts_file "$node" "$profile")
        start_notify_receiver "$TEST_DIR/notify-$node.sock" "$NOTIFY_OUT"
        # unshare and sh exec, so that HALOD_PID is halod's.
        ip netns exec "$ns" unshare --mount --propagation private \
                sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$hosts" \
                env NOTIFY_SOCKET="$TEST_DIR/notify-$node.sock" HALOD_LOG_LEVEL=${HALOD_LOG_LEVEL:-info} \
                "$@" "$BUILD_DIR/daemon/halod" --profile "$profile" --node "$node" --backend netlink \
                "${runtime[@]}" --cdi-dir "$TEST_DIR/cdi-$node" >"$HALOD_LOG" 2>&1 </dev/null &
        HALOD_PID=$!
        track_pid "$HALOD_PID"
}

# DM_BIND_BOOT_TREE: a WRAPPER for dm_start_halod, followed by a host tree's path, that binds the tree's
# boot/ and etc/default/ over /boot and /etc/default in halod's mount namespace, so that halod reads
# that boot configuration (kernel.cmdline-next, PendingReboot):
#   dm_start_halod NS NODE PROFILE "${DM_BIND_BOOT_TREE[@]}" TREE
# shellcheck disable=SC2016 # for the inner sh
DM_BIND_BOOT_TREE=(sh -c 'mount --bind "$0/boot" /boot && mount --bind "$0/etc/default" /etc/default && exec "$@"')

# dm_prop NAME: print the value of a string or integer property of io.halod1.Node.
dm_prop() {
        busctl get-property "${HALOD_BUS[@]}" "$1" | sed -E 's/^[a-z] //; s/^"(.*)"$/\1/'
}

# dm_prop_is NAME VALUE: succeed when the property has that value now.
dm_prop_is() {
        [ "$(dm_prop "$1" 2>/dev/null)" = "$2" ]
}

# dm_wait_prop NAME VALUE [TIMEOUT]: wait until the property has that value.
dm_wait_prop() {
        local t=${3:-10}
        wait_until "$t" dm_prop_is "$1" "$2"
}

# dm_wait_exit PID TIMEOUT: wait for a background process of this shell to exit; sets EXIT_RC to
# its exit status (not in a subshell: only this shell can reap its children).
dm_wait_exit() {
        local pid=$1 t=$2 i
        for i in $(seq $((t * 20))); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.05
        done
        kill -0 "$pid" 2>/dev/null && fail "process $pid did not exit within ${t}s"
        EXIT_RC=0
        wait "$pid" || EXIT_RC=$?
}

# dm_expect_clean_exit PID CHECKER: after halod (or the wrapper whose exit status is halod's, PID)
# was told to stop, fail unless it exits 0 within 60 s and $HALOD_LOG holds no memory checker's
# report; CHECKER names the checker in the message.
dm_expect_clean_exit() {
        dm_wait_exit "$1" 60
        [ "$EXIT_RC" -eq 0 ] || fail "halod exited $EXIT_RC under $2: $(cat "$HALOD_LOG")"
        if grep -Eq '==[0-9]+==|ERROR: (Address|Leak)Sanitizer' "$HALOD_LOG"; then
                fail "$2 reported: $(cat "$HALOD_LOG")"
        fi
}

# The unprivileged user nobody, without capabilities: "${DM_NOBODY[@]}" COMMAND... (after ip netns
# exec NS, so that a background job's $! is the process itself, and kill reaches it).
DM_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)

# dm_check_is_pass NODE ID: succeed when NODE's published check ID passes now (after dm_two_buses).
dm_check_is_pass() {
        on "$1" busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
                jq -e --arg id "$2" '.data[] | select(.[0] == $id and .[1] == "pass")' >/dev/null
}

# dm_check_outcome ID: the outcome of check ID in the Checks property, or "none".
dm_check_outcome() {
        busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
                python3 -c 'import json, sys
print(next((c[1] for c in json.load(sys.stdin)["data"] if c[0] == sys.argv[1]), "none"))' "$1"
}

# dm_check_is ID OUTCOME: succeed when check ID has that outcome now.
dm_check_is() {
        [ "$(dm_check_outcome "$1")" = "$2" ]
}

#!/bin/bash
# SPDX-License-Identifier: MIT
# halod end to end on a veth between two namespaces, over a private system bus: READY/STATUS,
# io.halod1 properties and introspection, drift (degraded, PropertiesChanged, the log line, the
# re-apply in enforce mode), verify mode, reload (SIGHUP and Reload(), a broken profile is rejected),
# authorisation (non-root: AccessDenied on methods, properties readable), InvalidArgs, haloctl
# status/verify/reload, exit 78 on a broken profile, the CDI spec (written as haloctl env --cdi prints
# it, removed on stop), SIGTERM exits 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dm
require_root
require_tools ip busctl dbus-daemon python3 setpriv jq
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" enforce 10.77.0.1/30 10.77.0.2/30

log "haloctl without a daemon: exit 69 and a hint"
run_rc 69 "$HALOCTL" status
assert_contains "$OUT" "halod is not running"
assert_contains "$OUT" "haloctl check"

log "a profile that does not validate: exit 78, every error on stderr"
printf 'cluster: dm-test\nmode: sometimes\nlinkz: {}\n' >"$TEST_DIR/broken.yaml"
run_rc 78 ip netns exec "$NS_A" "$BUILD_DIR/daemon/halod" --profile "$TEST_DIR/broken.yaml" --node a
assert_contains "$OUT" "broken.yaml:2"
assert_contains "$OUT" "broken.yaml:3"
assert_contains "$OUT" "rejected"

log "an unknown --backend: exit 64, the names it takes"
run_rc 64 "$BUILD_DIR/daemon/halod" --profile "$PROFILE" --node a --backend bogus
assert_eq "$OUT" "Unknown --backend 'bogus': expected networkmanager, networkd or netlink." "halod's usage error"

log "start: apply (enforce), verify, READY=1 with STATUS="
# debug: each re-check logs how many times it read the kernel's link state (the drift repair below).
HALOD_LOG_LEVEL=debug dm_start_halod "$NS_A" a "$PROFILE"
wait_notify "$NOTIFY_OUT" 'READY=1'
assert_contains "$(grep READY=1 "$NOTIFY_OUT")" "STATUS=healthy: " "READY datagram"
assert_eq "$(dm_prop Health)" healthy Health
assert_eq "$(dm_prop Node)" a Node
assert_eq "$(dm_prop Cluster)" dm-test Cluster
assert_eq "$(dm_prop Mode)" enforce Mode
assert_eq "$(dm_prop Backend)" netlink Backend
assert_eq "$(dm_prop BackendReason)" "chosen with --backend" BackendReason
assert_eq "$(dm_prop ProfilePath)" "$PROFILE" ProfilePath
assert_contains "$(dm_prop Summary)" "healthy: " Summary
[ "$(dm_prop LastVerifyUSec)" -gt 0 ] || fail "LastVerifyUSec is 0 after start"
[ "$(dm_prop LastApplyUSec)" -gt 0 ] || fail "LastApplyUSec is 0 after an enforce start"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 10.77.0.1/30 "address applied at start"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU applied at start"
checks=$(busctl --json=short get-property "${HALOD_BUS[@]}" Checks)
assert_contains "$checks" '"link.fab0.address","pass"' Checks
assert_contains "$(cat "$HALOD_LOG")" "Applied through netlink" "halod's log"

log "the CDI spec in --cdi-dir: what haloctl env --cdi prints, a device for the link and all"
SPEC=$TEST_DIR/cdi-a/halod.json
wait_until 10 test -f "$SPEC"
assert_eq "$(jq -r '.kind + " " + .cdiVersion + " " + ([.devices[].name] | join(","))' "$SPEC")" \
        "halod.io/fabric 0.5.0 fab0,all" "the CDI spec's kind, version and devices"
assert_eq "$(jq -r '.devices[0].containerEdits.env | map(select(startswith("VLLM_HOST_IP=") or
        startswith("NCCL_SOCKET_IFNAME="))) | join(" ")' "$SPEC")" \
        "NCCL_SOCKET_IFNAME=$IF_A VLLM_HOST_IP=10.77.0.1" "the CDI spec's environment for fab0"
# The veth has no RDMA device: exit 1 and the reasons on stderr, the spec all the same.
run_rc 1 ip netns exec "$NS_A" "$HALOCTL" --node a env --cdi "$PROFILE"
assert_eq "$(ip netns exec "$NS_A" "$HALOCTL" --node a env --cdi "$PROFILE" 2>/dev/null)" "$(cat "$SPEC")" \
        "haloctl env --cdi against the spec halod wrote"

log "introspection shows the whole interface"
intro=$(busctl introspect "${HALOD_BUS[@]}")
for member in Node Cluster Mode ProfilePath Backend BackendReason Health Summary Checks LastVerifyUSec LastApplyUSec \
        Verify Apply Reload CheckChanged; do
        assert_contains "$intro" ".$member " "introspection"
done
assert_contains "$intro" 'a(sssss)' "introspection"
assert_contains "$(grep '^\.Health ' <<<"$intro")" emits-change "Health flags"

log "haloctl status / --json / verify"
run_rc 0 "$HALOCTL" status
assert_contains "$OUT" "node a of cluster dm-test"
assert_contains "$OUT" "Health: healthy"
assert_contains "$OUT" "link.fab0.address"
assert_eq "$("$HALOCTL" status --json | jq -r .health)" healthy "status --json .health"
assert_eq "$("$HALOCTL" status --json | jq -r '.checks | length > 0')" true "status --json .checks"
run_rc 0 "$HALOCTL" verify
assert_contains "$OUT" "Health: healthy"
run_rc 0 "$HALOCTL" apply
assert_contains "$OUT" "Health: healthy"

log "drift in enforce mode: degraded with PropertiesChanged, logged, re-applied, healthy again"
busctl --json=short monitor io.halod1 >"$TEST_DIR/monitor.json" 2>"$TEST_DIR/logs/monitor.log" &
MON_PID=$!
track_pid "$MON_PID"
wait_until 10 grep -q "Monitoring bus message stream" "$TEST_DIR/logs/monitor.log"
log_lines=$(wc -l <"$HALOD_LOG")
ip -n "$NS_A" addr del 10.77.0.1/30 dev "$IF_A"
wait_until 10 grep -q '"Health":{"type":"s","data":"degraded"}' "$TEST_DIR/monitor.json"
wait_until 10 grep -q '"Health":{"type":"s","data":"healthy"}' "$TEST_DIR/monitor.json"
dm_wait_prop Health healthy
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 10.77.0.1/30 "address re-applied after drift"
# The repair reads the kernel's link state at most twice: the re-check, and once after the re-apply,
# which its verification and the checks share; the events of halod's own change cost no re-check.
rechecks() { tail -n +"$((log_lines + 1))" "$HALOD_LOG" | sed -n 's/^Re-checked .* with \([0-9]*\) rtnetlink dumps .*/\1/p'; }
wait_until 5 sh -c "tail -n +$((log_lines + 1)) '$HALOD_LOG' | grep -q '^Re-checked '"
sleep 0.5 # time for a re-check of halod's own change, which must not come
dumps=$(rechecks | awk '{s += $1} END {print s + 0}')
[ "$dumps" -ge 1 ] && [ "$dumps" -le 2 ] ||
        fail "the drift repair read the kernel's link state $dumps times in $(rechecks | wc -l) re-checks, expected 1 or 2"
grep -q '"member":"CheckChanged"' "$TEST_DIR/monitor.json" || fail "no CheckChanged signal after drift"
assert_contains "$(cat "$HALOD_LOG")" "Drift detected on link fab0" "halod's log"
assert_contains "$(cat "$HALOD_LOG")" "link.fab0.address" "halod's log"
assert_contains "$(cat "$HALOD_LOG")" "recovered" "halod's log"

log "only changed properties are announced: an idle verify sends LastVerifyUSec, not Health"
: >"$TEST_DIR/monitor.json"
busctl call "${HALOD_BUS[@]}" Verify >/dev/null
wait_until 5 grep -q LastVerifyUSec "$TEST_DIR/monitor.json"
# Match the property in a PropertiesChanged payload only: the monitor may also show a late Get of
# Health from the previous step, which is not an announcement.
if grep -q '"Health":{"type"' "$TEST_DIR/monitor.json"; then fail "Health announced although it did not change"; fi

log "reload by SIGHUP into verify mode: RELOADING=1, READY=1, Mode changes"
dm_write_profile "$PROFILE" verify 10.77.0.1/30 10.77.0.2/30
kill -HUP "$HALOD_PID"
dm_wait_prop Mode verify
wait_notify "$NOTIFY_OUT" 'RELOADING=1'
assert_contains "$(cat "$HALOD_LOG")" "reloaded" "halod's log"

log "drift in verify mode: degraded, nothing re-applied; restored by hand: healthy"
ip -n "$NS_A" link set "$IF_A" mtu 1500
dm_wait_prop Health degraded
sleep 0.3
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 1500 "verify mode must not change the MTU"
assert_eq "$(dm_prop Health)" degraded "Health in verify mode"
assert_contains "$(dm_prop Summary)" "link.fab0.mtu" Summary
wait_notify "$NOTIFY_OUT" 'STATUS=degraded: link.fab0.mtu'
run_rc 1 busctl call "${HALOD_BUS[@]}" Apply
assert_contains "$OUT" "mode: verify"
run_rc 77 "$HALOCTL" apply
assert_contains "$OUT" "mode: verify"
ip -n "$NS_A" link set "$IF_A" mtu 9000
dm_wait_prop Health healthy

log "a broken profile on reload is rejected; the old one stays in force"
cp "$PROFILE" "$TEST_DIR/good.yaml"
printf 'cluster: [oops\n' >"$PROFILE"
kill -HUP "$HALOD_PID"
wait_until 10 grep -q "rejected" "$HALOD_LOG"
run_rc 1 busctl call "${HALOD_BUS[@]}" Reload
assert_contains "$OUT" "rejected"
run_rc 78 "$HALOCTL" reload
assert_contains "$OUT" "halod.yaml:"
kill -0 "$HALOD_PID" || fail "halod died on a broken profile"
assert_eq "$(dm_prop Mode)" verify "Mode after a rejected reload"
assert_eq "$(dm_prop Health)" healthy "Health after a rejected reload"
cp "$TEST_DIR/good.yaml" "$PROFILE"
run_rc 0 "$HALOCTL" reload
assert_contains "$OUT" "reloaded"

log "authorisation: nobody may read, not act; root may act"
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
run_rc 0 "${NOBODY[@]}" busctl get-property "${HALOD_BUS[@]}" Health
assert_eq "$OUT" 's "healthy"' "Health read by nobody"
for method in Apply Verify Reload; do
        # busctl shortens every AccessDenied message to "Access denied"; haloctl below shows halod's.
        run_rc 1 "${NOBODY[@]}" busctl call "${HALOD_BUS[@]}" "$method"
        assert_contains "$OUT" "Access denied" "$method as nobody"
done
run_rc 77 "${NOBODY[@]}" "$HALOCTL" verify
assert_contains "$OUT" "Permission denied: Only root may call Verify"
run_rc 0 "${NOBODY[@]}" "$HALOCTL" status

log "malformed calls: InvalidArgs, read-only properties"
run_rc 1 busctl call "${HALOD_BUS[@]}" Verify s extra
assert_contains "$OUT" "nvalid"
run_rc 1 busctl set-property "${HALOD_BUS[@]}" Health s failed
run_rc 1 busctl call "${HALOD_BUS[@]}" NoSuchMethod
assert_eq "$(dm_prop Health)" healthy "Health after malformed calls"

log "SIGTERM: STOPPING=1, exit 0, the CDI spec removed"
kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 10
assert_eq "$EXIT_RC" 0 "halod's exit status after SIGTERM"
wait_notify "$NOTIFY_OUT" 'STOPPING=1'
[ ! -e "$SPEC" ] || fail "the CDI spec outlived halod: $(ls -l "$SPEC")"
assert_contains "$(cat "$HALOD_LOG")" "Removed the CDI spec $SPEC" "halod's log"
run_rc 69 "$HALOCTL" status

pass

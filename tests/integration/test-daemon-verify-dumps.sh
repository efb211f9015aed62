#!/bin/bash
# SPDX-License-Identifier: MIT
# One Verify() of halod dumps the TCP sockets (sock_diag, for fabric.<node>.transport) as often as one
# read of the transport does, not twice: the fabric health checks once read every daemon part again,
# SNAPSHOT_TRANSPORT among them, after check_transport() had taken its sample (fixed in a9d3402).
# Counted with strace on the real daemon, from the Verify() call to its reply: the inet_diag dump
# requests (TCPDIAG_GETSOCK or SOCK_DIAG_BY_FAMILY with NLM_F_DUMP) that halod's threads send. What one
# read sends is measured the same way on sock-diag-tool, which makes two reads with halod's own code
# (lib/net/sock-diag.c), so the test holds whichever request the kernel takes. halod runs in verify
# mode on a veth already as the profile wants it, so no apply or drift re-check runs in between.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dd
require_root
require_tools ip busctl dbus-daemon strace
require_build_file daemon/halod tests/sock-diag-tool
DUMP='nlmsg_type=(TCPDIAG_GETSOCK|SOCK_DIAG_BY_FAMILY), nlmsg_flags=NLM_F_REQUEST\|NLM_F_DUMP'
STRACE=(strace -f -qq -e trace=sendto,sendmsg -e signal=none)
# In a build with AddressSanitizer: LeakSanitizer cannot run under ptrace, the rest of it can.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

start_dbus
dm_install_bus_policy
netns_pair
A_ADDR=10.76.0.1
B_ADDR=10.76.0.2
ip -n "$NS_A" addr add $A_ADDR/30 dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" mtu 9000 up
ip -n "$NS_B" addr add $B_ADDR/30 dev "$IF_B"
ip -n "$NS_B" link set "$IF_B" mtu 9000 up
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" verify $A_ADDR/30 $B_ADDR/30

log "what one read of the transport sends: sock-diag-tool's two reads, halved"
echo | in_ns "$NS_A" "${STRACE[@]}" -o "$TEST_DIR/tool.log" "$BUILD_DIR/tests/sock-diag-tool" $A_ADDR $B_ADDR >/dev/null
tool=$(grep -cE "$DUMP" "$TEST_DIR/tool.log" || true)
[ "$tool" -ge 2 ] && [ $((tool % 2)) -eq 0 ] || fail "sock-diag-tool sent $tool dump requests for two reads: $(cat "$TEST_DIR/tool.log")"
PER_READ=$((tool / 2))

log "one Verify() of halod sends as many, once its start is done"
STRACE_LOG=$TEST_DIR/halod.strace
dm_start_halod "$NS_A" a "$PROFILE" "${STRACE[@]}" -o "$STRACE_LOG"
wait_notify "$NOTIFY_OUT" 'READY=1' 60
# Judged or still measuring (its first verdict needs a rate window), the check reads the sample.
[ "$(dm_check_outcome fabric.b.transport)" != none ] || fail "no fabric.b.transport after the start"
for i in 1 2; do
        before=$(wc -l <"$STRACE_LOG")
        busctl call --timeout=60 "${HALOD_BUS[@]}" Verify >/dev/null || fail "Verify() failed"
        # strace writes each line as the call returns; the dumps come before the checks that answer.
        verify=$(tail -n +"$((before + 1))" "$STRACE_LOG" | grep -cE "$DUMP" || true)
        assert_eq "$verify" "$PER_READ" "sock_diag dump requests of Verify() $i"
done

# halod itself, strace's first traced process: strace would detach and leave it running.
kill -TERM "$(awk 'NR == 1 {print $1}' "$STRACE_LOG")"
dm_wait_exit "$HALOD_PID" 60
pass

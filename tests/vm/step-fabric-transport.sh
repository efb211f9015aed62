# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by tests/vm/test-vm-rdma.sh: fabric.<node>.transport in vm1 (halod under its shipped unit,
# as user halod, health.interval 5 s in halod-vm.yaml) against real soft-RoCE and real TCP between the
# two fabric addresses:
#   1. ib_write_bw between the guests → fabric.worker.transport passes with RDMA in use and names
#      ib_write_bw, its pid and its QPs; haloctl status's "Fabric use" row says the same, and the
#      metrics textfile has halod_fabric_qps for it;
#   2. iperf3 between the fabric addresses → it warns "fell back to sockets", the journal logs the
#      transition once; iperf3 stopped → it passes again and the return is logged once;
#   3. a small request/response exchange over one TCP connection (socat) → no warning, and the check
#      sees the connection (its TCP rate is not 0).
# Each wait is bounded generously (an emulated guest on a busy host) and asserts a verdict, never a
# duration. Uses check_json/outcome/field of test-vm-rdma.sh and status_of of step-peer-rdma.sh.

TRANSPORT_ID=fabric.worker.transport

# wait_transport VM WANT TRIES [PATTERN]: polls VM's status every 2 s until fabric.worker.transport
# is WANT (pass, warn) and, when given, its summary matches the glob PATTERN; the last document in
# $FT_DOC
wait_transport() {
        local _
        for _ in $(seq "$3"); do
                FT_DOC=$(status_of "$1")
                if [ "$(outcome "$FT_DOC" $TRANSPORT_ID)" = "$2" ]; then
                        # shellcheck disable=SC2254
                        case $(field "$FT_DOC" $TRANSPORT_ID summary) in ${4:-*}) return 0 ;; esac
                fi
                sleep 2
        done
        return 1
}
ft_summary() { field "$FT_DOC" $TRANSPORT_ID summary; }
# stop_loop VM NAME: ends a retry loop of the step (its stop file) and the program NAME it runs
stop_loop() {
        gx "$1" 60 <<<": >/io/stop-$2; kill \$(pidof $2) 2>/dev/null; true" >/dev/null || true
}
# journal_count VM TEXT: how many of halod's journal lines contain TEXT
journal_count() {
        gx "$1" 60 <<EOF || echo 0
journalctl -u halod.service --no-pager -o cat | grep -cF '$2' || true
EOF
}

ft_rdma() {
        local gid server client pid row prom
        gid=$(gx vm2 60 <<EOF
$REAL_GID
real_gid $(gid_hex "${VM_ADDR[1]}")
EOF
) || true
        [ -n "$gid" ] || fail "vm2: no RoCE v2 GID for ${VM_ADDR[1]}"
        # Both sides run until killed (perftest's --run_infinitely), the server in vm2, the client in vm1.
        server=$(gsubmit vm2 <<EOF
rm -f /io/stop-ib_write_bw
exec timeout 900 ib_write_bw -d rxe0 -x $gid -F -u 18 -t 16 --run_infinitely >/io/ib_write_bw-server.log 2>&1
EOF
)
        sleep 5
        # the client retries until the server listens (an emulated guest starts it slowly)
        client=$(gsubmit vm1 <<EOF
rm -f /io/stop-ib_write_bw
for i in \$(seq 60); do
        timeout 900 ib_write_bw -d rxe0 -x $gid -F -u 18 -t 16 --run_infinitely ${VM_ADDR[1]} >>/io/ib_write_bw-client.log 2>&1
        [ -e /io/stop-ib_write_bw ] && exit 0
        sleep 2
done
EOF
)
        pid=$(gx vm1 300 <<'EOF'
for i in $(seq 600); do p=$(pidof ib_write_bw) && { echo $p; exit 0; }; sleep 0.5; done; exit 1
EOF
) || fail "vm1: ib_write_bw did not start: $(tail -n 5 "$VM_RUN/vm1/ib_write_bw-client.log" 2>/dev/null)"
        log "ib_write_bw between the guests (GID index $gid), vm1's client pid $pid"
        wait_transport vm1 pass 120 "*ib_write_bw (pid $pid, *" ||
                fail "with ib_write_bw running, vm1's $TRANSPORT_ID is $(outcome "$FT_DOC" $TRANSPORT_ID), not a pass naming ib_write_bw (pid $pid): $(ft_summary)"
        # the first verdicts may still count the interval in which it started: wait for RDMA in use
        wait_transport vm1 pass 120 "RDMA *" || true
        [ "$(field "$FT_DOC" $TRANSPORT_ID actual)" = rdma ] ||
                fail "with ib_write_bw running, vm1's $TRANSPORT_ID judges '$(field "$FT_DOC" $TRANSPORT_ID actual)', not rdma: $(ft_summary)"
        case $(ft_summary) in
        "RDMA "*"ib_write_bw (pid $pid, "*" QP"*) ;;
        *) fail "$TRANSPORT_ID does not give the RDMA volume, ib_write_bw's pid $pid and its QPs: $(ft_summary)" ;;
        esac
        echo "$FT_DOC" >"$TEST_DIR/logs/transport-rdma.json"
        log "ib_write_bw: $TRANSPORT_ID passes: $(ft_summary)"
        # haloctl status: the Fabric use row is the verdict's first sentence
        row=$(gx vm1 60 <<<'haloctl status' | grep -E '^ *Fabric use:') || true
        case $row in
        *"worker  RDMA "*"ib_write_bw (pid $pid, "*) ;;
        *) fail "haloctl status's Fabric use row does not agree with the check (RDMA, ib_write_bw pid $pid): '$row'" ;;
        esac
        # the metrics textfile (written at every verify): the QPs ib_write_bw holds
        prom=$(gx vm1 120 <<EOF
for i in \$(seq 120); do grep -q '^halod_fabric_qps{process="ib_write_bw",pid="$pid"} [1-9]' /run/halod/halod.prom 2>/dev/null && break; sleep 1; done
grep '^halod_fabric' /run/halod/halod.prom
EOF
) || true
        echo "$prom" >"$TEST_DIR/logs/transport-rdma.prom"
        grep -q "^halod_fabric_qps{process=\"ib_write_bw\",pid=\"$pid\"} [1-9]" <<<"$prom" ||
                fail "the metrics textfile has no halod_fabric_qps for ib_write_bw (pid $pid): $prom"
        log "haloctl status: $row; metrics: $(grep "^halod_fabric_qps{process=\"ib_write_bw\"" <<<"$prom")"

        stop_loop vm1 ib_write_bw
        stop_loop vm2 ib_write_bw
        gwait vm1 "$client" 120 >/dev/null || true
        gwait vm2 "$server" 120 >/dev/null || true
        cp "$VM_RUN/vm1/ib_write_bw-client.log" "$VM_RUN/vm2/ib_write_bw-server.log" "$TEST_DIR/logs/" 2>/dev/null || true
}

ft_fallback() {
        local server client into out
        into=$(journal_count vm1 'Fabric use towards worker fell back to TCP')
        out=$(journal_count vm1 'Fabric use towards worker is off the TCP fallback')
        server=$(gsubmit vm2 <<EOF
rm -f /io/stop-iperf3
exec timeout 900 iperf3 -s -B ${VM_ADDR[1]} >/io/iperf3-server.log 2>&1
EOF
)
        sleep 3
        # Paced above the profile's health.tcp-bulk-mbit (halod-vm.yaml), at what the emulated link
        # sustains; until it is killed.
        client=$(gsubmit vm1 <<EOF
rm -f /io/stop-iperf3
for i in \$(seq 30); do
        timeout 900 iperf3 -c ${VM_ADDR[1]} -B ${VM_ADDR[0]} -b ${FT_IPERF_RATE:-100M} -t 800 -i 10 >>/io/iperf3-client.log 2>&1
        [ -e /io/stop-iperf3 ] && exit 0
        sleep 2
done
EOF
)
        log "iperf3 from ${VM_ADDR[0]} to ${VM_ADDR[1]} (-b ${FT_IPERF_RATE:-100M})"
        wait_transport vm1 warn 120 "*fell back to sockets*" ||
                fail "with iperf3 between the fabric addresses, vm1's $TRANSPORT_ID is $(outcome "$FT_DOC" $TRANSPORT_ID), not the fallback: $(ft_summary); iperf3: $(tail -n 3 "$VM_RUN/vm1/iperf3-client.log" 2>/dev/null)"
        echo "$FT_DOC" >"$TEST_DIR/logs/transport-fallback.json"
        log "iperf3: $TRANSPORT_ID warns: $(ft_summary)"
        # it stays in the fallback for as long as iperf3 runs: a few more verdicts, the same
        wait_transport vm1 warn 30 "*fell back to sockets*" || fail "iperf3 still running, $TRANSPORT_ID left the fallback: $(ft_summary)"
        sleep 12
        wait_transport vm1 warn 30 "*fell back to sockets*" || fail "iperf3 still running, $TRANSPORT_ID left the fallback: $(ft_summary)"
        [ "$(journal_count vm1 'Fabric use towards worker fell back to TCP')" = $((into + 1)) ] ||
                fail "the journal logged the transition into the fallback $(($(journal_count vm1 'Fabric use towards worker fell back to TCP') - into)) times, not once"

        stop_loop vm1 iperf3
        stop_loop vm2 iperf3
        gwait vm1 "$client" 120 >/dev/null || true
        gwait vm2 "$server" 120 >/dev/null || true
        cp "$VM_RUN/vm1/iperf3-client.log" "$VM_RUN/vm2/iperf3-server.log" "$TEST_DIR/logs/" 2>/dev/null || true
        wait_transport vm1 pass 120 "idle: *" ||
                fail "iperf3 stopped, vm1's $TRANSPORT_ID is $(outcome "$FT_DOC" $TRANSPORT_ID), not idle: $(ft_summary)"
        # a few verdicts later the return is still logged once, and the entry once
        sleep 12
        wait_transport vm1 pass 30 "idle: *" || fail "iperf3 stopped, $TRANSPORT_ID does not stay idle: $(ft_summary)"
        [ "$(journal_count vm1 'Fabric use towards worker is off the TCP fallback')" = $((out + 1)) ] ||
                fail "the journal logged the return from the fallback $(($(journal_count vm1 'Fabric use towards worker is off the TCP fallback') - out)) times, not once"
        [ "$(journal_count vm1 'Fabric use towards worker fell back to TCP')" = $((into + 1)) ] ||
                fail "after iperf3, the journal logged the transition into the fallback again"
        log "iperf3 stopped: $TRANSPORT_ID passes idle; the journal has each transition once"
}

# A small request/response exchange on one connection that stays open (as Ray's or Gloo's control
# channel does): a 1000-byte request echoed back four times a second, some 64 kbit/s both ways.
ft_control() {
        local server client seen=0 warned="" s _
        server=$(gsubmit vm2 <<EOF
exec timeout 900 socat TCP-LISTEN:7000,bind=${VM_ADDR[1]},reuseaddr EXEC:cat >/io/socat-server.log 2>&1
EOF
)
        sleep 3
        # The loop ends on echo's error: vm-agent.service ignores SIGPIPE (systemd's IgnoreSIGPIPE=yes),
        # so a killed socat would not end a "while :" loop.
        client=$(gsubmit vm1 <<EOF
req=\$(printf '%0999d' 0)
while echo "\$req"; do sleep 0.25; done | timeout 900 socat - TCP:${VM_ADDR[1]}:7000,bind=${VM_ADDR[0]} | wc -c >/io/socat-client.log 2>&1
EOF
)
        log "a request/response exchange over TCP from ${VM_ADDR[0]} to ${VM_ADDR[1]}:7000 (1000 bytes echoed, 4 a second)"
        # ten polls that see the connection's bytes (two verdicts at least: one per 10 s), none a warning
        for _ in $(seq 90); do
                FT_DOC=$(status_of vm1)
                s=$(ft_summary)
                [ "$(outcome "$FT_DOC" $TRANSPORT_ID)" = warn ] && warned=$s
                case $s in "idle: TCP to worker "[1-9]*) seen=$((seen + 1)) ;; esac
                [ "$seen" -ge 10 ] && break
                sleep 2
        done
        echo "$FT_DOC" >"$TEST_DIR/logs/transport-control.json"
        stop_loop vm1 socat
        stop_loop vm2 socat
        gwait vm1 "$client" 120 >/dev/null || true
        gwait vm2 "$server" 120 >/dev/null || true
        [ -z "$warned" ] || fail "a small request/response exchange made $TRANSPORT_ID warn: $warned"
        [ "$seen" -ge 10 ] || fail "during the request/response exchange $TRANSPORT_ID saw its TCP bytes (idle with a TCP rate above 0) in $seen polls of 10: $(ft_summary)"
        log "request/response over TCP: no warning; $TRANSPORT_ID: $s"
}

step_fabric_transport() {
        log "$TRANSPORT_ID in vm1 (shipped unit, halod as user halod)"
        wait_transport vm1 pass 90 ||
                fail "vm1: $TRANSPORT_ID is $(outcome "$FT_DOC" $TRANSPORT_ID), not pass, before any traffic: $(ft_summary)"
        log "before any traffic: $(ft_summary)"
        ft_rdma
        ft_fallback
        ft_control
}

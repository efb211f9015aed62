# SPDX-License-Identifier: MIT
# Containers booted with systemd as PID 1 (systemd-nspawn -b) for the end-to-end test: boot, run a
# command inside, cable them to one fabric, reboot, stop, and tear all of it down, even when the
# test fails. Sourced after tests/integration/lib.sh and harness_init (it uses TEST_DIR,
# HARNESS_PREFIX, log, fail, netns_add).
#
# The fabric: ct_fabric makes a bridge in a network namespace of its own (the host's firewall and
# br_netfilter never see it); every container booted afterwards gets a veth whose container end
# (IFNAME) exists from the start of its boot, as a NIC does, and whose host end is moved into that
# namespace and plugged into the bridge. A container's reboot gives it a fresh veth, as a power
# cycle resets a NIC. The containers' other namespaces are private (--private-network: lo only).
#
# This host has no systemd, so machinectl and systemd-run -M do not work: a container is reached by
# finding its PID 1 among systemd-nspawn's children and running `nsenter -t PID -a CMD`. Both
# --register=no and --keep-unit are needed for the boot to work without a host systemd.

declare -A CT_NSPAWN=() # container name → pid of its systemd-nspawn
declare -A CT_PID=()    # container name → host pid of its PID 1 (systemd)
declare -A CT_CONSOLE=() # container name → console log
declare -A CT_ARGS=()   # container name → its systemd-nspawn options (quoted), to boot it again
declare -A CT_PORT=()   # container name → host end of its fabric veth
CT_FABRIC_NS=           # the fabric's network namespace (ct_fabric)
CT_FABRIC_IF=           # the fabric interface's name in every container
# shellcheck disable=SC2034 # for the test script
CT_OVERLAY_ROOT=        # set by ct_overlay_root
CT_MOUNTS=()            # host mounts to undo at teardown (persistent overlays)
CT_KEEP_DIRS=()         # run-time directories nspawn leaves on a host without systemd

# ct_fabric IFNAME: make the fabric (a bridge, MTU 9000, in its own namespace, deleted at
# teardown) that every container booted afterwards is cabled to as IFNAME.
ct_fabric() {
        CT_FABRIC_IF=$1
        CT_FABRIC_NS=${HARNESS_PREFIX}-$$-fabric
        netns_add "$CT_FABRIC_NS"
        ip -n "$CT_FABRIC_NS" link add name br0 mtu 9000 type bridge
        ip -n "$CT_FABRIC_NS" link set br0 up
}

# ct_boot NAME HOSTNAME ROOT [persistent] [NSPAWN_OPTION...]: boot ROOT as container NAME with
# HOSTNAME in a network namespace of its own (with a fabric veth once ct_fabric ran). By default with --volatile=overlay: the container writes
# into a tmpfs and ROOT stays untouched. With "persistent" ROOT is booted as it is (use
# ct_overlay_root for a throw-away writable copy), so a reboot keeps what was written. Returns when
# systemd inside reports running or degraded.
ct_boot() {
        local name=$1 hostname=$2 root=$3
        shift 3
        local volatile=(--volatile=overlay)
        if [ "${1:-}" = persistent ]; then
                volatile=()
                shift
        fi
        CT_CONSOLE[$name]=$TEST_DIR/console-$name.log # not in logs/: ct_dump prints it
        # The machine name keys systemd-nspawn's directories under /run: unique per test run.
        local machine=${HARNESS_PREFIX}$$-$name
        CT_KEEP_DIRS+=("/run/systemd/nspawn/propagate/$machine" "/run/systemd/nspawn/unix-export/$machine")
        local net=(--private-network)
        if [ -n "${CT_FABRIC_NS:-}" ]; then
                # The host end's name: unique on the host, at most 15 characters.
                CT_PORT[$name]=${HARNESS_PREFIX}$$-${#CT_PORT[@]}
                net=(--network-veth-extra="${CT_PORT[$name]}:$CT_FABRIC_IF")
        fi
        CT_ARGS[$name]=$(printf '%q ' -D "$root" -M "$machine" --hostname="$hostname" "${volatile[@]}" \
                "${net[@]}" "$@")
        log "booting container $name (hostname $hostname) from $root ${volatile[*]}"
        _ct_start "$name"
        ct_wait_booted "$name"
}

# _ct_start NAME: start systemd-nspawn for NAME with the options ct_boot recorded, its console
# appended to the container's log.
_ct_start() {
        local name=$1
        eval "set -- ${CT_ARGS[$name]}"
        systemd-nspawn --quiet --register=no --keep-unit --console=read-only --setenv=SYSTEMD_COLORS=0 \
                "$@" -b >>"${CT_CONSOLE[$name]}" 2>&1 </dev/null &
        CT_NSPAWN[$name]=$!
        [ -z "${CT_PORT[$name]:-}" ] || _ct_plug "$name"
}

# _ct_plug NAME: move the host end of the container's fabric veth (systemd-nspawn makes it in the
# host's namespace while it sets the container up) into the fabric's namespace, onto the bridge.
_ct_plug() {
        local name=$1 port=${CT_PORT[$1]}
        for _ in $(seq 300); do
                ip link set "$port" netns "$CT_FABRIC_NS" 2>/dev/null && break
                kill -0 "${CT_NSPAWN[$name]}" 2>/dev/null ||
                        fail "systemd-nspawn for $name exited while setting up (console log: ${CT_CONSOLE[$name]})"
                sleep 0.1
        done
        ip -n "$CT_FABRIC_NS" link set "$port" mtu 9000 master br0 up ||
                fail "cannot plug $name's fabric veth $port into the bridge"
}

# _ct_find_pid1 NAME: print the host pid of the container's PID 1: the child of systemd-nspawn
# whose innermost pid is 1.
_ct_find_pid1() {
        local name=$1 p
        for p in $(pgrep -P "${CT_NSPAWN[$name]}"); do
                if [ "$(awk '/^NSpid:/ { print $NF }' "/proc/$p/status" 2>/dev/null)" = 1 ]; then
                        echo "$p"
                        return 0
                fi
        done
        return 1
}

# ct_wait_booted NAME: wait (up to 60 s) for the container's PID 1 to appear and for systemd to
# finish booting (running, or degraded with the failed units logged).
ct_wait_booted() {
        local name=$1 pid='' state=''
        for _ in $(seq 600); do
                kill -0 "${CT_NSPAWN[$name]}" 2>/dev/null ||
                        fail "systemd-nspawn for $name exited while booting (console log: ${CT_CONSOLE[$name]})"
                pid=$(_ct_find_pid1 "$name") && break
                sleep 0.1
        done
        [ -n "$pid" ] || fail "container $name: PID 1 did not appear within 60 s"
        CT_PID[$name]=$pid
        # PID 1 exists before it has exec'd systemd and opened its bus; until then systemctl fails.
        for _ in $(seq 600); do
                state=$(nsenter -t "$pid" -a systemctl is-system-running --wait 2>/dev/null) || true
                case "$state" in
                running) break ;;
                degraded)
                        log "container $name booted degraded; failed units:"
                        nsenter -t "$pid" -a systemctl --no-pager --failed >&2 || true
                        break
                        ;;
                esac
                sleep 0.1
        done
        case "$state" in
        running | degraded) log "container $name is up ($state, PID 1 is host pid $pid)" ;;
        *) fail "container $name did not finish booting within 60 s (state: '${state:-no answer}')" ;;
        esac
}

# ct NAME COMMAND...: run COMMAND inside container NAME, as root, in all of its namespaces.
ct() {
        local name=$1
        shift
        nsenter -t "${CT_PID[$name]}" -a "$@"
}

# ct_overlay_root LOWER DIR: mount a writable overlay of LOWER at DIR/merged (changes in DIR/upper)
# and set CT_OVERLAY_ROOT to DIR/merged; unmounted at teardown. For a persistent container that
# keeps its changes across a reboot without writing into the shared, cached LOWER.
ct_overlay_root() {
        local lower=$1 dir=$2
        mkdir -p "$dir/upper" "$dir/work" "$dir/merged"
        mount -t overlay overlay -o "lowerdir=$lower,upperdir=$dir/upper,workdir=$dir/work" "$dir/merged" ||
                fail "cannot mount an overlay of $lower at $dir/merged"
        CT_MOUNTS+=("$dir/merged")
        # shellcheck disable=SC2034 # for the test script
        CT_OVERLAY_ROOT=$dir/merged
}

# ct_reboot NAME: reboot the container from inside and wait until it is up again. systemd-nspawn
# exits with status 133 when its container reboots (systemd-nspawn@.service restarts it on that
# status); without a host systemd the test starts it again itself, with the same options.
ct_reboot() {
        local name=$1 nsp=${CT_NSPAWN[$1]} rc=0
        log "rebooting container $name"
        ct "$name" systemctl reboot || fail "systemctl reboot in $name failed"
        for _ in $(seq 300); do
                kill -0 "$nsp" 2>/dev/null || break
                sleep 0.1
        done
        kill -0 "$nsp" 2>/dev/null &&
                fail "container $name did not go down within 30 s of systemctl reboot:"$'\n'"$(ct_stuck_report "$name")"
        wait "$nsp" || rc=$?
        [ "$rc" -eq 133 ] || fail "systemd-nspawn for $name exited $rc on reboot, expected 133 (rebooted)"
        _ct_start "$name"
        ct_wait_booted "$name"
}

# ct_poweroff NAME: shut the container down from inside and wait (30 s) for systemd-nspawn to exit.
ct_poweroff() {
        local name=$1 nsp=${CT_NSPAWN[$1]} rc=0
        ct "$name" systemctl poweroff || true
        for _ in $(seq 300); do
                kill -0 "$nsp" 2>/dev/null || break
                sleep 0.1
        done
        kill -0 "$nsp" 2>/dev/null &&
                fail "container $name did not power off within 30 s:"$'\n'"$(ct_stuck_report "$name")"
        wait "$nsp" || rc=$?
        unset "CT_NSPAWN[$name]" "CT_PID[$name]"
        [ "$rc" -eq 0 ] || fail "systemd-nspawn for $name exited $rc after poweroff (its console log follows)"
}

# ct_console_clean FILE: the console log as text: terminal control (escape sequences, carriage
# returns) gone, and each run of systemd's progress spinner ("[ ***  ] Job halod.service/stop running
# (12s / 1min 30s)", redrawn twice a second) folded into its last line.
ct_console_clean() {
        sed -e 's/\r/\n/g' "$1" | sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[A-Za-z]//g' |
                awk '/^\[[ *]+\] (Job |A (start|stop) job )/ { spin = $0; next }
                        /^[[:space:]]*$/ { next }
                        { if (spin != "") print spin; spin = ""; print }
                        END { if (spin != "") print spin }'
}

# ct_stuck_report NAME: for each stop job still running in container NAME, the service's main
# process as the kernel sees it: its state, and whether SIGTERM reached it (pending, blocked, caught).
# Says whether a service ignores SIGTERM, never reads it, or was never sent it.
ct_stuck_report() {
        local name=$1 unit pid status state mask pending blocked caught
        for unit in $(timeout 20 nsenter -t "${CT_PID[$name]}" -a systemctl list-jobs --no-legend --no-pager 2>/dev/null |
                awk '$3 == "stop" && $4 == "running" { print $2 }'); do
                pid=$(timeout 20 nsenter -t "${CT_PID[$name]}" -a systemctl show -P MainPID "$unit" 2>/dev/null)
                if [ -z "$pid" ] || [ "$pid" = 0 ]; then
                        echo "$unit: stopping, no main process"
                        continue
                fi
                # The container's /proc, with its own pid numbers.
                status=$(timeout 20 nsenter -t "${CT_PID[$name]}" -a cat "/proc/$pid/status" 2>/dev/null) || {
                        echo "$unit: stopping, main pid $pid gone"
                        continue
                }
                state=$(sed -n 's/^State:[[:space:]]*//p' <<<"$status")
                # Hex masks of signals, SIGTERM (15) is bit 14: pending for the process or the thread.
                pending=no blocked=no caught=no
                for mask in $(sed -n 's/^\(ShdPnd\|SigPnd\):[[:space:]]*//p' <<<"$status"); do
                        if ((0x$mask & 0x4000)); then pending=yes; fi
                done
                mask=$(sed -n 's/^SigBlk:[[:space:]]*//p' <<<"$status")
                if ((0x${mask:-0} & 0x4000)); then blocked=yes; fi
                mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' <<<"$status")
                if ((0x${mask:-0} & 0x4000)); then caught=yes; fi
                echo "$unit: stopping, main pid $pid in state $state; SIGTERM pending: $pending, blocked: $blocked, caught: $caught"
        done
}

# ct_dump NAME: what explains a failure in container NAME, kept short (a failed test shows only the
# end of its output): failed units and running jobs, halod's state and its journal, the end of the
# console with the spinner folded. The whole journal of the boot goes to $TEST_DIR/journal-NAME.txt.
ct_dump() {
        local name=$1 pid=${CT_PID[$1]:-}
        echo "======== container $name ========" >&2
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
                timeout 30 nsenter -t "$pid" -a journalctl -b --no-pager -o short-precise \
                        >"$TEST_DIR/journal-$name.txt" 2>&1
                {
                        echo "---- systemctl --failed; the jobs running (not those waiting for them) ----"
                        timeout 20 nsenter -t "$pid" -a systemctl --no-pager --no-legend --failed
                        timeout 20 nsenter -t "$pid" -a systemctl --no-pager --no-legend list-jobs |
                                awk '$4 == "running"'
                        echo "---- halod.service ----"
                        timeout 20 nsenter -t "$pid" -a systemctl show -p ActiveState -p SubState -p MainPID \
                                -p StatusText -p Result halod
                        echo "---- journalctl -b -u halod -u halod-helper (last 40 lines) ----"
                        timeout 20 nsenter -t "$pid" -a journalctl -b -u halod -u halod-helper --no-pager \
                                -o short-precise -n 40
                } >&2 2>&1 || true
                echo "(the whole journal of this boot: $TEST_DIR/journal-$name.txt)" >&2
        fi
        if [ -s "${CT_CONSOLE[$name]:-}" ]; then
                echo "---- console (last 25 lines of ${CT_CONSOLE[$name]}, spinner folded) ----" >&2
                ct_console_clean "${CT_CONSOLE[$name]}" | tail -n 25 >&2
        fi
}

# ct_exit: the EXIT trap of a test that boots containers: their logs when it failed (not when it
# skipped), the containers torn down, then the harness's own teardown, with the test's exit status.
ct_exit() {
        local rc=$? failed=0
        set +e
        [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && failed=1
        ct_teardown "$failed"
        (exit "$rc")
        _harness_teardown
}

# ct_teardown FAILED: on failure print each container's logs; then stop every container (SIGTERM
# halts it cleanly, SIGKILL after 10 s), unmount the overlays and remove the directories
# systemd-nspawn left under /run.
ct_teardown() {
        local failed=$1 name nsp m d
        if [ "$failed" = 1 ]; then
                for name in "${!CT_CONSOLE[@]}"; do
                        ct_dump "$name"
                done
        fi
        for name in "${!CT_NSPAWN[@]}"; do
                nsp=${CT_NSPAWN[$name]}
                kill -TERM "$nsp" 2>/dev/null || continue
                for _ in $(seq 100); do
                        kill -0 "$nsp" 2>/dev/null || break
                        sleep 0.1
                done
                kill -KILL "$nsp" 2>/dev/null || true
                wait "$nsp" 2>/dev/null || true
        done
        for m in "${CT_MOUNTS[@]}"; do
                umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
        done
        for d in "${CT_KEEP_DIRS[@]}"; do
                rmdir "$d" 2>/dev/null || true
        done
}

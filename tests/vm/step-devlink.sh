# SPDX-License-Identifier: MIT
# Sourced by tests/vm/test-vm-rdma.sh: devlink on netdevsim in vm2, halod's firmware and parameter
# readers (lib/nic/devlink.c, through tests/vm/vm-devlink.c) against a real kernel's replies, each
# compared with what iproute2's devlink prints for the same device.
step_devlink() {
        gx vm2 120 >"$TEST_DIR/logs/devlink.txt" 2>&1 <<'EOF' || fail "netdevsim or devlink failed in vm2: $(cat "$TEST_DIR/logs/devlink.txt")"
set -e
modprobe netdevsim
[ -e /sys/bus/netdevsim/devices/netdevsim1 ] || echo "1 1" >/sys/bus/netdevsim/new_device
for i in $(seq 300); do [ -e /sys/bus/netdevsim/devices/netdevsim1/net ] && break; sleep 0.1; done
devlink -j dev info netdevsim/netdevsim1 >/io/devlink-info.json
# iproute2 6.1 shows one device's parameters only by name: all of them, then this device's
devlink -j dev param show >/io/devlink-param.json
/host/vm-devlink netdevsim netdevsim1 max_macs test1 >/io/vm-devlink.txt
/host/vm-devlink netdevsim netdevsim1 no_such_param >/io/vm-devlink-missing.txt || true
/host/vm-devlink netdevsim netdevsim9 >/io/vm-devlink-nodev.txt || true
# halod's PARAM_SET (the request of nic.enable-roce) on netdevsim's bool test1, read back by iproute2
# after each. netdevsim registers test1 in the driverinit mode only (drivers/net/netdevsim/dev.c), as
# mlx5 does enable_roce: set there; the runtime mode (ice's) is refused for it, and a u32 parameter
# refuses a bool.
/host/vm-devlink --set netdevsim netdevsim1 test1 false driverinit >/io/vm-devlink-set.txt
devlink -j dev param show netdevsim/netdevsim1 name test1 >/io/devlink-test1-false.json
/host/vm-devlink --set netdevsim netdevsim1 test1 true driverinit >>/io/vm-devlink-set.txt
devlink -j dev param show netdevsim/netdevsim1 name test1 >/io/devlink-test1-true.json
/host/vm-devlink --set netdevsim netdevsim1 test1 false runtime >>/io/vm-devlink-set.txt || true
/host/vm-devlink --set netdevsim netdevsim1 max_macs true driverinit >>/io/vm-devlink-set.txt || true
EOF
        cp "$VM_RUN"/vm2/*devlink* "$TEST_DIR/logs/" 2>/dev/null || true
        python3 - "$VM_RUN/vm2" <<'PY' || fail "halod's devlink readers disagree with iproute2's devlink on netdevsim (above; files in $TEST_DIR/logs)"
import json, sys

d = sys.argv[1]
info = json.load(open(d + "/devlink-info.json"))["info"]["netdevsim/netdevsim1"]
params = json.load(open(d + "/devlink-param.json"))["param"]["netdevsim/netdevsim1"]
ours = [line.split(" ", 4) for line in open(d + "/vm-devlink.txt").read().splitlines()]
bad = []
got = {(o[1], o[2]): o[3] for o in ours if o[0] == "version"}
want = {(t, n): v for t in ("fixed", "running", "stored") for n, v in info.get("versions", {}).get(t, {}).items()}
if got != want:
    bad.append(f"versions: halod {got}, devlink {want}")
driver = next((o[1] for o in ours if o[0] == "driver"), None)
if driver != info.get("driver"):
    bad.append(f"driver: halod {driver}, devlink {info.get('driver')}")
# The firmware: the first of the names the drivers use (ice, mlx5, generic) that the device runs;
# none (netdevsim reports only "fw.mgmt") means no firmware line, not a guess.
running = info.get("versions", {}).get("running", {})
name = next((n for n in ("fw.psid.api", "fw.version", "fw") if n in running), None)
fw = next((o for o in ours if o[0] == "firmware"), None)
if name is None and fw is not None:
    bad.append(f"firmware: halod {fw}, but the device runs none of fw.psid.api, fw.version, fw: {running}")
if name is not None and (not fw or fw[1] != name or fw[2] != running[name]):
    bad.append(f"firmware: halod {fw}, devlink running {name} {running.get(name)}")
for name in ("max_macs", "test1"):
    p = next(p for p in params if p["name"] == name)
    for v in p["values"]:
        val = str(int(v["value"])) if isinstance(v["value"], bool) else str(v["value"])
        mine = [o for o in ours if o[0] == "param" and o[1] == name and o[3] == v["cmode"]]
        if not mine or mine[0][4] != val:
            bad.append(f"param {name} ({v['cmode']}): halod {mine}, devlink {val}")
missing = open(d + "/vm-devlink-missing.txt").read()
if not any(line.startswith("error param no_such_param ") for line in missing.splitlines()):
    bad.append(f"an unknown parameter: {missing!r}")
nodev = open(d + "/vm-devlink-nodev.txt").read()
if not nodev.startswith("error info"):
    bad.append(f"an unknown device: {nodev!r}")
for value in ("false", "true"):
    shown = json.load(open(d + f"/devlink-test1-{value}.json"))["param"]["netdevsim/netdevsim1"][0]["values"]
    driverinit = next(v["value"] for v in shown if v["cmode"] == "driverinit")
    if driverinit is not (value == "true"):
        bad.append(f"set test1 {value}: devlink shows {driverinit}")
sets = open(d + "/vm-devlink-set.txt").read().splitlines()
if (
    sets[:2] != ["set test1 false", "set test1 true"]
    or len(sets) != 4
    or not sets[2].startswith("error set test1 Operation not supported")
    or not sets[3].startswith("error set max_macs")
):
    bad.append(f"PARAM_SET: {sets}")
print("\n".join(bad) or "agree", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
        log "devlink on netdevsim: halod's info and parameter readers agree with iproute2 ($(grep -c '^version' "$VM_RUN/vm2/vm-devlink.txt") versions, $(grep -c '^param' "$VM_RUN/vm2/vm-devlink.txt") parameter values; an unknown parameter: $(grep '^error param' "$VM_RUN/vm2/vm-devlink-missing.txt" | cut -d' ' -f4-); an unknown device: $(cut -d' ' -f3- "$VM_RUN/vm2/vm-devlink-nodev.txt"))"
}

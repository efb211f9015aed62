#!/bin/bash
# SPDX-License-Identifier: MIT
# contrib/ansible deploys halod to two nodes booted with systemd (the e2e containers, with sshd):
# ansible-playbook from this host over SSH installs the destdir tarball, puts the cluster profile in
# place after haloctl validate and check, starts halod and waits until both nodes are healthy; a
# second run changes nothing; a broken profile fails the preflight with halod's own message and
# leaves the running halod and its profile untouched.
#
# Run by meson (suite e2e, as root): BUILD_DIR and SOURCE_DIR come from the runner. By hand:
#   sudo BUILD_DIR=build bash tests/e2e/test-ansible.sh      (HARNESS_KEEP=1 keeps $TEST_DIR)

# shellcheck source=../integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh" || exit 1
harness_init an
# shellcheck source=container.sh
. "$SOURCE_DIR/tests/e2e/container.sh"
# shellcheck source=build.sh
. "$SOURCE_DIR/tests/e2e/build.sh"

trap ct_exit EXIT

require_root
require_tools systemd-nspawn nsenter ip meson ninja python3 ansible-playbook ssh ssh-keygen tar

PAYLOAD=$TEST_DIR/payload
IFNAME=fab0
T0=$SECONDS
step() {
        HARNESS_STEP=$* # named again in the failure summary (tests/integration/lib.sh)
        log "[$((SECONDS - T0)) s] $*"
}

# The calling build when it installs where a package would (prefix /usr, sysconfdir /etc, no
# sanitizer), else the e2e test's own build of the tree in $BUILD_DIR/e2e-usr; then the destdir
# packed as the role's fallback package.
build_tarball() {
        local b
        e2e_build
        b=$E2E_BUILD
        meson install -C "$b" --no-rebuild --quiet --destdir "$TEST_DIR/destdir" >"$TEST_DIR/logs/install.log" 2>&1 ||
                { cat "$TEST_DIR/logs/install.log" >&2; fail "meson install --destdir from $b failed"; }
        mkdir -p "$PAYLOAD"
        tar -C "$TEST_DIR/destdir" -czf "$PAYLOAD/halod.tar.gz" .
}

# The e2e test's profile (tests/e2e/README.md): conf/halod.yaml with the link matched by name and
# without the nic, rdma, kernel, gpu and memory-min sections a container cannot satisfy; and a broken one.
make_profiles() {
        e2e_profile "$IFNAME" "$PAYLOAD/halod.yaml"
        sed 's/^mode: enforce/mode: enforced/' "$PAYLOAD/halod.yaml" >"$PAYLOAD/halod-broken.yaml"
        ! cmp -s "$PAYLOAD/halod.yaml" "$PAYLOAD/halod-broken.yaml" || fail "conf/halod.yaml has no 'mode: enforce' line to break"
}

# The inventory: root over SSH with the test's key, each node reached through a relay into its
# container's network namespace (the containers have only lo and the fabric).
make_inventory() {
        local n
        ssh-keygen -q -t ed25519 -N '' -f "$TEST_DIR/id_ed25519"
        {
                echo "[halod_nodes]"
                for n in head worker; do
                        echo "$n ansible_ssh_common_args='-o ProxyCommand=\"nsenter -t ${CT_PID[$n]} -n python3 $SOURCE_DIR/tests/e2e/tcp-relay.py 22\" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR'"
                done
                echo "[halod_nodes:vars]"
                echo "ansible_user=root"
                echo "ansible_ssh_private_key_file=$TEST_DIR/id_ed25519"
                echo "ansible_python_interpreter=/usr/bin/python3"
                echo "halod_package=$PAYLOAD/halod.tar.gz"
                echo "halod_health_timeout=60"
        } >"$TEST_DIR/inventory.ini"
}

# play PROFILE LOG: ansible-playbook site.yml with PROFILE; its exit status, its output in LOG.
play() {
        local rc=0
        ANSIBLE_FORCE_COLOR=0 ANSIBLE_NOCOLOR=1 ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_LOCAL_TEMP=$TEST_DIR/ansible-tmp \
                ansible-playbook -i "$TEST_DIR/inventory.ini" -e "halod_profile=$1" \
                "$SOURCE_DIR/contrib/ansible/site.yml" >"$2" 2>&1 || rc=$?
        return "$rc"
}

# recap LOG NODE: the PLAY RECAP line of NODE.
recap() {
        grep -E "^$2 +: " "$1" | tail -n 1
}

prop() {
        ct "$1" busctl get-property io.halod1 /io/halod1 io.halod1.Node "$2" | sed -E 's/^[a-z()]+ //; s/^"(.*)"$/\1/'
}

step "building halod and packing its destdir"
build_tarball
make_profiles
step "preparing the rootfs (the e2e one with openssh-server and python3)"
rc=0
ROOT=$(bash "$SOURCE_DIR/tests/e2e/rootfs.sh" openssh-server python3) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
ct_fabric "$IFNAME"
step "booting head and worker, sshd in each"
ct_boot head halo-1 "$ROOT"
ct_boot worker halo-2 "$ROOT"
make_inventory
for n in head worker; do
        ct "$n" sh -c 'mkdir -p -m 0700 /root/.ssh && cat >/root/.ssh/authorized_keys' <"$TEST_DIR/id_ed25519.pub"
        ct "$n" sh -c 'test -s /etc/ssh/ssh_host_ed25519_key || ssh-keygen -A' >/dev/null
        run_rc 0 ct "$n" systemctl restart ssh
        [ "$(ct "$n" systemctl is-active halod 2>/dev/null)" != active ] || fail "halod runs on $n before the play"
done
# The other node's name, as the workload resolves it: an administrator's line in /etc/hosts (no DNS
# answers in here, and hosts.<node> warns on a lookup that fails, as the workload's would).
ct head sh -c 'echo "192.168.100.2 halo-2" >>/etc/hosts'
ct worker sh -c 'echo "192.168.100.1 halo-1" >>/etc/hosts'

step "first run: ansible-playbook deploys halod to both nodes"
play "$PAYLOAD/halod.yaml" "$TEST_DIR/logs/play-1.log" || { cat "$TEST_DIR/logs/play-1.log" >&2; fail "the first ansible-playbook run failed"; }
for n in head worker; do
        log "first run: $(recap "$TEST_DIR/logs/play-1.log" "$n")"
        recap "$TEST_DIR/logs/play-1.log" "$n" | grep -qE 'changed=[1-9].* failed=0' || fail "the first run changed nothing on $n, or failed"
        assert_eq "$(ct "$n" systemctl is-enabled halod)" enabled "halod's unit on $n"
        assert_eq "$(prop "$n" Health)" healthy "Health of $n after the play"
        ct "$n" cmp -s /etc/halod/halod.yaml /dev/stdin <"$PAYLOAD/halod.yaml" || fail "/etc/halod/halod.yaml on $n is not the cluster profile"
done
run_rc 0 ct head haloctl status
assert_contains "$OUT" "peer.worker.reachable"

step "second run: nothing changes"
play "$PAYLOAD/halod.yaml" "$TEST_DIR/logs/play-2.log" || { cat "$TEST_DIR/logs/play-2.log" >&2; fail "the second ansible-playbook run failed"; }
for n in head worker; do
        log "second run: $(recap "$TEST_DIR/logs/play-2.log" "$n")"
        recap "$TEST_DIR/logs/play-2.log" "$n" | grep -qE 'changed=0 .*failed=0' ||
                { cat "$TEST_DIR/logs/play-2.log" >&2; fail "the second run changed something on $n"; }
done

step "a broken profile: the preflight fails with halod's message, halod keeps running the old one"
declare -A PID=()
for n in head worker; do
        PID[$n]=$(ct "$n" systemctl show -P MainPID halod)
done
if play "$PAYLOAD/halod-broken.yaml" "$TEST_DIR/logs/play-3.log"; then
        cat "$TEST_DIR/logs/play-3.log" >&2
        fail "ansible-playbook accepted a broken profile"
fi
run_rc 78 ct head haloctl validate /var/lib/halod-deploy/halod.yaml
halod_message=$(echo "$OUT" | grep -m1 enforced) || fail "haloctl validate says nothing of 'enforced': $OUT"
grep -qF "$halod_message" "$TEST_DIR/logs/play-3.log" ||
        { cat "$TEST_DIR/logs/play-3.log" >&2; fail "the play's failure does not carry halod's message: $halod_message"; }
for n in head worker; do
        log "broken profile: $(recap "$TEST_DIR/logs/play-3.log" "$n")"
        recap "$TEST_DIR/logs/play-3.log" "$n" | grep -qE 'failed=1' || fail "the preflight did not fail on $n"
        ct "$n" cmp -s /etc/halod/halod.yaml /dev/stdin <"$PAYLOAD/halod.yaml" || fail "the broken profile reached /etc/halod/halod.yaml on $n"
        assert_eq "$(ct "$n" systemctl show -P MainPID halod)" "${PID[$n]}" "halod's main pid on $n"
        assert_eq "$(prop "$n" Health)" healthy "Health of $n after the refused profile"
done
step "done"

/* SPDX-License-Identifier: MIT */
/* haloctl check: runs every check once, without a daemon, as a preflight before enabling halod. */
#include <stdio.h>

#include "basic/json-writer.h"
#include "basic/strv.h"
#include "check/check-fabric-baseline.h"
#include "check/check-peer.h"
#include "check/check-registry.h"
#include "check/checks.h"
#include "check/verify-summary.h"
#include "haloctl-status-reboot.h"
#include "haloctl.h"
#include "snapshot/rdma-node.h"

/* Whether the registry's entry i is the first of its group. */
static bool first_of_group(size_t i) {
        for (size_t j = 0; j < i; j++)
                if (streq(check_registry[j].group, check_registry[i].group))
                        return false;
        return true;
}

/* --only matched no check: names every group the registry knows, in its order. */
static void print_unknown_only(const char *only) {
        size_t n = 0, k = 0;

        for (size_t i = 0; i < check_registry_size; i++)
                n += first_of_group(i);
        fprintf(stderr, "No check id starts with '%s' (--only). Ids start with ", strempty(only));
        for (size_t i = 0; i < check_registry_size; i++) {
                const char *separator = k == 0 ? "" : k + 1 == n ? " or " : ", ";

                if (!first_of_group(i))
                        continue;
                fprintf(stderr, "%s%s", separator, check_registry[i].group);
                k++;
        }
        fprintf(stderr, "; see haloctl(1).\n");
}

/* The peer checks: one round of probes over the fabric, judged, added to checks (those --only
 * selects). The MTUs of the links come from the snapshot. Returns 0 or an exit code. */
static int run_peer_checks(const NodeContext *c, Snapshot *snapshot, CheckList *checks) {
        _cleanup_(check_list_done) CheckList peers = {};
        _cleanup_(peer_link_mtus_done) PeerLinkMtus mtus = {};
        _cleanup_(peer_round_done) PeerRound round = {};
        PeerRoundOptions o = { .health = HEALTH_STARTING, .rdma_device_find = rdma_link_device };
        int r;

        /* What an MTU probe proves when the profile leaves a link's MTU alone. */
        if (peer_round_needs_link_mtus(c->profile, c->node) && snapshot_read(snapshot, SNAPSHOT_MTU) >= 0 &&
            peer_link_mtus_from_snapshot(snapshot, &mtus) >= 0)
                o.link_mtus = &mtus;
        r = peer_round_run(c, &o, &round);
        if (r >= 0)
                r = check_peers(c, &round, /* o= */ NULL, &peers, /* ret_status= */ NULL);
        if (r < 0) {
                fprintf(stderr, "Failed to run the peer checks: %s\n", strerror(-r));
                return EX_OSERR;
        }
        if (check_list_take_selected(checks, &peers, arg_only) < 0)
                return EX_OSERR;
        return 0;
}

/* With --json, a profile that does not load is still one document: a failed "profile" check. */
static void print_profile_failure_json(const char *path, int exit_code) {
        CheckList l = {};
        const char *why;

        switch (exit_code) {
        case EX_CONFIG:
                why = "is not valid, or none of its nodes is this machine";
                break;
        case EX_USAGE:
                why = "has no node named by --node";
                break;
        case EX_NOINPUT:
                why = "cannot be read";
                break;
        default:
                why = "could not be loaded";
                break;
        }
        if (check_list_add(
                    &l, "profile", CHECK_FAIL, path, NULL, "profile %s %s; details on stderr", path, why) >= 0)
                print_checks_json(&l, /* pending_reboot= */ NULL);
        check_list_done(&l);
}

static void print_totals(const CheckList *l) {
        size_t pass = check_list_count(l, CHECK_PASS), warn = check_list_count(l, CHECK_WARN),
               fail = check_list_count(l, CHECK_FAIL), skip = check_list_count(l, CHECK_SKIP);

        printf("\n%s%zu check%s:%s %s%zu pass%s, %s%zu warn%s, %s%zu fail%s, %zu skip\n",
               ansi_bold(),
               l->n_checks,
               l->n_checks == 1 ? "" : "s",
               ansi_normal(),
               pass > 0 ? ansi_green() : "",
               pass,
               ansi_normal(),
               warn > 0 ? ansi_yellow() : "",
               warn,
               ansi_normal(),
               fail > 0 ? ansi_red() : "",
               fail,
               ansi_normal(),
               skip);
        if (!isempty(arg_root))
                printf("%s(/proc, /sys, /boot and /etc read below %s)%s\n",
                       ansi_grey(),
                       arg_root,
                       ansi_normal());
}

int verb_check(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(check_list_done) CheckList checks = {};
        _cleanup_(snapshot_done) Snapshot snapshot = {};
        _cleanup_(strv_freep) char **reboot = NULL;
        const ProfileNode *node = NULL;
        const char *path = profile_path_arg(argc, argv);
        Host host = { .root = arg_root ?: "" };
        NodeContext c;
        int r;

        if (arg_list) {
                if (argc > 1 || arg_only || arg_node || arg_root) {
                        fprintf(stderr,
                                "check --list lists every check id and takes no PROFILE, --only, --node or --root.\n");
                        return EX_USAGE;
                }
                return check_list_ids();
        }
        if (argc > 2) {
                fprintf(stderr,
                        "check takes one PROFILE at most, got %d arguments. Try 'haloctl --help'.\n",
                        argc - 1);
                return EX_USAGE;
        }

        r = load_profile_and_node(path, &p, &node);
        if (r != 0) {
                if (arg_json)
                        print_profile_failure_json(path, r);
                return r;
        }

        c = (NodeContext){ .host = &host, .profile = p, .node = node };
        snapshot_init(&snapshot, &c);
        /* The facts the selected checks judge, read once before they judge. */
        r = snapshot_read(&snapshot, check_registry_parts(&c, arg_only));
        if (r >= 0)
                r = checks_run(&c, &snapshot, /* before= */ NULL, /* after= */ NULL, arg_only, &checks);
        if (r < 0) {
                fprintf(stderr, "Failed to run the checks: %s\n", strerror(-r));
                return EX_OSERR;
        }
        /* The peer checks probe the other nodes' halod over the fabric: not part of the host groups,
         * and meaningless for a fixture tree (--root). */
        if (!arg_root && p->health.peers && checks_group_selected("peer.", arg_only)) {
                r = run_peer_checks(&c, &snapshot, &checks);
                if (r != 0)
                        return r;
        }

        if (checks.n_checks == 0) {
                print_unknown_only(arg_only);
                return EX_USAGE;
        }
        /* What a reboot would bring into force, as halod's PendingReboot says it (haloctl status). */
        r = checks_pending_reboot(&checks, &reboot);
        if (r < 0) {
                fprintf(stderr, "Failed to run the checks: %s\n", strerror(-r));
                return EX_OSERR;
        }

        if (arg_json)
                print_checks_json(&checks, reboot);
        else {
                print_checks(&checks);
                print_totals(&checks);
                if (reboot)
                        status_print_pending_reboot(reboot);
        }
        return exit_code_for_checks(&checks);
}

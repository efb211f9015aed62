/* SPDX-License-Identifier: MIT */
/* Drives the DCB part of halod for test-qos-dcb.sh until the profile parser reads qos: itself: loads
 * PROFILE, gives every link the qos: of the switched example (pfc: [3], trust: dscp, dscp-priority:
 * { 26: 3 }) and, as node NODE,
 *   qos-dcb-tool check PROFILE NODE          runs the link. and qos. checks: "OUTCOME ID SUMMARY" lines
 *   qos-dcb-tool plan PROFILE NODE           prints the plan's lines
 *   qos-dcb-tool apply PROFILE NODE          apply_node() through the netlink backend
 *   qos-dcb-tool apply-claimed PROFILE NODE  the same with a snapshot that claims every link has DCB
 *                                            (PFC off, an empty APP table, trust pcp): the kernel's
 *                                            refusal then comes from the apply itself, not the plan
 * Exits 0 on success, 1 with the message on stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "apply/apply.h"
#include "basic/strv.h"
#include "check/checks.h"

static void set_qos(Profile *p) {
        for (size_t i = 0; i < p->n_links; i++) {
                ProfileQos *q = &p->links[i].qos;

                profile_qos_init(q);
                q->present = true;
                q->has_pfc = true;
                q->pfc = 1U << 3;
                q->trust = QOS_TRUST_DSCP;
                q->has_dscp_map = true;
                q->dscp_priority[26] = 3;
        }
}

/* What a driver with DCB would answer, put where the snapshot keeps it. */
static int claim_dcb(Snapshot *s) {
        int r;

        r = snapshot_read(s, SNAPSHOT_LINKS);
        if (r < 0)
                return r;
        s->dcb = calloc(s->n_ports ?: 1, sizeof(SnapshotDcb));
        if (!s->dcb)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++)
                s->dcb[i] = (SnapshotDcb){
                        .state = { .has_pfc = true,
                                   .pfc = { .pfc_cap = 8 },
                                   .has_trust = true,
                                   .trust = { DCBNL_APP_SEL_PCP },
                                   .n_trust = 1 },
                        .lldp_agent = -ENOMEDIUM,
                };
        s->parts |= SNAPSHOT_DCB;
        return 0;
}

int main(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL, **lines = NULL;
        _cleanup_(snapshot_done) Snapshot s = {};
        _cleanup_(plan_changes_done) PlanChanges changes = {};
        _cleanup_(check_list_done) CheckList checks = {};
        _cleanup_(plan_done) Plan plan = {};
        _cleanup_(freep) char *error = NULL;
        Host h = HOST_SYSTEM;
        NodeContext c = { .host = &h };
        const char *verb;
        int r;

        if (argc != 4) {
                fprintf(stderr, "Usage: %s check|plan|apply|apply-claimed PROFILE NODE\n", argv[0]);
                return EXIT_FAILURE;
        }
        verb = argv[1];
        r = profile_load_file(argv[2], &p, &errors);
        if (r < 0) {
                fprintf(stderr, "%s: cannot load: %s\n", argv[2], errors ? errors[0] : strerror(-r));
                return EXIT_FAILURE;
        }
        set_qos(p);
        c.profile = p;
        c.node = profile_find_node(p, argv[3]);
        if (!c.node) {
                fprintf(stderr, "%s: no node %s\n", argv[2], argv[3]);
                return EXIT_FAILURE;
        }
        snapshot_init(&s, &c);

        if (streq(verb, "check")) {
                r = snapshot_read(&s, check_registry_parts(&c, "link.,qos."));
                if (r >= 0)
                        r = checks_run(&c, &s, /* before= */ NULL, /* after= */ NULL, "link.,qos.", &checks);
                if (r < 0) {
                        fprintf(stderr, "check: %s\n", strerror(-r));
                        return EXIT_FAILURE;
                }
                for (size_t i = 0; i < checks.n_checks; i++)
                        printf("%s %s %s\n",
                               check_outcome_to_string(checks.checks[i].outcome),
                               checks.checks[i].id,
                               checks.checks[i].summary);
                return EXIT_SUCCESS;
        }
        if (streq(verb, "plan")) {
                r = plan_from_snapshot(&s, &plan);
                if (r >= 0)
                        r = plan_describe(&plan, &lines);
                if (r < 0) {
                        fprintf(stderr, "plan: %s\n", strerror(-r));
                        return EXIT_FAILURE;
                }
                STRV_FOREACH(l, lines)
                        printf("%s\n", *l);
                return EXIT_SUCCESS;
        }
        if (streq(verb, "apply-claimed")) {
                r = claim_dcb(&s);
                if (r < 0) {
                        fprintf(stderr, "apply-claimed: %s\n", strerror(-r));
                        return EXIT_FAILURE;
                }
        } else if (!streq(verb, "apply")) {
                fprintf(stderr, "Unknown verb %s\n", verb);
                return EXIT_FAILURE;
        }
        r = apply_node(&c, &backend_netlink, 0, &s, &changes, &error);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", verb, error ?: strerror(-r));
                return EXIT_FAILURE;
        }
        for (size_t i = 0; i < changes.n_changes; i++) {
                _cleanup_(freep) char *line = plan_change_describe(&changes.changes[i]);

                printf("%s\n", strna(line));
        }
        return EXIT_SUCCESS;
}

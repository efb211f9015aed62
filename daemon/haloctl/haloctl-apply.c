/* SPDX-License-Identifier: MIT */
/* haloctl plan and haloctl apply: what the network part of the profile would change, and changing it. */
#include <stdio.h>
#include <unistd.h>

#include "apply/apply-nic-runtime.h"
#include "apply/apply.h"
#include "basic/json-writer.h"
#include "basic/strv.h"
#include "check/checks.h"
#include "haloctl-apply-parts.h"
#include "haloctl.h"
#include "plan/boot-plan.h"
#include "plan/plan.h"
#include "plan/route-plan.h"

static void json_strv(JsonWriter *w, const char *key, char **l) {
        json_key(w, key);
        json_begin_array(w);
        STRV_FOREACH(s, l)
                json_string(w, *s);
        json_end_array(w);
}

static void json_addresses(JsonWriter *w, const char *key, const RtnlAddress *a, size_t n) {
        char buf[IPV4_PREFIX_STRING_MAX];

        json_key(w, key);
        json_begin_array(w);
        for (size_t i = 0; i < n; i++)
                json_string(
                        w,
                        ipv4_prefix_to_string(
                                &(Ipv4Prefix){ .address = a[i].address, .prefixlen = a[i].prefixlen }, buf));
        json_end_array(w);
}

/* The routes part: "add_routes" (added or replacing the kernel's), "remove_routes" (halod's stray
 * ones), "enable_forwarding". */
static void json_routes(JsonWriter *w, const LinkPlanRoutes *r) {
        char buf[RTNL_ROUTE_STRING_MAX];

        json_key(w, "add_routes");
        json_begin_array(w);
        for (size_t i = 0; r && i < r->n_add; i++)
                json_string(w, rtnl_route_to_string(&r->add[i].route, buf));
        json_end_array(w);
        json_key(w, "remove_routes");
        json_begin_array(w);
        for (size_t i = 0; r && i < r->n_remove; i++)
                json_string(w, rtnl_route_to_string(&r->remove[i], buf));
        json_end_array(w);
        json_kv_bool(w, "enable_forwarding", r && r->enable_forwarding);
}

static void json_link_plan(JsonWriter *w, const LinkPlan *lp) {
        /* A link that cannot be applied changes nothing: its fields say so, whatever differs. */
        static const LinkPlan none = {};
        const LinkPlan *changes = lp->error ? &none : lp;
        RtnlAddress add = { .address = lp->address.address, .prefixlen = lp->address.prefixlen };

        json_begin_object(w);
        json_kv_string(w, "link", lp->link);
        json_kv_string(w, "ifname", lp->ifname);
        json_kv_bool(w, "changes", !lp->error && !link_plan_is_empty(lp));
        json_kv_uint(w, "mtu_from", changes->mtu_from);
        json_kv_uint(w, "mtu_to", changes->mtu_to);
        json_kv_bool(w, "set_up", changes->set_up);
        json_addresses(w, "add_addresses", &add, changes->add_address ? 1 : 0);
        json_addresses(w, "remove_addresses", changes->remove_addresses, changes->n_remove_addresses);
        json_kv_string(w, "zone_from", changes->zone_from);
        json_kv_string(w, "zone_to", changes->zone_to);
        json_routes(w, changes->routes);
        json_kv_string(w, "error", lp->error);
        json_end_object(w);
}

static int describe_changes(const PlanChanges *changes, char ***ret) {
        _cleanup_(strv_freep) char **lines = calloc(1, sizeof(char *));

        if (!lines)
                return -ENOMEM;
        for (size_t i = 0; i < changes->n_changes; i++)
                if (strv_consume(&lines, plan_change_describe(&changes->changes[i])) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(lines);
        return 0;
}

static void print_plan(const Plan *p, const Adoptions *adoptions, char **lines) {
        STRV_FOREACH(l, lines)
                printf("%s\n", *l);
        for (size_t i = 0; i < p->n_links; i++) {
                const LinkPlan *lp = &p->links[i];
                _cleanup_(freep) char *label = NULL;

                if (lp->error || !link_plan_is_empty(lp) ||
                    (arg_adopt && adoptions_has(adoptions, lp->link, /* kept= */ false)))
                        continue;
                label = link_plan_label(lp);
                printf("%s%s: nothing to change%s\n", ansi_grey(), label ?: lp->link, ansi_normal());
        }
}

int verb_plan(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(plan_done) Plan plan = {};
        _cleanup_(adoptions_done) Adoptions adoptions = {};
        _cleanup_(strv_freep) char **lines = NULL;
        _cleanup_(boot_plan_freep) BootPlan *boot = NULL;
        const ProfileNode *node = NULL;
        const char *path = profile_path_arg(argc, argv);
        Host host = { .root = arg_root ?: "" };
        bool setup_errors = false, setup_changes = false;
        NodeContext c;
        int r;

        r = load_profile_and_node(path, &p, &node);
        if (r != 0)
                return r;
        c = (NodeContext){ .host = &host, .profile = p, .node = node };

        r = plan_node(&c, &plan);
        if (r < 0) {
                fprintf(stderr,
                        "Failed to read the state of the links of node %s: %s\n",
                        node->name,
                        strerror(-r));
                return EX_OSERR;
        }
        r = plan_find_adoptions(&plan, &adoptions);
        if (r != 0)
                return r;
        r = plan_describe(&plan, &lines);
        if (r >= 0)
                r = plan_add_adoption_lines(&adoptions, &lines);
        /* The kernel command line (kernel.boot: manage): halod-helper's part, beside the links. */
        if (r >= 0)
                r = boot_plan_compute(&c, &boot);
        if (r >= 0)
                r = boot_plan_describe(boot, &lines);
        if (r >= 0)
                r = plan_rdma_setup_lines(&c, &lines, &setup_errors, &setup_changes);
        if (r >= 0)
                r = plan_nic_runtime_lines(&c, &plan, &lines, &setup_errors, &setup_changes);
        if (r < 0) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }
        bool changes = !plan_is_empty(&plan) || (arg_adopt && adoptions_pending(&adoptions)) ||
                (boot && !boot->error) || setup_changes;

        if (arg_json) {
                JsonWriter w;

                json_writer_init(&w, stdout, true);
                json_begin_object(&w);
                json_kv_string(&w, "profile", path);
                json_kv_string(&w, "node", node->name);
                json_kv_string(&w, "mode", profile_mode_to_string(p->mode));
                json_kv_bool(&w, "changes", changes);
                json_kv_bool(&w, "errors", plan_has_errors(&plan) || (boot && boot->error) || setup_errors);
                json_key(&w, "links");
                json_begin_array(&w);
                for (size_t i = 0; i < plan.n_links; i++)
                        json_link_plan(&w, &plan.links[i]);
                json_end_array(&w);
                json_adoptions(&w, &adoptions);
                json_strv(&w, "lines", lines);
                json_end_object(&w);
                json_writer_finish(&w);
        } else {
                print_plan(&plan, &adoptions, lines);
                print_rdma_setup_kept(&c);
        }

        if (plan_has_errors(&plan) || (boot && boot->error) || setup_errors)
                return EXIT_CHECK_FAIL;
        return changes ? 1 : EXIT_SUCCESS;
}

static void print_nothing_to_change(const CheckList *checks, const ProfileNode *node) {
        for (size_t i = 0; i < node->n_links; i++) {
                _cleanup_(freep) char *id = NULL;
                const Check *present;

                if (asprintf(&id, "link.%s.present", node->links[i].link) < 0)
                        return;
                present = check_list_find(checks, id);
                if (present && !isempty(present->actual))
                        printf("nothing to change: %s (%s) already matches the profile\n",
                               node->links[i].link,
                               present->actual);
                else
                        printf("nothing to change: %s already matches the profile\n", node->links[i].link);
        }
}

static int apply_run(int argc, char *argv[], unsigned parts) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(plan_changes_done) PlanChanges applied = {};
        _cleanup_(strv_freep) char **changes = NULL;
        _cleanup_(freep) char *error = NULL;
        _cleanup_(check_list_done) CheckList checks = {};
        _cleanup_(snapshot_done) Snapshot snapshot = {};
        const ProfileNode *node = NULL;
        const char *path = profile_path_arg(argc, argv);
        Host host = { .root = arg_root ?: "" };
        const Backend *backend;
        bool hosts_only = false;
        NodeContext c;
        int r, k, cdi_exit = EXIT_SUCCESS, boot_exit;

        /* With a running halod and no profile of its own, apply is halod's job: it holds the profile
         * and watches the links, and two appliers at once would race. */
        if (argc <= 1 && !arg_force && !arg_adopt && !arg_backend && !arg_undo && parts == 0 &&
            isempty(arg_root) && halod_is_running())
                return bus_call_apply();

        if (geteuid() != 0) {
                fprintf(stderr,
                        "haloctl apply changes network links and needs root: run it with sudo (haloctl plan shows "
                        "the changes without root).\n");
                return EX_NOPERM;
        }

        r = load_profile_and_node(path, &p, &node);
        if (r != 0)
                return r;
        c = (NodeContext){ .host = &host, .profile = p, .node = node };

        /* Taking back what halod wrote is allowed whatever the profile says now. */
        if (arg_undo)
                return apply_undo(arg_undo, &c);

        /* The CDI spec is an export, not a change of the host: written in mode: verify too. */
        if (parts & APPLY_PART_CDI) {
                cdi_exit = apply_cdi_spec(&c);
                if (apply_parts_drop(&parts, APPLY_PART_CDI))
                        return cdi_exit;
        }

        if (parts != 0 && !profile_may_change_host(p, arg_force)) {
                printf("%s says mode: verify: /etc/hosts and the links are left alone.\n", path);
                return cdi_exit;
        }
        if (!profile_may_change_host(p, arg_force)) {
                fprintf(stderr,
                        "%s says mode: verify, so haloctl apply changes nothing. Run haloctl plan to see the "
                        "differences, set mode: enforce, or apply once with --force.\n",
                        path);
                return EX_NOPERM;
        }

        /* boot: the kernel command line, with the boot loader's tool (kernel.boot: manage); in a whole
         * apply too, so that one apply and one reboot bring the node up. */
        if ((parts & APPLY_PART_BOOT) || (parts == 0 && p->kernel_boot == BOOT_POLICY_MANAGE)) {
                boot_exit = apply_boot_part(&c, /* undo= */ false, /* unit= */ NULL);
                if (parts != 0 && apply_parts_drop(&parts, APPLY_PART_BOOT))
                        return boot_exit > cdi_exit ? boot_exit : cdi_exit;
                cdi_exit = boot_exit > cdi_exit ? boot_exit : cdi_exit;
        }

        /* hosts.: only a block the profile manages; the helper asks for it whatever the profile says. */
        if ((parts & APPLY_PART_HOSTS) && p->health.hosts != HOSTS_POLICY_MANAGE) {
                printf("%s does not say health.hosts: manage: /etc/hosts is left alone.\n", path);
                if (apply_parts_drop(&parts, APPLY_PART_HOSTS))
                        return cdi_exit;
        }

        /* networkd: the links only when systemd-networkd is the backend; with NetworkManager or the netlink
         * backend halod applies them itself, and the helper staying out keeps two appliers from racing. */
        if (parts & APPLY_PART_NETWORKD) {
                backend = arg_backend ? backend_by_name(arg_backend) : backend_pick();
                if (backend != &backend_networkd) {
                        printf("the links are not systemd-networkd's (backend %s): halod applies them itself\n",
                               backend->name);
                        if (apply_parts_drop(&parts, APPLY_PART_NETWORKD))
                                return cdi_exit;
                }
        }
        /* limits, modules: the RDMA setup the profile manages (halod-helper.service asks for both). */
        if (parts & (APPLY_PART_LIMITS | APPLY_PART_MODULES)) {
                k = apply_rdma_setup_parts(
                        &c,
                        (parts & APPLY_PART_LIMITS ? RDMA_SETUP_LIMITS : 0) |
                                (parts & APPLY_PART_MODULES ? RDMA_SETUP_MODULES : 0),
                        stdout);
                cdi_exit = k > cdi_exit ? k : cdi_exit;
                parts &= ~(unsigned) (APPLY_PART_LIMITS | APPLY_PART_MODULES);
                if (parts == 0)
                        return cdi_exit;
        }
        hosts_only = parts != 0 && !(parts & APPLY_PART_NETWORKD);
        bool no_hosts = parts != 0 && !(parts & APPLY_PART_HOSTS);

        backend = arg_backend ? backend_by_name(arg_backend) : backend_pick();
        snapshot_init(&snapshot, &c);
        r = apply_node(
                &c,
                backend,
                (arg_force ? APPLY_FORCE : 0) | (arg_adopt ? APPLY_ADOPT : 0) |
                        (hosts_only ? APPLY_HOSTS_ONLY : 0) | (no_hosts ? APPLY_NO_HOSTS : 0),
                &snapshot,
                &applied,
                &error);
        if (r == -ENOMEM || describe_changes(&applied, &changes) < 0) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }

        /* Whatever happened, show what the kernel says now: the snapshot is the state after the apply
         * (read again after a change, or after a failure). */
        k = snapshot_read(&snapshot, check_registry_parts(&c, hosts_only ? "hosts." : "link."));
        if (k >= 0)
                k = checks_run(
                        &c,
                        &snapshot,
                        /* before= */ NULL,
                        /* after= */ NULL,
                        hosts_only ? "hosts." : "link.",
                        &checks);
        if (k < 0) {
                fprintf(stderr, "Failed to run the link checks: %s\n", strerror(-k));
                return EX_OSERR;
        }

        if (arg_json) {
                JsonWriter w;

                json_writer_init(&w, stdout, true);
                json_begin_object(&w);
                json_kv_string(&w, "profile", path);
                json_kv_string(&w, "node", node->name);
                json_kv_string(&w, "backend", backend->name);
                json_kv_bool(&w, "applied", r >= 0);
                json_kv_bool(&w, "changed", r >= 0 && strv_length(changes) > 0);
                json_strv(&w, "changes", changes);
                json_kv_string(&w, "error", r < 0 ? (error ?: strerror(-r)) : NULL);
                json_checks(&w, &checks);
                json_end_object(&w);
                json_writer_finish(&w);
        } else {
                if (r < 0)
                        fprintf(stderr,
                                "%sFailed to apply %s (backend %s):%s\n%s\n",
                                ansi_red(),
                                path,
                                backend->name,
                                ansi_normal(),
                                error ?: strerror(-r));
                else if (strv_length(changes) == 0 && hosts_only)
                        printf("nothing to change: /etc/hosts already names the other nodes as the profile says\n");
                else if (strv_length(changes) == 0)
                        print_nothing_to_change(&checks, node);
                else
                        STRV_FOREACH(l, changes)
                                printf("%s\n", *l);
                print_checks(&checks);
        }

        if (r < 0)
                return EXIT_CHECK_FAIL;
        /* A whole apply: the NIC's runtime settings and the RDMA setup after the links (in JSON, their
         * lines go to stderr). */
        if (!arg_only) {
                k = apply_nic_runtime_settings(&c, arg_json ? stderr : stdout);
                cdi_exit = k > cdi_exit ? k : cdi_exit;
                k = apply_rdma_setup_parts(&c, RDMA_SETUP_ALL, arg_json ? stderr : stdout);
                cdi_exit = k > cdi_exit ? k : cdi_exit;
        }
        k = exit_code_for_checks(&checks);
        return k > cdi_exit ? k : cdi_exit;
}

/* --boot-unit: the boot part of halod-helper.service's run, through the unit it names, after the other
 * parts: that unit's haloctl takes what a writer of the boot configuration takes, and this process
 * holds nothing of the other parts' while it waits for the job. */
static int apply_helper_boot_part(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        const ProfileNode *node = NULL;
        const char *path = profile_path_arg(argc, argv);
        Host host = { .root = arg_root ?: "" };
        int r;

        if (geteuid() != 0) {
                fprintf(stderr, "haloctl apply --boot-unit starts a unit of systemd's and needs root.\n");
                return EX_NOPERM;
        }
        r = load_profile_and_node(path, &p, &node);
        if (r != 0)
                return r;
        if (!profile_may_change_host(p, arg_force)) {
                printf("%s says mode: verify: the kernel command line is left alone.\n", path);
                return EXIT_SUCCESS;
        }
        return apply_boot_part(
                &(const NodeContext){ .host = &host, .profile = p, .node = node },
                /* undo= */ false,
                arg_boot_unit);
}

/* What apply_run() returns when it read no profile or may not act: the boot part is not tried either. */
static bool apply_stopped_early(int r) {
        return r == EX_USAGE || r == EX_NOINPUT || r == EX_DATAERR || r == EX_NOPERM || r == EX_CONFIG;
}

int verb_apply(int argc, char *argv[]) {
        /* Run by halod-helper.service (--only, with its RuntimeDirectory=): when each run started and how
         * it ended, for halod's helper check. */
        const char *dir = arg_only ? getenv("RUNTIME_DIRECTORY") : NULL;
        bool stamp = dir && dir[0] == '/' && !strchr(dir, ':'), through_unit;
        unsigned parts = 0;
        int r = EXIT_SUCCESS, k;

        /* --undo without boot needs no profile: the files halod owns say what they are. */
        if (arg_undo && !undo_names_boot(arg_undo))
                return apply_undo(arg_undo, NULL);
        /* --only PARTS: what halod-helper.service writes for halod, which may not write them itself; no
         * other part of the apply can be picked out. */
        if (arg_only && apply_parts_parse(arg_only, &parts) < 0)
                return EX_USAGE;
        if (arg_boot_unit && !(parts & APPLY_PART_BOOT)) {
                fprintf(stderr,
                        "--boot-unit names the unit that writes the boot part, which --only %s does not name: add "
                        "boot, or drop --boot-unit.\n",
                        arg_only);
                return EX_USAGE;
        }
        if (arg_boot_unit && !isempty(arg_root)) {
                fprintf(stderr,
                        "--boot-unit has systemd run the boot part on this machine, not below --root %s: drop one "
                        "of them.\n",
                        arg_root);
                return EX_USAGE;
        }
        through_unit = arg_boot_unit && (parts & APPLY_PART_BOOT);
        if (through_unit)
                parts &= ~(unsigned) APPLY_PART_BOOT;
        if (stamp)
                helper_stamp(dir, HELPER_STAMP_STARTED, 0);
        if (!through_unit || parts != 0)
                r = apply_run(argc, argv, parts);
        if (through_unit && !apply_stopped_early(r)) {
                k = apply_helper_boot_part(argc, argv);
                r = k > r ? k : r;
        }
        if (stamp)
                helper_stamp(dir, HELPER_STAMP_RESULT, r);
        return r;
}

/* SPDX-License-Identifier: MIT */
/* haloctl plan --adopt and haloctl unadopt: what apply --adopt would take over from NetworkManager
 * connections a user made (a node built by hand with nmcli), and giving it back. */
#include <stdio.h>
#include <unistd.h>

#include "apply/adopt.h"
#include "basic/json-writer.h"
#include "basic/strv.h"
#include "haloctl.h"

int plan_find_adoptions(const Plan *plan, Adoptions *ret) {
        _cleanup_(freep) char *error = NULL;
        int r;

        r = adoptions_find(backend_pick(), plan, ret, &error);
        if (r == -ENOMEM) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }
        if (r < 0 && arg_adopt) {
                fprintf(stderr, "%s\n", error ?: strerror(-r));
                return EX_UNAVAILABLE;
        }
        if (r < 0)
                /* Without --adopt the question is only for a hint: the plan stands without it. */
                fprintf(stderr, "Warning: %s\n", error ?: strerror(-r));
        return 0;
}

int plan_add_adoption_lines(const Adoptions *l, char ***lines) {
        if (arg_adopt)
                return adoptions_describe(l, /* kept= */ false, lines);
        /* Without --adopt, a connection that blocks apply is worth a word; one that is only bound to the
         * interface does not stop anything. */
        for (size_t i = 0; i < l->n; i++)
                if (!l->items[i].kept && l->items[i].active &&
                    strv_consume(lines, adoption_describe_holder(&l->items[i])) < 0)
                        return -ENOMEM;
        return 0;
}

bool adoptions_pending(const Adoptions *l) {
        for (size_t i = 0; i < l->n; i++)
                if (!l->items[i].kept)
                        return true;
        return false;
}

void json_adoptions(JsonWriter *w, const Adoptions *l) {
        json_key(w, "adopt");
        json_begin_array(w);
        for (size_t i = 0; i < l->n; i++) {
                const Adoption *a = &l->items[i];

                if (a->kept)
                        continue;
                json_begin_object(w);
                json_kv_string(w, "link", a->link);
                json_kv_string(w, "ifname", a->ifname);
                json_kv_string(w, "connection", a->id);
                json_kv_string(w, "uuid", a->uuid);
                json_kv_bool(w, "active", a->active);
                json_kv_bool(w, "autoconnect", a->autoconnect);
                json_kv_string(w, "kept_as", a->other_id);
                json_end_object(w);
        }
        json_end_array(w);
}

int verb_unadopt(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **changes = NULL;
        _cleanup_(freep) char *error = NULL;
        const ProfileNode *node = NULL;
        const char *path = profile_path_arg(argc, argv);
        Host host = { .root = arg_root ?: "" };
        const Backend *backend;
        NodeContext c;
        int r;

        if (geteuid() != 0) {
                fprintf(stderr,
                        "haloctl unadopt changes NetworkManager connections and needs root: run it with sudo.\n");
                return EX_NOPERM;
        }
        r = load_profile_and_node(path, &p, &node);
        if (r != 0)
                return r;
        c = (NodeContext){ .host = &host, .profile = p, .node = node };

        backend = backend_pick();
        if (!backend->unadopt_link) {
                fprintf(stderr,
                        "NetworkManager is not running, so there is no connection to give the links back to; start "
                        "it (systemctl start NetworkManager) and run haloctl unadopt again.\n");
                return EX_UNAVAILABLE;
        }

        r = unadopt_node(&c, backend, &changes, &error);
        if (r == -ENOMEM) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }

        if (arg_json) {
                JsonWriter w;

                json_writer_init(&w, stdout, true);
                json_begin_object(&w);
                json_kv_string(&w, "profile", path);
                json_kv_string(&w, "node", node->name);
                json_kv_string(&w, "backend", backend->name);
                json_kv_bool(&w, "given_back", r >= 0);
                json_kv_bool(&w, "changed", r >= 0 && strv_length(changes) > 0);
                json_key(&w, "changes");
                json_begin_array(&w);
                STRV_FOREACH(l, changes)
                        json_string(&w, *l);
                json_end_array(&w);
                json_kv_string(&w, "error", r < 0 ? (error ?: strerror(-r)) : NULL);
                json_end_object(&w);
                json_writer_finish(&w);
        } else if (r < 0)
                fprintf(stderr,
                        "%sFailed to give the links of node %s back:%s\n%s\n",
                        ansi_red(),
                        node->name,
                        ansi_normal(),
                        error ?: strerror(-r));
        else if (strv_length(changes) == 0)
                printf("nothing to give back: haloctl apply --adopt took over no link of node %s\n",
                       node->name);
        else {
                STRV_FOREACH(l, changes)
                        printf("%s\n", *l);
                /* halod never adopts, so it will not take the links again; but in enforce mode it keeps
                 * trying to apply the profile and reports what differs. */
                if (halod_is_running())
                        fprintf(stderr,
                                "halod is running: it will not take the links over again, but it reports where "
                                "they differ from the profile; stop it (systemctl disable --now halod) if the "
                                "node is to be configured by hand again.\n");
        }
        return r < 0 ? EXIT_CHECK_FAIL : EXIT_SUCCESS;
}

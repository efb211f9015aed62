/* SPDX-License-Identifier: MIT */
/* The /etc/hosts part of the plan: halod's marked block as the profile wants it against the file's. */
#include <arpa/inet.h>
#include <stdio.h>

#include "basic/etc-hosts.h"
#include "basic/fileio.h"
#include "basic/strv.h"
#include "plan/hosts-plan.h"

HostsPlan *hosts_plan_free(HostsPlan *hp) {
        if (!hp)
                return NULL;
        free(hp->path);
        strv_free(hp->add);
        strv_free(hp->remove);
        free(hp->text);
        free(hp->error);
        return mfree(hp);
}

static int wanted_lines(const NodeContext *c, char ***ret) {
        _cleanup_(strv_freep) char **l = NULL;

        for (size_t i = 0; i < c->profile->n_nodes; i++) {
                const ProfileNode *n = &c->profile->nodes[i];

                if (streq(n->name, c->node->name) || !n->hostname)
                        continue;
                for (size_t k = 0; k < n->n_links; k++) {
                        char buf[INET_ADDRSTRLEN];

                        (void) inet_ntop(AF_INET, &n->links[k].address.address, buf, sizeof(buf));
                        if (strv_extendf(&l, "%s %s", buf, n->hostname) < 0)
                                return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(l);
        return 0;
}

/* The lines of a that b lacks. */
static int lines_missing(char **a, char **b, char ***ret) {
        STRV_FOREACH(s, a)
                if (!strv_contains(b, *s) && strv_extend(ret, *s) < 0)
                        return -ENOMEM;
        return 0;
}

int hosts_plan_compute(const NodeContext *c, HostsPlan **ret) {
        _cleanup_(hosts_plan_freep) HostsPlan *hp = NULL;
        _cleanup_(strv_freep) char **want = NULL, **have = NULL;
        _cleanup_(freep) char *text = NULL;
        int r;

        *ret = NULL;
        if (!c->profile || !c->node || c->profile->health.hosts != HOSTS_POLICY_MANAGE)
                return 0;
        hp = calloc(1, sizeof(HostsPlan));
        if (!hp)
                return -ENOMEM;
        r = host_path(c->host, ETC_HOSTS_PATH, &hp->path);
        if (r < 0)
                return r;

        /* Read as the writer will replace it: a symlink is not followed, so what is compared is what is
         * written over. */
        r = read_regular_file(hp->path, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (asprintf(
                            &hp->error,
                            "cannot manage %s: %s",
                            hp->path,
                            r == -ELOOP ? "it is a symlink, which halod does not follow (manage the file it "
                                          "points to by hand, or set health.hosts: check)"
                                    : r == -ENOENT ? "it does not exist"
                                                   : strerror(-r)) < 0)
                        return -ENOMEM;
                *ret = TAKE_PTR(hp);
                return 0;
        }
        r = etc_hosts_block_lines(text, &have);
        if (r == -EBADMSG) {
                if (asprintf(
                            &hp->error,
                            "cannot manage %s: it has a \"" ETC_HOSTS_BLOCK_BEGIN
                            "\" line without \"" ETC_HOSTS_BLOCK_END "\" after it; remove or complete the "
                            "block by hand",
                            hp->path) < 0)
                        return -ENOMEM;
                *ret = TAKE_PTR(hp);
                return 0;
        }
        if (r < 0)
                return r;
        r = wanted_lines(c, &want);
        if (r < 0)
                return r;
        r = lines_missing(want, have, &hp->add);
        if (r >= 0)
                r = lines_missing(have, want, &hp->remove);
        if (r < 0)
                return r;
        r = etc_hosts_replace_block(text, c->profile->cluster, want, &hp->text);
        if (r < 0)
                return r;
        if (streq(hp->text, text))
                return 0;
        /* The same lines in another order or repeated, or another cluster's marker: the block is written
         * anew, and the records say so line by line. */
        if (!hp->add && !hp->remove) {
                STRV_FOREACH(s, have)
                        if (strv_extend(&hp->remove, *s) < 0)
                                return -ENOMEM;
                hp->add = TAKE_PTR(want);
        }
        *ret = TAKE_PTR(hp);
        return 0;
}

int hosts_plan_changes(const HostsPlan *hp, PlanChanges *l) {
        if (!hp || hp->error)
                return 0;
        STRV_FOREACH(s, hp->remove)
                if (plan_changes_add_item(l, ETC_HOSTS_PATH, NULL, LINK_FIELD_HOSTS, /* add= */ false, *s) < 0)
                        return -ENOMEM;
        STRV_FOREACH(s, hp->add)
                if (plan_changes_add_item(l, ETC_HOSTS_PATH, NULL, LINK_FIELD_HOSTS, /* add= */ true, *s) < 0)
                        return -ENOMEM;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* What the tests of the check groups share: a profile from YAML text, and asserting one check. */
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include "basic/strv.h"
#include "check/check.h"
#include "profile/profile.h"
#include "tests.h"

/* Loads the profile text (as test.yaml); aborts after printing its errors when it is not valid. */
static inline Profile *test_profile_load(const char *yaml) {
        _cleanup_(strv_freep) char **errors = NULL;
        Profile *p = NULL;
        int r = profile_load_string("test.yaml", yaml, strlen(yaml), &p, &errors);

        STRV_FOREACH(e, errors)
                fprintf(stderr, "%s\n", *e);
        ASSERT_OK(r);
        return p;
}

typedef struct CheckExpect {
        const char *id;
        CheckOutcome outcome;
        const char *summary_has; /* a substring of the summary; NULL: anything */
} CheckExpect;

/* Aborts unless l holds the check e->id with e's outcome and summary; where (the fixture) goes into
 * the message. */
static inline void assert_check(const CheckList *l, const CheckExpect *e, const char *where) {
        const Check *c = check_list_find(l, e->id);

        if (!c) {
                fprintf(stderr, "%s: no check %s\n", where, e->id);
                abort();
        }
        if (c->outcome != e->outcome || (e->summary_has && !strstr(c->summary, e->summary_has))) {
                fprintf(stderr,
                        "%s: %s: got %s \"%s\", expected %s with \"%s\"\n",
                        where,
                        e->id,
                        check_outcome_to_string(c->outcome),
                        c->summary,
                        check_outcome_to_string(e->outcome),
                        strna(e->summary_has));
                abort();
        }
}

static inline void assert_checks(const CheckList *l, const CheckExpect *expect, size_t n, const char *where) {
        for (size_t i = 0; i < n; i++)
                assert_check(l, &expect[i], where);
}

/* A scratch copy of a fixture tree without one of its paths (relative to the tree): what a sandbox or
 * a user without privileges does not see. remove_tree() removes it and frees the name. */
static inline char *copy_tree_without(const char *tree, const char *hidden) {
        char *root = strdup("/tmp/halod-tree-XXXXXX");
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(root && mkdtemp(root));
        ASSERT_TRUE(chmod(root, 0755) >= 0);
        ASSERT_TRUE(asprintf(&cmd, "cp -a '%s'/. '%s' && rm -r '%s/%s'", tree, root, root, hidden) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
        return root;
}

/* An edit of a scratch copy of a fixture tree: path (relative to the tree) gets text, or is removed when
 * text is NULL. */
typedef struct TreeEdit {
        const char *path;
        const char *text;
} TreeEdit;

/* A scratch copy of a fixture tree with edits applied (n_edits may be 0). remove_tree() removes it. */
static inline char *copy_tree_edited(const char *tree, const TreeEdit *edits, size_t n_edits) {
        char *root = strdup("/tmp/halod-tree-XXXXXX");
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(root && mkdtemp(root));
        ASSERT_TRUE(chmod(root, 0755) >= 0);
        ASSERT_TRUE(asprintf(&cmd, "cp -a '%s'/. '%s'", tree, root) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
        for (size_t i = 0; i < n_edits; i++) {
                _cleanup_(freep) char *path = NULL;
                FILE *f;

                ASSERT_TRUE(asprintf(&path, "%s/%s", root, edits[i].path) >= 0);
                cmd = mfree(cmd);
                ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s' && mkdir -p \"$(dirname '%s')\"", path, path) >= 0);
                ASSERT_INT_EQ(system(cmd), 0);
                if (!edits[i].text)
                        continue;
                f = fopen(path, "we");
                ASSERT_TRUE(f);
                ASSERT_TRUE(fputs(edits[i].text, f) >= 0);
                ASSERT_INT_EQ(fclose(f), 0);
        }
        return root;
}

static inline void remove_tree(char *root) {
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
        free(root);
}

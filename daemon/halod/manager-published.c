/* SPDX-License-Identifier: MIT */
/* The published facts and checks, refcounted (manager-published.h). */
#include <assert.h>

#include "manager-export.h"
#include "manager-published.h"

VerifiedFacts *
        verified_facts_new(uint64_t profile_generation, const Host *host, const NodeContext *c, Snapshot *s) {
        VerifiedFacts *v = calloc(1, sizeof(VerifiedFacts));

        if (!v)
                return NULL;
        v->n_ref = 1;
        v->profile_generation = profile_generation;
        v->host = *host;
        v->context = *c;
        v->context.host = &v->host;
        v->snapshot = *s;
        *s = (Snapshot){};
        v->snapshot.context = &v->context;
        /* What pointed into the verify job: its hand-over of rtnetlink events, and the pause counters of
         * the verify before, which only the verify's qos.<link>.pause reads and updates. */
        v->snapshot.before_kernel_read = NULL;
        v->snapshot.userdata = NULL;
        return v;
}

VerifiedFacts *verified_facts_ref(VerifiedFacts *v) {
        if (v)
                v->n_ref++;
        return v;
}

VerifiedFacts *verified_facts_unref(VerifiedFacts *v) {
        if (!v)
                return NULL;
        assert(v->n_ref > 0);
        if (--v->n_ref > 0)
                return NULL;
        v->exported = export_facts_free(v->exported);
        snapshot_done(&v->snapshot);
        return mfree(v);
}

int published_checks_new(CheckList *list, PublishedChecks **ret) {
        PublishedChecks *p = calloc(1, sizeof(PublishedChecks));

        if (!p)
                return -ENOMEM;
        p->n_ref = 1;
        p->list = *list;
        *list = (CheckList){};
        *ret = p;
        return 0;
}

PublishedChecks *published_checks_ref(PublishedChecks *p) {
        if (p)
                p->n_ref++;
        return p;
}

PublishedChecks *published_checks_unref(PublishedChecks *p) {
        if (!p)
                return NULL;
        assert(p->n_ref > 0);
        if (--p->n_ref > 0)
                return NULL;
        check_list_done(&p->list);
        return mfree(p);
}

const CheckList *published_checks_list(const PublishedChecks *p) {
        static const CheckList empty = {};

        return p ? &p->list : &empty;
}

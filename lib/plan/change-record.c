/* SPDX-License-Identifier: MIT */
/* The list of change records (plan/change-record.h): the field names and appending a record. */
#include <stdlib.h>
#include <string.h>

#include "plan/change-record.h"

static const char *const link_field_table[_LINK_FIELD_MAX] = {
        [LINK_FIELD_MTU] = "mtu",
        [LINK_FIELD_UP] = "up",
        [LINK_FIELD_ADDRESS] = "address",
        [LINK_FIELD_ZONE] = "zone",
        [LINK_FIELD_OWNER] = "owner",
        [LINK_FIELD_QOS_PFC] = "qos-pfc",
        [LINK_FIELD_QOS_TRUST] = "qos-trust",
        [LINK_FIELD_QOS_DSCP] = "qos-dscp",
        [LINK_FIELD_QOS_ECN] = "qos-ecn",
        [LINK_FIELD_QOS_TOS] = "qos-tos",
        [LINK_FIELD_HOSTS] = "hosts",
        [LINK_FIELD_ROUTE] = "route",
        [LINK_FIELD_FORWARDING] = "forwarding",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(link_field, LinkField);

static void plan_change_done(PlanChange *c) {
        free(c->link);
        free(c->ifname);
        free(c->from);
        free(c->to);
}

void plan_changes_done(PlanChanges *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n_changes; i++)
                plan_change_done(&c->changes[i]);
        c->changes = mfree(c->changes);
        c->n_changes = 0;
}

int plan_changes_push(PlanChanges *l, const PlanChange *c) {
        PlanChange copy = *c;
        PlanChange *a;

        copy.link = strdup(c->link);
        copy.ifname = strdup(strempty(c->ifname));
        copy.from = strdup(strempty(c->from));
        copy.to = strdup(strempty(c->to));
        a = reallocarray(l->changes, l->n_changes + 1, sizeof(PlanChange));
        if (a)
                l->changes = a;
        if (!a || !copy.link || !copy.ifname || !copy.from || !copy.to) {
                plan_change_done(&copy);
                return -ENOMEM;
        }
        l->changes[l->n_changes++] = copy;
        return 0;
}

int plan_changes_add(
        PlanChanges *l, const char *link, const char *ifname, LinkField field, const char *from, const char *to) {
        return plan_changes_push(
                l,
                &(PlanChange){ .link = (char *) link,
                               .ifname = (char *) ifname,
                               .field = field,
                               .op = PLAN_CHANGE_SET,
                               .from = (char *) from,
                               .to = (char *) to });
}

int plan_changes_add_item(
        PlanChanges *l, const char *link, const char *ifname, LinkField field, bool add, const char *item) {
        return plan_changes_push(
                l,
                &(PlanChange){ .link = (char *) link,
                               .ifname = (char *) ifname,
                               .field = field,
                               .op = add ? PLAN_CHANGE_ADD : PLAN_CHANGE_REMOVE,
                               .from = add ? NULL : (char *) item,
                               .to = add ? (char *) item : NULL });
}

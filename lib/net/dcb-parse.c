/* SPDX-License-Identifier: MIT */
/* Parsing DCB netlink replies (DCB_CMD_IEEE_GET's state, DCB_CMD_IEEE_SET/DEL's result) into plain
 * structs, every attribute checked: pure, for the tests and the fuzzer. */
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <stdio.h>

#include "net/dcb.h"

/* Calls cb for every attribute of the len bytes at start. Unlike mnl_attr_parse(), an attribute that
 * runs past the end, or bytes left over that are no attribute, make the whole block malformed: a
 * truncated reply is refused rather than read in part. */
typedef int (*AttrFunc)(const struct nlattr *attr, void *userdata);

static int walk_attrs(const void *start, size_t len, AttrFunc cb, void *userdata) {
        const uint8_t *p = start;

        while (len > 0) {
                const struct nlattr *a = (const struct nlattr *) p;
                size_t step;
                int r;

                if (len < sizeof(struct nlattr) || a->nla_len < sizeof(struct nlattr) || a->nla_len > len)
                        return -EBADMSG;
                r = cb(a, userdata);
                if (r < 0)
                        return r;
                step = MNL_ALIGN(a->nla_len);
                if (step >= len)
                        break;
                p += step;
                len -= step;
        }
        return 0;
}

static int walk_nested(const struct nlattr *nest, AttrFunc cb, void *userdata) {
        return walk_attrs(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), cb, userdata);
}

/* The attribute type the kernel gives an APP entry or trust selector (dcbnl_app_attr_type_get()). */
static int app_attr_type(uint8_t selector) {
        switch (selector) {
        case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
        case IEEE_8021QAZ_APP_SEL_STREAM:
        case IEEE_8021QAZ_APP_SEL_DGRAM:
        case IEEE_8021QAZ_APP_SEL_ANY:
        case IEEE_8021QAZ_APP_SEL_DSCP:
                return DCB_ATTR_IEEE_APP;
        case DCBNL_APP_SEL_PCP:
                return DCBNL_ATTR_DCB_APP;
        default:
                return DCB_ATTR_IEEE_APP_UNSPEC;
        }
}

static int app_cb(const struct nlattr *attr, void *userdata) {
        DcbState *s = userdata;
        int type = mnl_attr_get_type(attr);

        if (type != DCB_ATTR_IEEE_APP && type != DCBNL_ATTR_DCB_APP)
                return 0; /* not an entry of ours (a newer kernel's) */
        if (mnl_attr_get_payload_len(attr) != sizeof(struct dcb_app))
                return -EBADMSG;
        if (s->n_apps >= DCB_APPS_MAX)
                return -E2BIG;
        memcpy(&s->apps[s->n_apps++], mnl_attr_get_payload(attr), sizeof(struct dcb_app));
        return 0;
}

static int trust_cb(const struct nlattr *attr, void *userdata) {
        DcbState *s = userdata;
        int type = mnl_attr_get_type(attr);
        uint8_t selector;

        if (type != DCB_ATTR_IEEE_APP && type != DCBNL_ATTR_DCB_APP)
                return -EBADMSG;
        if (mnl_attr_get_payload_len(attr) != sizeof(uint8_t))
                return -EBADMSG;
        selector = mnl_attr_get_u8(attr);
        if (app_attr_type(selector) != type)
                return -EBADMSG;
        for (size_t i = 0; i < s->n_trust; i++)
                if (s->trust[i] == selector)
                        return -EBADMSG;
        if (s->n_trust >= DCB_TRUST_MAX)
                return -E2BIG;
        s->trust[s->n_trust++] = selector;
        return 0;
}

static int ieee_cb(const struct nlattr *attr, void *userdata) {
        DcbState *s = userdata;

        switch (mnl_attr_get_type(attr)) {
        case DCB_ATTR_IEEE_PFC:
                if (mnl_attr_get_payload_len(attr) != sizeof(struct ieee_pfc) || s->has_pfc)
                        return -EBADMSG;
                memcpy(&s->pfc, mnl_attr_get_payload(attr), sizeof(struct ieee_pfc));
                s->has_pfc = true;
                return 0;
        case DCB_ATTR_IEEE_APP_TABLE:
                return walk_nested(attr, app_cb, s);
        case DCBNL_ATTR_APP_TRUST_TABLE:
                if (s->has_trust)
                        return -EBADMSG;
                s->has_trust = true;
                return walk_nested(attr, trust_cb, s);
        default:
                return 0; /* ETS, buffers, peer state, the rewrite table: not read */
        }
}

typedef struct TopAttrs {
        const struct nlattr *ieee;
} TopAttrs;

static int top_cb(const struct nlattr *attr, void *userdata) {
        TopAttrs *t = userdata;

        if (mnl_attr_get_type(attr) != DCB_ATTR_IEEE)
                return 0; /* the name, the DCBX mode */
        if (t->ieee)
                return -EBADMSG;
        t->ieee = attr;
        return 0;
}

static int parse_top(const struct nlmsghdr *nlh, uint16_t type, uint8_t cmd1, uint8_t cmd2, TopAttrs *ret) {
        const struct dcbmsg *d;
        size_t payload;

        if (nlh->nlmsg_len < sizeof(struct nlmsghdr) || nlh->nlmsg_type != type)
                return -EBADMSG;
        payload = mnl_nlmsg_get_payload_len(nlh);
        if (payload < sizeof(struct dcbmsg))
                return -EBADMSG;
        d = mnl_nlmsg_get_payload(nlh);
        if (d->cmd != cmd1 && d->cmd != cmd2)
                return -EBADMSG;
        *ret = (TopAttrs){};
        return walk_attrs(
                (const uint8_t *) d + MNL_ALIGN(sizeof(struct dcbmsg)),
                payload - MNL_ALIGN(sizeof(struct dcbmsg)),
                top_cb,
                ret);
}

int dcb_parse_get_reply(const struct nlmsghdr *nlh, DcbState *ret) {
        TopAttrs t;
        int r;

        r = parse_top(nlh, RTM_GETDCB, DCB_CMD_IEEE_GET, DCB_CMD_IEEE_GET, &t);
        if (r < 0)
                return r;
        if (!t.ieee)
                return -EBADMSG;

        *ret = (DcbState){};
        r = walk_nested(t.ieee, ieee_cb, ret);
        if (r < 0) {
                *ret = (DcbState){};
                return r;
        }
        return 0;
}

int dcb_parse_set_reply(const struct nlmsghdr *nlh) {
        TopAttrs t;
        uint8_t status;
        int r;

        r = parse_top(nlh, RTM_SETDCB, DCB_CMD_IEEE_SET, DCB_CMD_IEEE_DEL, &t);
        if (r < 0)
                return r;
        if (!t.ieee || mnl_attr_get_payload_len(t.ieee) != sizeof(uint8_t))
                return -EBADMSG;
        /* The driver's int result, put with nla_put_u8(): -EINVAL arrives as 234. */
        status = mnl_attr_get_u8(t.ieee);
        return status == 0 ? 0 : (int) status - 256;
}

int dcb_state_app_priority(const DcbState *s, uint8_t selector, uint16_t protocol) {
        int found = -ENOENT;

        for (size_t i = 0; i < s->n_apps; i++) {
                if (s->apps[i].selector != selector || s->apps[i].protocol != protocol)
                        continue;
                if (found >= 0)
                        return -ENOTUNIQ;
                found = s->apps[i].priority;
        }
        return found;
}

bool dcb_state_has_app(const DcbState *s, const struct dcb_app *app) {
        for (size_t i = 0; i < s->n_apps; i++)
                if (s->apps[i].selector == app->selector && s->apps[i].protocol == app->protocol &&
                    s->apps[i].priority == app->priority)
                        return true;
        return false;
}

size_t dcb_state_count_selector(const DcbState *s, uint8_t selector) {
        size_t n = 0;

        for (size_t i = 0; i < s->n_apps; i++)
                if (s->apps[i].selector == selector)
                        n++;
        return n;
}

/* "dscp", "pcp", "ethertype", "stream", "dgram", "any", or the number. buf: at least 4 bytes. */
static const char *dcb_selector_to_string(uint8_t selector, char buf[static 4]) {
        switch (selector) {
        case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
                return "ethertype";
        case IEEE_8021QAZ_APP_SEL_STREAM:
                return "stream";
        case IEEE_8021QAZ_APP_SEL_DGRAM:
                return "dgram";
        case IEEE_8021QAZ_APP_SEL_ANY:
                return "any";
        case IEEE_8021QAZ_APP_SEL_DSCP:
                return "dscp";
        case DCBNL_APP_SEL_PCP:
                return "pcp";
        default:
                (void) snprintf(buf, 4, "%u", selector);
                return buf;
        }
}

const char *dcb_pfc_to_string(uint8_t pfc_en, char buf[static 16]) {
        char *p = buf;

        if (pfc_en == 0)
                return strcpy(buf, "none");
        for (unsigned prio = 0; prio < 8; prio++)
                if (pfc_en & (1U << prio))
                        p += sprintf(p, "%s%u", p > buf ? "," : "", prio);
        return buf;
}

const char *dcb_trust_to_string(const uint8_t *selectors, size_t n, char *buf) {
        char *p = buf;

        if (n == 0)
                return strcpy(buf, "none");
        for (size_t i = 0; i < n && i < DCB_TRUST_MAX; i++) {
                char num[4];

                p += sprintf(p, "%s%s", i > 0 ? "," : "", dcb_selector_to_string(selectors[i], num));
        }
        return buf;
}

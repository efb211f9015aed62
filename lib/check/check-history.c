/* SPDX-License-Identifier: MIT */
/* The checks' history across verifies: the pause samples, and copying the whole of it. */
#include <stdlib.h>

#include "check/check-history.h"

void pause_history_done(PauseHistory *h) {
        if (!h)
                return;
        for (size_t i = 0; i < h->n; i++)
                free(h->samples[i].ifname);
        h->samples = mfree(h->samples);
        h->n = 0;
}

const PauseSample *pause_history_find(const PauseHistory *h, const char *ifname) {
        for (size_t i = 0; h && ifname && i < h->n; i++)
                if (streq(h->samples[i].ifname, ifname))
                        return &h->samples[i];
        return NULL;
}

int pause_history_put(PauseHistory *h, const char *ifname, usec_t when, uint64_t pause, uint64_t packets) {
        PauseSample *p = (PauseSample *) pause_history_find(h, ifname), *a;

        if (!p) {
                char *copy = strdup(ifname);

                if (!copy)
                        return -ENOMEM;
                a = reallocarray(h->samples, h->n + 1, sizeof(PauseSample));
                if (!a) {
                        free(copy);
                        return -ENOMEM;
                }
                h->samples = a;
                p = &h->samples[h->n++];
                *p = (PauseSample){ .ifname = copy };
        }
        p->when = when;
        p->pause = pause;
        p->packets = packets;
        return 0;
}

static int pause_history_copy(const PauseHistory *h, PauseHistory *ret) {
        PauseHistory c = {};

        for (size_t i = 0; i < h->n; i++) {
                const PauseSample *p = &h->samples[i];

                if (pause_history_put(&c, p->ifname, p->when, p->pause, p->packets) < 0) {
                        pause_history_done(&c);
                        return -ENOMEM;
                }
        }
        *ret = c;
        return 0;
}

void check_history_done(CheckHistory *h) {
        if (!h)
                return;
        pause_history_done(&h->pause);
        fabric_transport_state_done(&h->transport);
        fabric_health_history_done(&h->fabric);
}

int check_history_copy(const CheckHistory *h, CheckHistory *ret) {
        CheckHistory c = {};

        if (pause_history_copy(&h->pause, &c.pause) < 0 ||
            fabric_transport_state_dup(&h->transport, &c.transport) < 0 ||
            fabric_health_history_copy(&h->fabric, &c.fabric) < 0) {
                check_history_done(&c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

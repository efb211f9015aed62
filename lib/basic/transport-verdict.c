/* SPDX-License-Identifier: MIT */
/* The fabric's real use towards one peer: the verdict and its text (transport-verdict.h says why the
 * threshold and the ratio are what they are). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/transport-verdict.h"

static uint64_t rate_bps(uint64_t bytes, uint64_t interval_usec) {
        uint64_t window = interval_usec < TRANSPORT_RATE_WINDOW_MIN_USEC ? TRANSPORT_RATE_WINDOW_MIN_USEC
                                                                         : interval_usec;

        /* bytes * 8 * 1e6 would overflow past 2.3 TB; long double keeps the ratio exact enough */
        return (uint64_t) ((long double) bytes * 8.0L * 1e6L / (long double) window);
}

static uint64_t rdma_volume(const TransportInput *in) {
        uint64_t mtu = in->rdma_mtu > 0 ? in->rdma_mtu : TRANSPORT_RDMA_MTU_DEFAULT;

        if (in->rdma_bytes > 0 || in->rdma_packets == 0)
                return in->rdma_bytes;
        return in->rdma_packets > UINT64_MAX / mtu ? UINT64_MAX : in->rdma_packets * mtu;
}

bool transport_use_is_warning(TransportUse u) {
        return u == TRANSPORT_FALLBACK || u == TRANSPORT_UNKNOWN;
}

int transport_verdict(const TransportInput *in, TransportVerdict *ret) {
        uint64_t threshold, tcp_bytes, rdma_bytes;
        TransportUse use;
        bool bulk_tcp, packets_only;

        if (!in || !ret || in->interval_usec == 0)
                return -EINVAL;

        threshold = in->threshold_bps > 0 ? in->threshold_bps : TRANSPORT_THRESHOLD_BPS_DEFAULT;
        tcp_bytes = in->tcp_bytes_sent + in->tcp_bytes_received;
        if (tcp_bytes < in->tcp_bytes_sent) /* saturate rather than wrap */
                tcp_bytes = UINT64_MAX;

        rdma_bytes = rdma_volume(in); /* with packets only, the most they can have carried */
        packets_only = in->rdma_bytes == 0 && in->rdma_packets > 0;

        TransportVerdict v = {
                .tcp_bps = rate_bps(tcp_bytes, in->interval_usec),
                .rdma_bps = rate_bps(rdma_bytes, in->interval_usec),
                .rdma_packets_only = packets_only,
                .rdma_pps = packets_only ? rate_bps(in->rdma_packets, in->interval_usec) / 8 : 0,
        };

        bulk_tcp = v.tcp_bps >= threshold;
        if (bulk_tcp && rdma_bytes < tcp_bytes / TRANSPORT_RDMA_SHARE_MIN)
                use = TRANSPORT_FALLBACK; /* at full packets too */
        else if (bulk_tcp && packets_only)
                use = TRANSPORT_UNKNOWN; /* the packets may carry a tenth as much, or nearly nothing */
        else if (v.rdma_bps >= threshold)
                use = TRANSPORT_RDMA;
        else if (bulk_tcp)
                use = TRANSPORT_TCP_BULK;
        else
                use = TRANSPORT_IDLE;

        v.use = use;
        if (use == TRANSPORT_UNKNOWN) /* neither into nor out of a fallback that cannot be told */
                v.transition = TRANSPORT_TRANSITION_NONE;
        else if (use == TRANSPORT_FALLBACK && !in->was_fallback)
                v.transition = TRANSPORT_TRANSITION_INTO_FALLBACK;
        else if (use != TRANSPORT_FALLBACK && in->was_fallback)
                v.transition = TRANSPORT_TRANSITION_OUT_OF_FALLBACK;
        else
                v.transition = TRANSPORT_TRANSITION_NONE;

        *ret = v;
        return 0;
}

/* "12.3 Mbit/s" or "812 kbit/s" */
static void format_rate(char *buf, size_t size, uint64_t bps) {
        if (bps >= 1000ULL * 1000ULL)
                snprintf(buf, size, "%.1f Mbit/s", (double) bps / 1e6);
        else
                snprintf(buf, size, "%llu kbit/s", (unsigned long long) (bps / 1000ULL));
}

/* "; QPs: ib_write_bw (pid 812, 2 QPs), pid 77 (1 QP)" into f, or "; no process holds a QP" */
static void format_holders(FILE *f, const TransportInput *in) {
        if (in->n_holders == 0) {
                fputs("; no process holds a QP on the RDMA device", f);
                return;
        }
        fputs("; QPs held by ", f);
        for (size_t i = 0; i < in->n_holders; i++) {
                const TransportHolder *h = &in->holders[i];

                fprintf(f,
                        "%s%s (pid %u, %u QP%s)",
                        i > 0 ? ", " : "",
                        h->comm ?: "?",
                        h->pid,
                        h->n_qps,
                        h->n_qps == 1 ? "" : "s");
        }
}

/* " (counted in packets only: at most 42.2 Mbit/s at 4096 bytes each)" */
static char *max_text(const char *max, const TransportInput *in) {
        char *s;

        if (asprintf(
                    &s,
                    " (the device counts packets only: at most %s at %u bytes each)",
                    max,
                    in->rdma_mtu > 0 ? in->rdma_mtu : TRANSPORT_RDMA_MTU_DEFAULT) < 0)
                return NULL;
        return s;
}

int transport_verdict_text(const TransportInput *in, const TransportVerdict *v, char **ret) {
        _cleanup_(fclosep) FILE *f = NULL;
        _cleanup_(freep) char *text = NULL, *rdma_max = NULL;
        char tcp[32], rdma[32];
        size_t size;

        if (!in || !v || !ret || v->use < 0 || v->use >= _TRANSPORT_USE_MAX)
                return -EINVAL;

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;

        format_rate(tcp, sizeof(tcp), v->tcp_bps);
        format_rate(rdma, sizeof(rdma), v->rdma_bps);
        if (v->rdma_packets_only) {
                char max[32];

                /* What the counter can say, said as such: "1288 packets/s (counted in packets only: at
                 * most 42.2 Mbit/s)". */
                memcpy(max, rdma, sizeof(max));
                snprintf(rdma, sizeof(rdma), "%llu packets/s", (unsigned long long) v->rdma_pps);
                rdma_max = max_text(max, in);
                if (!rdma_max)
                        return -ENOMEM;
        }
        switch (v->use) {
        case TRANSPORT_IDLE:
                fprintf(f, "idle: TCP to %s %s, RDMA %s%s", in->peer ?: "the peer", tcp, rdma, strempty(rdma_max));
                break;
        case TRANSPORT_RDMA:
                fprintf(f, "RDMA %s%s, TCP to %s %s", rdma, strempty(rdma_max), in->peer ?: "the peer", tcp);
                break;
        case TRANSPORT_TCP_BULK:
                fprintf(f, "TCP to %s %s beside RDMA %s", in->peer ?: "the peer", tcp, rdma);
                break;
        case TRANSPORT_FALLBACK:
                fprintf(f,
                        "bulk traffic to %s over TCP (%s) while RDMA carries %s%s: the workload fell back to "
                        "sockets",
                        in->peer ?: "the peer",
                        tcp,
                        rdma,
                        strempty(rdma_max));
                break;
        case TRANSPORT_UNKNOWN:
                fprintf(f,
                        "bulk traffic to %s over TCP (%s) beside RDMA of %s%s: whether RDMA carries a tenth as "
                        "much the counter cannot tell, since a packet may carry anything from nothing (an "
                        "acknowledgement, a small message such as a latency ping-pong's) to a full MTU: the "
                        "workload may have fallen back to sockets",
                        in->peer ?: "the peer",
                        tcp,
                        rdma,
                        strempty(rdma_max));
                break;
        default:
                break;
        }
        format_holders(f, in);
        if (transport_use_is_warning(v->use))
                fputs(". Likely causes: the container was started without /dev/infiniband; NCCL_IB_DISABLE=1; "
                      "a wrong NCCL_IB_HCA or NCCL_IB_GID_INDEX (see /run/halod/fabric.env); the memlock limit "
                      "hit when registering memory. To confirm, run the workload with NCCL_DEBUG=INFO: it "
                      "logs NET/Socket instead of NET/IB",
                      f);
        if (fflush(f) != 0 || ferror(f))
                return -ENOMEM;
        f = (fclose(f), NULL);
        *ret = TAKE_PTR(text);
        return 0;
}

static const char *const use_table[_TRANSPORT_USE_MAX] = {
        [TRANSPORT_IDLE] = "idle",           [TRANSPORT_RDMA] = "rdma",
        [TRANSPORT_TCP_BULK] = "tcp-bulk",   [TRANSPORT_FALLBACK] = "fallback",
        [TRANSPORT_UNKNOWN] = "cannot-tell",
};

static const char *const transition_table[_TRANSPORT_TRANSITION_MAX] = {
        [TRANSPORT_TRANSITION_NONE] = "none",
        [TRANSPORT_TRANSITION_INTO_FALLBACK] = "into-fallback",
        [TRANSPORT_TRANSITION_OUT_OF_FALLBACK] = "out-of-fallback",
};

const char *transport_use_to_string(TransportUse u) {
        return u >= 0 && u < _TRANSPORT_USE_MAX ? use_table[u] : NULL;
}

const char *transport_transition_to_string(TransportTransition t) {
        return t >= 0 && t < _TRANSPORT_TRANSITION_MAX ? transition_table[t] : NULL;
}

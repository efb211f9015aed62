/* SPDX-License-Identifier: MIT */
/* The RDMA probe's responder: one session at a time, each on a thread that echoes the prober's pings
 * and is torn down by the prober's bye or the timeout, whichever comes first. */
#include <pthread.h>
#include <stdio.h>

#include "basic/time-util.h"
#include "rdma/rdma-qp.h"
#include "rdma/rdma-responder.h"

typedef struct RdmaEndpoint {
        struct in_addr local;
        RdmaDevice *device; /* NULL: looked up for each session (rdma_responder_add_lookup()) */
        const Host *host;
        char *pci;
        int ifindex;
        RdmaGidType gid_type;
} RdmaEndpoint;

typedef struct RdmaSession {
        RdmaQp *qp;         /* owned by the thread while it runs; freed by it */
        RdmaDevice *device; /* the device looked up for this session, or NULL; freed after qp */
        struct in_addr source;
        bool from_halod;
        PeerRdmaHello request, reply;
        uint64_t started_usec, idle_usec, deadline_usec;
        pthread_t thread;
        atomic_bool stop, done;
        int result;
        RdmaError error;
} RdmaSession;

/* The prober that was told busy first and still asks: served next (RDMA_RESPONDER_SHARE_USEC). Told
 * apart by its request, whose queue pair's number and PSN it repeats with every hello, and which no
 * one else sees. */
typedef struct RdmaWaiter {
        bool waiting;
        struct in_addr source;
        PeerRdmaHello request;
        uint64_t last_usec; /* its latest hello */
} RdmaWaiter;

struct RdmaResponder {
        pthread_mutex_t lock; /* the peer server's thread, the loop (stats) and free() */
        RdmaEndpoint *endpoints;
        size_t n_endpoints;
        uint64_t timeout_usec;
        uint64_t share_usec;
        RdmaSession *session;
        RdmaWaiter waiter;
        uint64_t halod_busy_usec; /* when a peer's halod was last told busy */
        RdmaResponderStats stats;
        char last_error[RDMA_ERROR_MAX];
};

int rdma_responder_new(RdmaResponder **ret) {
        RdmaResponder *r = calloc(1, sizeof(RdmaResponder));

        if (!r)
                return -ENOMEM;
        *r = (RdmaResponder){
                .lock = PTHREAD_MUTEX_INITIALIZER,
                .timeout_usec = RDMA_RESPONDER_TIMEOUT_USEC_DEFAULT,
                .share_usec = RDMA_RESPONDER_SHARE_USEC,
        };
        *ret = r;
        return 0;
}

/* Joins a finished (or, with stop, any) session and counts how it ended. Called with the lock held. */
static void session_reap(RdmaResponder *r, bool stop) {
        RdmaSession *s = r->session;

        if (!s)
                return;
        if (stop)
                atomic_store(&s->stop, true);
        else if (!atomic_load(&s->done))
                return;
        (void) pthread_join(s->thread, NULL);
        if (s->result >= 0)
                r->stats.completed++;
        else if (s->result == -ETIMEDOUT)
                r->stats.timed_out++;
        else if (s->result != -ECANCELED) {
                r->stats.failed++;
                (void) snprintf(r->last_error, sizeof(r->last_error), "%s", s->error.message);
        }
        r->session = mfree(s);
}

RdmaResponder *rdma_responder_free(RdmaResponder *r) {
        if (!r)
                return NULL;
        (void) pthread_mutex_lock(&r->lock);
        session_reap(r, /* stop= */ true);
        (void) pthread_mutex_unlock(&r->lock);
        for (size_t i = 0; i < r->n_endpoints; i++) {
                rdma_device_free(r->endpoints[i].device);
                free(r->endpoints[i].pci);
        }
        free(r->endpoints);
        (void) pthread_mutex_destroy(&r->lock);
        return mfree(r);
}

void rdma_responder_destroy(void *userdata) {
        rdma_responder_free(userdata);
}

/* Appends e, whose device and pci the responder owns from then on; -ENOMEM leaves them the caller's. */
static int endpoint_append(RdmaResponder *r, RdmaEndpoint e) {
        RdmaEndpoint *a = reallocarray(r->endpoints, r->n_endpoints + 1, sizeof(RdmaEndpoint));

        if (!a)
                return -ENOMEM;
        r->endpoints = a;
        r->endpoints[r->n_endpoints++] = e;
        return 0;
}

int rdma_responder_add(RdmaResponder *r, struct in_addr local, RdmaDevice *device, RdmaGidType gid_type) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = device;
        int k;

        if (!d)
                return -EINVAL;
        k = endpoint_append(r, (RdmaEndpoint){ .local = local, .device = d, .gid_type = gid_type });
        if (k < 0)
                return k;
        TAKE_PTR(d);
        return 0;
}

int rdma_responder_add_lookup(
        RdmaResponder *r,
        struct in_addr local,
        const Host *host,
        const char *pci,
        int ifindex,
        RdmaGidType gid_type) {
        _cleanup_(freep) char *p = NULL;
        int k;

        if (!host || (!pci && ifindex <= 0))
                return -EINVAL;
        if (pci) {
                p = strdup(pci);
                if (!p)
                        return -ENOMEM;
        }
        k = endpoint_append(
                r,
                (RdmaEndpoint){
                        .local = local, .host = host, .pci = p, .ifindex = ifindex, .gid_type = gid_type });
        if (k < 0)
                return k;
        TAKE_PTR(p);
        return 0;
}

size_t rdma_responder_n_devices(const RdmaResponder *r) {
        return r->n_endpoints;
}

void rdma_responder_set_share(RdmaResponder *r, uint64_t usec) {
        (void) pthread_mutex_lock(&r->lock);
        r->share_usec = usec > 0 ? usec : RDMA_RESPONDER_SHARE_USEC;
        (void) pthread_mutex_unlock(&r->lock);
}

void rdma_responder_set_timeout(RdmaResponder *r, uint64_t usec) {
        (void) pthread_mutex_lock(&r->lock);
        r->timeout_usec = usec > 0 ? usec : RDMA_RESPONDER_TIMEOUT_USEC_DEFAULT;
        (void) pthread_mutex_unlock(&r->lock);
}

static void *session_run(void *userdata) {
        RdmaSession *s = userdata;

        s->result = rdma_qp_serve(s->qp, s->idle_usec, s->deadline_usec, &s->stop, &s->error);
        /* The queue pair goes at once: a finished session holds no pinned memory until the next
         * hello reaps it. */
        s->qp = rdma_qp_free(s->qp);
        s->device = rdma_device_free(s->device);
        atomic_store(&s->done, true);
        return NULL;
}

/* Sets up and starts a session for request on e. Returns the status for the reply. Lock held. */
static PeerRdmaStatus session_start(
        RdmaResponder *r,
        const RdmaEndpoint *e,
        struct in_addr source,
        bool from_halod,
        const PeerRdmaHello *request) {
        /* Declared first, freed last: the queue pair refers to it. */
        _cleanup_(rdma_device_freep) RdmaDevice *found = NULL;
        _cleanup_(rdma_qp_freep) RdmaQp *qp = NULL;
        _cleanup_(freep) RdmaSession *s = NULL;
        RdmaDevice *device = e->device;
        RdmaError error = {};
        RdmaGid gid;
        int k;

        if (!device) {
                if (rdma_device_find(e->host, e->pci, e->ifindex, &found) < 0) {
                        r->stats.no_device++;
                        return PEER_RDMA_NO_DEVICE;
                }
                device = found;
        }
        /* Afresh each time: the table moves when addresses come and go. */
        if (rdma_device_find_gid(device, e->gid_type, e->local, &gid) < 0) {
                r->stats.no_device++;
                return PEER_RDMA_NO_DEVICE;
        }

        s = calloc(1, sizeof(RdmaSession));
        if (!s) {
                (void) snprintf(r->last_error, sizeof(r->last_error), "Out of memory.");
                r->stats.failed++;
                return PEER_RDMA_FAILED;
        }
        if (rdma_qp_new(device, gid.index, RDMA_QP_EXPOSED_SIZE, /* expose= */ true, &error, &qp) < 0 ||
            rdma_qp_connect(qp, request, &error) < 0) {
                (void) snprintf(r->last_error, sizeof(r->last_error), "%s", error.message);
                r->stats.failed++;
                return PEER_RDMA_FAILED;
        }

        s->source = source;
        s->from_halod = from_halod;
        s->request = *request;
        rdma_qp_local(qp, &s->reply);
        s->idle_usec = r->timeout_usec;
        s->started_usec = now(CLOCK_MONOTONIC);
        s->deadline_usec = s->started_usec +
                (r->timeout_usec > RDMA_RESPONDER_SESSION_MAX_USEC ? r->timeout_usec
                                                                   : RDMA_RESPONDER_SESSION_MAX_USEC);
        s->qp = qp;
        s->device = found;
        k = pthread_create(&s->thread, NULL, session_run, s);
        if (k != 0) {
                (void) snprintf(
                        r->last_error, sizeof(r->last_error), "Cannot start the RDMA session: %s", strerror(k));
                r->stats.failed++;
                return PEER_RDMA_FAILED;
        }
        TAKE_PTR(qp); /* the thread's now, and found with it */
        TAKE_PTR(found);
        r->session = TAKE_PTR(s);
        r->stats.sessions++;
        return PEER_RDMA_OK;
}

static bool same_request(struct in_addr a, const PeerRdmaHello *ra, struct in_addr b, const PeerRdmaHello *rb) {
        return a.s_addr == b.s_addr && memcmp(ra, rb, sizeof(*ra)) == 0;
}

static bool is_waiter(const RdmaResponder *r, struct in_addr source, const PeerRdmaHello *request, uint64_t t) {
        return r->waiter.waiting && t - r->waiter.last_usec <= RDMA_RESPONDER_WAITER_USEC &&
                same_request(r->waiter.source, &r->waiter.request, source, request);
}

/* Whether a hello that is not the running session's may have the slot now; else it is told busy.
 * Notes the first prober told busy as the waiter. Lock held. */
static bool may_start(RdmaResponder *r, struct in_addr source, bool from_halod, const PeerRdmaHello *request) {
        uint64_t t = now(CLOCK_MONOTONIC);
        bool waiter;

        if (r->waiter.waiting && t - r->waiter.last_usec > RDMA_RESPONDER_WAITER_USEC)
                r->waiter.waiting = false; /* it stopped asking */
        waiter = is_waiter(r, source, request, t);
        if (waiter)
                r->waiter.last_usec = t;

        /* A peer's halod first, before any waiter; over anyone else's session once that has had two
         * shares (RDMA_RESPONDER_HALOD_SHARES), so that a haloctl probe on the peer is not cut off by its
         * own node's round, while no user there holds peer.<node>.rdma off for longer. */
        if (from_halod) {
                if (!r->session ||
                    (!r->session->from_halod &&
                     t - r->session->started_usec >= RDMA_RESPONDER_HALOD_SHARES * r->share_usec))
                        return true;
                r->halod_busy_usec = t;
                return false;
        }
        /* A waiting halod goes before the waiter. */
        if (r->halod_busy_usec > 0 && t - r->halod_busy_usec <= RDMA_RESPONDER_WAITER_USEC)
                return false;
        if (!r->session) {
                if (r->waiter.waiting && !waiter)
                        return false; /* the slot is kept for the prober that waited */
                r->waiter.waiting = false;
                return true;
        }
        if (!r->waiter.waiting) {
                r->waiter = (RdmaWaiter){
                        .waiting = true, .source = source, .request = *request, .last_usec = t
                };
                waiter = true;
        }
        /* The waiter's turn comes when the session has had its share. */
        if (!waiter || r->session->from_halod || t - r->session->started_usec < r->share_usec)
                return false;
        r->waiter.waiting = false;
        return true;
}

void rdma_responder_hello(
        void *userdata,
        struct in_addr local,
        struct in_addr source,
        bool from_halod,
        const PeerRdmaHello *request,
        PeerRdmaHello *reply) {
        RdmaResponder *r = userdata;
        const RdmaEndpoint *e = NULL;
        PeerRdmaStatus st;

        (void) pthread_mutex_lock(&r->lock);
        session_reap(r, /* stop= */ false);
        /* The prober asks again when our answer was lost: the same question, the same answer. */
        if (r->session && same_request(r->session->source, &r->session->request, source, request)) {
                *reply = r->session->reply;
                (void) pthread_mutex_unlock(&r->lock);
                return;
        }
        if (!may_start(r, source, from_halod, request)) {
                r->stats.busy++;
                *reply = (PeerRdmaHello){ .status = PEER_RDMA_BUSY };
                (void) pthread_mutex_unlock(&r->lock);
                return;
        }
        if (r->session) {
                r->stats.taken_over++;
                session_reap(r, /* stop= */ true);
        }

        for (size_t i = 0; i < r->n_endpoints && !e; i++)
                if (r->endpoints[i].local.s_addr == local.s_addr)
                        e = &r->endpoints[i];
        if (!e) {
                r->stats.no_device++;
                st = PEER_RDMA_NO_DEVICE;
        } else
                st = session_start(r, e, source, from_halod, request);
        *reply = st == PEER_RDMA_OK ? r->session->reply : (PeerRdmaHello){ .status = st };
        (void) pthread_mutex_unlock(&r->lock);
}

RdmaResponderStats rdma_responder_stats(RdmaResponder *r) {
        RdmaResponderStats st;

        (void) pthread_mutex_lock(&r->lock);
        session_reap(r, /* stop= */ false);
        st = r->stats;
        (void) pthread_mutex_unlock(&r->lock);
        return st;
}

bool rdma_responder_busy(RdmaResponder *r) {
        bool busy;

        (void) pthread_mutex_lock(&r->lock);
        session_reap(r, /* stop= */ false);
        busy = r->session != NULL;
        (void) pthread_mutex_unlock(&r->lock);
        return busy;
}

/* SPDX-License-Identifier: MIT */
/* The window of peers a round measures in full, moving by its own width each round. */
#include "peer/peer-schedule.h"
#include "basic/macro.h"

static bool measures_all(size_t n, size_t per_round) {
        return per_round == 0 || per_round >= n;
}

size_t peer_schedule_measure(size_t n, size_t per_round, uint64_t round, const bool *forced, bool *ret_measure) {
        size_t start, marked = 0;

        if (measures_all(n, per_round)) {
                for (size_t i = 0; i < n; i++)
                        ret_measure[i] = true;
                return n;
        }

        /* Consecutive windows tile the peers: any ceil(n / per_round) rounds in a row cover them all,
         * whatever round the count starts from, and a peer waits at most that long. */
        start = (size_t) ((round % n) * per_round % n);
        for (size_t i = 0; i < n; i++) {
                size_t offset = (i + n - start) % n;

                ret_measure[i] = offset < per_round || (forced && forced[i]);
                marked += ret_measure[i];
        }
        return marked;
}

uint64_t peer_schedule_cover_rounds(size_t n, size_t per_round) {
        if (n == 0 || measures_all(n, per_round))
                return 1;
        return (n + per_round - 1) / per_round;
}

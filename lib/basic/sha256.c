/* SPDX-License-Identifier: MIT */
/* SHA-256 as specified by FIPS 180-4, section 6.2: message schedule, 64 rounds, big-endian padding. */
#include <string.h>

#include "basic/sha256.h"

static const uint32_t round_constants[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) {
        return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t state[8], const uint8_t block[SHA256_BLOCK_SIZE]) {
        uint32_t w[64], a, b, c, d, e, f, g, h;

        for (unsigned i = 0; i < 16; i++)
                w[i] = (uint32_t) block[4 * i] << 24 | (uint32_t) block[4 * i + 1] << 16 |
                        (uint32_t) block[4 * i + 2] << 8 | (uint32_t) block[4 * i + 3];
        for (unsigned i = 16; i < 64; i++) {
                uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }

        a = state[0], b = state[1], c = state[2], d = state[3];
        e = state[4], f = state[5], g = state[6], h = state[7];
        for (unsigned i = 0; i < 64; i++) {
                uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                        round_constants[i] + w[i];
                uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
                h = g, g = f, f = e, e = d + t1;
                d = c, c = b, b = a, a = t1 + t2;
        }
        state[0] += a, state[1] += b, state[2] += c, state[3] += d;
        state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

void sha256_init(Sha256 *s) {
        *s = (Sha256){
                .state = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 },
        };
}

void sha256_update(Sha256 *s, const void *data, size_t size) {
        const uint8_t *p = data;

        s->length += size;
        while (size > 0) {
                size_t n = SHA256_BLOCK_SIZE - s->buffer_used;

                if (n > size)
                        n = size;
                memcpy(s->buffer + s->buffer_used, p, n);
                s->buffer_used += n;
                p += n;
                size -= n;
                if (s->buffer_used == SHA256_BLOCK_SIZE) {
                        compress(s->state, s->buffer);
                        s->buffer_used = 0;
                }
        }
}

void sha256_finish(Sha256 *s, uint8_t ret[SHA256_DIGEST_SIZE]) {
        uint64_t bits = s->length * 8;
        uint8_t pad[SHA256_BLOCK_SIZE + 8] = { 0x80 };
        size_t n;

        /* 0x80, zeros up to 56 mod 64, then the message length in bits, big-endian. */
        n = (s->buffer_used < 56 ? 56 : 120) - s->buffer_used;
        for (unsigned i = 0; i < 8; i++)
                pad[n + i] = (uint8_t) (bits >> (56 - 8 * i));
        sha256_update(s, pad, n + 8);

        for (unsigned i = 0; i < 8; i++) {
                ret[4 * i] = (uint8_t) (s->state[i] >> 24);
                ret[4 * i + 1] = (uint8_t) (s->state[i] >> 16);
                ret[4 * i + 2] = (uint8_t) (s->state[i] >> 8);
                ret[4 * i + 3] = (uint8_t) s->state[i];
        }
}

void sha256(const void *data, size_t size, uint8_t ret[SHA256_DIGEST_SIZE]) {
        Sha256 s;

        sha256_init(&s);
        sha256_update(&s, data, size);
        sha256_finish(&s, ret);
}

char *hex_encode(const uint8_t *data, size_t n, char *buf) {
        static const char digits[] = "0123456789abcdef";

        for (size_t i = 0; i < n; i++) {
                buf[2 * i] = digits[data[i] >> 4];
                buf[2 * i + 1] = digits[data[i] & 15];
        }
        buf[2 * n] = '\0';
        return buf;
}

/* SPDX-License-Identifier: MIT */
/* SHA-256 (FIPS 180-4): a small streaming implementation for digests of normalized profiles. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32U
#define SHA256_BLOCK_SIZE 64U
/* Lower-case hex plus the terminating NUL. */
#define SHA256_HEX_MAX (SHA256_DIGEST_SIZE * 2U + 1U)

typedef struct Sha256 {
        uint32_t state[8];
        uint64_t length; /* bytes hashed so far */
        uint8_t buffer[SHA256_BLOCK_SIZE];
        size_t buffer_used;
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t size);
/* Writes the digest; s must be initialized again before reuse. */
void sha256_finish(Sha256 *s, uint8_t ret[SHA256_DIGEST_SIZE]);

/* One-shot digest of a buffer. */
void sha256(const void *data, size_t size, uint8_t ret[SHA256_DIGEST_SIZE]);

/* Formats n bytes as lower-case hex into buf (at least 2n+1 bytes) and returns buf. */
char *hex_encode(const uint8_t *data, size_t n, char *buf);

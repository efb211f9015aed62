/* SPDX-License-Identifier: MIT */
/* SHA-256 against the FIPS 180-4 example vectors (NIST CSRC "SHA256.pdf", "SHA2_Additional.pdf"). */
#include "basic/macro.h"
#include "basic/sha256.h"
#include "tests.h"

static const struct {
        const char *message;
        size_t repeat;
        const char *digest;
} vectors[] = {
        { "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
        { "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
        { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
          1,
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
        { "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
          1,
          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
        { "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
        /* 55, 56 and 64 bytes: the padding boundaries. */
        { "a", 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
        { "a", 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
        { "a", 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
};

static void test_vectors(void) {
        for (size_t i = 0; i < ELEMENTSOF(vectors); i++) {
                uint8_t d[SHA256_DIGEST_SIZE];
                char hex[SHA256_HEX_MAX];
                Sha256 s;

                sha256_init(&s);
                for (size_t j = 0; j < vectors[i].repeat; j++)
                        sha256_update(&s, vectors[i].message, strlen(vectors[i].message));
                sha256_finish(&s, d);
                ASSERT_STR_EQ(hex_encode(d, sizeof(d), hex), vectors[i].digest);
        }
}

/* Feeding a message in uneven pieces gives the same digest as in one piece. */
static void test_streaming(void) {
        const char *m = vectors[3].message;
        size_t n = strlen(m);
        uint8_t one[SHA256_DIGEST_SIZE], pieces[SHA256_DIGEST_SIZE];

        sha256(m, n, one);
        for (size_t step = 1; step < 70; step += 3) {
                Sha256 s;

                sha256_init(&s);
                for (size_t off = 0; off < n; off += step)
                        sha256_update(&s, m + off, off + step <= n ? step : n - off);
                sha256_finish(&s, pieces);
                ASSERT_TRUE(memcmp(one, pieces, sizeof(one)) == 0);
        }
}

int main(void) {
        test_vectors();
        test_streaming();
        return 0;
}

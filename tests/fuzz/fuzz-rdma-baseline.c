/* SPDX-License-Identifier: MIT */
/* Fuzzes the RDMA baseline file's parser: no crash; a file that parses writes back as text that
 * parses to the same peers (the writer never writes what the parser refuses). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/rdma-baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(rdma_baseline_file_done) RdmaBaselineFile f = {}, g = {};
        _cleanup_(freep) char *s = NULL, *error = NULL, *text = NULL, *again = NULL;
        int r;

        if (size > RDMA_BASELINE_FILE_MAX)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;
        r = rdma_baseline_parse(s, &f, &error);
        if (r < 0) {
                if (r != -ENOMEM && (r != -EBADMSG && r != -EPROTONOSUPPORT))
                        abort();
                if (r != -ENOMEM && !error)
                        abort();
                return 0;
        }
        if (rdma_baseline_format(&f, &text) < 0)
                return 0;
        error = mfree(error);
        if (rdma_baseline_parse(text, &g, &error) < 0 || g.n_peers != f.n_peers)
                abort();
        if (rdma_baseline_format(&g, &again) < 0)
                return 0;
        if (!streq(text, again))
                abort();
        return 0;
}

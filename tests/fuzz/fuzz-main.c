/* SPDX-License-Identifier: MIT */
/* Replays fuzz inputs without libFuzzer: each argument is a file or a directory of files. Used to run
 * every corpus as an ordinary test in every build. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
        _cleanup_(freep) char *data = NULL;
        size_t size;
        int r;

        r = read_full_file(path, 64U * 1024U * 1024U, &data, &size);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(-r));
                return r;
        }
        (void) LLVMFuzzerTestOneInput((const uint8_t *) data, size);
        return 0;
}

static int replay(const char *path, unsigned *count) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct stat st;

        if (stat(path, &st) < 0) {
                fprintf(stderr, "%s: %m\n", path);
                return -errno;
        }
        if (!S_ISDIR(st.st_mode)) {
                (*count)++;
                return replay_file(path);
        }

        d = opendir(path);
        if (!d)
                return -errno;
        for (struct dirent *de; (de = readdir(d));) {
                _cleanup_(freep) char *p = NULL;
                int r;

                if (de->d_name[0] == '.')
                        continue;
                if (asprintf(&p, "%s/%s", path, de->d_name) < 0)
                        return -ENOMEM;
                r = replay(p, count);
                if (r < 0)
                        return r;
        }
        return 0;
}

int main(int argc, char *argv[]) {
        unsigned count = 0;

        for (int i = 1; i < argc; i++)
                if (replay(argv[i], &count) < 0)
                        return EXIT_FAILURE;
        printf("replayed %u inputs\n", count);
        return count > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

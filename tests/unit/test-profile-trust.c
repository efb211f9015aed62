/* SPDX-License-Identifier: MIT */
/* profile_check_trusted(): owners and modes of the profile, its directories and the symlinks on the
 * way, in a scratch tree. Cases that need another owner run as root only (as in CI). */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"
#include "profile/profile-trust.h"
#include "tests.h"

#define NOBODY 65534

static char base[] = "/tmp/halod-test-st-trust-XXXXXX";

static void make_dir(const char *rel, mode_t mode) {
        char p[512];

        (void) snprintf(p, sizeof(p), "%s/%s", base, rel);
        ASSERT_TRUE(mkdir(p, 0755) == 0);
        ASSERT_TRUE(chmod(p, mode) == 0);
}

static void make_file(const char *rel, mode_t mode, uid_t uid) {
        char p[512];
        int fd;

        (void) snprintf(p, sizeof(p), "%s/%s", base, rel);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(write(fd, "cluster: x\n", 11) == 11);
        close(fd);
        ASSERT_TRUE(chmod(p, mode) == 0);
        if (uid != (uid_t) -1)
                ASSERT_TRUE(chown(p, uid, (gid_t) -1) == 0);
}

static void make_link(const char *rel, const char *target, uid_t uid) {
        char p[512];

        (void) snprintf(p, sizeof(p), "%s/%s", base, rel);
        ASSERT_TRUE(symlink(target, p) == 0);
        if (uid != (uid_t) -1)
                ASSERT_TRUE(lchown(p, uid, (gid_t) -1) == 0);
}

/* Checks base/rel; want is 0, -EPERM or -ELOOP, and each of the NULL-terminated words must appear
 * in the error ("%B" stands for the base directory). */
static void expect(const char *rel, int want, const char *const *words) {
        _cleanup_(freep) char *error = NULL;
        char p[512];
        int r;

        (void) snprintf(p, sizeof(p), "%s/%s", base, rel);
        r = profile_check_trusted(p, &error);
        if (r != want)
                fprintf(stderr, "%s: got %d (%s), expected %d\n", rel, r, error ? error : "no message", want);
        ASSERT_INT_EQ(r, want);
        if (want == 0) {
                ASSERT_TRUE(!error);
                return;
        }
        ASSERT_TRUE(error);
        for (const char *const *w = words; w && *w; w++) {
                char word[1024] = "";

                /* Every "%B" stands for the base directory. */
                for (const char *c = *w; *c; c++)
                        if (c[0] == '%' && c[1] == 'B') {
                                strcat(word, base);
                                c++;
                        } else
                                strncat(word, c, 1);
                if (!strstr(error, word)) {
                        fprintf(stderr, "%s: error lacks \"%s\": %s\n", rel, word, error);
                        abort();
                }
        }
}

static void test_files(void) {
        make_file("good.yaml", 0644, (uid_t) -1);
        expect("good.yaml", 0, NULL);
        make_file("private.yaml", 0600, (uid_t) -1);
        expect("private.yaml", 0, NULL);
        make_file("group.yaml", 0664, (uid_t) -1);
        expect("group.yaml",
               -EPERM,
               (const char *const[]){ "%B/group.yaml: profile not trusted",
                                      "mode 0664",
                                      "its group",
                                      "chown root:root %B/group.yaml; chmod 644 %B/group.yaml",
                                      NULL });
        make_file("world.yaml", 0646, (uid_t) -1);
        expect("world.yaml", -EPERM, (const char *const[]){ "mode 0646", "anyone could change", NULL });
        /* Missing, or a directory: left to the reader, whose error says so. */
        expect("missing.yaml", 0, NULL);
        expect("missing-dir/halod.yaml", 0, NULL);
        make_dir("a-dir.yaml", 0755);
        expect("a-dir.yaml", 0, NULL);
        ASSERT_TRUE(mkfifo(strcat(strcpy((char[512]){}, base), "/fifo.yaml"), 0644) == 0);
        expect("fifo.yaml", -EPERM, (const char *const[]){ "not a regular file", NULL });
}

static void test_directories(void) {
        make_dir("open", 0777);
        make_file("open/halod.yaml", 0644, (uid_t) -1);
        expect("open/halod.yaml",
               -EPERM,
               (const char *const[]){ "%B/open: not trusted as a profile's directory",
                                      "mode 0777",
                                      "anyone",
                                      "chmod go-w %B/open",
                                      NULL });
        make_dir("groupdir", 0775);
        make_file("groupdir/halod.yaml", 0644, (uid_t) -1);
        expect("groupdir/halod.yaml", -EPERM, (const char *const[]){ "its group", NULL });
        /* Sticky, as /tmp: nobody but an entry's owner may replace it. */
        make_dir("sticky", 01777);
        make_file("sticky/halod.yaml", 0644, (uid_t) -1);
        expect("sticky/halod.yaml", 0, NULL);
        make_dir("sub", 0755);
        make_file("sub/halod.yaml", 0644, (uid_t) -1);
        expect("sub/../sub/./halod.yaml", 0, NULL);
}

static void test_symlinks(void) {
        make_link("link.yaml", "good.yaml", (uid_t) -1);
        expect("link.yaml", 0, NULL);
        /* The rule applies to the target, wherever it is. */
        make_link("link-group.yaml", "group.yaml", (uid_t) -1);
        expect("link-group.yaml", -EPERM, (const char *const[]){ "%B/group.yaml: profile not trusted", NULL });
        make_link("link-open.yaml", "open/halod.yaml", (uid_t) -1);
        expect("link-open.yaml", -EPERM, (const char *const[]){ "%B/open: not trusted", NULL });
        /* An absolute target and a directory symlink. */
        char target[512];
        (void) snprintf(target, sizeof(target), "%s/sub", base);
        make_link("subdir-link", target, (uid_t) -1);
        expect("subdir-link/halod.yaml", 0, NULL);
        make_link("loop-a", "loop-b", (uid_t) -1);
        make_link("loop-b", "loop-a", (uid_t) -1);
        expect("loop-a", -ELOOP, (const char *const[]){ "too many levels of symlinks", NULL });
}

static void test_owners(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "not root: the cases with another owner are left out\n");
                return;
        }
        make_file("nobody.yaml", 0644, NOBODY);
        expect("nobody.yaml",
               -EPERM,
               (const char *const[]){
                       "owned by", "uid 65534", "its owner", "chown root:root %B/nobody.yaml", NULL });
        make_dir("nobodys", 0755);
        ASSERT_TRUE(chown(strcat(strcpy((char[512]){}, base), "/nobodys"), NOBODY, (gid_t) -1) == 0);
        make_file("nobodys/halod.yaml", 0644, (uid_t) -1);
        expect("nobodys/halod.yaml",
               -EPERM,
               (const char *const[]){
                       "%B/nobodys: not trusted", "uid 65534", "chown root:root %B/nobodys", NULL });
        /* A symlink that someone else owns could be pointed anywhere, even in a sticky directory. */
        make_link("sticky/theirs.yaml", "../good.yaml", NOBODY);
        expect("sticky/theirs.yaml",
               -EPERM,
               (const char *const[]){ "%B/sticky/theirs.yaml: symlink", "chown -h root:root", NULL });
}

int main(void) {
        char cmd[600];

        ASSERT_TRUE(mkdtemp(base));
        ASSERT_TRUE(chmod(base, 0755) == 0);
        test_files();
        test_directories();
        test_symlinks();
        test_owners();
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        ASSERT_INT_EQ(system(cmd), 0);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* profile_open_trusted(): owners and modes of the profile, its directories and the symlinks on the
 * way, in a scratch tree; the descriptor it returns is the file that was judged, whatever happens to
 * the path afterwards; a missing profile, a FIFO, a file someone else put into a sticky directory and
 * a path longer than PATH_MAX are refused. Cases that need another owner run as root only (as in CI). */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "profile/profile-trust.h"
#include "tests.h"

#define NOBODY 65534
#define CONTENT "cluster: x\n"

static char base[] = "/tmp/halod-test-st-trust-XXXXXX";

/* base/rel, in a buffer that the next call reuses. */
static const char *at(const char *rel) {
        static char p[512];

        (void) snprintf(p, sizeof(p), "%s/%s", base, rel);
        return p;
}

static void make_dir(const char *rel, mode_t mode) {
        ASSERT_TRUE(mkdir(at(rel), 0755) == 0);
        ASSERT_TRUE(chmod(at(rel), mode) == 0);
}

static void write_file(const char *path, const char *content, mode_t mode, uid_t uid) {
        int fd;

        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(write(fd, content, strlen(content)) == (ssize_t) strlen(content));
        close(fd);
        ASSERT_TRUE(chmod(path, mode) == 0);
        if (uid != (uid_t) -1)
                ASSERT_TRUE(chown(path, uid, (gid_t) -1) == 0);
}

static void make_file(const char *rel, mode_t mode, uid_t uid) {
        write_file(at(rel), CONTENT, mode, uid);
}

static void make_link(const char *rel, const char *target, uid_t uid) {
        ASSERT_TRUE(symlink(target, at(rel)) == 0);
        if (uid != (uid_t) -1)
                ASSERT_TRUE(lchown(at(rel), uid, (gid_t) -1) == 0);
}

/* The descriptor is a regular file, open for reading, that holds CONTENT. */
static void assert_profile_fd(int fd) {
        _cleanup_(freep) char *data = NULL;
        struct stat st;

        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
        ASSERT_TRUE((fcntl(fd, F_GETFD) & FD_CLOEXEC) && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
        ASSERT_OK(read_full_fd(fd, 4096, &data, NULL));
        ASSERT_STR_EQ(data, CONTENT);
}

/* Every NULL-terminated word must appear in error ("%B" stands for the base directory). */
static void assert_words(const char *what, const char *error, const char *const *words) {
        for (const char *const *w = words; w && *w; w++) {
                char word[1024] = "";

                for (const char *c = *w; *c; c++)
                        if (c[0] == '%' && c[1] == 'B') {
                                strcat(word, base);
                                c++;
                        } else
                                strncat(word, c, 1);
                if (!strstr(error, word)) {
                        fprintf(stderr, "%s: error lacks \"%s\": %s\n", what, word, error);
                        abort();
                }
        }
}

/* Opens path; want is 0 or a negative errno, and each of words must appear in the error. */
static void expect_path(const char *path, int want, const char *const *words) {
        _cleanup_(freep) char *error = NULL;
        _cleanup_(closep) int fd = -EBADF;
        int r;

        r = profile_open_trusted(path, &fd, &error);
        if (r != want)
                fprintf(stderr, "%s: got %d (%s), expected %d\n", path, r, error ? error : "no message", want);
        ASSERT_INT_EQ(r, want);
        if (want == 0) {
                ASSERT_TRUE(!error);
                assert_profile_fd(fd);
                return;
        }
        ASSERT_TRUE(fd < 0);
        ASSERT_TRUE(error);
        assert_words(path, error, words);
}

static void expect(const char *rel, int want, const char *const *words) {
        char p[512];

        (void) snprintf(p, sizeof(p), "%s/%s", base, rel);
        expect_path(p, want, words);
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
        /* Missing, or a directory: an error that says so, never "trusted". */
        expect("missing.yaml",
               -ENOENT,
               (const char *const[]){ "%B/missing.yaml: cannot read the profile: No such file", NULL });
        expect("missing-dir/halod.yaml",
               -ENOENT,
               (const char *const[]){ "cannot read the profile: %B/missing-dir: No such file", NULL });
        make_dir("a-dir.yaml", 0755);
        expect("a-dir.yaml", -EISDIR, (const char *const[]){ "Is a directory", NULL });
        expect("good.yaml/", -ENOTDIR, (const char *const[]){ "Not a directory", NULL });
        expect_path("", -EINVAL, (const char *const[]){ "No profile path given", NULL });
}

/* A FIFO must be refused at once: opening it for reading the ordinary way waits for a writer. */
static void test_fifo(void) {
        int status;
        pid_t pid;

        ASSERT_TRUE(mkfifo(at("fifo.yaml"), 0644) == 0);
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                /* Nobody ever writes: a call that blocks is ended by the alarm, and the test fails. */
                alarm(10);
                expect("fifo.yaml", -EPERM, (const char *const[]){ "not a regular file", NULL });
                _exit(0);
        }
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
                fprintf(stderr, "profile_open_trusted() blocked on a FIFO for 10 s\n");
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
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
        /* Every directory the path enters is judged, also one it leaves again by "..". */
        expect("open/../good.yaml", -EPERM, (const char *const[]){ "%B/open: not trusted", NULL });
        expect("sub/../open/halod.yaml", -EPERM, (const char *const[]){ "%B/open: not trusted", NULL });
}

static void test_symlinks(void) {
        make_link("link.yaml", "good.yaml", (uid_t) -1);
        expect("link.yaml", 0, NULL);
        /* The rule applies to the target, wherever it is. */
        make_link("link-group.yaml", "group.yaml", (uid_t) -1);
        expect("link-group.yaml", -EPERM, (const char *const[]){ "%B/group.yaml: profile not trusted", NULL });
        make_link("link-open.yaml", "open/halod.yaml", (uid_t) -1);
        expect("link-open.yaml", -EPERM, (const char *const[]){ "%B/open: not trusted", NULL });
        make_link("link-missing.yaml", "missing.yaml", (uid_t) -1);
        expect("link-missing.yaml", -ENOENT, (const char *const[]){ "%B/missing.yaml: No such file", NULL });
        make_link("link-fifo.yaml", "fifo.yaml", (uid_t) -1);
        expect("link-fifo.yaml", -EPERM, (const char *const[]){ "%B/fifo.yaml: not a regular file", NULL });
        /* An absolute target and a directory symlink. */
        char target[512];
        (void) snprintf(target, sizeof(target), "%s/sub", base);
        make_link("subdir-link", target, (uid_t) -1);
        expect("subdir-link/halod.yaml", 0, NULL);
        make_link("loop-a", "loop-b", (uid_t) -1);
        make_link("loop-b", "loop-a", (uid_t) -1);
        expect("loop-a", -ELOOP, (const char *const[]){ "too many levels of symlinks", NULL });
}

/* What is read is what was judged: replacing or removing the file after it was opened changes
 * nothing for the descriptor in hand. */
static void test_descriptor_is_the_file_judged(void) {
        _cleanup_(freep) char *error = NULL;
        _cleanup_(closep) int fd = -EBADF;
        _cleanup_(freep) char *data = NULL;
        char new_path[512];

        make_file("swap.yaml", 0644, (uid_t) -1);
        ASSERT_OK(profile_open_trusted(at("swap.yaml"), &fd, &error));
        write_file(at("swap.yaml.new"), "cluster: pwned\n", 0666, (uid_t) -1);
        (void) snprintf(new_path, sizeof(new_path), "%s", at("swap.yaml.new"));
        ASSERT_TRUE(rename(new_path, at("swap.yaml")) == 0);
        ASSERT_OK(read_full_fd(fd, 4096, &data, NULL));
        ASSERT_STR_EQ(data, CONTENT);
        /* And the path, as it is now, is refused. */
        expect("swap.yaml", -EPERM, (const char *const[]){ "mode 0666", NULL });
}

/* A path longer than PATH_MAX from the current directory: every directory on it is still judged.
 * (Judging by the path alone cannot even name the last of them.) */
static void test_long_path(void) {
        char name[201];
        int cwd_fd;

        cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        ASSERT_TRUE(cwd_fd >= 0);
        memset(name, 'd', sizeof(name) - 1);
        name[sizeof(name) - 1] = '\0';
        ASSERT_TRUE(chdir(base) == 0);
        for (unsigned i = 0; i < PATH_MAX / (sizeof(name) - 1) + 2; i++) {
                ASSERT_TRUE(mkdir(name, 0755) == 0);
                ASSERT_TRUE(chdir(name) == 0);
        }
        ASSERT_TRUE(mkdir("deep-open", 0755) == 0);
        ASSERT_TRUE(chmod("deep-open", 0777) == 0);
        write_file("deep-open/halod.yaml", CONTENT, 0644, (uid_t) -1);
        write_file("deep-good.yaml", CONTENT, 0644, (uid_t) -1);

        expect_path("deep-open/halod.yaml", -EPERM, (const char *const[]){ "/deep-open: not trusted", NULL });
        expect_path("deep-good.yaml", 0, NULL);
        ASSERT_TRUE(fchdir(cwd_fd) == 0);
        close(cwd_fd);
}

/* A file that someone else put into a sticky directory (as /tmp) is refused, whether the rules were
 * met when the walk started or not: it is judged as opened. */
static void test_sticky_foreign_file(void) {
        int status;
        pid_t pid;

        /* Made by that user, as an attacker would: a child that drops to uid nobody. */
        make_dir("sticky2", 01777);
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                if (setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0)
                        _exit(2);
                write_file(at("sticky2/halod.yaml"), "cluster: pwned\n", 0644, (uid_t) -1);
                _exit(0);
        }
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        expect("sticky2/halod.yaml",
               -EPERM,
               (const char *const[]){
                       "%B/sticky2/halod.yaml: profile not trusted", "uid 65534", "its owner", NULL });
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
        ASSERT_TRUE(chown(at("nobodys"), NOBODY, (gid_t) -1) == 0);
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
        test_sticky_foreign_file();
}

int main(void) {
        char cmd[600];

        ASSERT_TRUE(mkdtemp(base));
        ASSERT_TRUE(chmod(base, 0755) == 0);
        test_files();
        test_fifo();
        test_directories();
        test_symlinks();
        test_descriptor_is_the_file_judged();
        test_long_path();
        test_owners();
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        ASSERT_INT_EQ(system(cmd), 0);
        return 0;
}

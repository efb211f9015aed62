/* SPDX-License-Identifier: MIT */
/* The files halod owns, on real files in a scratch directory: the marker, a write that changes nothing
 * the second time, the refusal to replace a file that is not halod's (or a symlink, or another part's),
 * the list by part, the removal, and the rollback that puts back what was there (or nothing). */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/owned-file.h"
#include "basic/strv.h"
#include "tests.h"

static char *path_in(const char *dir, const char *name) {
        char *p = NULL;

        ASSERT_TRUE(asprintf(&p, "%s/%s", dir, name) > 0);
        return p;
}

static void assert_file(const char *path, const char *want, mode_t mode) {
        _cleanup_(freep) char *text = NULL;
        struct stat st;

        ASSERT_OK(read_full_file(path, 1 << 20, &text, NULL));
        ASSERT_STR_EQ(text, want);
        ASSERT_OK(stat(path, &st));
        ASSERT_INT_EQ(st.st_mode & 07777, mode);
}

static void test_marker(void) {
        _cleanup_(freep) char *part = NULL;

        ASSERT_INT_EQ(owned_file_text_part(OWNED_FILE_MARKER "boot\nGRUB_CMDLINE_LINUX=x\n", &part), 1);
        ASSERT_STR_EQ(part, "boot");
        ASSERT_INT_EQ(owned_file_text_part(OWNED_FILE_MARKER "limits\n", NULL), 1);
        /* Not on the first line, no part, a part that is not a name, no end of line: not halod's. */
        ASSERT_INT_EQ(owned_file_text_part("\n" OWNED_FILE_MARKER "boot\n", NULL), 0);
        ASSERT_INT_EQ(owned_file_text_part(OWNED_FILE_MARKER "\n", NULL), 0);
        ASSERT_INT_EQ(owned_file_text_part(OWNED_FILE_MARKER "Boot Loader\n", &part), 0);
        ASSERT_INT_EQ(owned_file_text_part(OWNED_FILE_MARKER "boot", NULL), 0);
        ASSERT_INT_EQ(owned_file_text_part("# Written by hand\n", NULL), 0);

        ASSERT_TRUE(owned_file_part_is_valid("nic-settings"));
        ASSERT_TRUE(!owned_file_part_is_valid(""));
        ASSERT_TRUE(!owned_file_part_is_valid("../boot"));
        ASSERT_TRUE(!owned_file_part_is_valid("a-part-name-that-is-longer-than-32"));
}

static void test_write_remove(const char *dir) {
        _cleanup_(freep) char *d = path_in(dir, "grub.d"), *ours = NULL, *theirs = NULL, *link = NULL,
                              *part = NULL, *body = NULL, *none = NULL, *limits = NULL, *missing = NULL;
        _cleanup_(strv_freep) char **l = NULL;
        static const char theirs_text[] = "GRUB_CMDLINE_LINUX_DEFAULT=\"console=ttyS0\"\n";

        ours = path_in(d, "99-halod.cfg");
        theirs = path_in(d, "50-cloudimg-settings.cfg");
        link = path_in(d, "98-link.cfg");
        none = path_in(d, "none");
        limits = path_in(d, "10-halod-limits.conf");
        missing = path_in(dir, "missing");

        /* The directory is created; the file is written once, then left alone. */
        ASSERT_INT_EQ(owned_file_write(ours, "boot", "GRUB_CMDLINE_LINUX=\"a\"\n", 0644), 1);
        assert_file(ours, OWNED_FILE_MARKER "boot\nGRUB_CMDLINE_LINUX=\"a\"\n", 0644);
        ASSERT_INT_EQ(owned_file_write(ours, "boot", "GRUB_CMDLINE_LINUX=\"a\"\n", 0644), 0);
        ASSERT_INT_EQ(owned_file_write(ours, "boot", "GRUB_CMDLINE_LINUX=\"a\"\n", 0600), 1);
        assert_file(ours, OWNED_FILE_MARKER "boot\nGRUB_CMDLINE_LINUX=\"a\"\n", 0600);
        ASSERT_INT_EQ(owned_file_write(ours, "boot", "GRUB_CMDLINE_LINUX=\"b\"\n", 0644), 1);
        ASSERT_INT_EQ(owned_file_read(ours, &part, &body), 1);
        ASSERT_STR_EQ(part, "boot");
        ASSERT_STR_EQ(body, "GRUB_CMDLINE_LINUX=\"b\"\n");

        /* Another part's file, a file that is not halod's, a symlink: refused, untouched. */
        ASSERT_INT_EQ(owned_file_write(ours, "limits", "x\n", 0644), -EEXIST);
        ASSERT_INT_EQ(owned_file_remove(ours, "limits"), -EEXIST);
        ASSERT_OK(write_file_atomic(theirs, theirs_text, strlen(theirs_text), 0644));
        ASSERT_INT_EQ(owned_file_write(theirs, "boot", "x\n", 0644), -EEXIST);
        ASSERT_INT_EQ(owned_file_read(theirs, NULL, NULL), 0);
        assert_file(theirs, theirs_text, 0644);
        ASSERT_OK(symlink(ours, link));
        ASSERT_INT_EQ(owned_file_write(link, "boot", "x\n", 0644), -EEXIST);
        ASSERT_INT_EQ(owned_file_remove(link, NULL), -EEXIST);
        ASSERT_INT_EQ(owned_file_remove(theirs, NULL), -EEXIST);
        assert_file(theirs, theirs_text, 0644);
        ASSERT_INT_EQ(owned_file_read(none, NULL, NULL), -ENOENT);

        /* The list holds halod's files of the part asked for, and nothing else. */
        ASSERT_INT_EQ(owned_file_write(limits, "limits", "y\n", 0644), 1);
        ASSERT_OK(owned_file_list(d, "boot", &l));
        ASSERT_INT_EQ(strv_length(l), 1);
        ASSERT_STR_EQ(l[0], ours);
        l = strv_free(l);
        ASSERT_OK(owned_file_list(d, NULL, &l));
        ASSERT_INT_EQ(strv_length(l), 2);
        ASSERT_TRUE(strstr(l[0], "/10-halod-limits.conf"));
        ASSERT_STR_EQ(l[1], ours);
        l = strv_free(l);
        ASSERT_OK(owned_file_list(missing, NULL, &l));
        ASSERT_TRUE(!l);

        ASSERT_INT_EQ(owned_file_remove(ours, "boot"), 1);
        ASSERT_INT_EQ(access(ours, F_OK) < 0, 1);
        ASSERT_INT_EQ(owned_file_remove(ours, "boot"), 0);
        assert_file(theirs, theirs_text, 0644);
}

static void test_rollback(const char *dir) {
        _cleanup_(owned_file_rollback_freep) OwnedFileRollback *rb = NULL, *unused = NULL;
        _cleanup_(freep) char *existing = path_in(dir, "cmdline"), *created = path_in(dir, "new.conf");
        static const char before[] = "root=UUID=1 quiet\n";

        ASSERT_OK(write_file_atomic(existing, before, strlen(before), 0640));
        ASSERT_OK(owned_file_rollback_save(&rb, existing));
        ASSERT_OK(owned_file_rollback_save(&rb, created));
        ASSERT_OK(write_file_atomic(existing, "changed\n", 8, 0644));
        /* A second save of a path keeps the first: the rollback goes back to before the apply. */
        ASSERT_OK(owned_file_rollback_save(&rb, existing));
        ASSERT_INT_EQ(owned_file_write(created, "boot", "z\n", 0644), 1);

        ASSERT_OK(owned_file_rollback(rb));
        assert_file(existing, before, 0640);
        ASSERT_INT_EQ(access(created, F_OK) < 0, 1);

        /* One not run touches nothing when freed. */
        ASSERT_OK(owned_file_rollback_save(&unused, existing));
        ASSERT_OK(write_file_atomic(existing, "kept\n", 5, 0644));
        unused = owned_file_rollback_free(unused);
        assert_file(existing, "kept\n", 0644);
}

int main(void) {
        char dir[] = "/tmp/test-owned-file.XXXXXX";
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(mkdtemp(dir));
        test_marker();
        test_write_remove(dir);
        test_rollback(dir);
        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
        return 0;
}

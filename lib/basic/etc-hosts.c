/* SPDX-License-Identifier: MIT */
/* /etc/hosts as text: the addresses it gives a name, and halod's marked block of the other nodes' names. */
#include <arpa/inet.h>
#include <stdio.h>
#include <strings.h>

#include "basic/etc-hosts.h"
#include "basic/macro.h"
#include "basic/strv.h"

#define WHITESPACE " \t\r"

/* The length of the line at p, without its newline. */
static size_t line_length(const char *p) {
        return strcspn(p, "\n");
}

static const char *next_line(const char *p) {
        p += line_length(p);
        return *p == '\n' ? p + 1 : NULL;
}

static bool is_begin(const char *p, size_t n) {
        return n >= strlen(ETC_HOSTS_BLOCK_BEGIN) &&
                strncmp(p, ETC_HOSTS_BLOCK_BEGIN, strlen(ETC_HOSTS_BLOCK_BEGIN)) == 0;
}

static bool is_end(const char *p, size_t n) {
        /* A trailing '\r' or blank, left by an editor, still ends the block. */
        while (n > 0 && strchr(WHITESPACE, p[n - 1]))
                n--;
        return n == strlen(ETC_HOSTS_BLOCK_END) && strncmp(p, ETC_HOSTS_BLOCK_END, n) == 0;
}

static bool addresses_contain(const struct in_addr *a, size_t n, struct in_addr x) {
        for (size_t i = 0; i < n; i++)
                if (a[i].s_addr == x.s_addr)
                        return true;
        return false;
}

/* Whether the line at p (length n) gives name an IPv4 address, and which: glibc's files module reads
 * '#' as the start of a comment, the first field as the address, the others as names without regard
 * to case. Returns 1 and *ret_address, 0, or -ENOMEM. */
static int line_gives(const char *p, size_t n, const char *name, struct in_addr *ret_address) {
        _cleanup_(freep) char *line = strndup(p, n);
        char *save = NULL, *field, *hash;
        struct in_addr a;

        if (!line)
                return -ENOMEM;
        hash = strchr(line, '#');
        if (hash)
                *hash = '\0';
        field = strtok_r(line, WHITESPACE, &save);
        if (!field || inet_pton(AF_INET, field, &a) != 1)
                return 0;
        while ((field = strtok_r(NULL, WHITESPACE, &save)))
                if (strcasecmp(field, name) == 0) {
                        *ret_address = a;
                        return 1;
                }
        return 0;
}

int etc_hosts_lookup(const char *text, const char *name, struct in_addr **ret, size_t *ret_n) {
        _cleanup_(freep) struct in_addr *found = NULL;
        size_t n_found = 0;

        for (const char *p = text; p && *p; p = next_line(p)) {
                struct in_addr a, *b;
                int r;

                r = line_gives(p, line_length(p), name, &a);
                if (r < 0)
                        return r;
                if (r == 0 || addresses_contain(found, n_found, a))
                        continue;
                b = reallocarray(found, n_found + 1, sizeof(struct in_addr));
                if (!b)
                        return -ENOMEM;
                found = b;
                found[n_found++] = a;
        }
        *ret = TAKE_PTR(found);
        *ret_n = n_found;
        return 0;
}

int etc_hosts_find_line(
        const char *text, const char *name, struct in_addr address, unsigned *ret_number, char **ret_line) {
        unsigned number = 0;

        for (const char *p = text; p && *p; p = next_line(p)) {
                struct in_addr a;
                int r;

                number++;
                r = line_gives(p, line_length(p), name, &a);
                if (r < 0)
                        return r;
                if (r == 0 || a.s_addr != address.s_addr)
                        continue;
                *ret_line = strndup(p, line_length(p));
                if (!*ret_line)
                        return -ENOMEM;
                *ret_number = number;
                return 1;
        }
        *ret_number = 0;
        *ret_line = NULL;
        return 0;
}

/* Where the block starts (the BEGIN line) and ends (after the END line and its newline); both NULL when
 * there is none. */
static int find_block(const char *text, const char **ret_begin, const char **ret_end) {
        const char *begin = NULL;

        for (const char *p = text; p && *p; p = next_line(p)) {
                size_t n = line_length(p);

                if (!begin) {
                        if (is_begin(p, n))
                                begin = p;
                        continue;
                }
                if (is_end(p, n)) {
                        *ret_begin = begin;
                        *ret_end = p[n] == '\n' ? p + n + 1 : p + n;
                        return 1;
                }
        }
        if (begin)
                return -EBADMSG;
        *ret_begin = *ret_end = NULL;
        return 0;
}

int etc_hosts_block_lines(const char *text, char ***ret) {
        _cleanup_(strv_freep) char **l = NULL;
        const char *begin, *end;
        int r;

        r = find_block(text, &begin, &end);
        if (r <= 0) {
                if (r == 0)
                        *ret = NULL;
                return r;
        }
        /* Empty, not NULL: a block with no lines is still a block. */
        l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (const char *p = next_line(begin); p && p < end; p = next_line(p)) {
                size_t n = line_length(p);

                if (is_end(p, n))
                        break;
                if (strv_consume(&l, strndup(p, n)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static bool isempty_lines(char *const *lines) {
        return !lines || !lines[0];
}

int etc_hosts_replace_block(const char *text, const char *cluster, char *const *lines, char **ret) {
        _cleanup_(freep) char *buf = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        const char *begin, *end;
        size_t size = 0;
        int r;

        r = find_block(text, &begin, &end);
        if (r < 0)
                return r;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        if (r == 0) {
                begin = end = text + strlen(text);
                /* Appended after a last line without a newline, the marker would join it. */
                (void) fputs(text, f);
                if (!isempty_lines(lines) && begin > text && begin[-1] != '\n')
                        (void) fputc('\n', f);
        } else
                (void) fwrite(text, 1, (size_t) (begin - text), f);
        if (!isempty_lines(lines)) {
                (void) fprintf(
                        f,
                        ETC_HOSTS_BLOCK_BEGIN " (cluster %s): the fabric names of the other nodes\n",
                        cluster);
                for (char *const *l = lines; *l; l++)
                        (void) fprintf(f, "%s\n", *l);
                (void) fputs(ETC_HOSTS_BLOCK_END "\n", f);
        }
        (void) fputs(end, f);
        if (fflush(f) != 0 || ferror(f))
                return -ENOMEM;
        if (fclose(TAKE_PTR(f)) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

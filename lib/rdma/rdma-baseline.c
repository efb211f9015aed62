/* SPDX-License-Identifier: MIT */
/* The RDMA baseline file's text: a "format 1" line, then per peer a [NODE baseline] and a [NODE last]
 * section of "key value" lines (halod(8), FILES). Strict: a line that is not exactly that is an error
 * that names it, since a file that says something else was not written by haloctl. */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "basic/errorf.h"
#include "rdma/rdma-baseline.h"

#define LINE_MAX_LENGTH 512U

typedef enum FieldType {
        FIELD_U64,
        FIELD_UINT,
        FIELD_NAME, /* one word: printable, no space, no ']' */
        FIELD_TEXT, /* printable, spaces included; may be empty */
} FieldType;

typedef struct Field {
        const char *key;
        FieldType type;
        size_t offset;
        size_t size;
} Field;

#define M(member) offsetof(RdmaMeasurement, member), sizeof(((RdmaMeasurement *) NULL)->member)

/* In the order the writer puts them. */
static const Field fields[] = {
        { "taken-usec", FIELD_U64, M(taken_usec) },
        { "link", FIELD_NAME, M(link) },
        { "device", FIELD_NAME, M(device) },
        { "path-mtu", FIELD_UINT, M(path_mtu) },
        { "pings", FIELD_UINT, M(pings) },
        { "rtt-median-nsec", FIELD_U64, M(rtt_median_nsec) },
        { "rtt-p99-nsec", FIELD_U64, M(rtt_p99_nsec) },
        { "write-bytes", FIELD_U64, M(write_bytes) },
        { "write-nsec", FIELD_U64, M(write_nsec) },
        { "firmware", FIELD_TEXT, M(state.firmware) },
        { "pcie-speed-mts", FIELD_UINT, M(state.pcie_speed_mts) },
        { "pcie-width", FIELD_UINT, M(state.pcie_width) },
        { "mtu", FIELD_UINT, M(state.mtu) },
        { "port-mbit", FIELD_UINT, M(state.port_mbit) },
};

#define ALL_FIELDS ((1U << ELEMENTSOF(fields)) - 1U)

static const char *const rdma_baseline_record_table[_RDMA_BASELINE_RECORD_MAX] = {
        [RDMA_BASELINE_NEW] = "new",
        [RDMA_BASELINE_RETAKEN] = "retaken",
        [RDMA_BASELINE_REPLACED] = "replaced",
        [RDMA_BASELINE_KEPT] = "kept",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(rdma_baseline_record, RdmaBaselineRecord);

void rdma_baseline_file_done(RdmaBaselineFile *f) {
        if (!f)
                return;
        f->peers = mfree(f->peers);
        f->n_peers = 0;
}

RdmaBaselineFile *rdma_baseline_file_free(RdmaBaselineFile *f) {
        rdma_baseline_file_done(f);
        free(f);
        return NULL;
}

static bool name_char(char c) {
        return c > ' ' && c < 0x7f && c != ']';
}

static bool text_char(char c) {
        return c >= ' ' && c < 0x7f;
}

static bool valid_name(const char *s, size_t n) {
        if (n == 0 || n >= RDMA_BASELINE_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!name_char(s[i]))
                        return false;
        return true;
}

static int parse_u64(const char *s, uint64_t *ret) {
        uint64_t v = 0;

        if (!*s)
                return -EINVAL;
        for (; *s; s++) {
                if (!isdigit((unsigned char) *s) || v > (UINT64_MAX - 9U) / 10U)
                        return -EINVAL;
                v = v * 10U + (uint64_t) (*s - '0');
        }
        *ret = v;
        return 0;
}

static const Field *field_find(const char *key, size_t n, unsigned *ret_index) {
        for (unsigned i = 0; i < ELEMENTSOF(fields); i++)
                if (strlen(fields[i].key) == n && strncmp(fields[i].key, key, n) == 0) {
                        *ret_index = i;
                        return &fields[i];
                }
        return NULL;
}

/* Stores value into m's field, or says what is wrong with it. */
static int field_set(const Field *f, const char *value, RdmaMeasurement *m, const char **ret_why) {
        char *dst = (char *) m + f->offset;
        uint64_t v;

        switch (f->type) {
        case FIELD_U64:
        case FIELD_UINT:
                if (parse_u64(value, &v) < 0 || (f->type == FIELD_UINT && v > UINT32_MAX)) {
                        *ret_why = f->type == FIELD_UINT ? "expected a decimal number below 2^32"
                                                         : "expected a decimal number";
                        return -EBADMSG;
                }
                if (f->type == FIELD_U64)
                        *(uint64_t *) (void *) dst = v;
                else
                        *(unsigned *) (void *) dst = (unsigned) v;
                return 0;
        case FIELD_NAME:
                if (!valid_name(value, strlen(value))) {
                        *ret_why = "expected one word of printable characters";
                        return -EBADMSG;
                }
                break;
        case FIELD_TEXT:
                if (strlen(value) >= f->size) {
                        *ret_why = "too long";
                        return -EBADMSG;
                }
                for (const char *c = value; *c; c++)
                        if (!text_char(*c)) {
                                *ret_why = "expected printable characters";
                                return -EBADMSG;
                        }
                break;
        }
        if (strlen(value) >= f->size) {
                *ret_why = "too long";
                return -EBADMSG;
        }
        strcpy(dst, value);
        return 0;
}

/* Where the parser stands: the section it fills and what of it has been seen. */
typedef struct Parser {
        RdmaBaselineFile *file;
        unsigned line;
        bool format_seen;
        RdmaMeasurement *section; /* NULL before the first section header */
        unsigned section_line;
        unsigned seen; /* bit i: fields[i] given in this section */
        char section_name[RDMA_BASELINE_NAME_MAX + 16];
} Parser;

static int section_end(Parser *p, char **ret_error) {
        if (!p->section || p->seen == ALL_FIELDS)
                return 0;
        for (unsigned i = 0; i < ELEMENTSOF(fields); i++)
                if (!(p->seen & (1U << i)))
                        return errorf(
                                ret_error,
                                -EBADMSG,
                                "line %u: section [%s] has no '%s' line",
                                p->section_line,
                                p->section_name,
                                fields[i].key);
        return 0;
}

static RdmaBaselinePeer *peer_get(RdmaBaselineFile *f, const char *node, size_t n) {
        RdmaBaselinePeer *peers;

        for (size_t i = 0; i < f->n_peers; i++)
                if (strlen(f->peers[i].node) == n && strncmp(f->peers[i].node, node, n) == 0)
                        return &f->peers[i];
        peers = reallocarray(f->peers, f->n_peers + 1, sizeof(RdmaBaselinePeer));
        if (!peers)
                return NULL;
        f->peers = peers;
        peers[f->n_peers] = (RdmaBaselinePeer){};
        memcpy(peers[f->n_peers].node, node, n);
        return &peers[f->n_peers++];
}

/* "[NODE baseline]" or "[NODE last]". */
static int parse_section(Parser *p, const char *line, size_t n, char **ret_error) {
        const char *space = memchr(line, ' ', n);
        const char *kind = space ? space + 1 : NULL;
        size_t kind_n = kind ? (size_t) (line + n - 1 - kind) : 0;
        RdmaBaselinePeer *peer;
        bool baseline;
        int r;

        r = section_end(p, ret_error);
        if (r < 0)
                return r;
        if (line[n - 1] != ']' || !space || !valid_name(line + 1, (size_t) (space - line - 1)) ||
            !((kind_n == 8 && strncmp(kind, "baseline", 8) == 0) ||
              (kind_n == 4 && strncmp(kind, "last", 4) == 0)))
                return errorf(
                        ret_error,
                        -EBADMSG,
                        "line %u: expected a section header '[NODE baseline]' or '[NODE last]', got '%.*s'",
                        p->line,
                        (int) n,
                        line);
        baseline = kind_n == 8;
        peer = peer_get(p->file, line + 1, (size_t) (space - line - 1));
        if (!peer)
                return -ENOMEM;
        p->section = baseline ? &peer->baseline : &peer->last;
        /* Every section has a link line (section_end() saw to it): one that has it was given before. */
        if (p->section->link[0])
                return errorf(
                        ret_error,
                        -EBADMSG,
                        "line %u: section [%.*s] appears twice",
                        p->line,
                        (int) (n - 2),
                        line + 1);
        p->section_line = p->line;
        p->seen = 0;
        (void) snprintf(p->section_name, sizeof(p->section_name), "%.*s", (int) (n - 2), line + 1);
        return 0;
}

static int parse_key_value(Parser *p, const char *line, size_t n, char **ret_error) {
        const char *space = memchr(line, ' ', n), *why = NULL;
        size_t key_n = space ? (size_t) (space - line) : n;
        char value[LINE_MAX_LENGTH + 1];
        const Field *f;
        unsigned index;

        if (!p->section)
                return errorf(
                        ret_error,
                        -EBADMSG,
                        "line %u: '%.*s' before any section header '[NODE baseline]'",
                        p->line,
                        (int) n,
                        line);
        f = field_find(line, key_n, &index);
        if (!f)
                return errorf(ret_error, -EBADMSG, "line %u: unknown key '%.*s'", p->line, (int) key_n, line);
        if (p->seen & (1U << index))
                return errorf(
                        ret_error, -EBADMSG, "line %u: '%s' given twice in [%s]", p->line, f->key, p->section_name);
        (void) snprintf(
                value, sizeof(value), "%.*s", space ? (int) (n - key_n - 1) : 0, space ? space + 1 : "");
        if (field_set(f, value, p->section, &why) < 0)
                return errorf(ret_error, -EBADMSG, "line %u: %s: %s, got '%s'", p->line, f->key, why, value);
        p->seen |= 1U << index;
        return 0;
}

static int parse_line(Parser *p, const char *line, size_t n, char **ret_error) {
        uint64_t format;
        char number[32];

        if (n == 0 || line[0] == '#')
                return 0;
        if (memchr(line, '\0', n) || n > LINE_MAX_LENGTH)
                return errorf(ret_error, -EBADMSG, "line %u: not a line of text", p->line);
        if (!p->format_seen) {
                if (n < 8 || n - 7 >= sizeof(number) || strncmp(line, "format ", 7) != 0)
                        return errorf(
                                ret_error,
                                -EBADMSG,
                                "line %u: expected 'format %u' first, got '%.*s'",
                                p->line,
                                RDMA_BASELINE_FORMAT,
                                (int) n,
                                line);
                (void) snprintf(number, sizeof(number), "%.*s", (int) (n - 7), line + 7);
                if (parse_u64(number, &format) < 0)
                        return errorf(
                                ret_error,
                                -EBADMSG,
                                "line %u: format: expected a number, got '%s'",
                                p->line,
                                number);
                if (format != RDMA_BASELINE_FORMAT)
                        return errorf(
                                ret_error,
                                -EPROTONOSUPPORT,
                                "line %u: format %" PRIu64
                                " is not known to this halod, which writes format %u",
                                p->line,
                                format,
                                RDMA_BASELINE_FORMAT);
                p->format_seen = true;
                return 0;
        }
        if (line[0] == '[')
                return parse_section(p, line, n, ret_error);
        return parse_key_value(p, line, n, ret_error);
}

static int parse_end(Parser *p, char **ret_error) {
        int r;

        if (!p->format_seen)
                return errorf(ret_error, -EBADMSG, "empty: no 'format %u' line", RDMA_BASELINE_FORMAT);
        r = section_end(p, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->file->n_peers; i++) {
                const RdmaBaselinePeer *peer = &p->file->peers[i];

                if (!peer->baseline.link[0] || !peer->last.link[0])
                        return errorf(
                                ret_error,
                                -EBADMSG,
                                "node %s has no [%s %s] section",
                                peer->node,
                                peer->node,
                                peer->baseline.link[0] ? "last" : "baseline");
        }
        return 0;
}

int rdma_baseline_parse(const char *text, RdmaBaselineFile *ret, char **ret_error) {
        _cleanup_(rdma_baseline_file_done) RdmaBaselineFile f = {};
        Parser p = { .file = &f };
        int r;

        if (ret_error)
                *ret_error = NULL;
        for (const char *line = text; *line;) {
                const char *end = strchr(line, '\n');
                size_t n = end ? (size_t) (end - line) : strlen(line);

                p.line++;
                r = parse_line(&p, line, n, ret_error);
                if (r < 0)
                        return r;
                line += n + (end ? 1 : 0);
        }
        r = parse_end(&p, ret_error);
        if (r < 0)
                return r;
        *ret = f;
        f = (RdmaBaselineFile){};
        return 0;
}

/* A field's value as the file holds it: text that cannot be one of its values is made safe (a NIC's
 * firmware string is the driver's, not ours). */
static void format_field(FILE *out, const Field *f, const RdmaMeasurement *m) {
        const char *src = (const char *) m + f->offset;

        fputs(f->key, out);
        switch (f->type) {
        case FIELD_U64:
                fprintf(out, " %" PRIu64 "\n", *(const uint64_t *) (const void *) src);
                return;
        case FIELD_UINT:
                fprintf(out, " %u\n", *(const unsigned *) (const void *) src);
                return;
        case FIELD_NAME:
        case FIELD_TEXT:
                fputc(' ', out);
                for (size_t i = 0; i < f->size && src[i]; i++)
                        fputc((f->type == FIELD_NAME ? name_char(src[i]) : text_char(src[i])) ? src[i] : '?',
                              out);
                if (f->type == FIELD_NAME && !src[0])
                        fputc('-', out);
                fputc('\n', out);
                return;
        }
}

static void format_section(FILE *out, const char *node, const char *kind, const RdmaMeasurement *m) {
        fputs("\n[", out);
        /* The profile's node names are letters, digits, '_' and '-': this only keeps the file parsing. */
        for (const char *c = node; *c; c++)
                fputc(name_char(*c) ? *c : '?', out);
        fprintf(out, " %s]\n", kind);
        for (size_t i = 0; i < ELEMENTSOF(fields); i++)
                format_field(out, &fields[i], m);
}

int rdma_baseline_format(const RdmaBaselineFile *f, char **ret) {
        _cleanup_(fclosep) FILE *out = NULL;
        char *buf = NULL;
        size_t size = 0;

        out = open_memstream(&buf, &size);
        if (!out)
                return -ENOMEM;
        fprintf(out,
                "# halod: the RDMA probe's baseline and latest measurement per peer, written by\n"
                "# 'haloctl probe' as root. See halod(8), FILES.\n"
                "format %u\n",
                RDMA_BASELINE_FORMAT);
        for (size_t i = 0; i < f->n_peers; i++) {
                format_section(out, f->peers[i].node, "baseline", &f->peers[i].baseline);
                format_section(out, f->peers[i].node, "last", &f->peers[i].last);
        }
        if (fflush(out) != 0 || ferror(out)) {
                (void) fclose(TAKE_PTR(out));
                free(buf);
                return -ENOMEM;
        }
        (void) fclose(TAKE_PTR(out));
        *ret = buf;
        return 0;
}

const RdmaBaselinePeer *rdma_baseline_find(const RdmaBaselineFile *f, const char *node) {
        for (size_t i = 0; f && i < f->n_peers; i++)
                if (streq(f->peers[i].node, node))
                        return &f->peers[i];
        return NULL;
}

double rdma_measurement_gbit(const RdmaMeasurement *m) {
        return m->write_nsec > 0 ? (double) m->write_bytes * 8.0 / (double) m->write_nsec : 0.0;
}

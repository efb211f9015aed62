/* SPDX-License-Identifier: MIT */
/* Inside lib/profile: the YAML tree with positions, the error collector and the value parsers. */
#pragma once

#include <stdarg.h>

#include "profile/profile.h"

/* Further caps, so that a 1 MiB profile cannot ask for quadratic work (documented in halod.yaml(5)). */
#define PROFILE_LINKS_MAX 64U
#define PROFILE_NODES_MAX 1024U
#define PROFILE_LIST_MAX 256U
/* A key path, with every user-given segment shortened, always fits. */
#define KEY_PATH_MAX 512U
/* User text quoted inside a message is escaped and shortened to this many bytes. */
#define MESSAGE_TEXT_MAX 80U

typedef enum YNodeType {
        YNODE_SCALAR,
        YNODE_MAPPING,
        YNODE_SEQUENCE,
        YNODE_INVALID, /* an alias or a rejected node: already reported, skipped silently */
        _YNODE_TYPE_MAX,
        _YNODE_TYPE_INVALID = -EINVAL,
} YNodeType;

typedef struct YNode {
        YNodeType type;
        bool quoted;     /* scalar written quoted, as a block, or tagged !!str: a string, never a number */
        bool skip;       /* a repeated key (reported): its pair is ignored */
        unsigned line;   /* 1-based */
        unsigned column; /* 1-based, in characters */
        char *scalar;    /* NUL-terminated, no embedded NUL */
        struct YNode *children; /* mapping: key, value, key, value, …; sequence: items */
        size_t n_children;
} YNode;

void ynode_done(YNode *n);
bool ynode_is_null(const YNode *n) _pure_;
/* The value for key in a mapping (first occurrence), or NULL. */
const YNode *ynode_map_get(const YNode *map, const char *key) _pure_;
size_t ynode_map_size(const YNode *map) _pure_;

typedef struct ProfileError {
        unsigned line, column;
        size_t seq; /* order of discovery, so sorting by position is stable */
        char *text; /* "key.path: message", or just "message" for the whole file */
} ProfileError;

typedef struct ProfileErrors {
        char *display_path;
        ProfileError *items; /* the PROFILE_ERRORS_MAX earliest, a max-heap by position until sorted */
        size_t n_items;
        size_t n_seen;
        bool overflow; /* more than PROFILE_ERRORS_MAX errors were found */
        bool oom;
        bool fatal; /* the YAML could not be read to the end: do not validate the partial tree */
} ProfileErrors;

int profile_errors_init(ProfileErrors *e, const char *display_path);
void profile_errors_done(ProfileErrors *e);
void profile_errors_add(
        ProfileErrors *e, unsigned line, unsigned column, const char *key_path, const char *format, ...)
        _printf_(5, 6);
void profile_errors_addv(
        ProfileErrors *e, unsigned line, unsigned column, const char *key_path, const char *format, va_list ap)
        _printf_(5, 0);
/* False when an error at this position would be dropped (PROFILE_ERRORS_MAX earlier ones are kept):
 * lets callers skip costly messages. Counts the error as found. */
bool profile_errors_would_keep(ProfileErrors *e, unsigned line, unsigned column);
/* Sorts by position and formats "FILE:LINE:COL: …" lines, capped at PROFILE_ERRORS_MAX. */
int profile_errors_to_strv(ProfileErrors *e, char ***ret);

/* Escapes control characters and shortens s for quoting in a one-line message. buf holds
 * MESSAGE_TEXT_MAX + 8 bytes. */
#define MESSAGE_TEXT_BUF (MESSAGE_TEXT_MAX + 8U)
const char *text_for_message(const char *s, char *buf);
/* Appends a path segment: ".key" (or "key" at the top) or "[index]". */
void key_path_append(char *path, const char *segment);
void key_path_append_index(char *path, size_t index);
/* dst = parent + "." + child; returns dst. */
char *key_path_join(char *dst, const char *parent, const char *child);

/* libyaml events → YNode tree, enforcing the caps and the YAML subset (no anchors, aliases, odd tags,
 * repeated keys, second documents). Problems go to e; returns -ENOMEM only. *ret_root is
 * YNODE_INVALID when there is no document. */
int yaml_parse_tree(const char *data, size_t size, ProfileErrors *e, YNode *ret_root);

/* YNode tree → Profile, every problem into e (in any order; they are sorted later). Returns -ENOMEM
 * only. */
int profile_build(const YNode *root, ProfileErrors *e, Profile *p);
/* The checks that span nodes: repeated addresses and hostnames, one subnet per link. */
int profile_build_nodes(const YNode *nodes, const YNode *links, ProfileErrors *e, Profile *p);
void link_match_done(LinkMatch *m);

/* Value syntax, shared by the builder and the tests. All return 0 or -EINVAL/-ERANGE. */
bool cluster_name_is_valid(const char *s) _pure_;
bool link_name_is_valid(const char *s) _pure_;
bool node_name_is_valid(const char *s) _pure_;
bool zone_name_is_valid(const char *s) _pure_;
bool driver_name_is_valid(const char *s) _pure_;
bool hostname_is_valid(const char *s) _pure_;
bool ifname_glob_is_valid(const char *s) _pure_;
bool firmware_version_is_valid(const char *s) _pure_;
bool kernel_parameter_is_valid(const char *s) _pure_;
int parse_uint64(const char *s, uint64_t *ret);
int parse_duration_usec(const char *s, uint64_t *ret);
int parse_size_bytes(const char *s, uint64_t *ret);
/* A speed in Gbit/s, "100" or "100G": -EINVAL for anything else, -ERANGE outside 1 to
 * PROFILE_NIC_SPEED_MIN_GBIT_MAX. */
int parse_speed_gbit(const char *s, unsigned *ret);
/* Normalized into buf: "0000:c2:00.0" (13 bytes + NUL) and "6c:fe:54:12:34:56" (17 + NUL). */
int pci_address_normalize(const char *s, char buf[static 16]);
int mac_address_normalize(const char *s, char buf[static 18]);
int pci_id_from_string(const char *s, PciId *ret);
/* "60s", "5m", "1h30m", "500ms". buf holds 32 bytes. */
const char *format_duration(uint64_t usec, char buf[static 32]);

/* Typed reads of YNodes. Each reports what is wrong (at the node, under key_path) and returns false;
 * a YNODE_INVALID node was reported already and returns false silently. "expected" completes the
 * message's "(expected …)". */
_printf_(4, 5) void profile_error_at(
        ProfileErrors *e, const YNode *n, const char *key_path, const char *format, ...);
/* "a mapping", "no value", "'abc'", "the quoted string \"9000\"": what the profile gave instead. */
#define DESCRIBE_BUF (MESSAGE_TEXT_BUF + 32U)
bool ynode_require_sequence(ProfileErrors *e, const YNode *n, const char *key_path, const char *expected);
bool ynode_require_mapping(ProfileErrors *e, const YNode *n, const char *key_path, const char *expected);
bool ynode_get_string(
        ProfileErrors *e, const YNode *n, const char *key_path, const char *expected, const char **ret);
bool ynode_get_uint(
        ProfileErrors *e,
        const YNode *n,
        const char *key_path,
        uint64_t min,
        uint64_t max,
        const char *expected,
        uint64_t *ret);
bool ynode_get_bool(ProfileErrors *e, const YNode *n, const char *key_path, bool *ret);
/* One of names (NULL-terminated); a near miss gets a "did you mean". Returns the index or -1. */
int ynode_get_choice(
        ProfileErrors *e, const YNode *n, const char *key_path, const char *const *names, const char *expected);
/* Reports every key of map not in known (NULL-terminated), with a suggestion when one is close. */
void ynode_check_keys(ProfileErrors *e, const YNode *map, const char *key_path, const char *const *known);
/* True when an unknown key of map looks like a typo of key: the "did you mean" error then says it
 * all, and "key is missing" would only repeat it. */
bool ynode_key_misspelt(const YNode *map, const char *key, const char *const *known);
/* A nic: mapping (the profile's, key_path "nic", or a node's) into nic. Returns -ENOMEM only. */
int profile_build_nic(ProfileErrors *e, const YNode *n, const char *key_path, ProfileNic *nic);
/* A link's qos: mapping into q (profile_qos_init()ed), with the rules that tie its parts together.
 * Returns -ENOMEM only. */
int profile_build_qos(ProfileErrors *e, const YNode *n, const char *key_path, ProfileQos *q);
/* The gpu: section into gpu, and the top-level memory-min:. */
void profile_build_gpu(ProfileErrors *e, const YNode *n, ProfileGpu *gpu);
/* Values valid one by one that no host can satisfy together (profile-validate-reachable.c). */
void profile_check_reachable(ProfileErrors *e, const YNode *root, const Profile *p);
void profile_build_memory_min(ProfileErrors *e, const YNode *n, Profile *p);
/* A node's routes: sequence into node->routes (node->links read before: each route is tied to one
 * of them) and its forwarding:. Returns -ENOMEM only. */
int profile_build_routes(ProfileErrors *e, const YNode *node_map, const char *node_path, ProfileNode *node);
/* A "match:" mapping into m (strings normalized). Returns -ENOMEM only. */
int profile_build_match(ProfileErrors *e, const YNode *n, const char *key_path, LinkMatch *m);

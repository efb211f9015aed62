/* SPDX-License-Identifier: MIT */
/* The syntax of the profile's values: names, numbers, durations, sizes, PCI and MAC addresses. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>

#include "basic/time-util.h"
#include "profile/profile-internal.h"

static bool chars_in_set(const char *s, size_t min, size_t max, const char *extra, bool upper) {
        size_t n = strlen(s);

        if (n < min || n > max)
                return false;
        for (const char *c = s; *c; c++) {
                if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))
                        continue;
                if (upper && *c >= 'A' && *c <= 'Z')
                        continue;
                if (!strchr(extra, *c))
                        return false;
        }
        return true;
}

bool cluster_name_is_valid(const char *s) {
        return chars_in_set(s, 1, 63, "._-", true);
}

bool link_name_is_valid(const char *s) {
        return chars_in_set(s, 1, 15, "_-", false);
}

bool node_name_is_valid(const char *s) {
        return chars_in_set(s, 1, 63, "_-", true);
}

bool zone_name_is_valid(const char *s) {
        return chars_in_set(s, 1, 63, "_-", true);
}

bool driver_name_is_valid(const char *s) {
        return chars_in_set(s, 1, 31, "._-", true);
}

bool hostname_is_valid(const char *s) {
        size_t label = 0, n = strlen(s);

        if (n < 1 || n > 253)
                return false;
        for (size_t i = 0; i <= n; i++) {
                if (i == n || s[i] == '.') {
                        /* Labels are 1..63 characters and do not begin or end with '-'. */
                        if (label == 0 || label > 63 || s[i - 1] == '-' || s[i - label] == '-')
                                return false;
                        label = 0;
                } else if (isalnum((unsigned char) s[i]) || s[i] == '-')
                        label++;
                else
                        return false;
        }
        return true;
}

bool ifname_glob_is_valid(const char *s) {
        size_t n = strlen(s);

        /* IFNAMSIZ is 16 with the NUL; the kernel forbids '/', ':' and whitespace in names. */
        if (n < 1 || n > 15)
                return false;
        for (const char *c = s; *c; c++)
                if (*c <= ' ' || *c >= 0x7f || *c == '/' || *c == ':')
                        return false;
        return true;
}

bool firmware_version_is_valid(const char *s) {
        return chars_in_set(s, 1, 63, "._+-", true) && strpbrk(s, "0123456789");
}

bool kernel_parameter_is_valid(const char *s) {
        const char *eq = strchr(s, '=');
        size_t name_len = eq ? (size_t) (eq - s) : strlen(s);

        if (name_len == 0)
                return false;
        for (size_t i = 0; i < name_len; i++)
                if (!isalnum((unsigned char) s[i]) && !strchr("._-", s[i]))
                        return false;
        if (!eq)
                return true;

        eq++;
        /* A value with spaces must be one double-quoted word, as the kernel splits it. */
        if (eq[0] == '"') {
                size_t l = strlen(eq);

                if (l < 2 || eq[l - 1] != '"')
                        return false;
                for (size_t i = 1; i < l - 1; i++)
                        if (eq[i] == '"' || eq[i] < ' ' || eq[i] >= 0x7f)
                                return false;
                return true;
        }
        for (const char *c = eq; *c; c++)
                if (*c <= ' ' || *c >= 0x7f || *c == '"')
                        return false;
        return true;
}

int parse_uint64(const char *s, uint64_t *ret) {
        uint64_t v = 0;

        if (!s || !isdigit((unsigned char) s[0]))
                return -EINVAL;
        /* "09000" would be octal to some YAML readers: refuse the ambiguity. */
        if (s[0] == '0' && s[1] != '\0')
                return -EINVAL;
        for (const char *c = s; *c; c++) {
                if (!isdigit((unsigned char) *c))
                        return -EINVAL;
                if (v > (UINT64_MAX - (uint64_t) (*c - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*c - '0');
        }
        *ret = v;
        return 0;
}

/* Reads the leading decimal number of s; *end points after it. */
static int parse_leading_number(const char *s, uint64_t *ret, const char **end) {
        uint64_t v = 0;
        const char *c = s;

        if (!isdigit((unsigned char) *c))
                return -EINVAL;
        for (; isdigit((unsigned char) *c); c++) {
                if (v > (UINT64_MAX - (uint64_t) (*c - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*c - '0');
        }
        *ret = v;
        *end = c;
        return 0;
}

int parse_duration_usec(const char *s, uint64_t *ret) {
        static const struct {
                const char *suffix;
                uint64_t usec;
        } units[] = {
                /* "ms" before "m". */
                { "ms", USEC_PER_MSEC },
                { "s", USEC_PER_SEC },
                { "m", USEC_PER_MINUTE },
                { "h", USEC_PER_HOUR },
        };
        uint64_t total = 0;
        const char *c = s;

        if (isempty(s))
                return -EINVAL;
        while (*c) {
                const char *end;
                uint64_t v;
                size_t i;
                int r;

                r = parse_leading_number(c, &v, &end);
                if (r < 0)
                        return r;
                for (i = 0; i < ELEMENTSOF(units); i++)
                        if (startswith(end, units[i].suffix))
                                break;
                if (i >= ELEMENTSOF(units))
                        return -EINVAL;
                if (v > (UINT64_MAX - total) / units[i].usec)
                        return -ERANGE;
                total += v * units[i].usec;
                c = end + strlen(units[i].suffix);
        }
        *ret = total;
        return 0;
}

int parse_size_bytes(const char *s, uint64_t *ret) {
        const char *end;
        uint64_t v, factor = 1;
        int r;

        if (isempty(s))
                return -EINVAL;
        r = parse_leading_number(s, &v, &end);
        if (r < 0)
                return r;
        if (s[0] == '0' && end - s > 1)
                return -EINVAL;
        switch (*end) {
        case '\0':
                break;
        case 'k':
        case 'K':
                factor = 1ULL << 10;
                break;
        case 'M':
                factor = 1ULL << 20;
                break;
        case 'G':
                factor = 1ULL << 30;
                break;
        case 'T':
                factor = 1ULL << 40;
                break;
        default:
                return -EINVAL;
        }
        if (*end != '\0' && end[1] != '\0')
                return -EINVAL;
        if (v > UINT64_MAX / factor)
                return -ERANGE;
        *ret = v * factor;
        return 0;
}

int parse_speed_gbit(const char *s, unsigned *ret) {
        size_t n = strlen(s);
        uint64_t v = 0;

        if (n > 0 && s[n - 1] == 'G')
                n--;
        /* "0100" is refused as parse_uint64() refuses it. */
        if (n == 0 || (s[0] == '0' && n > 1))
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (!isdigit((unsigned char) s[i]))
                        return -EINVAL;
                /* Past the maximum the value only has to stay out of range, not exact. */
                if (v <= PROFILE_NIC_SPEED_MIN_GBIT_MAX)
                        v = v * 10 + (uint64_t) (s[i] - '0');
        }
        if (v < 1 || v > PROFILE_NIC_SPEED_MIN_GBIT_MAX)
                return -ERANGE;
        *ret = (unsigned) v;
        return 0;
}

/* Reads exactly n hex digits. */
static int hex_n(const char *s, size_t n, unsigned *ret) {
        unsigned v = 0;

        for (size_t i = 0; i < n; i++) {
                if (!isxdigit((unsigned char) s[i]))
                        return -EINVAL;
                v = v * 16 +
                        (unsigned) (isdigit((unsigned char) s[i]) ? s[i] - '0' : tolower((unsigned char) s[i]) - 'a' + 10);
        }
        *ret = v;
        return 0;
}

int pci_address_normalize(const char *s, char buf[static 16]) {
        unsigned domain = 0, bus, device, function;
        size_t n = strlen(s);

        if (n == 12) {
                if (hex_n(s, 4, &domain) < 0 || s[4] != ':')
                        return -EINVAL;
                s += 5;
        } else if (n != 7)
                return -EINVAL;
        if (hex_n(s, 2, &bus) < 0 || s[2] != ':' || hex_n(s + 3, 2, &device) < 0 || s[5] != '.' ||
            hex_n(s + 6, 1, &function) < 0)
                return -EINVAL;
        if (device > 0x1f || function > 7)
                return -ERANGE;
        (void) snprintf(buf, 16, "%04x:%02x:%02x.%x", domain, bus, device, function);
        return 0;
}

int mac_address_normalize(const char *s, char buf[static 18]) {
        unsigned octets[6];

        if (strlen(s) != 17)
                return -EINVAL;
        for (size_t i = 0; i < 6; i++) {
                if (hex_n(s + i * 3, 2, &octets[i]) < 0)
                        return -EINVAL;
                /* One separator throughout: ':' or '-'. */
                if (i < 5 && s[i * 3 + 2] != s[2])
                        return -EINVAL;
        }
        if (s[2] != ':' && s[2] != '-')
                return -EINVAL;
        (void) snprintf(
                buf,
                18,
                "%02x:%02x:%02x:%02x:%02x:%02x",
                octets[0],
                octets[1],
                octets[2],
                octets[3],
                octets[4],
                octets[5]);
        return 0;
}

int pci_id_from_string(const char *s, PciId *ret) {
        unsigned vendor, device;

        if (strlen(s) != 9 || hex_n(s, 4, &vendor) < 0 || s[4] != ':' || hex_n(s + 5, 4, &device) < 0)
                return -EINVAL;
        *ret = (PciId){ .vendor = (uint16_t) vendor, .device = (uint16_t) device };
        return 0;
}

const char *format_duration(uint64_t usec, char buf[static 32]) {
        static const struct {
                const char *suffix;
                uint64_t usec;
        } units[] = {
                { "h", USEC_PER_HOUR },
                { "m", USEC_PER_MINUTE },
                { "s", USEC_PER_SEC },
                { "ms", USEC_PER_MSEC },
        };
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(units) && n < 32; i++) {
                uint64_t v = usec / units[i].usec;

                if (v == 0)
                        continue;
                n += (size_t) snprintf(buf + n, 32 - n, "%" PRIu64 "%s", v, units[i].suffix);
                usec %= units[i].usec;
        }
        if (n == 0)
                (void) snprintf(buf, 32, "0s");
        return buf;
}

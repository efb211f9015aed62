/* SPDX-License-Identifier: MIT */
/* Version comparison and the parsing of NIC firmware strings (ethtool's fw_version). */
#pragma once

#include <stdbool.h>

#include "basic/macro.h"

/* Compares two version strings component by component.
 *
 * A version is a sequence of numeric and alphabetic runs; anything else ('.', '-', '_', '+') only
 * separates them. Numeric runs compare as numbers of any length (leading zeros ignored, no overflow),
 * alphabetic runs compare as strings, and a numeric run is newer than an alphabetic one. When one
 * version runs out, the rest of the other decides: trailing numeric zeros change nothing
 * ("4.91" == "4.91.0"), anything else makes it newer.
 *
 * This is deliberately NOT a decimal fraction comparison: "4.9" < "4.10" < "4.91". Intel's ice
 * driver prints the E810 NVM version as "%x.%02x", so its minor always has two digits ("4.09",
 * "4.90", "4.91"); a firmware-min written the way `ethtool -i` prints it compares correctly. A
 * one-digit minor such as "4.9" is ambiguous for E810 and is flagged by version_minor_digits().
 *
 * Returns <0, 0 or >0 like strcmp(). NULL sorts before everything. */
int version_compare(const char *a, const char *b) _pure_;

/* True for a plausible version: 1..64 characters, starting with a digit, only [0-9A-Za-z.+_~-]. */
bool version_is_valid(const char *s) _pure_;

/* The number of digits of the second numeric component ("4.91" → 2, "4.9" → 1, "16" → 0). */
unsigned version_minor_digits(const char *s) _pure_;

/* What a NIC firmware string says. Every field is NULL when the string does not carry it. */
typedef struct FirmwareVersion {
        char *version; /* "4.91" (E810 NVM), "16.35.2000" (mlx5); never NULL after parsing */
        char *eetrack; /* "0x800214b5": E810's EETRACK id of the NVM image */
        char *combo;   /* "1.3909.0": E810's combo image (option ROM) version */
        char *psid;    /* "MT_0000000012": mlx5's board id */
} FirmwareVersion;

/* Parses strings such as E810's "4.91 0x800214b5 1.3909.0" or "3.10" and mlx5's
 * "16.35.2000 (MT_0000000012)". Returns -ENODATA for an empty string (a driver that reports no
 * firmware, such as veth), -EBADMSG when no version can be found, -ENOMEM. */
int firmware_version_parse(const char *s, FirmwareVersion *ret);
void firmware_version_done(FirmwareVersion *v);

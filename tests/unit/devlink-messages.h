/* SPDX-License-Identifier: MIT */
/* devlink reply messages as the kernel builds them (net/devlink/dev.c, net/devlink/param.c), made with
 * libmnl from linux/devlink.h for the tests and the fuzzer's seed corpus: an E810 (ice) with its DDP
 * package loaded, in Safe Mode and with a stored NVM waiting for activation, a ConnectX-5 (mlx5), and
 * parameter replies. */
#pragma once

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

#include "nic/devlink.h"

#define DEVLINK_MESSAGE_MAX 8192U

typedef struct TestVersion {
        DevlinkVersionType type;
        const char *name;
        const char *value;
} TestVersion;

typedef struct TestInfo {
        const char *name; /* the seed file's name */
        const char *driver, *serial, *board_serial;
        const TestVersion *versions;
        size_t n_versions;
} TestInfo;

typedef struct TestParamValue {
        enum devlink_param_cmode cmode;
        uint64_t number; /* bool: 0 leaves the data attribute out, as the kernel does */
        const char *string;
} TestParamValue;

typedef struct TestParam {
        const char *name; /* the seed file's name */
        const char *param;
        bool generic;
        uint8_t type;
        const TestParamValue *values;
        size_t n_values;
} TestParam;

/* The reference infos and parameters, by the names the tests use. */
extern const TestInfo test_info_e810, test_info_e810_safe_mode, test_info_e810_no_app,
        test_info_e810_pending, test_info_cx5, test_info_cx5_pending, test_info_e810_old_nvm;
extern const TestParam test_param_ice_roce_on, test_param_mlx5_roce_off, test_param_mlx5_max_macs,
        test_param_mlx5_steering, test_param_u16, test_param_u64;

/* Builds the reply in buf (DEVLINK_MESSAGE_MAX bytes, zeroed first) for pci/0000:c2:00.0 and returns
 * its header. */
struct nlmsghdr *test_build_info(void *buf, const TestInfo *info);
struct nlmsghdr *test_build_param(void *buf, const TestParam *param);

/* Every message above, for the corpus: name and builder. */
typedef struct TestMessage {
        const char *name;
        const TestInfo *info;
        const TestParam *param;
} TestMessage;
extern const TestMessage test_messages[];
extern const size_t test_n_messages;

/* SPDX-License-Identifier: MIT */
/* Loading only the rdma-core provider that this machine's RDMA devices need, before libibverbs'
 * first device list: when every device finds its provider already registered, libibverbs does not
 * load the others (rdma-core's libibverbs/init.c, ibverbs_get_device_list()). */
#pragma once

/* The provider's name ("mlx5", "irdma", "rxe", ...) for the kernel driver of an RDMA device's parent
 * device (basename of /sys/class/infiniband/DEV/device/driver), or for a software device over a
 * netdev (no parent device: sysfs has a "parent" file) by its node_type ("1: CA" soft-RoCE, "4: RNIC"
 * soft-iWARP: software is then "rxe" or "siw"). NULL when unknown. */
const char *verbs_provider_for_driver(const char *driver);
const char *verbs_provider_for_software(const char *node_type);

/* The providers the devices of sysfs_root/class/infiniband need, each once, into ret[max]: their
 * number; -ENOENT when a device's provider is not known here, -E2BIG when more than max differ, or
 * the error of reading the directory. */
int verbs_providers_wanted(const char *sysfs_root, const char **ret, size_t max);

/* Once per process, after libibverbs is loaded and before its first ibv_get_device_list(): dlopen()s
 * the provider of each device in /sys/class/infiniband from the directory beside libibverbs
 * (libibverbs/lib<name>-rdmav<N>.so, where libibverbs looks itself). Does nothing when a device's
 * provider is unknown or cannot be loaded: libibverbs then loads every provider, as without this.
 * Returns the number of providers loaded (0 when it did nothing, and always with the test double). */
int verbs_provider_preload(void);

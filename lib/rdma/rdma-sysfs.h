/* SPDX-License-Identifier: MIT */
/* The RDMA device of a netdev as sysfs shows it, without libibverbs (so that the plan and apply can
 * find it below any host root): /sys/class/infiniband/DEV/device is the device it sits on, and
 * ports/N/gid_attrs/ndevs/I names the netdev of port N's GID entry I. And the port's
 * hw_counters (ConnectX: np_cnp_sent, rp_cnp_handled, out_of_sequence, ...); and the uverbs character
 * device through which a process (or a container) reaches the RDMA device. */
#pragma once

#include <stdint.h>

#include "basic/host.h"
#include "rdma/rdma-hw-counters.h"

/* The device and port with a GID entry on ifname (or, for rxe, whose "parent" is ifname); else the
 * device that sits below the PCI function pci (may be NULL), port 1. Either may be NULL. Returns 0,
 * -ENODEV when no device matches (or there are no RDMA devices at all), or the errno of reading sysfs. */
int rdma_sysfs_find_device(
        const Host *h, const char *pci, const char *ifname, char **ret_device, unsigned *ret_port);

/* /sys/class/infiniband/DEV/ports/N/hw_counters/NAME. Returns 0, -ENOENT when the device has no such
 * counter, -EBADMSG, or the errno of reading it. */
int rdma_sysfs_read_hw_counter(const Host *h, const char *device, unsigned port, const char *name, uint64_t *ret);
/* /sys/class/infiniband/DEV/ports/N/counters/NAME, the port's PMA counters (ib_core makes them for a
 * device with a MAD interface: mlx5_ib has them, rxe and irdma do not). Returns 0, -ENOENT, -EBADMSG or
 * the errno of reading it. */
int rdma_sysfs_read_port_counter(
        const Host *h, const char *device, unsigned port, const char *name, uint64_t *ret);
/* The counter of family c under whichever driver's name (rdma_hw_counter_name()) the device has.
 * Returns 0, -ENOENT when it has none of them, or the error of reading the one it has. */
int rdma_sysfs_read_hw_family(const Host *h, const char *device, unsigned port, RdmaHwCounter c, uint64_t *ret);
/* Every family the port's driver counts, in one pass: the driver is told by a file only it makes
 * (mlx5_ib: out_of_sequence, irdma: ip4InOctets, rxe: sent_pkts), then only its own names are read;
 * mlx5_ib's link_downed is a PMA counter (counters/link_downed). Bit c of *ret_known: values[c] was
 * read. Returns 0 (with *ret_driver), -ENOENT when the port has no counters of a driver halod knows,
 * or -ENOMEM; a counter that cannot be read is left unknown. */
int rdma_sysfs_read_hw_counters(
        const Host *h,
        const char *device,
        unsigned port,
        RdmaCounterDriver *ret_driver,
        uint64_t values[static _RDMA_HW_COUNTER_MAX],
        uint32_t *ret_known);

/* The RDMA device (/sys/class/infiniband/DEV) whose device is the PCI device pci ("0000:c2:00.0") or
 * sits below it (irdma hangs off ice's auxiliary device ice.roce.N, not off the PCI function).
 * -ENODEV when none does, -ENOSYS when there is no /sys/class/infiniband at all. */
int rdma_sysfs_device_of_pci(const Host *h, const char *pci, char **ret);

/* The uverbs device of the RDMA device ibdev ("uverbs0": its /sys/class/infiniband_verbs/uverbsN/ibdev
 * names it); its node is /dev/infiniband/uverbsN. -ENODEV when none names it (ib_uverbs not loaded),
 * -ENOSYS when there is no /sys/class/infiniband_verbs. */
int rdma_sysfs_uverbs_of_device(const Host *h, const char *ibdev, char **ret);

/* The last component of the device RDMA device ibdev sits on (its sysfs "device" link): the PCI function
 * for mlx5 ("0000:01:00.0"), ice's auxiliary device for irdma ("ice.roce.0" in RoCE mode, "ice.iwarp.0"
 * in iWARP mode). 0 with *ret NULL when it has none (rxe, a virtual device), or a negative errno. */
int rdma_sysfs_parent(const Host *h, const char *ibdev, char **ret);

/* SPDX-License-Identifier: MIT */
/* The fabric NIC facts that the metrics export as numbers (PCIe link, driver, firmware, board id, DDP
 * package), from the snapshot's NIC facts: the ones the NIC checks of the same verify judged, borrowed,
 * not copied. */
#include "export/metrics.h"

void metrics_nics_free(MetricsNic *nics, size_t n) {
        /* The strings are the snapshot's. */
        free(nics);
}

static const char *nonempty(const char *s) {
        return isempty(s) ? NULL : s;
}

static void nic_from_facts(const FabricPort *port, const NicFacts *f, MetricsNic *ret) {
        const PciDevice *d = f->device;
        DevlinkFirmware fw;

        /* Whatever could not be read stays unknown: the checks say why, the metrics only omit it. */
        ret->link = nonempty(port->link);
        ret->ifname = nonempty(port->ifname);
        ret->pci = nonempty(port->pci);
        ret->driver = nonempty(nic_facts_driver(f));
        if (d && d->link_source != PCIE_LINK_UNKNOWN) {
                ret->pcie_width = d->current.width;
                ret->pcie_max_width = d->capable.width;
                ret->pcie_speed_mts = d->current.speed_mts;
                ret->pcie_max_speed_mts = d->capable.speed_mts;
        }
        if (f->info_error >= 0 && !isempty(f->info.driver)) {
                ret->driver_version = nonempty(f->info.version);
                ret->firmware = nonempty(f->info.fw_version);
        }

        if (f->devlink_error >= 0)
                ret->board_id = nonempty(devlink_info_board_id(&f->devlink));
        /* nic.firmware's choice of version, from the same place. */
        if (nic_facts_firmware_source(f, &fw) == NIC_FIRMWARE_SOURCE_DEVLINK) {
                ret->version = nonempty(fw.running);
                ret->source = "devlink";
                ret->stored_known = true;
                ret->activation_pending = devlink_firmware_pending(&fw);
        } else if (ret->firmware)
                ret->source = "ethtool";
        if (f->ddp == ICE_DDP_SAFE_MODE)
                ret->ddp = "safe-mode";
        if (f->ddp == ICE_DDP_LOADED)
                ret->ddp = nonempty(f->ddp_package ?: "loaded");
}

int metrics_nics_gather(Snapshot *s, MetricsNic **ret, size_t *ret_n) {
        MetricsNic *nics = NULL;
        int r;

        r = snapshot_read(s, SNAPSHOT_NICS);
        if (r < 0)
                return r;
        if (s->n_ports > 0) {
                nics = calloc(s->n_ports, sizeof(MetricsNic));
                if (!nics)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < s->n_ports; i++)
                nic_from_facts(&s->ports[i], &s->nics[i], &nics[i]);
        *ret = nics;
        *ret_n = s->n_ports;
        return 0;
}

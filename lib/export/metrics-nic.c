/* SPDX-License-Identifier: MIT */
/* The fabric NIC facts that the metrics export as numbers (PCIe link, driver, firmware, board id, DDP
 * package), from the snapshot's NIC facts: the ones the NIC checks of the same verify judged. */
#include "export/metrics.h"

void metrics_nics_free(MetricsNic *nics, size_t n) {
        for (size_t i = 0; nics && i < n; i++) {
                free(nics[i].link);
                free(nics[i].ifname);
                free(nics[i].pci);
                free(nics[i].driver);
                free(nics[i].driver_version);
                free(nics[i].firmware);
                free(nics[i].version);
                free(nics[i].source);
                free(nics[i].board_id);
                free(nics[i].ddp);
        }
        free(nics);
}

static int strdup_nonempty(const char *s, char **ret) {
        if (isempty(s)) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int nic_from_facts(const FabricPort *port, const NicFacts *f, MetricsNic *ret) {
        const PciDevice *d = f->device;
        DevlinkFirmware fw;

        /* Whatever could not be read stays unknown: the checks say why, the metrics only omit it. */
        if (strdup_nonempty(port->link, &ret->link) < 0 || strdup_nonempty(port->ifname, &ret->ifname) < 0 ||
            strdup_nonempty(port->pci, &ret->pci) < 0 ||
            strdup_nonempty(nic_facts_driver(f), &ret->driver) < 0)
                return -ENOMEM;
        if (d && d->link_source != PCIE_LINK_UNKNOWN) {
                ret->pcie_width = d->current.width;
                ret->pcie_max_width = d->capable.width;
                ret->pcie_speed_mts = d->current.speed_mts;
                ret->pcie_max_speed_mts = d->capable.speed_mts;
        }
        if (f->info_error >= 0 && !isempty(f->info.driver) &&
            (strdup_nonempty(f->info.version, &ret->driver_version) < 0 ||
             strdup_nonempty(f->info.fw_version, &ret->firmware) < 0))
                return -ENOMEM;

        /* The same choice as nic.firmware: devlink's running version first. */
        if (f->devlink_error >= 0) {
                if (strdup_nonempty(devlink_info_board_id(&f->devlink), &ret->board_id) < 0)
                        return -ENOMEM;
                if (devlink_info_firmware(&f->devlink, &fw) >= 0) {
                        if (strdup_nonempty(fw.running, &ret->version) < 0 ||
                            strdup_nonempty("devlink", &ret->source) < 0)
                                return -ENOMEM;
                        ret->stored_known = true;
                        ret->activation_pending = devlink_firmware_pending(&fw);
                }
        }
        if (!ret->source && ret->firmware && strdup_nonempty("ethtool", &ret->source) < 0)
                return -ENOMEM;
        if (f->ddp == ICE_DDP_SAFE_MODE && strdup_nonempty("safe-mode", &ret->ddp) < 0)
                return -ENOMEM;
        if (f->ddp == ICE_DDP_LOADED && strdup_nonempty(f->ddp_package ?: "loaded", &ret->ddp) < 0)
                return -ENOMEM;
        return 0;
}

int metrics_nics_gather(const NodeContext *c, Snapshot *s, MetricsNic **ret, size_t *ret_n) {
        _cleanup_(snapshot_done) Snapshot own = {};
        MetricsNic *nics = NULL;
        int r;

        s = snapshot_or_own(s, &own, c);
        r = snapshot_read(s, SNAPSHOT_NICS);
        if (r < 0)
                return r;
        if (s->n_ports > 0) {
                nics = calloc(s->n_ports, sizeof(MetricsNic));
                if (!nics)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < s->n_ports; i++) {
                r = nic_from_facts(&s->ports[i], &s->nics[i], &nics[i]);
                if (r < 0) {
                        metrics_nics_free(nics, s->n_ports);
                        return r;
                }
        }
        *ret = nics;
        *ret_n = s->n_ports;
        return 0;
}

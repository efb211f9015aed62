/* SPDX-License-Identifier: MIT */
/* Gathers the fabric NIC facts that the metrics export as numbers: PCIe link, driver, firmware. */
#include "check/check-ports.h"
#include "export/metrics.h"
#include "nic/ethtool.h"
#include "nic/fabric.h"
#include "nic/pci.h"

void metrics_nics_free(MetricsNic *nics, size_t n) {
        for (size_t i = 0; nics && i < n; i++) {
                free(nics[i].link);
                free(nics[i].ifname);
                free(nics[i].pci);
                free(nics[i].driver);
                free(nics[i].driver_version);
                free(nics[i].firmware);
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

static int nic_gather(const NodeContext *c, const FabricPort *port, MetricsNic *ret) {
        _cleanup_(pci_device_freep) PciDevice *d = NULL;
        EthtoolDriverInfo info = {};
        int r;

        if (strdup_nonempty(port->link, &ret->link) < 0 || strdup_nonempty(port->ifname, &ret->ifname) < 0 ||
            strdup_nonempty(port->pci, &ret->pci) < 0)
                return -ENOMEM;

        /* Whatever cannot be read stays unknown: the checks say why, the metrics only omit it. */
        if (port->pci) {
                r = pci_device_get(c->host, port->pci, &d);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && d->link_source != PCIE_LINK_UNKNOWN) {
                        ret->pcie_width = d->current.width;
                        ret->pcie_max_width = d->capable.width;
                        ret->pcie_speed_mts = d->current.speed_mts;
                        ret->pcie_max_speed_mts = d->capable.speed_mts;
                }
                if (r >= 0 && strdup_nonempty(d->driver, &ret->driver) < 0)
                        return -ENOMEM;
                if (r < 0) {
                        /* Without libpci (not built in, or not installed) sysfs still names the driver. */
                        _cleanup_(freep) char *link = NULL;

                        if (asprintf(&link, "/sys/bus/pci/devices/%s/driver", port->pci) < 0)
                                return -ENOMEM;
                        if (host_readlink_basename(c->host, link, &ret->driver) == -ENOMEM)
                                return -ENOMEM;
                }
        }

        if (port->ifname && host_is_running_system(c->host)) {
                r = ethtool_get_driver_info(port->ifname, &info);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && !isempty(info.driver)) {
                        free(ret->driver);
                        ret->driver = NULL;
                        if (strdup_nonempty(info.driver, &ret->driver) < 0 ||
                            strdup_nonempty(info.version, &ret->driver_version) < 0 ||
                            strdup_nonempty(info.fw_version, &ret->firmware) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

int metrics_nics_gather(const NodeContext *c, MetricsNic **ret, size_t *ret_n) {
        FabricPort *ports = NULL;
        MetricsNic *nics = NULL;
        size_t n = 0;
        int r;

        r = fabric_ports_find(c, &ports, &n);
        if (r < 0)
                return r;
        if (n > 0) {
                nics = calloc(n, sizeof(MetricsNic));
                if (!nics) {
                        fabric_ports_free(ports, n);
                        return -ENOMEM;
                }
        }
        for (size_t i = 0; i < n && r >= 0; i++)
                r = nic_gather(c, &ports[i], &nics[i]);
        fabric_ports_free(ports, n);
        if (r < 0) {
                metrics_nics_free(nics, n);
                return r;
        }
        *ret = nics;
        *ret_n = n;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* kernel.aspm: the fabric NIC's PCIe link has ASPM off, which is what pcie_aspm=off is for: a link
 * that may enter L0s or L1 between bursts pays the wake-up on the RDMA round trip. */
#include <stdio.h>
#include <unistd.h>

#include "check/check-kernel.h"
#include "check/check-ports.h"
#include "config.h"

static const char *aspm_to_string(int aspm) {
        switch (aspm & (PCIE_ASPM_L0S | PCIE_ASPM_L1)) {
        case 0:
                return "off";
        case PCIE_ASPM_L0S:
                return "L0s";
        case PCIE_ASPM_L1:
                return "L1";
        default:
                return "L0s L1";
        }
}

int check_kernel_aspm_evaluate(
        const char *pci, int aspm, const char *source, const char *why_not, PortCheck *ret) {
        if (aspm < 0)
                return port_check_set(
                        ret, CHECK_SKIP, "off", NULL, "could not look at the PCIe link of %s: %s", pci, why_not);
        if ((aspm & (PCIE_ASPM_L0S | PCIE_ASPM_L1)) == 0)
                return port_check_set(
                        ret, CHECK_PASS, "off", "off", "ASPM is off on the PCIe link of %s (%s)", pci, source);
        /* pcie_aspm=off keeps the kernel's hands off ASPM: what the firmware enabled stays enabled. */
        return port_check_set(
                ret,
                CHECK_FAIL,
                "off",
                aspm_to_string(aspm),
                "ASPM %s %s enabled on the PCIe link of %s (%s): the link sleeps between bursts and every "
                "RDMA round trip pays its wake-up; pcie_aspm=off leaves what the firmware set, so turn ASPM "
                "off for the slot in the BIOS (until the next boot: setpci -s %s CAP_EXP+10.w=0:3)",
                aspm_to_string(aspm),
                (aspm & PCIE_ASPM_L0S) && (aspm & PCIE_ASPM_L1) ? "are" : "is",
                pci,
                source,
                pci);
}

static int check_port(const NodeContext *c, const FabricPort *p, const NicFacts *f, PortCheck *ret) {
        if (!p->pci)
                return port_check_set(
                        ret, CHECK_SKIP, "off", NULL, "could not look at the fabric NIC: %s", strna(p->problem));

        if (f->sysfs_aspm_error >= 0)
                return check_kernel_aspm_evaluate(
                        p->pci, f->sysfs_aspm, "sysfs link/l0s_aspm and link/l1_aspm", NULL, ret);

        if (!HAVE_LIBPCI)
                return check_kernel_aspm_evaluate(
                        p->pci,
                        -1,
                        NULL,
                        "sysfs has no link/l1_aspm (pcie_aspm=off removes it), and halod was built without "
                        "libpci to read the Link Control register",
                        ret);
        if (!f->device)
                return check_kernel_aspm_evaluate(
                        p->pci,
                        -1,
                        NULL,
                        f->device_error == -ELIBACC || f->device_error == -ELIBBAD
                                ? "sysfs has no link/l1_aspm, and libpci could not be loaded to read config space"
                                : "sysfs has no link/l1_aspm, and libpci could not read the device",
                        ret);
        if (f->device->aspm_control < 0)
                return check_kernel_aspm_evaluate(
                        p->pci,
                        -1,
                        NULL,
                        host_is_running_system(c->host) && geteuid() != 0
                                ? "sysfs has no link/l1_aspm (pcie_aspm=off removes it), and the Link Control "
                                  "register lies past the 64 bytes of config space that only root may read: "
                                  "`sudo haloctl check --only kernel.aspm` looks"
                                : "sysfs has no link/l1_aspm, and config space has no PCIe capability",
                        ret);
        return check_kernel_aspm_evaluate(
                p->pci, f->device->aspm_control, "the PCIe Link Control register in config space", NULL, ret);
}

int check_kernel_aspm(const NodeContext *c, const Snapshot *s, CheckList *out) {
        PortCheck *results;
        int r = 0;

        if (!kernel_profile_requires(c, "pcie_aspm", "off"))
                return check_list_skip(
                        out,
                        "kernel.aspm",
                        "the profile's kernel.cmdline does not ask for pcie_aspm=off: ASPM is not checked");

        if (!snapshot_has(s, SNAPSHOT_NICS))
                return 0; /* not selected: its caller did not read it */
        if (s->n_ports == 0)
                return check_list_add(
                        out,
                        "kernel.aspm",
                        CHECK_SKIP,
                        "off",
                        NULL,
                        "the profile names no links, so there is no fabric NIC to look at");

        results = calloc(s->n_ports, sizeof(PortCheck));
        if (!results)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports && r >= 0; i++)
                r = check_port(c, &s->ports[i], &s->nics[i], &results[i]);
        if (r >= 0)
                r = check_list_add_ports(out, "kernel.aspm", s->ports, results, s->n_ports);
        port_checks_free(results, s->n_ports);
        return r;
}

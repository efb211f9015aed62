/* SPDX-License-Identifier: MIT */
/* kernel.iommu: the fabric NIC and the GPU are in identity IOMMU domains, which is what iommu=pt is
 * for: their DMA bypasses the IOMMU's translation (and its IOTLB misses) on the RDMA path. */
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-gpu.h"
#include "check/check-kernel.h"

typedef struct IommuLooks {
        char **identity;   /* "the fabric NIC 0000:c2:00.0 (rdma0)" */
        char **direct;     /* no IOMMU group at all: the IOMMU is off, DMA is untranslated */
        char **translated; /* "the GPU 0000:c3:00.0 (card1) is DMA-FQ" */
        char **unknown;    /* "could not look at ...: ..." */
        char **seen;       /* PCI addresses already judged */
} IommuLooks;

static void iommu_looks_done(IommuLooks *l) {
        strv_free(l->identity);
        strv_free(l->direct);
        strv_free(l->translated);
        strv_free(l->unknown);
        strv_free(l->seen);
}

/* Judges one device from how the snapshot found its IOMMU group; what is "the fabric NIC 0000:c2:00.0
 * (rdma0)". */
static int look(const char *pci, const PciIommu *iommu, const char *what, IommuLooks *l) {
        int r;

        if (strv_contains(l->seen, pci))
                return 0;
        r = strv_extend(&l->seen, pci);
        if (r < 0)
                return r;
        /* Without a group link the device is not behind an IOMMU in use: the IOMMU is off (in the
         * BIOS, or amd_iommu=off), and DMA is as direct as with iommu=pt. */
        if (iommu->no_group)
                return strv_extend(&l->direct, what);
        if (!iommu->type)
                return strv_extendf(
                        &l->unknown,
                        "could not look at " IOMMU_TYPE_FORMAT " (%s): %s",
                        pci,
                        what,
                        strerror(-iommu->error));
        if (streq(iommu->type, "identity"))
                return strv_extend(&l->identity, what);
        return strv_extendf(&l->translated, "%s is %s", what, iommu->type);
}

static int look_at_ports(const NodeContext *c, const Snapshot *s, IommuLooks *l) {
        int r;

        for (size_t i = 0; i < s->n_ports; i++) {
                const FabricPort *p = &s->ports[i];
                _cleanup_(freep) char *what = NULL;

                if (!p->pci) {
                        r = strv_extendf(
                                &l->unknown,
                                "could not look at the fabric NIC of %s: %s",
                                p->link,
                                strna(p->problem));
                        if (r < 0)
                                return r;
                        continue;
                }
                if (asprintf(&what, "the fabric NIC %s (%s)", p->pci, p->link) < 0)
                        return -ENOMEM;
                r = look(p->pci, &s->nics[i].iommu, what, l);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int look_at_gpus(const NodeContext *c, const Snapshot *s, IommuLooks *l) {
        int r;

        for (size_t i = 0; i < s->host.n_gpus; i++) {
                const SnapshotGpu *g = &s->host.gpus[i];
                _cleanup_(freep) char *what = NULL;

                if (g->pci_error < 0) {
                        r = strv_extendf(
                                &l->unknown,
                                "could not look at the PCI device of the GPU %s (" DRM_CLASS_DIR
                                "/%s/device): %s",
                                g->card,
                                g->card,
                                g->pci_error == -EINVAL ? "not a link to a PCI device"
                                                        : strerror(-g->pci_error));
                        if (r < 0)
                                return r;
                        continue;
                }
                if (asprintf(&what, "the GPU %s (%s)", g->pci, g->card) < 0)
                        return -ENOMEM;
                r = look(g->pci, &g->iommu, what, l);
                if (r < 0)
                        return r;
        }
        return 0;
}

int check_kernel_iommu(const NodeContext *c, const Snapshot *s, CheckList *out) {
        _cleanup_(iommu_looks_done) IommuLooks l = {};
        _cleanup_(freep) char *identity = NULL, *direct = NULL, *text = NULL;
        int r;

        if (!kernel_profile_requires(c, "iommu", "pt") && !kernel_profile_requires(c, "iommu.passthrough", "1"))
                return check_list_skip(
                        out,
                        "kernel.iommu",
                        "the profile's kernel.cmdline does not ask for iommu=pt: the IOMMU's mode is not checked");

        if (!snapshot_has(s, SNAPSHOT_NICS | SNAPSHOT_GPUS))
                return 0; /* not selected: its caller did not read it */
        r = look_at_ports(c, s, &l);
        if (r < 0)
                return r;
        r = look_at_gpus(c, s, &l);
        if (r < 0)
                return r;

        if (l.translated) {
                text = strv_join(l.translated, " and ");
                if (!text)
                        return -ENOMEM;
                return check_list_add(
                        out,
                        "kernel.iommu",
                        CHECK_FAIL,
                        "identity",
                        text,
                        "%s in iommu_group/type, not identity: the IOMMU translates their DMA, so iommu=pt is "
                        "not in force; boot with it (kernel.cmdline and kernel.cmdline-next say where it is "
                        "missing)",
                        text);
        }
        if (l.unknown) {
                text = strv_join(l.unknown, "; ");
                if (!text)
                        return -ENOMEM;
                return check_list_add(out, "kernel.iommu", CHECK_SKIP, "identity", NULL, "%s", text);
        }
        if (!l.identity && !l.direct)
                return check_list_add(
                        out,
                        "kernel.iommu",
                        CHECK_SKIP,
                        "identity",
                        NULL,
                        "no fabric NIC and no GPU driven by amdgpu to look at");

        identity = strv_join(l.identity, " and ");
        direct = strv_join(l.direct, " and ");
        if (!identity || !direct)
                return -ENOMEM;
        if (l.direct)
                return check_list_add(
                        out,
                        "kernel.iommu",
                        CHECK_PASS,
                        "identity",
                        "no IOMMU group",
                        "%s%s%s %s in no IOMMU group (sysfs has no iommu_group link): the IOMMU is off, and "
                        "DMA is untranslated, as with iommu=pt",
                        identity,
                        l.identity ? " in an identity domain, and " : "",
                        direct,
                        strv_length(l.direct) > 1 ? "are" : "is");
        return check_list_add(
                out,
                "kernel.iommu",
                CHECK_PASS,
                "identity",
                "identity",
                "%s %s in identity IOMMU domains (iommu_group/type in sysfs): their DMA bypasses translation, "
                "as iommu=pt asks",
                identity,
                strv_length(l.identity) > 1 ? "are" : "is");
}

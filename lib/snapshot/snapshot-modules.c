/* SPDX-License-Identifier: MIT */
/* SNAPSHOT_MODULES: the state of the RDMA module of each port's NIC family, once per module. */
#include "nic/nic-family.h"
#include "snapshot/snapshot.h"

const ModuleState *snapshot_module_state(const Snapshot *s, const char *module) {
        for (size_t i = 0; module && i < s->n_modules; i++)
                if (streq(s->modules[i].module, module))
                        return &s->modules[i];
        return NULL;
}

int snapshot_read_modules(Snapshot *s) {
        const SnapshotHost *h = &s->host;
        int r;

        s->modules = calloc(s->n_ports ?: 1, sizeof(ModuleState));
        if (!s->modules)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                const char *module = nic_family_rdma_module(nic_facts_family(&s->nics[i]));

                if (!s->ports[i].pci || !module || snapshot_module_state(s, module))
                        continue;
                /* The command line kernel.cmdline judges too, read once: only when there is a module to
                 * look for on it. */
                r = snapshot_read(s, SNAPSHOT_CMDLINE);
                if (r < 0)
                        return r;
                r = module_state_read(
                        s->context->host,
                        h->cmdline_parsed,
                        h->cmdline ? 0 : h->cmdline_error,
                        module,
                        &s->modules[s->n_modules]);
                if (r < 0)
                        return r;
                s->n_modules++;
        }
        return 0;
}

void snapshot_forget_modules(Snapshot *s) {
        for (size_t i = 0; i < s->n_modules; i++)
                module_state_done(&s->modules[i]);
        s->modules = mfree(s->modules);
        s->n_modules = 0;
}

/* SPDX-License-Identifier: MIT */
/* Fuzzes the boot configuration parsers: a BLS entry, a grubenv block, /etc/default/grub (shell),
 * grub's $variable expansion, a grub.cfg's menu with the default it names, systemd-boot's loader.conf
 * and an efivarfs string, all from one input. */
#include <stdint.h>
#include <stdlib.h>

#include "basic/strv.h"
#include "boot/bootcfg.h"
#include "boot/grub-cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(strv_freep) char **grubenv = NULL, **env = NULL, **assigned = NULL, **unresolved = NULL;
        _cleanup_(bls_entry_done) BlsEntry e = {}, other = {};
        _cleanup_(freep) char *s = NULL, *expanded = NULL, *loader_default = NULL, *efivar = NULL;
        _cleanup_(grub_cfg_done) GrubCfg cfg = {};

        if (size > 256 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        if (bls_entry_parse(s, &e) >= 0) {
                (void) bls_version_compare(e.version, e.title);
                (void) bls_version_compare(e.title, e.version);
                (void) bls_entry_compare(&e, &other);
        }
        if (grubenv_parse(s, &grubenv) >= 0 && grub_expand_variables(s, grubenv, &expanded, &unresolved) >= 0)
                free(TAKE_PTR(expanded));
        (void) shell_assignments_parse(s, &env, &assigned);
        if (loader_conf_default(s, &loader_default) >= 0 && loader_default && strchr(loader_default, '\n'))
                abort(); /* a value never runs past its line */
        if (efivar_decode_string((const char *) data, size, &efivar) >= 0 && strlen(efivar) > size / 2)
                abort();
        STRV_FOREACH(n, assigned)
                (void) env_get(env, *n);

        if (grub_cfg_parse(s, &cfg) >= 0) {
                static const char *const specs[] = {
                        "0", "1>2", "1>1>1", "A>>B>0", ">", ">>", "99999999999999999999"
                };
                const GrubMenuEntry *first = grub_cfg_first(&cfg), *found;
                bool named;

                if (first && first->submenu)
                        abort(); /* a submenu always stands for an entry in it */
                /* GRUB boots an entry, never a submenu, whatever the default says. */
                found = grub_cfg_find(&cfg, cfg.default_entry, &named);
                if (found && found->submenu)
                        abort();
                found = grub_cfg_find(&cfg, s, NULL);
                if (found && found->submenu)
                        abort();
                for (size_t i = 0; i < ELEMENTSOF(specs); i++) {
                        found = grub_cfg_find(&cfg, specs[i], &named);
                        if (found && found->submenu)
                                abort();
                }
        }
        return 0;
}

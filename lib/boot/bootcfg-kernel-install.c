/* SPDX-License-Identifier: MIT */
/* What the next `kernel-install add` writes into a Type #1 entry, and the command that runs it. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg-internal.h"
#include "boot/bootcfg.h"

/* In the order systemd's 90-loaderentry.install takes them (src/kernel-install/90-loaderentry.install.in):
 * the first file that exists wins, else the running kernel's command line. */
static const char *const install_sources[] = {
        KERNEL_CMDLINE_FILE,
        "/usr/lib/kernel/cmdline",
};

/* `tr -s "$IFS" ' '`: every run of blanks and newlines becomes one space; the trailing one goes. With
 * from_proc, the words the boot loader added (BOOT_IMAGE=, initrd=) are dropped, as the plugin's grep
 * does. */
static int squeeze(const char *text, bool from_proc, char **ret) {
        _cleanup_(freep) char *out = malloc(strlen(text) + 1);
        size_t n = 0;

        if (!out)
                return -ENOMEM;
        for (const char *p = text; *p;) {
                size_t l;

                p += strspn(p, " \t\n");
                l = strcspn(p, " \t\n");
                if (l == 0)
                        break;
                if (!from_proc || !(startswith(p, "BOOT_IMAGE=") || startswith(p, "initrd="))) {
                        if (n > 0)
                                out[n++] = ' ';
                        memcpy(out + n, p, l);
                        n += l;
                }
                p += l;
        }
        out[n] = '\0';
        *ret = TAKE_PTR(out);
        return 0;
}

int kernel_install_cmdline(const Host *h, char **ret_cmdline, char **ret_source) {
        _cleanup_(freep) char *text = NULL;
        const char *source = "/proc/cmdline";
        int r = -ENOENT;

        for (size_t i = 0; i < ELEMENTSOF(install_sources) && r == -ENOENT; i++) {
                r = host_read_file(h, install_sources[i], HOST_FILE_MAX, &text, NULL);
                if (r == -ENOTDIR)
                        r = -ENOENT;
                if (r >= 0)
                        source = install_sources[i];
        }
        if (r == -ENOENT)
                r = host_read_file(h, "/proc/cmdline", HOST_FILE_MAX, &text, NULL);
        if (r < 0)
                return r;
        r = squeeze(text, streq(source, "/proc/cmdline"), ret_cmdline);
        if (r < 0)
                return r;
        *ret_source = strdup(source);
        if (!*ret_source) {
                *ret_cmdline = mfree(*ret_cmdline);
                return -ENOMEM;
        }
        return 0;
}

int kernel_install_add_command(const Host *h, const char *version, char **ret) {
        _cleanup_(freep) char *modules = NULL, *boot = NULL;

        if (!version)
                return asprintf(ret, "kernel-install add $(uname -r) /usr/lib/modules/$(uname -r)/vmlinuz") < 0
                        ? -ENOMEM
                        : 0;
        /* Fedora and Arch keep the image beside the modules; Debian's kernel packages in /boot. */
        if (asprintf(&modules, "/usr/lib/modules/%s/vmlinuz", version) < 0 ||
            asprintf(&boot, "/boot/vmlinuz-%s", version) < 0)
                return -ENOMEM;
        return asprintf(
                       ret,
                       "kernel-install add %s %s",
                       version,
                       !host_path_exists(h, modules) && host_path_exists(h, boot) ? boot : modules) < 0
                ? -ENOMEM
                : 0;
}

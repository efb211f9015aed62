/* SPDX-License-Identifier: MIT */
/* Tests for lib/cmdline: the kernel's splitting rules on real command lines, lookups, requirements. */
#include "basic/strv.h"
#include "boot/cmdline.h"
#include "tests.h"

/* "name" for a bare parameter, "name=value" otherwise, "|" between parameters, "||" before the init
 * arguments: one string that says everything about a parse. */
static char *describe(const KernelCmdline *c) {
        _cleanup_(strv_freep) char **l = NULL;
        _cleanup_(freep) char *params = NULL, *init = NULL;
        char *s;

        for (size_t i = 0; i < c->n_params; i++)
                ASSERT_OK(
                        c->params[i].value ? strv_extendf(&l, "%s=%s", c->params[i].name, c->params[i].value)
                                           : strv_extend(&l, c->params[i].name));
        params = strv_join(l, "|");
        init = strv_join(c->init_args, "|");
        ASSERT_TRUE(params && init);
        ASSERT_TRUE(asprintf(&s, "%s%s%s", params, c->has_separator ? "||" : "", init) >= 0);
        return s;
}

static void test_parse(void) {
        static const struct {
                const char *input, *expected;
        } cases[] = {
                { "", "" },
                { "   \n", "" },
                { "quiet", "quiet" },
                { "  quiet   splash  ", "quiet|splash" },
                { "tab\tsep\nnewline\r\v\fend", "tab|sep|newline|end" },
                /* Fedora 43 on a Strix Halo board, as /proc/cmdline prints it (newline included). */
                { "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.17.7-300.fc43.x86_64 root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-0d8e7b6a5c4d "
                  "ro rootflags=subvol=root rhgb quiet iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 "
                  "ttm.pages_limit=32505856\n",
                  "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.17.7-300.fc43.x86_64|root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-"
                  "0d8e7b6a5c4d|ro|rootflags=subvol=root|rhgb|quiet|iommu=pt|pci=realloc|pcie_aspm=off|"
                  "amdgpu.gttsize=126976|ttm.pages_limit=32505856" },
                /* Quotes: around a value, around the whole parameter, in the middle of a token. */
                { "dyndbg=\"file foo.c +p\" quiet", "dyndbg=file foo.c +p|quiet" },
                { "\"dyndbg=file foo.c +p\" quiet", "dyndbg=file foo.c +p|quiet" },
                { "acpi_osi=\"!Windows 2020\"", "acpi_osi=!Windows 2020" },
                { "a=b\"c d\"e f", "a=b\"c d\"e|f" },
                { "\"quoted bare\" x", "quoted bare|x" },
                { "empty= x", "empty=|x" },
                { "empty=\"\" x", "empty=|x" },
                { "unterminated=\"a b", "unterminated=a b" },
                { "\"", "" },
                { "\"\"", "" },
                { "k=v=w", "k=v=w" },
                /* The kernel's quirk: an '=' in first position does not split. */
                { "=a=b", "=a=b" },
                /* The first "--" hands the rest to init; a second one ends init's arguments. */
                { "ro quiet -- single emergency", "ro|quiet||single|emergency" },
                { "ro -- a=1 \"b=2 3\" -- dropped", "ro||a=1|b=2 3" },
                { "ro --", "ro||" },
                { "-- x", "||x" },
                { "ro --verbose", "ro|--verbose" },
                { "ro --=x", "ro|--=x" },
                /* This build machine's own /proc/cmdline (a firecracker VM). */
                { "mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 nomodule "
                  "rdinit=/process_api -- --firecracker-init --addr 0.0.0.0:2024 --max-ws-buffer-size 32768\n",
                  "mitigations=auto,no_guest_host,no_guest_guest|console=ttyS0|quiet|reboot=k|panic=1|nomodule|"
                  "rdinit=/process_api||--firecracker-init|--addr|0.0.0.0:2024|--max-ws-buffer-size|32768" },
                /* Latin-1 NBSP is a space to the kernel's ctype. */
                { "a\xa0"
                  "b",
                  "a|b" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;
                _cleanup_(freep) char *d = NULL;

                ASSERT_OK(kernel_cmdline_parse(cases[i].input, &c));
                d = describe(c);
                ASSERT_STR_EQ(d, cases[i].expected);
        }
}

static void test_too_long(void) {
        _cleanup_(freep) char *s = malloc(KERNEL_CMDLINE_MAX + 2);
        KernelCmdline *c = NULL;

        ASSERT_TRUE(s);
        memset(s, 'a', KERNEL_CMDLINE_MAX + 1);
        s[KERNEL_CMDLINE_MAX + 1] = '\0';
        ASSERT_INT_EQ(kernel_cmdline_parse(s, &c), -E2BIG);
        ASSERT_TRUE(!c);
}

static void test_find(void) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;
        const KernelParam *p;

        ASSERT_OK(kernel_cmdline_parse(
                "pcie-aspm=force amdgpu.gttsize=65536 quiet amdgpu.gttsize=126976 pcie_aspm=off -- iommu=pt",
                &c));

        /* The last occurrence wins, whichever spelling it uses. */
        p = kernel_cmdline_find(c, "pcie_aspm");
        ASSERT_TRUE(p);
        ASSERT_STR_EQ(p->value, "off");
        ASSERT_STR_EQ(kernel_cmdline_find(c, "pcie-aspm")->value, "off");
        ASSERT_STR_EQ(kernel_cmdline_find(c, "amdgpu.gttsize")->value, "126976");
        ASSERT_TRUE(!kernel_cmdline_find(c, "quiet")->value);
        /* After "--" it is init's, not the kernel's. */
        ASSERT_TRUE(!kernel_cmdline_find(c, "iommu"));
        ASSERT_TRUE(!kernel_cmdline_find(c, "amdgpu"));
        ASSERT_TRUE(!kernel_cmdline_find(c, "amdgpu.gttsiz"));
}

static void test_name_equal(void) {
        ASSERT_TRUE(kernel_param_name_equal("pcie_aspm", "pcie-aspm"));
        ASSERT_TRUE(kernel_param_name_equal("ttm.pages-limit", "ttm.pages_limit"));
        ASSERT_TRUE(kernel_param_name_equal("", ""));
        ASSERT_TRUE(!kernel_param_name_equal("pcie_aspm", "pcie_aspmx"));
        ASSERT_TRUE(!kernel_param_name_equal("pcie.aspm", "pcie_aspm"));
        ASSERT_TRUE(!kernel_param_name_equal("Quiet", "quiet"));
}

static void test_parse_one(void) {
        static const struct {
                const char *input, *name, *value;
                int r;
        } cases[] = {
                { "iommu=pt", "iommu", "pt", 0 },
                { "quiet", "quiet", NULL, 0 },
                { " quiet ", "quiet", NULL, 0 },
                { "dyndbg=\"file foo.c +p\"", "dyndbg", "file foo.c +p", 0 },
                { "empty=", "empty", "", 0 },
                { "", NULL, NULL, -EINVAL },
                { "   ", NULL, NULL, -EINVAL },
                { "a b", NULL, NULL, -EINVAL },
                { "--", NULL, NULL, -EINVAL },
                { "\"\"", NULL, NULL, -EINVAL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *name = NULL, *value = NULL;

                ASSERT_INT_EQ(kernel_param_parse_one(cases[i].input, &name, &value), cases[i].r);
                if (cases[i].r == 0) {
                        ASSERT_STR_EQ(name, cases[i].name);
                        if (cases[i].value)
                                ASSERT_STR_EQ(value, cases[i].value);
                        else
                                ASSERT_TRUE(!value);
                } else
                        ASSERT_TRUE(!name && !value);
                free(name);
                free(value);
        }
}

static void test_to_string(void) {
        static const struct {
                const char *name, *value, *expected;
        } cases[] = {
                { "quiet", NULL, "quiet" },
                { "iommu", "pt", "iommu=pt" },
                { "empty", "", "empty=" },
                { "dyndbg", "file foo.c +p", "dyndbg=\"file foo.c +p\"" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(freep) char *s = kernel_param_to_string(cases[i].name, cases[i].value);
                ASSERT_STR_EQ(s, cases[i].expected);
        }
}

static void test_missing(void) {
        static const char *fedora =
                "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.17.7-300.fc43.x86_64 root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-0d8e7b6a5c4d "
                "ro rootflags=subvol=root rhgb quiet iommu=pt pci=realloc pcie-aspm=off amdgpu.gttsize=65536 "
                "amdgpu.gttsize=126976 dyndbg=\"file foo.c +p\" -- ttm.pages_limit=32505856\n";
        static const struct {
                const char *required[8];
                const char *missing; /* joined with "; " */
        } cases[] = {
                { { NULL }, "" },
                { { "iommu=pt", "pci=realloc", "pcie_aspm=off", "amdgpu.gttsize=126976", NULL }, "" },
                { { "quiet", "rhgb", "iommu", NULL }, "" },
                { { "dyndbg=\"file foo.c +p\"", NULL }, "" },
                /* After "--": init's, so missing. */
                { { "ttm.pages_limit=32505856", NULL }, "ttm.pages_limit=32505856" },
                /* An earlier occurrence does not count. */
                { { "amdgpu.gttsize=65536", NULL }, "amdgpu.gttsize=65536 (have amdgpu.gttsize=126976)" },
                { { "iommu=on", "pcie_aspm=force", "nosmt", "dyndbg=\"file bar.c +p\"", NULL },
                  "iommu=on (have iommu=pt); pcie_aspm=force (have pcie-aspm=off); nosmt; "
                  "dyndbg=\"file bar.c +p\" (have dyndbg=\"file foo.c +p\")" },
                /* Values are compared exactly: no dash/underscore folding there. */
                { { "rootflags=subvol-root", NULL }, "rootflags=subvol-root (have rootflags=subvol=root)" },
                { { "quiet=1", NULL }, "quiet=1 (have quiet)" },
        };
        _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;

        ASSERT_OK(kernel_cmdline_parse(fedora, &c));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(strv_freep) char **missing = NULL;
                _cleanup_(freep) char *joined = NULL;
                int r;

                r = kernel_cmdline_missing(c, (char **) cases[i].required, &missing);
                ASSERT_INT_EQ(r, strv_length(missing));
                joined = strv_join(missing, "; ");
                ASSERT_STR_EQ(joined, cases[i].missing);
        }
}

static void test_missing_invalid(void) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;
        const char *bad[] = { "iommu=pt", "two words", NULL };
        char **missing = NULL;

        ASSERT_OK(kernel_cmdline_parse("iommu=pt", &c));
        ASSERT_INT_EQ(kernel_cmdline_missing(c, (char **) bad, &missing), -EINVAL);
        ASSERT_TRUE(!missing);
}

int main(void) {
        test_parse();
        test_too_long();
        test_find();
        test_name_equal();
        test_parse_one();
        test_to_string();
        test_missing();
        test_missing_invalid();
        return EXIT_SUCCESS;
}

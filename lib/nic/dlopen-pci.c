/* SPDX-License-Identifier: MIT */
/* libpci's functions that halod calls, resolved on the first NIC check (lib/nic/dlopen-pci.h). */
#include "nic/dlopen-pci.h"
#include "basic/macro.h"

DLSYM_DEFINE(pci_alloc);
DLSYM_DEFINE(pci_cleanup);
DLSYM_DEFINE(pci_init);
DLSYM_DEFINE(pci_scan_bus);
DLSYM_DEFINE(pci_set_param);
DLSYM_DEFINE(pci_set_name_list_path);
DLSYM_DEFINE(pci_fill_info);
DLSYM_DEFINE(pci_lookup_name);
DLSYM_DEFINE(pci_find_cap);
DLSYM_DEFINE(pci_read_word);
DLSYM_DEFINE(pci_read_long);

/* clang-format off */
static const DlopenSymbol pci_symbols[] = {
        DLSYM_ARG(pci_alloc),
        DLSYM_ARG(pci_cleanup),
        DLSYM_ARG(pci_init),
        DLSYM_ARG(pci_scan_bus),
        DLSYM_ARG(pci_set_param),
        DLSYM_ARG(pci_set_name_list_path),
        DLSYM_ARG(pci_fill_info),
        DLSYM_ARG(pci_lookup_name),
        DLSYM_ARG(pci_find_cap),
        DLSYM_ARG(pci_read_word),
        DLSYM_ARG(pci_read_long),
};
/* clang-format on */

DlopenLibrary dlopen_pci_library = {
        .soname = DLOPEN_PCI_SONAME,
        .install = "libpci (pciutils; Debian: libpci3, Fedora: pciutils-libs)",
        .symbols = pci_symbols,
        .n_symbols = ELEMENTSOF(pci_symbols),
        DLOPEN_LIBRARY_INIT,
};

int dlopen_pci(char **ret_error) {
        return dlopen_library(&dlopen_pci_library, ret_error);
}

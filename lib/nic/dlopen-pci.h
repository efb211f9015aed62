/* SPDX-License-Identifier: MIT */
/* libpci, loaded on the first NIC check (lib/basic/dlopen-util.h): the sym_ pointers lib/nic/pci.c calls.
 * Only the build needs the library's headers; halod and haloctl do not link it. */
#pragma once

#include <pci/pci.h>

#include "basic/dlopen-util.h"

#define DLOPEN_PCI_SONAME "libpci.so.3"

extern DlopenLibrary dlopen_pci_library;

/* dlopen_library() of libpci.so.3: 0 when the sym_ pointers are set. */
int dlopen_pci(char **ret_error);

DLSYM_PROTOTYPE(pci_alloc);
DLSYM_PROTOTYPE(pci_cleanup);
DLSYM_PROTOTYPE(pci_init);
DLSYM_PROTOTYPE(pci_scan_bus);
DLSYM_PROTOTYPE(pci_set_param);
DLSYM_PROTOTYPE(pci_set_name_list_path);
DLSYM_PROTOTYPE(pci_fill_info);
DLSYM_PROTOTYPE(pci_lookup_name);
DLSYM_PROTOTYPE(pci_find_cap);
DLSYM_PROTOTYPE(pci_read_word);
DLSYM_PROTOTYPE(pci_read_long);

/* SPDX-License-Identifier: MIT */
/* PCI devices through libpci (loaded on first use), with our own error handler, reading a sysfs
 * below the host root. */
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>

#include "basic/strv.h"
#include "config.h"
#include "nic/pci-sysfs.h"
#include "nic/pci.h"

#if HAVE_LIBPCI
#        include "nic/dlopen-pci.h"
#endif

/* "0000:c2:00.0" and its NUL. */
#define PCI_ADDRESS_MAX 16U
/* Room for the vendor and device name libpci finds in pci.ids. */
#define PCI_NAME_MAX 256U

static const char *const pcie_link_source_table[_PCIE_LINK_SOURCE_MAX] = {
        [PCIE_LINK_UNKNOWN] = "unknown",
        [PCIE_LINK_CONFIG] = "config space",
        [PCIE_LINK_SYSFS] = "sysfs",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(pcie_link_source, PcieLinkSource);

/* The Link Capabilities / Link Status speed codes: an index into the Supported Link Speeds. */
static const unsigned pcie_speed_codes[] = { 0, 2500, 5000, 8000, 16000, 32000, 64000 };

unsigned pcie_generation(unsigned speed_mts) {
        for (size_t i = 1; i < ELEMENTSOF(pcie_speed_codes); i++)
                if (pcie_speed_codes[i] == speed_mts)
                        return (unsigned) i;
        return 0;
}

double pcie_link_gbit(const PcieLink *l) {
        double efficiency;

        if (!l || l->speed_mts == 0 || l->width == 0)
                return 0;
        if (l->speed_mts <= 5000)
                efficiency = 8.0 / 10.0;
        else if (l->speed_mts <= 32000)
                efficiency = 128.0 / 130.0;
        else
                efficiency = 242.0 / 256.0;
        return l->speed_mts / 1000.0 * l->width * efficiency;
}

const char *pcie_speed_to_string(unsigned speed_mts, char *buf) {
        if (speed_mts % 1000 == 0)
                snprintf(buf, PCIE_SPEED_STRING_MAX, "%u", speed_mts / 1000);
        else
                snprintf(buf, PCIE_SPEED_STRING_MAX, "%u.%u", speed_mts / 1000, speed_mts % 1000 / 100);
        return buf;
}

int pcie_speed_from_sysfs(const char *s, unsigned *ret) {
        char *end;
        double v;

        if (!s)
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        if (errno != 0 || end == s || !(v > 0) || v > 1000 || !startswith(end, " GT/s"))
                return -EBADMSG; /* "Unknown", "Unknown speed", garbage */
        *ret = (unsigned) (v * 1000 + 0.5);
        return 0;
}

PciDevice *pci_device_free(PciDevice *d) {
        if (!d)
                return NULL;
        free(d->address);
        free(d->name);
        free(d->driver);
        return mfree(d);
}

static bool pcie_link_valid(const PcieLink *l) {
        return pcie_generation(l->speed_mts) > 0 && l->width > 0 && l->width <= 32;
}

static int read_sysfs_link(
        const Host *h,
        const char *address,
        const char *speed_attribute,
        const char *width_attribute,
        PcieLink *ret) {
        _cleanup_(freep) char *speed_path = NULL, *width_path = NULL, *speed = NULL, *width = NULL;
        unsigned mts, w;
        char *end;
        int r;

        if (asprintf(&speed_path, "/sys/bus/pci/devices/%s/%s", address, speed_attribute) < 0 ||
            asprintf(&width_path, "/sys/bus/pci/devices/%s/%s", address, width_attribute) < 0)
                return -ENOMEM;
        r = host_read_line(h, speed_path, &speed);
        if (r < 0)
                return r;
        r = host_read_line(h, width_path, &width);
        if (r < 0)
                return r;
        r = pcie_speed_from_sysfs(speed, &mts);
        if (r < 0)
                return r;
        errno = 0;
        w = (unsigned) strtoul(width, &end, 10);
        if (errno != 0 || end == width || *end != '\0')
                return -EBADMSG;
        *ret = (PcieLink){ .speed_mts = mts, .width = w };
        return 0;
}

/* The kernel exposes the same registers as text, readable without privileges: the fallback for a
 * non-root caller, who only sees the first 64 bytes of config space. */
static void pci_device_read_sysfs_link(const Host *h, PciDevice *d) {
        PcieLink current, capable;

        if (read_sysfs_link(h, d->address, "current_link_speed", "current_link_width", &current) < 0 ||
            read_sysfs_link(h, d->address, "max_link_speed", "max_link_width", &capable) < 0)
                return;
        if (!pcie_link_valid(&current) || !pcie_link_valid(&capable))
                return;
        d->current = current;
        d->capable = capable;
        d->link_source = PCIE_LINK_SYSFS;
}

#if HAVE_LIBPCI

/* libpci's default error handler prints and exits the process. Ours jumps back to the libpci call
 * that failed, which then returns -EIO. The jump target is per thread and only set while libpci
 * runs: this is the one piece of global state the library keeps, because libpci's handler has no
 * argument to carry it. */
static _Thread_local jmp_buf *pci_error_jump = NULL;

_printf_(1, 2) _noreturn_ static void pci_error_handler(char *msg, ...) {
        longjmp(*pci_error_jump, 1);
}

_printf_(1, 2) static void pci_quiet_handler(char *msg, ...) {
}

static const char *const pci_ids_paths[] = {
        "/usr/share/hwdata/pci.ids", /* Fedora */
        "/usr/share/misc/pci.ids",   /* Debian */
        "/usr/share/pci.ids",
};

/* pci.ids below the host root, so that fixture trees name their devices from their own list. */
static int find_pci_ids(const Host *h, char **ret) {
        for (size_t i = 0; i < ELEMENTSOF(pci_ids_paths); i++) {
                _cleanup_(freep) char *p = NULL;
                int r;

                r = host_path(h, pci_ids_paths[i], &p);
                if (r < 0)
                        return r;
                if (access(p, R_OK) >= 0) {
                        *ret = TAKE_PTR(p);
                        return 0;
                }
        }
        *ret = NULL;
        return 0;
}

typedef int (*PciSessionFunc)(struct pci_access *a, void *userdata);

typedef struct PciSession {
        struct pci_access *access;
        char *sysfs;
        char *ids;    /* NULL: libpci's default list */
        bool numeric; /* no list at all: numeric ids only */
        PciSessionFunc fn;
        void *userdata;
} PciSession;

/* Kept apart from its caller so that no local of that frame lives across the longjmp. */
static int pci_session_run(const PciSession *s) {
        jmp_buf jump, *saved = pci_error_jump;
        volatile int r = -EIO;

        pci_error_jump = &jump;
        if (setjmp(jump) == 0) {
                if (sym_pci_set_param(s->access, (char *) "sysfs.path", s->sysfs) < 0)
                        r = -EINVAL;
                else {
                        if (s->ids)
                                sym_pci_set_name_list_path(s->access, s->ids, /* to_be_freed= */ 0);
                        else if (s->numeric)
                                s->access->numeric_ids = 1;
                        sym_pci_init(s->access);
                        sym_pci_scan_bus(s->access);
                        r = s->fn(s->access, s->userdata);
                }
        } else
                r = -EIO;
        pci_error_jump = saved;
        return r;
}

/* Runs fn with a scanned bus. fn may be left half-way by the error handler; whatever it keeps in
 * userdata must be valid at every step, and the caller frees it on failure. */
static int pci_session(const Host *h, PciSessionFunc fn, void *userdata) {
        _cleanup_(freep) char *sysfs = NULL, *ids = NULL;
        PciSession s;
        int r;

        r = dlopen_pci(/* ret_error= */ NULL);
        if (r < 0)
                return r;
        r = host_path(h, "/sys/bus/pci", &sysfs);
        if (r < 0)
                return r;
        r = find_pci_ids(h, &ids);
        if (r < 0)
                return r;

        s = (PciSession){
                .access = sym_pci_alloc(),
                .sysfs = sysfs,
                .ids = ids,
                .numeric = !ids && !isempty(h->root),
                .fn = fn,
                .userdata = userdata,
        };
        if (!s.access)
                return -ENOMEM;
        s.access->error = pci_error_handler;
        s.access->warning = pci_quiet_handler;
        s.access->debug = pci_quiet_handler;
        s.access->method = PCI_ACCESS_SYS_BUS_PCI;
        /* Names come from the pci.ids below the host root only: not from udev's hwdb (the running
         * system's view), not from a cache in $HOME, never from the network. */
        s.access->id_lookup_mode = PCI_LOOKUP_NO_HWDB;

        r = pci_session_run(&s);
        sym_pci_cleanup(s.access);
        return r;
}

static void format_address(const struct pci_dev *d, char buf[static PCI_ADDRESS_MAX]) {
        snprintf(buf, PCI_ADDRESS_MAX, "%04x:%02x:%02x.%u", (unsigned) d->domain & 0xffffu, d->bus, d->dev, d->func);
}

static void read_config_link(struct pci_dev *d, PciDevice *ret) {
        struct pci_cap *cap;
        PcieLink current, capable;
        uint32_t lnkcap;
        uint16_t lnksta, lnkctl;

        cap = sym_pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
        if (!cap)
                return;
        lnkctl = sym_pci_read_word(d, cap->addr + PCI_EXP_LNKCTL);
        if (lnkctl != UINT16_MAX)
                ret->aspm_control = lnkctl & PCI_EXP_LNKCTL_ASPM;
        lnkcap = sym_pci_read_long(d, cap->addr + PCI_EXP_LNKCAP);
        lnksta = sym_pci_read_word(d, cap->addr + PCI_EXP_LNKSTA);
        if (lnkcap == UINT32_MAX || lnksta == UINT16_MAX)
                return; /* unreadable: all ones */

        capable = (PcieLink){
                .speed_mts = (lnkcap & PCI_EXP_LNKCAP_SPEED) < ELEMENTSOF(pcie_speed_codes)
                        ? pcie_speed_codes[lnkcap & PCI_EXP_LNKCAP_SPEED]
                        : 0,
                .width = (lnkcap & PCI_EXP_LNKCAP_WIDTH) >> 4,
        };
        current = (PcieLink){
                .speed_mts = (lnksta & PCI_EXP_LNKSTA_SPEED) < ELEMENTSOF(pcie_speed_codes)
                        ? pcie_speed_codes[lnksta & PCI_EXP_LNKSTA_SPEED]
                        : 0,
                .width = (lnksta & PCI_EXP_LNKSTA_WIDTH) >> 4,
        };
        if (!pcie_link_valid(&capable) || !pcie_link_valid(&current))
                return;
        ret->capable = capable;
        ret->current = current;
        ret->link_source = PCIE_LINK_CONFIG;
}

typedef struct GetData {
        const char *address;
        PciDevice *device;
} GetData;

static int get_device(struct pci_access *a, void *userdata) {
        GetData *g = userdata;

        for (struct pci_dev *d = a->devices; d; d = d->next) {
                char address[PCI_ADDRESS_MAX], name[PCI_NAME_MAX];

                format_address(d, address);
                if (!streq(address, g->address))
                        continue;

                g->device = calloc(1, sizeof(PciDevice));
                if (!g->device)
                        return -ENOMEM;
                g->device->aspm_control = -1;
                g->device->address = strdup(address);
                if (!g->device->address)
                        return -ENOMEM;

                sym_pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CAPS);
                g->device->id = (PciId){ .vendor = d->vendor_id, .device = d->device_id };
                g->device->class_id = d->device_class;
                if (sym_pci_lookup_name(
                            a,
                            name,
                            sizeof(name),
                            PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS,
                            d->vendor_id,
                            d->device_id)) {
                        g->device->name = strdup(name);
                        if (!g->device->name)
                                return -ENOMEM;
                }
                read_config_link(d, g->device);
                return 0;
        }
        return -ENODEV;
}

int pci_device_get(const Host *h, const char *address, PciDevice **ret) {
        _cleanup_(freep) char *driver_path = NULL;
        GetData g = { .address = address };
        int r;

        if (!address)
                return -EINVAL;
        r = pci_session(h, get_device, &g);
        if (r < 0) {
                pci_device_free(g.device);
                return r;
        }

        if (g.device->link_source == PCIE_LINK_UNKNOWN)
                pci_device_read_sysfs_link(h, g.device);
        if (asprintf(&driver_path, "/sys/bus/pci/devices/%s/driver", address) < 0) {
                pci_device_free(g.device);
                return -ENOMEM;
        }
        r = host_readlink_basename(h, driver_path, &g.device->driver);
        if (r == -ENOMEM) {
                pci_device_free(g.device);
                return r;
        }
        *ret = g.device;
        return 0;
}

typedef struct FindData {
        const PciId *ids;
        size_t n_ids;
        char **addresses;
} FindData;

static int find_ids(struct pci_access *a, void *userdata) {
        FindData *f = userdata;

        for (struct pci_dev *d = a->devices; d; d = d->next) {
                char address[PCI_ADDRESS_MAX];

                sym_pci_fill_info(d, PCI_FILL_IDENT);
                for (size_t i = 0; i < f->n_ids; i++)
                        if (f->ids[i].vendor == d->vendor_id && f->ids[i].device == d->device_id) {
                                format_address(d, address);
                                if (strv_extend(&f->addresses, address) < 0)
                                        return -ENOMEM;
                                break;
                        }
        }
        return 0;
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int pci_devices_find_ids(const Host *h, const PciId *ids, size_t n_ids, char ***ret) {
        FindData f = { .ids = ids, .n_ids = n_ids };
        int r;

        r = pci_session(h, find_ids, &f);
        if (r < 0) {
                strv_free(f.addresses);
                return r;
        }
        if (f.addresses)
                qsort(f.addresses, strv_length(f.addresses), sizeof(char *), compare_strings);
        *ret = f.addresses;
        return 0;
}

int pci_library_load(char **ret_error) {
        return dlopen_pci(ret_error);
}

#else

int pci_library_load(char **ret_error) {
        if (ret_error)
                *ret_error = strdup("halod was built without libpci");
        return -EOPNOTSUPP;
}

int pci_device_get(const Host *h, const char *address, PciDevice **ret) {
        /* Keeps the sysfs reader referenced, so that a build without libpci still checks it. */
        (void) pci_device_read_sysfs_link;
        return -EOPNOTSUPP;
}

int pci_devices_find_ids(const Host *h, const PciId *ids, size_t n_ids, char ***ret) {
        return -EOPNOTSUPP;
}

#endif

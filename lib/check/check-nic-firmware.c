/* SPDX-License-Identifier: MIT */
/* nic.firmware's decision: the running firmware (devlink's version, else ETHTOOL_GDRVINFO's string)
 * compared as a version with firmware-min, and a stored firmware that waits for activation. */
#include "basic/strv.h"
#include "basic/version.h"
#include "check/check-nic.h"

/* What updates the firmware of the driver's family; every family's tool when it is none of them. */
static char *firmware_update_hint(const char *driver) {
        NicFamily f = nic_family_from_driver(driver);
        _cleanup_(strv_freep) char **tools = NULL;
        _cleanup_(freep) char *joined = NULL;
        char *s;

        if (f != NIC_FAMILY_UNKNOWN)
                return asprintf(
                               &s,
                               "update the %s (%s)",
                               nic_family_firmware_name(f),
                               nic_family_firmware_tool(f)) < 0
                        ? NULL
                        : s;
        for (NicFamily k = NIC_FAMILY_UNKNOWN + 1; k < _NIC_FAMILY_MAX; k++)
                if (strv_extendf(
                            &tools, "%s for %s", nic_family_firmware_tool(k), nic_family_display_name(k)) < 0)
                        return NULL;
        joined = strv_join(tools, "; ");
        if (!joined)
                return NULL;
        return asprintf(&s, "update the NIC firmware with the vendor's tool (%s)", joined) < 0 ? NULL : s;
}

/* What one source says, for the decision they share. */
typedef struct Firmware {
        const char *where;          /* "enp194s0np0", or the PCI address without a netdev */
        const char *driver;         /* "ice" */
        const char *pci;            /* for `devlink dev reload`; NULL without devlink */
        const char *source;         /* "devlink", "ethtool" */
        const char *raw;            /* the string the version came from, for the messages and actual */
        const char *version;        /* "4.91" */
        const char *details;        /* "EETRACK 0x800214b5, combo image 1.3909.0" or NULL */
        const char *stored;         /* what the flash holds when it differs from what runs ("4.92", or
                                     * "EETRACK 0x80021111" for the same version rebuilt); NULL otherwise */
        const char *stored_version; /* the version of that, compared with firmware-min */
} Firmware;

/* "(EETRACK 0x800214b5, combo image 1.3909.0; devlink)" or "(ethtool)". */
static char *describe_source(const Firmware *f) {
        char *s;

        if (asprintf(&s, "(%s%s%s)", strempty(f->details), f->details ? "; " : "", f->source) < 0)
                return NULL;
        return s;
}

/* The stored firmware as PendingReboot lists it: a reboot activates it on every driver, devlink's
 * fw_activate without one. */
static int set_activation_pending(const Firmware *f, PortCheck *ret) {
        return port_check_set_pending_reboot(
                ret,
                "NIC firmware: %s, stored on %s (or `devlink dev reload pci/%s action fw_activate`)",
                f->stored,
                f->where,
                strna(f->pci));
}

static int judge(const Firmware *f, const char *firmware_min, PortCheck *ret) {
        _cleanup_(freep) char *expected = NULL, *about = NULL, *activate = NULL, *hint = NULL;
        bool stored_fixes;
        int r;

        if (firmware_min && asprintf(&expected, "≥ %s", firmware_min) < 0)
                return -ENOMEM;
        about = describe_source(f);
        if (!about)
                return -ENOMEM;
        /* ice activates a stored NVM with an EMP reset, mlx5 with a firmware reset: both are
         * devlink's fw_activate; a reboot does it for every driver. */
        if (f->stored &&
            asprintf(&activate, "reboot, or `devlink dev reload pci/%s action fw_activate`", strna(f->pci)) < 0)
                return -ENOMEM;

        /* E810 minors always have two digits ("%x.%02x"): "4.9" could mean 4.09 or 4.90 ("4.0" cannot
         * be wrong either way). */
        if (firmware_min && nic_family_from_driver(f->driver) == NIC_FAMILY_E810 &&
            version_minor_digits(firmware_min) == 1 && version_minor_digits(f->version) == 2 &&
            !strstr(firmware_min, ".0"))
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        f->raw,
                        "firmware %s %s, but nic.firmware-min \"%s\" is ambiguous: E810 NVM versions have "
                        "two minor digits (4.09, 4.90); write it as `ethtool -i %s` prints it",
                        f->version,
                        about,
                        firmware_min,
                        f->where);

        stored_fixes = f->stored && firmware_min && version_compare(f->stored_version, firmware_min) >= 0;
        if (firmware_min && version_compare(f->version, firmware_min) < 0) {
                hint = firmware_update_hint(f->driver);
                if (!hint)
                        return -ENOMEM;
                if (stored_fixes) {
                        r = port_check_set(
                                ret,
                                CHECK_FAIL,
                                expected,
                                f->raw,
                                "firmware %s < %s %s, but %s is already stored on the NIC: it only needs "
                                "activation (%s)",
                                f->version,
                                firmware_min,
                                about,
                                f->stored,
                                activate);
                        return r < 0 ? r : set_activation_pending(f, ret);
                }
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        f->raw,
                        "firmware %s < %s %s: %s",
                        f->version,
                        firmware_min,
                        about,
                        hint);
        }
        if (f->stored) {
                bool newer = version_compare(f->stored_version, f->version) >= 0;

                r = port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        f->raw,
                        "firmware %s%s%s %s; %s %s, activation pending (%s)%s",
                        f->version,
                        firmware_min ? " ≥ " : "",
                        strempty(firmware_min),
                        about,
                        newer ? "updated to" : "the flash holds",
                        f->stored,
                        activate,
                        firmware_min && !stored_fixes ? ", and that one is below nic.firmware-min" : "");
                /* One below nic.firmware-min is not what a reboot should bring. */
                if (r < 0 || (firmware_min && !stored_fixes))
                        return r;
                return set_activation_pending(f, ret);
        }
        if (firmware_min)
                return port_check_set(
                        ret, CHECK_PASS, expected, f->raw, "firmware %s ≥ %s %s", f->version, firmware_min, about);
        return port_check_set(ret, CHECK_PASS, NULL, f->raw, "firmware %s %s", f->version, about);
}

int check_nic_firmware_evaluate(
        const char *ifname, const char *driver, const char *fw_version, const char *firmware_min, PortCheck *ret) {
        _cleanup_(firmware_version_done) FirmwareVersion v = {};
        _cleanup_(freep) char *expected = NULL, *details = NULL;
        int r;

        if (firmware_min && asprintf(&expected, "≥ %s", firmware_min) < 0)
                return -ENOMEM;

        r = firmware_version_parse(strempty(fw_version), &v);
        if (r == -ENOMEM)
                return r;
        if (r == -ENODATA)
                return port_check_set(
                        ret,
                        firmware_min ? CHECK_FAIL : CHECK_SKIP,
                        expected,
                        fw_version,
                        "%s (driver %s) reports no firmware version%s",
                        ifname,
                        strna(driver),
                        firmware_min ? ": is nic.firmware-min meant for another NIC?" : "");
        if (r < 0)
                return port_check_set(
                        ret,
                        firmware_min ? CHECK_FAIL : CHECK_WARN,
                        expected,
                        fw_version,
                        "cannot find a version in %s's firmware string \"%s\" (ethtool)",
                        ifname,
                        strempty(fw_version));

        if (v.eetrack || v.combo || v.psid) {
                _cleanup_(strv_freep) char **l = NULL;

                if ((v.eetrack && strv_extendf(&l, "EETRACK %s", v.eetrack) < 0) ||
                    (v.combo && strv_extendf(&l, "combo image %s", v.combo) < 0) ||
                    (v.psid && strv_extendf(&l, "PSID %s", v.psid) < 0))
                        return -ENOMEM;
                details = strv_join(l, ", ");
                if (!details)
                        return -ENOMEM;
        }

        return judge(
                &(const Firmware){ .where = ifname,
                                   .driver = driver,
                                   .source = "ethtool",
                                   .raw = fw_version,
                                   .version = v.version,
                                   .details = details },
                firmware_min,
                ret);
}

/* nic.firmware from devlink's versions (devlink_info_firmware()) of the device at pci, which where
 * names ("enp194s0np0"): "(devlink)". A stored firmware that differs from the running one is a
 * warning, activation pending; a running one below firmware_min fails, and says so when the stored
 * one would pass. */
static int check_nic_firmware_evaluate_devlink(
        const char *where,
        const char *driver,
        const char *pci,
        const DevlinkFirmware *fw,
        const char *firmware_min,
        PortCheck *ret) {
        _cleanup_(strv_freep) char **l = NULL;
        _cleanup_(freep) char *expected = NULL, *details = NULL, *stored = NULL;
        bool ice_nvm = streq(fw->name, "fw.psid.api");

        if (!version_is_valid(fw->running)) {
                if (firmware_min && asprintf(&expected, "≥ %s", firmware_min) < 0)
                        return -ENOMEM;
                return port_check_set(
                        ret,
                        firmware_min ? CHECK_FAIL : CHECK_WARN,
                        expected,
                        fw->running,
                        "cannot read devlink's running %s \"%s\" of %s as a version",
                        fw->name,
                        fw->running,
                        where);
        }

        /* ice's bundle id is the NVM's EETRACK, and its option ROM the combo image, as `ethtool -i`
         * names them; the board id is ice's PBA or mlx5's PSID. */
        if ((fw->eetrack && strv_extendf(&l, "%s %s", ice_nvm ? "EETRACK" : "bundle", fw->eetrack) < 0) ||
            (fw->combo && strv_extendf(&l, "combo image %s", fw->combo) < 0) ||
            (fw->board_id && strv_extendf(&l, "%s %s", ice_nvm ? "board" : "PSID", fw->board_id) < 0))
                return -ENOMEM;
        if (l) {
                details = strv_join(l, ", ");
                if (!details)
                        return -ENOMEM;
        }

        if (devlink_firmware_pending(fw)) {
                if (fw->stored && !streq(fw->stored, fw->running))
                        stored = strdup(fw->stored);
                else if (asprintf(&stored, "EETRACK %s", fw->stored_eetrack) < 0)
                        stored = NULL;
                if (!stored)
                        return -ENOMEM;
        }

        return judge(
                &(const Firmware){
                        .where = where,
                        .driver = driver,
                        .pci = pci,
                        .source = "devlink",
                        .raw = fw->running,
                        .version = fw->running,
                        .details = details,
                        .stored = stored,
                        .stored_version = fw->stored ?: fw->running,
                },
                firmware_min,
                ret);
}

int check_nic_firmware_facts(
        const char *ifname, const char *pci, const NicFacts *facts, const char *firmware_min, PortCheck *ret) {
        DevlinkFirmware fw;

        if (nic_facts_firmware_source(facts, &fw) == NIC_FIRMWARE_SOURCE_DEVLINK)
                return check_nic_firmware_evaluate_devlink(
                        ifname ?: pci, nic_facts_driver(facts), pci, &fw, firmware_min, ret);
        if (!ifname)
                return -ENODATA;
        if (facts->info_error < 0)
                return facts->info_error;
        return check_nic_firmware_evaluate(
                ifname, facts->info.driver, facts->info.fw_version, firmware_min, ret);
}

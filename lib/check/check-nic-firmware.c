/* SPDX-License-Identifier: MIT */
/* nic.firmware's decision: the firmware string parsed and compared as a version with firmware-min. */
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

int check_nic_firmware_evaluate(
        const char *ifname, const char *driver, const char *fw_version, const char *firmware_min, PortCheck *ret) {
        _cleanup_(firmware_version_done) FirmwareVersion v = {};
        _cleanup_(freep) char *expected = NULL, *extra = NULL, *hint = NULL;
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
                        "cannot find a version in %s's firmware string \"%s\"",
                        ifname,
                        strempty(fw_version));

        if (v.eetrack || v.combo || v.psid) {
                _cleanup_(strv_freep) char **l = NULL;

                if ((v.eetrack && strv_extendf(&l, "EETRACK %s", v.eetrack) < 0) ||
                    (v.combo && strv_extendf(&l, "combo image %s", v.combo) < 0) ||
                    (v.psid && strv_extendf(&l, "PSID %s", v.psid) < 0))
                        return -ENOMEM;
                extra = strv_join(l, ", ");
                if (!extra)
                        return -ENOMEM;
        }

        if (!firmware_min)
                return port_check_set(
                        ret,
                        CHECK_PASS,
                        NULL,
                        fw_version,
                        "firmware %s%s%s%s",
                        v.version,
                        extra ? " (" : "",
                        strempty(extra),
                        extra ? ")" : "");

        /* E810 minors always have two digits ("%x.%02x"): "4.9" could mean 4.09 or 4.90 ("4.0" cannot
         * be wrong either way). */
        if (nic_family_from_driver(driver) == NIC_FAMILY_E810 && version_minor_digits(firmware_min) == 1 &&
            version_minor_digits(v.version) == 2 && !strstr(firmware_min, ".0"))
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        fw_version,
                        "firmware %s, but nic.firmware-min \"%s\" is ambiguous: E810 NVM versions have "
                        "two minor digits (4.09, 4.90); write it as `ethtool -i %s` prints it",
                        v.version,
                        firmware_min,
                        ifname);

        if (version_compare(v.version, firmware_min) < 0) {
                hint = firmware_update_hint(driver);
                if (!hint)
                        return -ENOMEM;
                return port_check_set(
                        ret, CHECK_FAIL, expected, fw_version, "firmware %s < %s: %s", v.version, firmware_min, hint);
        }
        return port_check_set(
                ret,
                CHECK_PASS,
                expected,
                fw_version,
                "firmware %s ≥ %s%s%s%s",
                v.version,
                firmware_min,
                extra ? " (" : "",
                strempty(extra),
                extra ? ")" : "");
}

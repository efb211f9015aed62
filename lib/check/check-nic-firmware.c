/* SPDX-License-Identifier: MIT */
/* nic.firmware's decision: the firmware string parsed and compared as a version with firmware-min. */
#include "basic/strv.h"
#include "basic/version.h"
#include "check/check-nic.h"

static const char *firmware_update_hint(const char *driver) {
        if (streq_ptr(driver, "ice"))
                return "update the E810 NVM (Intel's nvmupdate64e)";
        if (streq_ptr(driver, "mlx5_core"))
                return "update the ConnectX firmware (mlxfwmanager, or fwupd)";
        return "update the NIC firmware with the vendor's tool";
}

int check_nic_firmware_evaluate(
        const char *ifname, const char *driver, const char *fw_version, const char *firmware_min, PortCheck *ret) {
        _cleanup_(firmware_version_done) FirmwareVersion v = {};
        _cleanup_(freep) char *expected = NULL, *extra = NULL;
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
        if (streq_ptr(driver, "ice") && version_minor_digits(firmware_min) == 1 &&
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

        if (version_compare(v.version, firmware_min) < 0)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        fw_version,
                        "firmware %s < %s: %s",
                        v.version,
                        firmware_min,
                        firmware_update_hint(driver));
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

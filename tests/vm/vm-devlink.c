/* SPDX-License-Identifier: MIT */
/* vm-devlink BUS DEVICE [PARAM...]: what halod's devlink readers (lib/nic/devlink.c) get from the
 * running kernel, one "key value" line each, for the vm suite to compare with iproute2's
 * `devlink -j dev info` / `devlink -j dev param show` of the same device (netdevsim in the guests):
 *   driver NAME / serial S / version TYPE NAME VALUE / firmware NAME RUNNING STORED
 *   param NAME TYPE CMODE VALUE     (every mode the driver reported)
 *   error WHAT ERRNO-NAME MESSAGE   (and exit status 1) */
#include <stdio.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "nic/devlink.h"

static void print_param(const DevlinkParam *p) {
        for (int m = 0; m <= DEVLINK_PARAM_CMODE_MAX; m++) {
                const DevlinkParamValue *v = devlink_param_value(p, (enum devlink_param_cmode) m);

                if (!v)
                        continue;
                if (p->type == DEVLINK_PARAM_STRING)
                        printf("param %s %u %s %s\n",
                               p->name,
                               p->type,
                               devlink_param_cmode_to_string((enum devlink_param_cmode) m),
                               strna(v->string));
                else
                        printf("param %s %u %s %llu\n",
                               p->name,
                               p->type,
                               devlink_param_cmode_to_string((enum devlink_param_cmode) m),
                               (unsigned long long) v->number);
        }
}

int main(int argc, char *argv[]) {
        _cleanup_(devlink_info_done) DevlinkInfo info = {};
        _cleanup_(freep) char *error = NULL;
        DevlinkFirmware fw;
        int r, status = 0;

        if (argc < 3) {
                fprintf(stderr,
                        "Usage: vm-devlink BUS DEVICE [PARAM...]\n       vm-devlink --set BUS DEVICE PARAM true|false "
                        "[runtime|driverinit]\n");
                return 64;
        }
        /* halod's PARAM_SET (nic.enable-roce's request) on a bool parameter, in the runtime mode (ice's
         * enable_roce) or the driverinit mode (mlx5's; netdevsim's test1 has only that one). */
        if (streq(argv[1], "--set")) {
                if (argc != 6 && argc != 7)
                        return 64;
                r = devlink_set_param_bool(
                        argv[2],
                        argv[3],
                        argv[4],
                        streq(argv[5], "true"),
                        argc == 7 && streq(argv[6], "driverinit") ? DEVLINK_PARAM_CMODE_DRIVERINIT
                                                                  : DEVLINK_PARAM_CMODE_RUNTIME,
                        &error);
                if (r < 0) {
                        printf("error set %s %s %s\n", argv[4], devlink_strerror(r), strna(error));
                        return 1;
                }
                printf("set %s %s\n", argv[4], argv[5]);
                return 0;
        }
        r = devlink_get_info(argv[1], argv[2], &info, &error);
        if (r < 0) {
                printf("error info %s %s\n", devlink_strerror(r), strna(error));
                return 1;
        }
        printf("driver %s\n", strna(info.driver));
        printf("serial %s\n", strna(info.serial));
        for (size_t i = 0; i < info.n_versions; i++)
                printf("version %s %s %s\n",
                       devlink_version_type_to_string(info.versions[i].type),
                       info.versions[i].name,
                       info.versions[i].value);
        if (devlink_info_firmware(&info, &fw) >= 0)
                printf("firmware %s %s %s\n", fw.name, strna(fw.running), strna(fw.stored));
        for (int i = 3; i < argc; i++) {
                _cleanup_(devlink_param_done) DevlinkParam p = {};
                _cleanup_(freep) char *perror = NULL;

                r = devlink_get_param(argv[1], argv[2], argv[i], &p, &perror);
                if (r < 0) {
                        printf("error param %s %s %s\n", argv[i], devlink_strerror(r), strna(perror));
                        status = 1;
                        continue;
                }
                print_param(&p);
        }
        return status;
}

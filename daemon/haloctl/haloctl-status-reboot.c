/* SPDX-License-Identifier: MIT */
/* haloctl status's PendingReboot line (haloctl-status-reboot.h). */
#include <stdio.h>

#include "basic/strv.h"
#include "haloctl-status-reboot.h"
#include "haloctl.h"

int status_read_pending_reboot(sd_bus_message *reply, char ***ret) {
        _cleanup_(strv_freep) char **pairs = NULL;
        const char *id, *what;
        int r;

        r = sd_bus_message_enter_container(reply, 'v', "a(ss)");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(ss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(ss)", &id, &what)) > 0)
                if (strv_extend(&pairs, id) < 0 || strv_extend(&pairs, what) < 0)
                        return -ENOMEM;
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        strv_free(*ret);
        *ret = TAKE_PTR(pairs);
        return 0;
}

void status_print_pending_reboot(char **pairs) {
        if (strv_length(pairs) < 2) {
                printf("%10s: not required\n", "Reboot");
                return;
        }
        /* halod never reboots: the person at the terminal decides when. */
        printf("%10s: %srequired%s to bring into force (halod never reboots):\n",
               "Reboot",
               ansi_yellow(),
               ansi_normal());
        for (char **p = pairs; p[0] && p[1]; p += 2)
                printf("%10s  %s (%s)\n", "", p[1], p[0]);
}

void status_json_pending_reboot(JsonWriter *w, char **pairs) {
        json_key(w, "pending_reboot");
        json_begin_array(w);
        for (char **p = pairs; p && p[0] && p[1]; p += 2) {
                json_begin_object(w);
                json_kv_string(w, "check", p[0]);
                json_kv_string(w, "what", p[1]);
                json_end_object(w);
        }
        json_end_array(w);
}

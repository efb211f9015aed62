/* SPDX-License-Identifier: MIT */
/* nic.fw-lldp-agent and nic.enable-roce, set at halod's start (daemon/manager-nic-runtime.c). */
#pragma once

typedef struct Manager Manager;

/* Sets what differs of the NIC's runtime settings the profile asks for, in enforce mode; logs what it
 * set and what it could not. */
void manager_apply_nic_runtime(Manager *m);

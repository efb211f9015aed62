/* SPDX-License-Identifier: MIT */
/* Applying the host's qos part of a link's plan (plan/qos-plan-host.h): the RoCE ECN switches and
 * rdma_cm's default RoCE ToS, written by halod itself below the host root whatever the backend
 * (NetworkManager and networkd manage neither). */
#pragma once

#include "basic/host.h"
#include "plan/plan.h"

/* Writes lp's ECN changes, then its ToS (creating rdma_cm's directory for the device first when the
 * plan says so), reading each value back. On failure puts back what it changed (the ECN switches, the
 * ToS, the directory it created), returns negative errno, and says in ret_error what failed, where,
 * and whether the rollback worked. 0 when the plan has nothing of it. */
int apply_qos_host_link(const Host *h, const LinkPlan *lp, char **ret_error);

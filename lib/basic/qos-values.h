/* SPDX-License-Identifier: MIT */
/* How many traffic priorities 802.1Q has and how many DSCP code points the IP header: the sizes of
 * a profile's qos: tables and of what the NIC counts per priority. */
#pragma once

#define QOS_PRIORITIES 8U
#define QOS_DSCP_VALUES 64U

/* SPDX-License-Identifier: MIT */
/* rdma.mtu's decision: the port's active MTU against rdma.min-active-mtu and against what the netdev
 * MTU gives under the driver's rule. */
#include <stdio.h>

#include "check/check-rdma.h"

/* What an active MTU of rdma_mtu needs of the netdev MTU, with the driver's reason:
 * "4192 (mlx5 takes 96 bytes of RoCE headers off it)", "4096"; every known rule when unknown. */
static int netdev_mtu_needed_text(unsigned rdma_mtu, RoceMtuDriver driver, char **ret) {
        int r;

        if (driver == ROCE_MTU_DRIVER_UNKNOWN)
                r = asprintf(
                        ret,
                        "%u with irdma, %u with rxe, %u with mlx5",
                        roce_netdev_mtu_needed(rdma_mtu, ROCE_MTU_DRIVER_IRDMA),
                        roce_netdev_mtu_needed(rdma_mtu, ROCE_MTU_DRIVER_RXE),
                        roce_netdev_mtu_needed(rdma_mtu, ROCE_MTU_DRIVER_MLX5));
        else if (roce_mtu_headroom(driver) == 0)
                r = asprintf(ret, "%u", roce_netdev_mtu_needed(rdma_mtu, driver));
        else
                r = asprintf(
                        ret,
                        "%u (%s takes %u bytes of RoCE headers off it)",
                        roce_netdev_mtu_needed(rdma_mtu, driver),
                        roce_mtu_driver_to_string(driver),
                        roce_mtu_headroom(driver));
        return r < 0 ? -ENOMEM : 0;
}

/* An active MTU below rdma.min-active-mtu: what the netdev MTU would have to be. */
static int below_minimum(
        const char *device,
        RoceMtuDriver driver,
        uint32_t port,
        unsigned active_mtu,
        const char *ifname,
        unsigned netdev_mtu,
        unsigned min_active_mtu,
        const char *expected,
        const char *actual,
        PortCheck *ret) {
        _cleanup_(freep) char *needed = NULL;

        if (netdev_mtu == 0)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        actual,
                        "active MTU %u < %u (rdma.min-active-mtu) on %s port %u: raise the link's MTU",
                        active_mtu,
                        min_active_mtu,
                        device,
                        port);
        if (netdev_mtu_needed_text(min_active_mtu, driver, &needed) < 0)
                return -ENOMEM;
        return port_check_set(
                ret,
                CHECK_FAIL,
                expected,
                actual,
                "active MTU %u < %u (rdma.min-active-mtu) on %s port %u: %s's MTU is %u; an active MTU of %u "
                "needs a netdev MTU of at least %s (set the link's mtu, e.g. 9000)",
                active_mtu,
                min_active_mtu,
                device,
                port,
                ifname,
                netdev_mtu,
                min_active_mtu,
                needed);
}

int check_rdma_mtu_evaluate(
        const char *device,
        RoceMtuDriver driver,
        uint32_t port,
        unsigned active_mtu,
        unsigned max_mtu,
        const char *ifname,
        unsigned netdev_mtu,
        unsigned min_active_mtu,
        PortCheck *ret) {
        _cleanup_(freep) char *expected = NULL, *actual = NULL, *why = NULL, *less = NULL;
        unsigned low, high, headroom = roce_mtu_headroom(driver);

        if (active_mtu == 0)
                return port_check_set(
                        ret, CHECK_FAIL, NULL, NULL, "%s port %u reports no active MTU", device, port);
        if (asprintf(&actual, "%u", active_mtu) < 0)
                return -ENOMEM;
        if (min_active_mtu > 0 && asprintf(&expected, "≥ %u", min_active_mtu) < 0)
                return -ENOMEM;

        if (min_active_mtu > 0 && active_mtu < min_active_mtu)
                return below_minimum(
                        device, driver, port, active_mtu, ifname, netdev_mtu, min_active_mtu, expected, actual, ret);
        if (netdev_mtu == 0)
                return port_check_set(
                        ret, CHECK_PASS, expected, actual, "active MTU %u on %s port %u", active_mtu, device, port);

        /* A known driver follows its own rule exactly (so mlx5 and rxe give 2048 at 4150, irdma 4096);
         * for an unknown one any known rule's reading is right. */
        high = roce_mtu_for_netdev_mtu(netdev_mtu, driver == ROCE_MTU_DRIVER_UNKNOWN ? 0 : headroom);
        low = driver == ROCE_MTU_DRIVER_UNKNOWN ? roce_mtu_for_netdev_mtu(netdev_mtu, ROCE_HEADROOM_MAX)
                                                : high;
        if (max_mtu > 0) {
                low = low < max_mtu ? low : max_mtu;
                high = high < max_mtu ? high : max_mtu;
        }
        if (driver != ROCE_MTU_DRIVER_UNKNOWN && headroom > 0 &&
            (asprintf(
                     &why,
                     ", as %s takes %u bytes of RoCE headers off the netdev MTU",
                     roce_mtu_driver_to_string(driver),
                     headroom) < 0 ||
             asprintf(&less, ", less %s's %u bytes of RoCE headers", roce_mtu_driver_to_string(driver), headroom) <
                     0))
                return -ENOMEM;
        if (active_mtu < low || active_mtu > high)
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        actual,
                        "active MTU %u of %s port %u does not follow %s's MTU %u (expected %u%s): the RDMA "
                        "port missed an MTU change; set the link down and up again",
                        active_mtu,
                        device,
                        port,
                        ifname,
                        netdev_mtu,
                        high,
                        strempty(why));
        return port_check_set(
                ret,
                CHECK_PASS,
                expected,
                actual,
                "active MTU %u on %s port %u (%s MTU %u%s)",
                active_mtu,
                device,
                port,
                ifname,
                netdev_mtu,
                strempty(less));
}

/* SPDX-License-Identifier: MIT */
/* The RDMA path MTUs and their InfiniBand codes, from one table. */
#include "basic/rdma-mtu.h"

/* Indexed by code - 1. */
static const unsigned rdma_mtu_table[] = { 256, 512, 1024, 2048, 4096 };

unsigned rdma_mtu_to_bytes(int code) {
        if (code < 1 || (size_t) code > ELEMENTSOF(rdma_mtu_table))
                return 0;
        return rdma_mtu_table[code - 1];
}

int rdma_mtu_from_bytes(unsigned bytes) {
        for (size_t i = 0; i < ELEMENTSOF(rdma_mtu_table); i++)
                if (rdma_mtu_table[i] == bytes)
                        return (int) i + 1;
        return 0;
}

bool rdma_mtu_is_valid(unsigned bytes) {
        return rdma_mtu_from_bytes(bytes) > 0;
}

static const char *const roce_mtu_driver_table[_ROCE_MTU_DRIVER_MAX] = {
        [ROCE_MTU_DRIVER_IRDMA] = "irdma",
        [ROCE_MTU_DRIVER_RXE] = "rxe",
        [ROCE_MTU_DRIVER_MLX5] = "mlx5",
};

const char *roce_mtu_driver_to_string(RoceMtuDriver d) {
        return d >= 0 && d < _ROCE_MTU_DRIVER_MAX ? roce_mtu_driver_table[d] : NULL;
}

RoceMtuDriver roce_mtu_driver_from_name(const char *driver) {
        static const struct {
                const char *name;
                RoceMtuDriver driver;
        } names[] = {
                { "irdma", ROCE_MTU_DRIVER_IRDMA },  { "ice", ROCE_MTU_DRIVER_IRDMA },
                { "rdma_rxe", ROCE_MTU_DRIVER_RXE }, { "rxe", ROCE_MTU_DRIVER_RXE },
                { "mlx5_ib", ROCE_MTU_DRIVER_MLX5 }, { "mlx5_core", ROCE_MTU_DRIVER_MLX5 },
        };

        for (size_t i = 0; driver && i < ELEMENTSOF(names); i++)
                if (streq(driver, names[i].name))
                        return names[i].driver;
        return ROCE_MTU_DRIVER_UNKNOWN;
}

unsigned roce_mtu_headroom(RoceMtuDriver d) {
        switch (d) {
        case ROCE_MTU_DRIVER_IRDMA:
                return 0;
        case ROCE_MTU_DRIVER_RXE:
                return ROCE_HEADROOM_RXE;
        default:
                return ROCE_HEADROOM_MAX;
        }
}

unsigned roce_mtu_for_netdev_mtu(unsigned netdev_mtu, unsigned headroom) {
        return rdma_mtu_fitting(netdev_mtu > headroom ? netdev_mtu - headroom : 0);
}

unsigned roce_netdev_mtu_needed(unsigned rdma_mtu, RoceMtuDriver d) {
        return rdma_mtu + roce_mtu_headroom(d);
}

unsigned rdma_mtu_fitting(unsigned bytes) {
        for (size_t i = ELEMENTSOF(rdma_mtu_table); i > 0; i--)
                if (rdma_mtu_table[i - 1] <= bytes)
                        return rdma_mtu_table[i - 1];
        return 0;
}

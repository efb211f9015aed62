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

unsigned roce_mtu_for_netdev_mtu(unsigned netdev_mtu, bool strict) {
        unsigned room = netdev_mtu;

        if (strict)
                room = netdev_mtu > ROCE_HEADERS_MAX ? netdev_mtu - ROCE_HEADERS_MAX : 0;
        return rdma_mtu_fitting(room);
}

unsigned rdma_mtu_fitting(unsigned bytes) {
        for (size_t i = ELEMENTSOF(rdma_mtu_table); i > 0; i--)
                if (rdma_mtu_table[i - 1] <= bytes)
                        return rdma_mtu_table[i - 1];
        return 0;
}

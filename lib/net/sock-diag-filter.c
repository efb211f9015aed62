/* SPDX-License-Identifier: MIT */
/* The inet_diag bytecode that keeps the sockets bound to one of a few local IPv4 addresses. */
#include <linux/inet_diag.h>
#include <string.h>
#include <sys/socket.h>

#include "net/sock-diag.h"

/* One S_COND: the op, its host condition and the address that follows it (net/ipv4/inet_diag.c's
 * valid_hostcond()); a JMP is an op alone. */
#define COND_SIZE \
        (sizeof(struct inet_diag_bc_op) + sizeof(struct inet_diag_hostcond) + sizeof(struct in_addr))
#define JMP_SIZE sizeof(struct inet_diag_bc_op)

size_t sock_diag_filter_size(size_t n_locals) {
        return n_locals == 0 ? 0 : n_locals * COND_SIZE + (n_locals - 1) * JMP_SIZE;
}

/* The program is "C1 J C2 J ... Cn", the form the kernel's audit (inet_diag_bc_audit()) accepts for an
 * OR: it follows every op's yes offset from the start, and every no offset must land on an op it met.
 * Ci true: yes steps onto the J after it, whose no (a JMP never matches) leaps to the end: kept. Ci
 * false: no steps over that J onto C(i+1); past Cn it lands 4 bytes beyond the end: dropped. */
int sock_diag_filter_build(const struct in_addr *locals, size_t n_locals, uint8_t *buf, size_t size) {
        size_t total = sock_diag_filter_size(n_locals), at = 0;

        if (n_locals == 0 || !locals || !buf || size < total || total > UINT16_MAX)
                return -EINVAL;
        memset(buf, 0, total);
        for (size_t i = 0; i < n_locals; i++) {
                struct inet_diag_bc_op op = {
                        .code = INET_DIAG_BC_S_COND,
                        .yes = COND_SIZE,
                        .no = COND_SIZE + JMP_SIZE,
                };
                struct inet_diag_hostcond cond;

                /* memset, not an initializer: the two bytes of padding after prefix_len would go into
                 * the request uninitialised (valgrind saw them in the sendto()). */
                memset(&cond, 0, sizeof(cond));
                cond.family = AF_INET;
                cond.prefix_len = 32;
                cond.port = -1;
                memcpy(buf + at, &op, sizeof(op));
                memcpy(buf + at + sizeof(op), &cond, sizeof(cond));
                memcpy(buf + at + sizeof(op) + sizeof(cond), &locals[i], sizeof(struct in_addr));
                at += COND_SIZE;
                if (i + 1 == n_locals)
                        break;
                op = (struct inet_diag_bc_op){ .code = INET_DIAG_BC_JMP, .yes = JMP_SIZE, .no = total - at };
                memcpy(buf + at, &op, sizeof(op));
                at += JMP_SIZE;
        }
        return (int) total;
}

/* SPDX-License-Identifier: MIT */
/* vm-regmr DEVICE BYTES: what a workload can register. Opens DEVICE, allocates BYTES (touched, so
 * that the pages exist) and registers them with ibv_reg_mr(), as NCCL does with its buffers. Prints
 * "registered BYTES" and exits 0, or prints the error and exits 1 when the registration fails (ENOMEM
 * over RLIMIT_MEMLOCK for a process without CAP_IPC_LOCK), 2 when it could not get that far. The vm
 * suite runs it as a non-root user: root's CAP_IPC_LOCK ignores the limit. */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
        struct ibv_device **list, *device = NULL;
        struct ibv_context *context;
        struct ibv_pd *pd;
        struct ibv_mr *mr;
        size_t bytes;
        void *buffer;
        int n;

        if (argc != 3) {
                fprintf(stderr, "Usage: vm-regmr DEVICE BYTES\n");
                return 2;
        }
        bytes = strtoull(argv[2], NULL, 0);
        list = ibv_get_device_list(&n);
        for (int i = 0; list && i < n && !device; i++)
                if (strcmp(ibv_get_device_name(list[i]), argv[1]) == 0)
                        device = list[i];
        if (!device) {
                fprintf(stderr, "vm-regmr: no RDMA device %s\n", argv[1]);
                return 2;
        }
        context = ibv_open_device(device);
        pd = context ? ibv_alloc_pd(context) : NULL;
        if (!pd) {
                fprintf(stderr, "vm-regmr: cannot open %s: %s\n", argv[1], strerror(errno));
                return 2;
        }
        if (bytes == 0 || posix_memalign(&buffer, 4096, bytes) != 0) {
                fprintf(stderr, "vm-regmr: cannot allocate %zu bytes\n", bytes);
                return 2;
        }
        memset(buffer, 0x5a, bytes);
        mr = ibv_reg_mr(pd, buffer, bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
        if (!mr) {
                printf("ibv_reg_mr of %zu bytes failed: %s\n", bytes, strerror(errno));
                return 1;
        }
        printf("registered %zu\n", bytes);
        ibv_dereg_mr(mr);
        ibv_dealloc_pd(pd);
        ibv_close_device(context);
        ibv_free_device_list(list);
        free(buffer);
        return 0;
}

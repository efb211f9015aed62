/* SPDX-License-Identifier: MIT */
/* vm-rdma-capture DIR: records, from the running kernel, the raw RDMA netlink replies that halod's
 * parser (lib/rdma/rdma-qp-dump.h) reads, as fixtures for tests/data/rdma/: DIR/dev-get.bin (the
 * RDMA_NLDEV_CMD_GET dump), DIR/res-qp.bin (RDMA_NLDEV_CMD_RES_QP_GET, dumped per device: the
 * kernel's dumpit wants RDMA_NLDEV_ATTR_DEV_INDEX), and DIR/comm.txt ("PID COMM" of every process
 * the QP dump names: the kernel gives a user QP's pid, its name is /proc's). The messages are kept
 * byte for byte as recv() returned them, NLMSG_DONE included. Run as root in the vm suite's guests. */
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFSZ (64U * 1024U)

static int dump(struct mnl_socket *nl, uint16_t cmd, int dev_index, FILE *out, mnl_cb_t cb, void *data) {
        static char buf[BUFSZ];
        static unsigned seq = 1;
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
        ssize_t n;
        int r;

        nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
        nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
        nlh->nlmsg_seq = ++seq;
        if (dev_index >= 0)
                mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t) dev_index);
        if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
                return -errno;
        for (;;) {
                n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
                if (n < 0)
                        return -errno;
                if (fwrite(buf, 1, (size_t) n, out) != (size_t) n)
                        return -EIO;
                r = mnl_cb_run(buf, (size_t) n, seq, mnl_socket_get_portid(nl), cb, data);
                if (r <= MNL_CB_STOP)
                        return r < 0 ? -errno : 0;
        }
}

typedef struct {
        uint32_t index[64];
        size_t n;
} Devices;

static int dev_attr(const struct nlattr *a, void *data) {
        Devices *d = data;

        if (mnl_attr_get_type(a) == RDMA_NLDEV_ATTR_DEV_INDEX && d->n < 64)
                d->index[d->n++] = mnl_attr_get_u32(a);
        return MNL_CB_OK;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data) {
        return mnl_attr_parse(nlh, 0, dev_attr, data);
}

typedef struct {
        FILE *comm;
        int pids[1024];
        size_t n;
} Pids;

static void note_pid(Pids *p, uint32_t pid) {
        char path[64], name[64] = "";
        FILE *f;

        for (size_t i = 0; i < p->n; i++)
                if (p->pids[i] == (int) pid)
                        return;
        if (p->n < 1024)
                p->pids[p->n++] = (int) pid;
        snprintf(path, sizeof(path), "/proc/%u/comm", pid);
        f = fopen(path, "re");
        if (f) {
                if (fgets(name, sizeof(name), f))
                        name[strcspn(name, "\n")] = 0;
                fclose(f);
        }
        fprintf(p->comm, "%u %s\n", pid, name[0] ? name : "-");
}

static int qp_walk(const struct nlattr *a, void *data) {
        if (mnl_attr_get_type(a) == RDMA_NLDEV_ATTR_RES_PID)
                note_pid(data, mnl_attr_get_u32(a));
        else if (mnl_attr_get_type(a) == RDMA_NLDEV_ATTR_RES_QP || mnl_attr_get_type(a) == RDMA_NLDEV_ATTR_RES_QP_ENTRY)
                mnl_attr_parse_nested(a, qp_walk, data);
        return MNL_CB_OK;
}

static int qp_cb(const struct nlmsghdr *nlh, void *data) {
        return mnl_attr_parse(nlh, 0, qp_walk, data);
}

int main(int argc, char *argv[]) {
        char path[4096];
        Devices devs = {};
        Pids pids = {};
        struct mnl_socket *nl;
        FILE *f;
        int r;

        if (argc != 2) {
                fprintf(stderr, "usage: %s DIR\n", argv[0]);
                return 2;
        }
        nl = mnl_socket_open(NETLINK_RDMA);
        if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
                perror("NETLINK_RDMA");
                return 1;
        }
        snprintf(path, sizeof(path), "%s/dev-get.bin", argv[1]);
        f = fopen(path, "we");
        if (!f || (r = dump(nl, RDMA_NLDEV_CMD_GET, -1, f, dev_cb, &devs)) < 0) {
                fprintf(stderr, "RDMA_NLDEV_CMD_GET: %s\n", strerror(f ? -r : errno));
                return 1;
        }
        fclose(f);
        snprintf(path, sizeof(path), "%s/comm.txt", argv[1]);
        pids.comm = fopen(path, "we");
        snprintf(path, sizeof(path), "%s/res-qp.bin", argv[1]);
        f = fopen(path, "we");
        if (!f || !pids.comm)
                return 1;
        for (size_t i = 0; i < devs.n; i++) {
                r = dump(nl, RDMA_NLDEV_CMD_RES_QP_GET, (int) devs.index[i], f, qp_cb, &pids);
                if (r < 0) {
                        fprintf(stderr,
                                "RDMA_NLDEV_CMD_RES_QP_GET of device %u: %s\n",
                                devs.index[i],
                                strerror(-r));
                        return 1;
                }
        }
        fclose(f);
        fclose(pids.comm);
        printf("devices %zu pids %zu\n", devs.n, pids.n);
        mnl_socket_close(nl);
        return 0;
}

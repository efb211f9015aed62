/* SPDX-License-Identifier: MIT */
/* A private network namespace for a unit test that binds halod's fixed probe port (739 on 0.0.0.0):
 * two such tests at once (the suite's and a package build's check, say) would take it from each
 * other. */
#pragma once

#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/macro.h"
#include "tests.h"

/* As root: a new network namespace with lo up (127.0.0.0/8 as on the host). Call first in main(),
 * before any thread: the namespace is the calling thread's, and threads made later share it. Not
 * root: nothing (the tests' probe-port parts need root and say so). */
static inline void test_private_netns(void) {
        struct ifreq ifr = { .ifr_name = "lo" };
        _cleanup_(closep) int fd = -EBADF;

        if (geteuid() != 0)
                return;
        ASSERT_INT_EQ(unshare(CLONE_NEWNET), 0);
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ASSERT_TRUE(fd >= 0);
        ASSERT_INT_EQ(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
        ifr.ifr_flags |= IFF_UP;
        ASSERT_INT_EQ(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
}

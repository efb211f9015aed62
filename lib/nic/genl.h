/* SPDX-License-Identifier: MIT */
/* A generic netlink socket (libmnl): a family's id by name, requests matched by sequence number, and
 * the kernel's extended-ack text kept for the caller. */
#pragma once

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdint.h>

#include "basic/macro.h"

typedef struct Genl Genl;

/* Opens a NETLINK_GENERIC socket with extended and capped acks, in the caller's network namespace.
 * Returns 0 or the errno of socket()/bind() (-EAFNOSUPPORT where AF_NETLINK is not allowed). */
int genl_open(Genl **ret);
Genl *genl_close(Genl *g);
DEFINE_TRIVIAL_CLEANUP_FUNC(Genl *, genl_close);

/* A reply message of a request, with its generic netlink header; returns 0 or negative errno, which
 * ends the request with that error (the replies still in flight are read and dropped). */
typedef int (*GenlReplyFunc)(const struct nlmsghdr *nlh, void *userdata);

/* Every function below returns 0 or negative errno. When ret_error is not NULL it is set to the
 * kernel's extended-ack text on failure ("Device is busy resetting"), else to NULL. */

/* The id of the family called name (CTRL_CMD_GETFAMILY): -ENOENT when this kernel has no such
 * family (the module is not built, or the kernel is too old). */
int genl_resolve_family(Genl *g, const char *name, uint16_t *ret_id, char **ret_error);

/* Starts a request of family's cmd in the socket's buffer (NLM_F_REQUEST | flags); the caller adds
 * attributes with mnl_attr_put*() and hands it to genl_transact(). Valid until the next request. */
struct nlmsghdr *genl_request_new(Genl *g, uint16_t family, uint8_t cmd, uint8_t version, uint16_t flags);

/* Sends nlh and calls reply for each reply message (data messages; not the ack, not NLMSG_DONE),
 * until the ack, NLMSG_DONE or an error. Returns the kernel's errno as it answered it. */
int genl_transact(Genl *g, struct nlmsghdr *nlh, GenlReplyFunc reply, void *userdata, char **ret_error);

/* The command of a reply, from its genetlink header; the attributes follow at GENL_HDRLEN. Returns
 * -EBADMSG when the message is too short to hold the header. */
int genl_message_command(const struct nlmsghdr *nlh, uint8_t *ret_cmd);

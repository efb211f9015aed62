/* SPDX-License-Identifier: MIT */
/* haloctl env --format=hostfile|llama-rpc|ray: the cluster's launch files from the profile, and the
 * options that shape them (--slots, --port). */
#include <stdio.h>

#include "export/launch-files.h"
#include "haloctl.h"

int arg_launch_format = -1; /* a LaunchFormat; -1: --format=env, the variables */
unsigned arg_slots = 0;     /* 0: not given */
unsigned arg_port = 0;      /* 0: not given */

/* A whole decimal number in [min, max], or -ERANGE / -EINVAL. */
static int parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *ret) {
        unsigned long v;
        char *end;

        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (*end != '\0')
                return -EINVAL;
        if (errno == ERANGE || v < min || v > max)
                return -ERANGE;
        *ret = (unsigned) v;
        return 0;
}

int parse_env_format(const char *s) {
        LaunchFormat f;

        if (streq(s, "env")) {
                arg_launch_format = -1;
                return 0;
        }
        f = launch_format_from_string(s);
        if (f < 0) {
                fprintf(stderr, "Unknown --format '%s': expected env, hostfile, llama-rpc or ray.\n", s);
                return -EINVAL;
        }
        arg_launch_format = f;
        return 0;
}

int parse_slots(const char *s) {
        if (parse_unsigned(s, 1, 65535, &arg_slots) < 0) {
                fprintf(stderr, "Invalid --slots '%s': expected the processes per node, 1 to 65535.\n", s);
                return -EINVAL;
        }
        return 0;
}

int parse_port(const char *s) {
        if (parse_unsigned(s, 1, 65535, &arg_port) < 0) {
                fprintf(stderr, "Invalid --port '%s': expected a TCP port, 1 to 65535.\n", s);
                return -EINVAL;
        }
        return 0;
}

int check_env_format_options(const char *verb) {
        if (arg_launch_format >= 0 && !streq(verb, "env")) {
                fprintf(stderr, "--format is an option of env only: haloctl env --format=hostfile.\n");
                return -EINVAL;
        }
        if (arg_launch_format >= 0 && arg_cdi) {
                fprintf(stderr,
                        "--cdi prints the CDI spec, --format=%s a launch file: give one of them.\n",
                        launch_format_to_string(arg_launch_format));
                return -EINVAL;
        }
        if (arg_slots > 0 && arg_launch_format != LAUNCH_FORMAT_HOSTFILE) {
                fprintf(stderr, "--slots is an option of env --format=hostfile only.\n");
                return -EINVAL;
        }
        if (arg_port > 0 && arg_launch_format != LAUNCH_FORMAT_LLAMA_RPC &&
            arg_launch_format != LAUNCH_FORMAT_RAY) {
                fprintf(stderr, "--port is an option of env --format=llama-rpc and --format=ray only.\n");
                return -EINVAL;
        }
        return 0;
}

int print_launch_file(const Profile *p, const ProfileNode *self) {
        LaunchOptions o = {
                .format = arg_launch_format,
                .slots = arg_slots ?: 1,
                .port = arg_port
                        ?: (arg_launch_format == LAUNCH_FORMAT_RAY ? LAUNCH_RAY_PORT_DEFAULT
                                                                   : LAUNCH_LLAMA_RPC_PORT_DEFAULT),
        };
        _cleanup_(freep) char *text = NULL;
        char addr[INET_ADDRSTRLEN];
        bool complete = true;

        if (arg_json) {
                JsonWriter w;

                json_writer_init(&w, stdout, true);
                launch_file_dump_json(p, self, &o, &w);
                json_writer_finish(&w);
        } else {
                if (launch_file_render(p, self, &o, &text) < 0) {
                        fprintf(stderr, "Out of memory.\n");
                        return EX_OSERR;
                }
                fputs(text, stdout);
        }

        /* What is left out goes to stderr, so that the file on stdout stays usable. */
        for (size_t i = 0; i < p->n_nodes; i++)
                if (launch_node_address(&p->nodes[i], addr) < 0) {
                        fprintf(stderr, "node %s left out: it has no links in the profile.\n", p->nodes[i].name);
                        complete = false;
                }
        if (o.format == LAUNCH_FORMAT_LLAMA_RPC && p->n_nodes < 2) {
                fprintf(stderr, "No other node in the profile: the --rpc list is empty.\n");
                complete = false;
        }
        return complete ? EXIT_SUCCESS : EXIT_CHECK_WARN;
}

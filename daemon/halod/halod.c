/* SPDX-License-Identifier: MIT */
/* halod: the daemon's entry point — parse the command line, then run the Manager's event loop. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <sysexits.h>

#include "config.h"
#include "export/cdi.h"
#include "log.h"
#include "manager.h"

static const char *arg_profile = PROFILE_DEFAULT_PATH;
static const char *arg_node = NULL;
static const char *arg_backend = NULL;
static const char *arg_runtime_dir = NULL;
static const char *arg_cdi_dir = CDI_DIR_DEFAULT;

static void help(void) {
        printf("%s [OPTIONS]\n\n"
               "Apply a RoCE v2 cluster node's profile, keep checking it, and export its health on the\n"
               "system bus as io.halod1 (see halod(8)).\n\n"
               "Options:\n"
               "  -h --help            Show this help and exit\n"
               "     --version         Show the version and exit\n"
               "     --profile FILE    The profile (default: " PROFILE_DEFAULT_PATH
               ")\n"
               "     --node NAME       Act as this node of the profile (default: by hostname, then by address)\n"
               "     --backend NAME    networkmanager, networkd or netlink (default: networkmanager when it runs,\n"
               "                       else networkd when it runs, else netlink)\n"
               "     --runtime-dir DIR Write fabric.env there (default: $RUNTIME_DIRECTORY, else " HALOD_RUNTIME_DIR_DEFAULT
               ")\n"
               "     --cdi-dir DIR     Write the CDI spec " CDI_SPEC_FILE " there (default: " CDI_DIR_DEFAULT
               "; \"\": none)\n"
               "\nEnvironment: HALOD_LOG_LEVEL=debug|info|notice|warning|err\n",
               program_invocation_short_name);
}

static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_VERSION = 0x100,
                ARG_PROFILE,
                ARG_NODE,
                ARG_BACKEND,
                ARG_RUNTIME_DIR,
                ARG_CDI_DIR,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "profile", required_argument, NULL, ARG_PROFILE },
                { "node", required_argument, NULL, ARG_NODE },
                { "backend", required_argument, NULL, ARG_BACKEND },
                { "runtime-dir", required_argument, NULL, ARG_RUNTIME_DIR },
                { "cdi-dir", required_argument, NULL, ARG_CDI_DIR },
                {},
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("halod %s\n", PACKAGE_VERSION);
                        return 0;
                case ARG_PROFILE:
                        arg_profile = optarg;
                        break;
                case ARG_NODE:
                        arg_node = optarg;
                        break;
                case ARG_BACKEND:
                        if (!backend_by_name(optarg)) {
                                _cleanup_(freep) char *names = backend_names();

                                fprintf(stderr, "Unknown --backend '%s': expected %s.\n", optarg, strna(names));
                                return -EINVAL;
                        }
                        arg_backend = optarg;
                        break;
                case ARG_RUNTIME_DIR:
                        if (optarg[0] != '/') {
                                fprintf(stderr, "--runtime-dir needs an absolute path, got '%s'.\n", optarg);
                                return -EINVAL;
                        }
                        arg_runtime_dir = optarg;
                        break;
                case ARG_CDI_DIR:
                        if (!isempty(optarg) && optarg[0] != '/') {
                                fprintf(stderr,
                                        "--cdi-dir needs an absolute path (or \"\" for no CDI spec), got '%s'.\n",
                                        optarg);
                                return -EINVAL;
                        }
                        arg_cdi_dir = optarg;
                        break;
                case '?':
                        return -EINVAL;
                default:
                        abort();
                }

        if (optind < argc) {
                fprintf(stderr,
                        "%s takes no arguments (got '%s'). Try --help.\n",
                        program_invocation_short_name,
                        argv[optind]);
                return -EINVAL;
        }
        return 1;
}

static void parse_log_level(void) {
        static const char *const levels[] = {
                [LOG_ERR] = "err",   [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
                [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
        };
        const char *e = getenv("HALOD_LOG_LEVEL");

        for (size_t i = 0; e && i < ELEMENTSOF(levels); i++)
                if (levels[i] && streq(e, levels[i]))
                        log_set_max_level((int) i);
}

static const char *runtime_directory(void) {
        const char *e = getenv("RUNTIME_DIRECTORY");

        /* With several RuntimeDirectory= entries it is a colon-separated list: not ours to pick. */
        if (isempty(e) || e[0] != '/' || strchr(e, ':'))
                return HALOD_RUNTIME_DIR_DEFAULT;
        return e;
}

static int set_string(char **p, const char *s) {
        if (!s)
                return 0;
        *p = strdup(s);
        return *p ? 0 : -ENOMEM;
}

static int run(int argc, char *argv[]) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? EX_USAGE : EXIT_SUCCESS;
        parse_log_level();

        /* One malloc arena for every thread. glibc gives each thread that allocates (the job's worker,
         * the peer channel's responder, an RDMA session) an arena of its own, whose freed pages stay
         * resident until the next malloc_trim(); halod's threads seldom allocate at the same time, so
         * the contention an arena per thread avoids is not worth its memory (halod's RSS on an RDMA
         * node, bench/RESULTS.md). */
        (void) mallopt(M_ARENA_MAX, 1);

        r = manager_new(&m);
        if (r >= 0)
                r = set_string(&m->profile_path, arg_profile);
        if (r >= 0)
                r = set_string(&m->node_name, arg_node);
        if (r >= 0)
                r = set_string(&m->backend_name, arg_backend);
        if (r >= 0)
                /* systemd's RuntimeDirectory=halod sets $RUNTIME_DIRECTORY to /run/halod. */
                r = set_string(&m->runtime_dir, arg_runtime_dir ?: runtime_directory());
        if (r >= 0)
                r = set_string(&m->cdi_dir, isempty(arg_cdi_dir) ? NULL : arg_cdi_dir);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the manager: %m"), EXIT_FAILURE;

        r = manager_setup(m);
        if (r < 0)
                return EXIT_FAILURE;

        r = manager_start(m);
        if (r == -EINVAL)
                return EXIT_PROFILE_INVALID;
        if (r < 0)
                return EXIT_FAILURE;

        r = sd_event_loop(m->event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m"), EXIT_FAILURE;
        return r;
}

int main(int argc, char *argv[]) {
        return run(argc, argv);
}

/* SPDX-License-Identifier: MIT */
/* haloctl: the command-line entry point, options shared by every verb, and the verb table. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apply/backend.h"
#include "config.h"
#include "haloctl.h"

bool arg_json = false;
bool arg_force = false;
bool arg_adopt = false;
const char *arg_backend = NULL;
bool arg_cdi = false;
bool arg_list = false;
bool arg_rebaseline = false;
const char *arg_node = NULL;
const char *arg_root = NULL;
const char *arg_only = NULL;
const char *arg_undo = NULL;
const char *arg_boot_unit = NULL;
int arg_color = -1;

typedef struct Verb {
        const char *name;
        int (*run)(int argc, char *argv[]);
        const char *synopsis;
        const char *help;
} Verb;

static const Verb verbs[] = {
        { "validate", verb_validate, "[PROFILE]", "Check a profile and show what it asks of this node" },
        /* -- verb table -- */
        { "check", verb_check, "[PROFILE]", "Run every check once, without the daemon (a preflight)" },
        { "status", verb_status, "", "Show the running halod's health and every check (D-Bus)" },
        { "verify", verb_verify, "", "Have the running halod re-run every check now, then show status" },
        { "reload", verb_reload, "", "Have the running halod reload its profile (a broken one is rejected)" },
        { "plan", verb_plan, "[PROFILE]", "Show what apply would change on this node (changes nothing)" },
        { "apply", verb_apply, "[PROFILE]", "Configure this node's links as the profile says, then check them" },
        { "unadopt", verb_unadopt, "[PROFILE]", "Give links back to what apply --adopt took them from" },
        { "env", verb_env, "[PROFILE]", "Print the NCCL/RCCL and vLLM variables, or a launch file" },
        { "probe", verb_probe, "[NODE] [PROFILE]", "Latency and throughput to the other nodes (fabric)" },
        /* -- end verb table -- */
};

static void help(void) {
        printf("%s VERB [OPTIONS] [PROFILE]\n\n"
               "Provision and check the nodes of a RoCE v2 cluster (see haloctl(1)).\n"
               "PROFILE defaults to " PROFILE_DEFAULT_PATH
               ".\n\n"
               "Verbs:\n",
               program_invocation_short_name);
        size_t width = 0;
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (strlen(verbs[i].name) + 1 + strlen(verbs[i].synopsis) > width)
                        width = strlen(verbs[i].name) + 1 + strlen(verbs[i].synopsis);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                printf("  %s %-*s  %s\n",
                       verbs[i].name,
                       (int) (width - strlen(verbs[i].name) - 1),
                       verbs[i].synopsis,
                       verbs[i].help);
        printf("\nOptions:\n"
               "  -h --help          Show this help and exit\n"
               "     --version       Show the version and exit\n"
               "     --json          Print machine-readable JSON\n"
               "     --node NAME     Act as this node of the profile (default: by hostname, then by address)\n"
               "     --only PREFIXES Run only checks whose id starts with one of these (comma-separated);\n"
               "                     apply --only PARTS: hosts. (the /etc/hosts block), cdi (the CDI spec),\n"
               "                     networkd (the links with networkd), boot (the kernel command line),\n"
               "                     limits (memlock drop-ins), modules (modules-load.d): what\n"
               "                     halod-helper.service runs\n"
               "     --boot-unit UNIT\n"
               "                     apply --only with boot: have systemd start UNIT for the boot part\n"
               "                     (halod-helper.service passes halod-helper-boot.service)\n"
               "     --undo PARTS    apply: take back what apply wrote for these parts (boot, limits, modules)\n"
               "     --root DIR      Read /proc, /sys, /boot and /etc below DIR (testing and debugging)\n"
               "     --force         Apply even when the profile says mode: verify\n"
               "     --adopt         plan, apply: take the links over from the NetworkManager connections\n"
               "                     that hold them (kept renamed, autoconnect off; see unadopt)\n"
               "     --backend NAME  apply: networkmanager, networkd or netlink (default: networkmanager when\n"
               "                     it runs, else networkd when it runs, else netlink)\n"
               "     --cdi           env: print the Container Device Interface spec (halod.io/fabric)\n"
               "     --format FMT    env: env (the variables), hostfile (MPI), llama-rpc (llama.cpp --rpc),\n"
               "                     ray (RAY_ADDRESS of the first node, RAY_NODE_IP_ADDRESS)\n"
               "     --slots N       env --format=hostfile: slots= of every node (default 1)\n"
               "     --port PORT     env --format=llama-rpc (default 50052), ray (default 6379)\n"
               "     --list          check: list every check id and what it judges, run nothing\n"
               "     --rebaseline    probe: make this measurement the RDMA baseline (as root)\n"
               "     --color WHEN    Colour output: auto (on a terminal), always, never\n"
               "\nExit status: 0 success, 1 warnings or changes pending, 2 failed checks,\n"
               "64 usage error, 66 profile unreadable, 69 halod or NetworkManager unavailable,\n"
               "71 system error, "
               "77 permission denied, 78 invalid profile.\n");
}

static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_VERSION = 0x100,
                ARG_JSON,
                ARG_NODE,
                ARG_ROOT,
                ARG_ONLY,
                ARG_UNDO,
                ARG_BOOT_UNIT,
                ARG_FORCE,
                ARG_ADOPT,
                ARG_BACKEND,
                ARG_CDI,
                ARG_LIST,
                ARG_COLOR,
                ARG_FORMAT,
                ARG_SLOTS,
                ARG_PORT,
                ARG_REBASELINE,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "json", no_argument, NULL, ARG_JSON },
                { "node", required_argument, NULL, ARG_NODE },
                { "root", required_argument, NULL, ARG_ROOT },
                { "only", required_argument, NULL, ARG_ONLY },
                { "undo", required_argument, NULL, ARG_UNDO },
                { "boot-unit", required_argument, NULL, ARG_BOOT_UNIT },
                { "force", no_argument, NULL, ARG_FORCE },
                { "adopt", no_argument, NULL, ARG_ADOPT },
                { "backend", required_argument, NULL, ARG_BACKEND },
                { "cdi", no_argument, NULL, ARG_CDI },
                { "list", no_argument, NULL, ARG_LIST },
                { "color", required_argument, NULL, ARG_COLOR },
                { "format", required_argument, NULL, ARG_FORMAT },
                { "slots", required_argument, NULL, ARG_SLOTS },
                { "port", required_argument, NULL, ARG_PORT },
                { "rebaseline", no_argument, NULL, ARG_REBASELINE },
                {},
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("haloctl %s\n", PACKAGE_VERSION);
                        return 0;
                case ARG_JSON:
                        arg_json = true;
                        break;
                case ARG_NODE:
                        arg_node = optarg;
                        break;
                case ARG_ROOT:
                        arg_root = optarg;
                        break;
                case ARG_ONLY:
                        arg_only = optarg;
                        break;
                case ARG_UNDO:
                        arg_undo = optarg;
                        break;
                case ARG_BOOT_UNIT: {
                        /* A unit of systemd's own directories, by name: never a path or an option. */
                        const char *suffix = strrchr(optarg, '.');

                        if (!suffix || suffix == optarg || !streq(suffix, ".service") ||
                            strchr(optarg, '/') || optarg[0] == '-') {
                                fprintf(stderr,
                                        "Invalid --boot-unit '%s': expected the name of a service unit, such as "
                                        "halod-helper-boot.service.\n",
                                        optarg);
                                return -EINVAL;
                        }
                        arg_boot_unit = optarg;
                        break;
                }
                case ARG_FORCE:
                        arg_force = true;
                        break;
                case ARG_ADOPT:
                        arg_adopt = true;
                        break;
                case ARG_BACKEND:
                        if (!backend_by_name(optarg)) {
                                _cleanup_(freep) char *names = backend_names();

                                fprintf(stderr, "Unknown --backend '%s': expected %s.\n", optarg, strna(names));
                                return -EINVAL;
                        }
                        arg_backend = optarg;
                        break;
                case ARG_CDI:
                        arg_cdi = true;
                        break;
                case ARG_LIST:
                        arg_list = true;
                        break;
                case ARG_COLOR:
                        if (streq(optarg, "auto"))
                                arg_color = -1;
                        else if (streq(optarg, "always"))
                                arg_color = 1;
                        else if (streq(optarg, "never"))
                                arg_color = 0;
                        else {
                                fprintf(stderr,
                                        "Invalid --color value '%s': expected auto, always or never.\n",
                                        optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_FORMAT:
                        if (parse_env_format(optarg) < 0)
                                return -EINVAL;
                        break;
                case ARG_SLOTS:
                        if (parse_slots(optarg) < 0)
                                return -EINVAL;
                        break;
                case ARG_PORT:
                        if (parse_port(optarg) < 0)
                                return -EINVAL;
                        break;
                case ARG_REBASELINE:
                        arg_rebaseline = true;
                        break;
                case '?':
                        return -EINVAL;
                default:
                        abort();
                }
        return 1;
}

static int run(int argc, char *argv[]) {
        const char *verb;
        int r;

        r = parse_argv(argc, argv);
        if (r < 0)
                return EX_USAGE;
        if (r == 0)
                return EXIT_SUCCESS;

        if (optind >= argc) {
                fprintf(stderr, "Missing verb. Try '%s --help'.\n", program_invocation_short_name);
                return EX_USAGE;
        }
        verb = argv[optind];

        /* A takeover is too big a step to have an option do nothing where it does not apply. */
        if (arg_adopt && !streq(verb, "plan") && !streq(verb, "apply")) {
                fprintf(stderr,
                        "--adopt is an option of plan and apply only; haloctl unadopt gives links back.\n");
                return EX_USAGE;
        }

        if (arg_undo && (!streq(verb, "apply") || arg_only)) {
                fprintf(stderr, "--undo is an option of apply only, and takes the place of --only.\n");
                return EX_USAGE;
        }

        if (arg_boot_unit && (!streq(verb, "apply") || !arg_only)) {
                fprintf(stderr,
                        "--boot-unit is an option of apply --only (halod-helper.service's): it names the unit that "
                        "writes the boot part.\n");
                return EX_USAGE;
        }

        if (arg_backend && !streq(verb, "apply")) {
                fprintf(stderr, "--backend is an option of apply only (halod takes one too).\n");
                return EX_USAGE;
        }

        if (arg_cdi && !streq(verb, "env")) {
                fprintf(stderr, "--cdi is an option of env only: haloctl env --cdi prints the CDI spec.\n");
                return EX_USAGE;
        }
        if (arg_cdi && arg_json) {
                fprintf(stderr, "--cdi prints the CDI spec, which is JSON already: drop --json.\n");
                return EX_USAGE;
        }

        if (check_env_format_options(verb) < 0)
                return EX_USAGE;
        if (arg_list && !streq(verb, "check")) {
                fprintf(stderr,
                        "--list is an option of check only: haloctl check --list lists the check ids.\n");
                return EX_USAGE;
        }

        if (arg_rebaseline && !streq(verb, "probe")) {
                fprintf(stderr,
                        "--rebaseline is an option of probe only: haloctl probe --rebaseline NODE re-takes "
                        "the RDMA baseline.\n");
                return EX_USAGE;
        }

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, verb))
                        return verbs[i].run(argc - optind, argv + optind);

        fprintf(stderr, "Unknown verb '%s'. Try '%s --help'.\n", verb, program_invocation_short_name);
        return EX_USAGE;
}

int main(int argc, char *argv[]) {
        return run(argc, argv);
}

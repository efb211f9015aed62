/* SPDX-License-Identifier: MIT */
/* haloctl env: the NCCL/RCCL, Gloo and vLLM variables for this node's fabric, for eval or --json, or
 * with --cdi the CDI spec that halod keeps in /run/cdi. */
#include <stdio.h>

#include "basic/json-writer.h"
#include "basic/strv.h"
#include "export/cdi.h"
#include "export/fabric-env.h"
#include "haloctl.h"

/* The spec on stdout (what halod writes), what it leaves out on stderr. */
static int print_cdi(const NodeContext *c) {
        _cleanup_(freep) char *text = NULL;
        CdiSpec spec = {};
        int r;

        r = cdi_spec_derive(c, /* snapshot= */ NULL, &spec);
        if (r >= 0)
                r = cdi_spec_render(&spec, &text);
        if (r < 0) {
                cdi_spec_done(&spec);
                fprintf(stderr, "Failed to derive the CDI spec: %s\n", strerror(-r));
                return EX_OSERR;
        }
        fputs(text, stdout);

        STRV_FOREACH(p, spec.problems)
                fprintf(stderr, "%s\n", *p);
        for (size_t i = 0; i < spec.n_devices; i++)
                for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                        if (!spec.devices[i].env.values[v] && fabric_env_applies(&spec.devices[i].env, v))
                                fprintf(stderr,
                                        "%s: %s not set: %s\n",
                                        spec.devices[i].name,
                                        fabric_env_var_to_string(v),
                                        strna(spec.devices[i].env.reasons[v]));
        r = cdi_spec_complete(&spec) ? EXIT_SUCCESS : EXIT_CHECK_WARN;
        cdi_spec_done(&spec);
        return r;
}

int verb_env(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(freep) char *text = NULL;
        const ProfileNode *node = NULL;
        const char *path = profile_path_arg(argc, argv);
        Host host = { .root = arg_root ?: "" };
        FabricEnv env = {};
        NodeContext c;
        int r;

        if (argc > 2) {
                fprintf(stderr,
                        "env takes one PROFILE at most, got %d arguments. Try 'haloctl --help'.\n",
                        argc - 1);
                return EX_USAGE;
        }

        r = load_profile_and_node(path, &p, &node);
        if (r != 0)
                return r;

        if (arg_launch_format >= 0)
                return print_launch_file(p, node);
        c = (NodeContext){ .host = &host, .profile = p, .node = node };
        if (arg_cdi)
                return print_cdi(&c);
        r = fabric_env_derive(&c, /* snapshot= */ NULL, &env);
        if (r < 0) {
                fprintf(stderr, "Failed to derive the fabric environment: %s\n", strerror(-r));
                return EX_OSERR;
        }

        if (arg_json) {
                JsonWriter w;

                json_writer_init(&w, stdout, true);
                fabric_env_dump_json(&env, &w);
                json_writer_finish(&w);
        } else {
                r = fabric_env_render(&env, FABRIC_ENV_FORMAT_SHELL, &text);
                if (r < 0) {
                        fabric_env_done(&env);
                        fprintf(stderr, "Out of memory.\n");
                        return EX_OSERR;
                }
                fputs(text, stdout);
        }

        /* What is missing goes to stderr, so that eval "$(haloctl env)" still works. */
        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                if (!env.values[v] && fabric_env_applies(&env, v))
                        fprintf(stderr, "%s not set: %s\n", fabric_env_var_to_string(v), strna(env.reasons[v]));

        r = fabric_env_complete(&env) ? EXIT_SUCCESS : EXIT_CHECK_WARN;
        fabric_env_done(&env);
        return r;
}

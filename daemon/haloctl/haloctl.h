/* SPDX-License-Identifier: MIT */
/* haloctl's shared command-line state and the verbs, one file per group of verbs. */
#pragma once

#include <stdbool.h>
#include <sysexits.h>

#include "apply/adopt.h"
#include "basic/json-writer.h"
#include "check/check.h"
#include "profile/profile.h"

/* The only globals: what the command line said. */
extern bool arg_json;
extern bool arg_force;
extern bool arg_adopt;
extern const char *arg_backend; /* apply --backend; NULL: backend_pick() */
extern bool arg_cdi;
extern bool arg_list;       /* check --list */
extern bool arg_rebaseline; /* probe --rebaseline */
extern const char *arg_node;
extern const char *arg_root;
extern const char *arg_only;
extern const char *arg_undo;
extern const char *arg_boot_unit;
extern int arg_color; /* -1 auto (on a terminal), 0 never, 1 always */

/* Exit codes shared by every verb (see haloctl(1)). */
#define EXIT_CHECK_WARN 1
#define EXIT_CHECK_FAIL 2

/* ANSI sequences, empty when colour is off. */
const char *ansi_green(void);
const char *ansi_yellow(void);
const char *ansi_red(void);
const char *ansi_grey(void);
const char *ansi_bold(void);
const char *ansi_normal(void);

/* PROFILE argument or the default path. */
const char *profile_path_arg(int argc, char *argv[]);
/* Loads the profile and selects this machine's node (by --node, hostname, local address); on failure
 * prints why and returns the exit code. */
int load_profile_and_node(const char *path, Profile **ret_profile, const ProfileNode **ret_node);

/* One checks table or JSON document, shared by check, plan and status. */
void print_checks(const CheckList *l);
/* With "pending_reboot": pairs of check id and what a reboot brings into force (NULL: none). */
void print_checks_json(const CheckList *l, char **pending_reboot);
/* The "checks" member of a JSON object: every check, in the order they ran. */
void json_checks(JsonWriter *w, const CheckList *l);
int exit_code_for_checks(const CheckList *l);

int verb_validate(int argc, char *argv[]);
/* -- verbs -- */
/* daemon/haloctl/haloctl-check.c: every check once, without a daemon. */
int verb_check(int argc, char *argv[]);
/* daemon/haloctl/haloctl-check-list.c: check --list, every check id of the registry. */
int check_list_ids(void);
/* daemon/haloctl/haloctl-bus.c: verbs that talk to a running halod over D-Bus. */
int verb_status(int argc, char *argv[]);
int verb_verify(int argc, char *argv[]);
int verb_reload(int argc, char *argv[]);
/* Asks the running halod to apply its profile (Apply()) and shows the status; EX_UNAVAILABLE after
 * saying so when halod is not running. For `haloctl apply` to call when halod_is_running(). */
int bus_call_apply(void);
bool halod_is_running(void);
/* daemon/haloctl/haloctl-apply.c: the network part of the profile, locally. */
int verb_plan(int argc, char *argv[]);
int verb_apply(int argc, char *argv[]);
/* daemon/haloctl/haloctl-adopt.c: taking links over from a user's NetworkManager connections, giving them back. */
int verb_unadopt(int argc, char *argv[]);
/* daemon/haloctl/haloctl-env.c, daemon/haloctl/haloctl-probe.c: the fabric environment and the peer probe. */
int verb_env(int argc, char *argv[]);
int verb_probe(int argc, char *argv[]);
/* -- end verbs -- */

/* daemon/haloctl/haloctl-env-launch.c: env --format=hostfile|llama-rpc|ray and its options. */
extern int arg_launch_format; /* a LaunchFormat (export/launch-files.h); -1: --format=env */
extern unsigned arg_slots;    /* env --slots; 0: not given (1) */
extern unsigned arg_port;     /* env --port; 0: not given (the format's default) */
/* Each parses its option into arg_*, or says what is wrong and returns -EINVAL. */
int parse_env_format(const char *s);
int parse_slots(const char *s);
int parse_port(const char *s);
/* Refuses the launch-file options where they do not apply, saying why; -EINVAL then. */
int check_env_format_options(const char *verb);
/* Prints the launch file arg_launch_format for self, or its JSON; the exit code. */
int print_launch_file(const Profile *p, const ProfileNode *self);

/* For plan (daemon/haloctl/haloctl-adopt.c): what apply --adopt would take over on the plan's links; 0, or
 * the exit code after saying why (a failure to ask is only a warning without --adopt). */
int plan_find_adoptions(const Plan *plan, Adoptions *ret);
/* With --adopt the takeovers, before the plan's lines; without, a hint for each connection that makes
 * apply refuse, after them. */
int plan_add_adoption_lines(const Adoptions *l, char ***lines);
bool adoptions_pending(const Adoptions *l) _pure_;
/* The "adopt" member of plan's JSON object: what apply --adopt would take over. */
void json_adoptions(JsonWriter *w, const Adoptions *l);

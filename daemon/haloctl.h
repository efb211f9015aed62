/* SPDX-License-Identifier: MIT */
/* haloctl's shared command-line state and the verbs, one file per group of verbs. */
#pragma once

#include <stdbool.h>
#include <sysexits.h>

#include "check.h"
#include "profile.h"

/* The only globals: what the command line said. */
extern bool arg_json;
extern bool arg_force;
extern const char *arg_node;
extern const char *arg_root;
extern const char *arg_only;
extern int arg_color; /* -1 auto (on a terminal), 0 never, 1 always */

/* Exit codes shared by every verb (see haloctl(1)). */
#define EXIT_CHECK_WARN 1
#define EXIT_CHECK_FAIL 2

bool use_color(void);
/* ANSI sequences, empty when colour is off. */
const char *ansi_green(void);
const char *ansi_yellow(void);
const char *ansi_red(void);
const char *ansi_grey(void);
const char *ansi_bold(void);
const char *ansi_normal(void);

/* PROFILE argument or the default path. */
const char *profile_path_arg(int argc, char *argv[]);
/* Loads the profile; on failure prints every error to stderr and returns -EX_CONFIG-style status:
 * the exit code to use (EX_CONFIG or EX_NOINPUT), else 0 and *ret. */
int load_profile_or_report(const char *path, Profile **ret);
/* Loads the profile and selects this machine's node (by --node, hostname, local address); on failure
 * prints why and returns the exit code. */
int load_profile_and_node(const char *path, Profile **ret_profile, const ProfileNode **ret_node);

/* One checks table or JSON document, shared by check, plan and status. */
void print_checks(const CheckList *l);
void print_checks_json(const CheckList *l);
int exit_code_for_checks(const CheckList *l);

int verb_validate(int argc, char *argv[]);
/* -- verbs -- */
/* -- end verbs -- */

/* SPDX-License-Identifier: MIT */
/* haloctl validate: placeholder until lib/profile lands. */
#include "haloctl.h"

int verb_validate(int argc, char *argv[]) {
        fprintf(stderr, "validate: not implemented yet\n");
        return EX_SOFTWARE;
}

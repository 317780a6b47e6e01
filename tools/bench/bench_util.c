/* SPDX-License-Identifier: MIT */
/* What the benches share (bench.h), apart from the dispatcher: a bench
 * calls these, the dispatcher calls the benches. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

int bench_help(const cli_args *spec, const char *about)
{
    int pad = (int)spec->help_column - (int)strlen("  -h, --help");
    fputs(about, stdout);
    cli_args_print_options(stdout, spec);
    fprintf(stdout, "  -h, --help%*sthis text\n", pad > 1 ? pad : 1, "");
    return CLI_OK;
}

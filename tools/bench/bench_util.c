/* SPDX-License-Identifier: MIT */
/* What the benches share (bench.h), apart from the dispatcher: a bench
 * calls these, the dispatcher calls the benches. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

int bench_parse_size(const char *me, const char *usage, const char *text, uint32_t max, uint32_t *w, uint32_t *h)
{
    const char *x = strchr(text, 'x');
    char first[16];
    uint64_t a = 0, b = 0;
    if (x != NULL && x != text && (size_t)(x - text) < sizeof first) {
        memcpy(first, text, (size_t)(x - text));
        first[x - text] = '\0';
        if (!cli_parse_u64(first, max, &a) || !cli_parse_u64(x + 1, max, &b)) {
            a = 0;
        }
    }
    if (a == 0 || b == 0) {
        return cli_usage_error(me, usage, "--size '%s': expected WxH, each 1..%u", text, max);
    }
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return CLI_OK;
}

int bench_tmp_dir(const char *me, const char *stem, char *dir, size_t cap, void (*cleanup)(void))
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, cap, "%s/%s-XXXXXX", tmp != NULL && tmp[0] ? tmp : "/tmp", stem);
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "%s: %s: cannot create a temporary folder: %s\n", me, dir, strerror(errno));
        dir[0] = '\0';
        return CLI_IO;
    }
    if (atexit(cleanup) != 0) {
        cleanup();
        fprintf(stderr, "%s: atexit refused the temporary folder's removal\n", me);
        return CLI_FAILED;
    }
    return CLI_OK;
}

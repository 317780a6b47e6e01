/* sluice bench render: vertex pulling from the page pool (sluice/render.h)
 * against a classic pipeline of ordinary vertex and index buffers, on the
 * Vulkan backend, timed on the GPU with timestamp queries. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define USAGE "usage: sluice bench render [--synthetic city | PACK] [--size WxH] [--frames N] [--repeat R]\n"
#define ME "sluice bench render"

int bench_render(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CLI_OK;
    }
    fprintf(stderr, ME ": not built yet\n");
    return CLI_FAILED;
}

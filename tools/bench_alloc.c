/* placeholder replaced below */
#include "cli.h"
int cmd_bench(int argc, char **argv) { (void)argc; (void)argv; return CLI_USAGE; }

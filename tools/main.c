/* SPDX-License-Identifier: MIT */
/* sluice: the host CLI. */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sluice <command> [options]\n"
               "\n"
               "commands:\n"
               "  budget check FILE [--json] [--this-machine]\n"
               "                                    validate a budget profile and print its memory report\n"
               "  budget header FILE [-o OUT] [--name NAME]\n"
               "                                    emit the profile as a C header for firmware\n"
               "  budget fit PROFILE PACK [--trace FILE | --camera PATH] [--json]\n"
               "                                    offline: does the profile hold the workload without\n"
               "                                    fallback (0), only with fallback or deferral (4), or not (5)\n"
               "  inspect FILE [--verify] [--json] [--pread]\n"
               "                                    a pack's header, tables, chunk statistics per codec\n"
               "                                    and LOD, page fill; --verify loads and checks every chunk\n");
    bench_print_help(f);
    fprintf(f, "  pack INPUT.gltf|.glb -o OUT.pack [options]\n"
               "  pack --synthetic city --size SIZE [--seed N] -o OUT.pack\n"
               "                                    build a pack (sluice pack --help: options)\n"
               "  pack ... --part K/N -o OUT.part    part K of N of that pack: its bundles b with b %% N == K - 1\n"
               "  merge PART... -o OUT.pack          join every part of a pack into the pack itself, byte for\n"
               "                                    byte what pack writes (sluice merge --help)\n"
               "  run PACK [--profile FILE] [--trace FILE | --camera fly|orbit|teleport|closeup] [--backend B]\n"
               "      [--json] [--svg FILE] [--chrome-trace FILE] [--evict-log FILE] [--save-trace FILE]\n"
               "                                    stream a workload frame by frame under the profile's\n"
               "                                    budgets and judge it (sluice run --help: options;\n"
               "                                    exit 4 when the verdict fails)\n"
               "  render PACK -o DIR [run's options] [--size WxH] [--every K] [--tint lod]\n"
               "                                    stream as run does on Vulkan and draw every frame with\n"
               "                                    the reference renderer: PNG frames and a contact sheet\n"
               "                                    (sluice render --help: options)\n"
               "  version, --version, -V            print the library version\n"
               "  help                              this text (COMMAND --help: that command's options)\n"
               "\n"
               "exit codes: 0 ok, 1 input judged bad, 2 bad command line, 3 file not readable or writable\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "budget") == 0) {
        return cmd_budget(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "inspect") == 0) {
        return cmd_inspect(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "bench") == 0) {
        return cmd_bench(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "pack") == 0) {
        return cmd_pack(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "merge") == 0) {
        return cmd_merge(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "run") == 0) {
        return cmd_run(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "render") == 0) {
        return cmd_render(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        unsigned v = slc_version();
        printf("sluice %u.%u.%u\n", v / 10000, v / 100 % 100, v % 100);
        return CLI_OK;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    fprintf(stderr, "sluice: unknown command '%s'\n", cmd);
    usage(stderr);
    return CLI_USAGE;
}

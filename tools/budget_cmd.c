/* SPDX-License-Identifier: MIT */
/* sluice budget: check a profile and print its memory report; emit it as a C header. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "cli.h"
#include "sluice/host_store.h"
#include "sluice/pack.h"
#include "sluice/platform.h"

#define CHECK_USAGE "usage: sluice budget check FILE [--json] [--this-machine]\n"
#define HEADER_USAGE "usage: sluice budget header FILE [-o OUT] [--name NAME]\n"

static int check_help(const cli_args *spec)
{
    fputs(CHECK_USAGE "\n"
                      "Validates a budget profile, maps its memory block once, carves it into the\n"
                      "profile's arenas and prints the memory report.\n"
                      "\n",
          stdout);
    cli_args_print_options(stdout, spec);
    fputs("  -h, --help      this text\n"
          "\n"
          "The memory block is host memory on every target, and this command maps it to\n"
          "build the report: a block larger than this machine's physical memory, or than\n"
          "what the address-space limit (RLIMIT_AS) leaves, is refused (exit 1) before\n"
          "anything is mapped. The page pool (gpu/pool) is device memory on a GPU target,\n"
          "so a profile written for a larger device is still checked here: a pool that\n"
          "this machine could not hold in host memory (as `sluice run --backend host`\n"
          "would) gets a note on stderr and exit 0, unless --this-machine asks whether\n"
          "the profile runs here.\n"
          "\n"
          "exit codes: 0 ok, 1 a bad profile or memory this machine cannot give,\n"
          "2 bad command line, 3 the file cannot be read\n",
          stdout);
    return CLI_OK;
}

static int header_help(const cli_args *spec)
{
    fputs(HEADER_USAGE "\n"
                       "Emits the profile as a C header for firmware that cannot read files: the\n"
                       "profile as static const data, the size and alignment of its memory block and\n"
                       "of the host backend's page storage.\n"
                       "\n",
          stdout);
    cli_args_print_options(stdout, spec);
    fputs("  -h, --help   this text\n"
          "\n"
          "exit codes: 0 ok, 1 a bad profile, 2 bad command line, 3 a file cannot be read\n"
          "or written\n",
          stdout);
    return CLI_OK;
}

static int budget_check(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0, this_machine = 0;
    const cli_opt table[] = {
        {.name = "--json", .kind = CLI_OPT_FLAG, .dest = &json, .help = "the report as one JSON object on stdout"},
        {.name = "--this-machine",
         .kind = CLI_OPT_FLAG,
         .dest = &this_machine,
         .help = "also fail (exit 1) when the page pool does not fit this machine"},
    };
    size_t operands = 0;
    const cli_args spec = {.me = "sluice budget check",
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = &path,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .unknown = "unexpected argument '{value}'",
                           .help_column = 18};
    if (cli_wants_help(argc, argv)) {
        return check_help(&spec);
    }
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc != CLI_OK) {
        return rc;
    }
    if (path == NULL) {
        fputs(CHECK_USAGE, stderr);
        return CLI_USAGE;
    }
    slc_profile p;
    tool_profile_sections sec;
    rc = cli_load_profile_sections(path, &p, &sec);
    if (rc != CLI_OK) {
        return rc;
    }
    slc_memory_requirements req;
    if (slc_memory_calculate_requirements(&p, &req) != SLC_OK) {
        fprintf(stderr, "%s: the profile needs more memory than this machine can address\n", path);
        return CLI_FAILED;
    }
    /* Before mapping: the block is mapped here whatever the target; the pool
     * only by `sluice run --backend host` (see check_help). */
    char why[512];
    if (cli_check_machine_memory(&p, req.block_size, 0, 0, why, sizeof why) != 0) {
        fprintf(stderr, "sluice budget check: %s\n", why);
        return CLI_FAILED;
    }
    size_t fp = slc_host_store_footprint(p.page_count, p.page_size);
    uint64_t pool = fp != 0 ? fp : (uint64_t)p.page_count * p.page_size;
    if (cli_check_machine_memory(&p, req.block_size, pool, 0, why, sizeof why) != 0) {
        if (this_machine) {
            fprintf(stderr, "sluice budget check: %s\n", why);
            return CLI_FAILED;
        }
        fprintf(stderr,
                "sluice budget check: note: %s; `sluice run --backend host` would refuse it here "
                "(--this-machine: a failure)\n",
                why);
    }
    /* Build the real thing: map the block once, carve it, report. */
    slc_platform_block block;
    if (slc_platform_block_map(req.block_size, SLC_PLATFORM_BLOCK_DEFAULT, &cli_stderr_logger, &block) != SLC_OK) {
        return CLI_FAILED;
    }
    slc_memory *m = NULL;
    slc_status s = slc_memory_init(block.base, block.size, &p, &cli_stderr_logger, &m);
    if (s != SLC_OK) {
        slc_platform_block_unmap(&block);
        return CLI_FAILED;
    }
    if (json) {
        report_memory_json(stdout, &p, &sec, &req, m);
    } else {
        report_memory_text(stdout, &p, &sec, &req, m);
    }
    slc_memory_deinit(m);
    slc_platform_block_unmap(&block);
    return CLI_OK;
}

/* "xr-headset" -> "xr_headset" (lower) or "XR_HEADSET" (upper). */
static void c_ident(const char *name, char *out, size_t cap, int upper)
{
    size_t n = 0;
    for (; name[n] != '\0' && n + 1 < cap; n++) {
        char c = name[n];
        c = isalnum((unsigned char)c) ? c : '_';
        out[n] = (char)(upper ? toupper((unsigned char)c) : tolower((unsigned char)c));
    }
    out[n] = '\0';
}

/* The C name of an slc_eviction_policy value, for the header. */
static const char *eviction_constant(uint32_t policy)
{
    return policy == SLC_EVICTION_PRIORITY  ? "SLC_EVICTION_PRIORITY"
           : policy == SLC_EVICTION_PREDICT ? "SLC_EVICTION_PREDICT"
                                            : "SLC_EVICTION_LRU";
}
static int budget_header(int argc, char **argv)
{
    const char *path = NULL, *out_path = NULL, *name = NULL;
    const cli_opt table[] = {
        {.name = "-o",
         .kind = CLI_OPT_STRING,
         .dest = &out_path,
         .arg = "OUT",
         .help = "write to OUT (through a temporary renamed over OUT when\n"
                 "complete: a failed write leaves an existing OUT as it was);\n"
                 "default stdout"},
        {.name = "--name",
         .kind = CLI_OPT_STRING,
         .dest = &name,
         .arg = "NAME",
         .help = "the C identifier stem (default: the profile's name)"},
    };
    size_t operands = 0;
    const cli_args spec = {.me = "sluice budget header",
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = &path,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .missing = "unexpected argument '{opt}'",
                           .unknown = "unexpected argument '{value}'",
                           .help_column = 15};
    if (cli_wants_help(argc, argv)) {
        return header_help(&spec);
    }
    int parsed = cli_args_parse(&spec, argc, argv);
    if (parsed != CLI_OK) {
        return parsed;
    }
    if (path == NULL) {
        fputs(HEADER_USAGE, stderr);
        return CLI_USAGE;
    }
    slc_profile p;
    int rc = cli_load_profile(path, &p);
    if (rc != CLI_OK) {
        return rc;
    }
    slc_memory_requirements req;
    if (slc_memory_calculate_requirements(&p, &req) != SLC_OK) {
        fprintf(stderr, "%s: the profile needs more memory than this machine can address\n", path);
        return CLI_FAILED;
    }
    char lo[SLC_NAME_MAX], up[SLC_NAME_MAX];
    c_ident(name ? name : p.name, lo, sizeof lo, 0);
    c_ident(name ? name : p.name, up, sizeof up, 1);
    /* -o goes through a temporary renamed over OUT when complete: a failed
     * write leaves an existing header as it was. */
    if (out_path != NULL && atomic_file_same(out_path, path)) {
        fprintf(stderr, "sluice budget header: the output %s is the profile %s itself; refusing to replace it\n",
                out_path, path);
        return CLI_USAGE;
    }
    atomic_file af = {.fd = -1, .slot = -1};
    char err[512];
    if (out_path != NULL && atomic_file_open(&af, out_path, err, sizeof err) != 0) {
        fprintf(stderr, "sluice: %s\n", err);
        return CLI_IO;
    }
    FILE *f = out_path ? af.f : stdout;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    fprintf(f, "/* Budget profile '%s' as static data, generated by `sluice budget header %s`.\n", p.name, base);
    fprintf(f, " * Regenerate it from the profile; do not edit. */\n");
    fprintf(f, "#ifndef SLC_PROFILE_%s_H\n#define SLC_PROFILE_%s_H\n\n#include <sluice/profile.h>\n\n", up, up);
    fprintf(f, "/* Bytes and alignment of the block slc_memory_init needs for this profile,\n"
               " * the same on every architecture: size a static array with them. */\n");
    fprintf(f, "#define SLC_PROFILE_%s_BLOCK_SIZE %zuu\n", up, req.block_size);
    fprintf(f, "#define SLC_PROFILE_%s_BLOCK_ALIGN %zuu\n\n", up, req.block_align);
    /* The pool's pages on the host backend (slc_host_store_init_at): what a
     * firmware without a GPU declares as its second static array. */
    fprintf(f, "/* Bytes and alignment of the page storage of the host backend\n"
               " * (slc_host_store_init_at: the pool's pages in host memory). */\n");
    fprintf(f, "#define SLC_PROFILE_%s_HOST_PAGES_SIZE %zuu\n", up,
            slc_host_store_footprint(p.page_count, p.page_size));
    fprintf(f, "#define SLC_PROFILE_%s_HOST_PAGES_ALIGN %uu\n\n", up, SLC_HOST_STORE_PAGE_ALIGN);
    /* The texture pool's, the third array, when the profile declares one. */
    if (p.texture_page_count > 0) {
        fprintf(f, "/* Bytes of the texture pool's page storage on the host backend\n"
                   " * (slc_host_store_init_at: [textures] page_count tiles), aligned as above. */\n");
        fprintf(f, "#define SLC_PROFILE_%s_HOST_TEXTURE_PAGES_SIZE %zuu\n\n", up,
                slc_host_store_footprint(p.texture_page_count, p.page_size));
    }
    fprintf(f, "static const slc_profile slc_profile_%s = {\n", lo);
    fprintf(f, "    .name = \"%s\",\n    .budget_count = %" PRIu32 "u,\n    .budgets = {\n", p.name, p.budget_count);
    for (uint32_t i = 0; i < p.budget_count; i++) {
        const slc_profile_budget *b = &p.budgets[i];
        fprintf(f, "        {\"%s\", %" PRIu64 "u, %uu},\n", b->name, b->limit, (unsigned)b->parent);
    }
    fprintf(f, "    },\n");
    fprintf(f, "    .page_size = %" PRIu32 "u,\n    .page_count = %" PRIu32 "u,\n", p.page_size, p.page_count);
    fprintf(
        f, "    .frames_in_flight = %" PRIu32 "u,\n    .workers = %" PRIu32 "u,\n    .queue_capacity = %" PRIu32 "u,\n",
        p.frames_in_flight, p.workers, p.queue_capacity);
    fprintf(f, "    .staging_size = %" PRIu64 "u,\n    .upload_cap = %" PRIu64 "u,\n", p.staging_size, p.upload_cap);
    fprintf(f, "    .max_objects = %" PRIu32 "u,\n    .max_chunks = %" PRIu32 "u,\n    .max_lods = %" PRIu32 "u,\n",
            p.max_objects, p.max_chunks, p.max_lods);
    fprintf(f, "    .max_string_bytes = %" PRIu64 "u,\n    .max_phases = %" PRIu32 "u,\n", p.max_string_bytes,
            p.max_phases);
    fprintf(f, "    .pin_coarsest = %" PRIu32 "u,\n", p.pin_coarsest);
    fprintf(f, "    .texture_format = %" PRIu32 "u, /* %s */\n", p.texture_format,
            slc_pack_texel_format_name(p.texture_format));
    fprintf(f, "    .texture_page_count = %" PRIu32 "u,\n    .texture_eviction = %s,\n", p.texture_page_count,
            eviction_constant(p.texture_eviction));
    if (p.texture_pin_tiles != 0) { /* 0, the default, as every profile but a reference has it: left out */
        fprintf(f, "    .texture_pin_tiles = %" PRIu32 "u,\n", p.texture_pin_tiles);
    }
    if (p.texture_staging_size != 0) { /* 0, the default: left out, as the headers before it had it */
        fprintf(f, "    .texture_staging_size = %" PRIu64 "u,\n", p.texture_staging_size);
    }
    fprintf(f, "    .eviction = %s,\n    .partition_count = %" PRIu32 "u,\n", eviction_constant(p.eviction),
            p.partition_count);
    if (p.partition_count > 0) { /* "{}" is not C11: emitted only when there is something in it */
        fprintf(f, "    .partitions = {\n");
        for (uint32_t i = 0; i < p.partition_count; i++) {
            fprintf(f, "        {\"%s\", %" PRIu32 "u},\n", p.partitions[i].name, p.partitions[i].page_count);
        }
        fprintf(f, "    },\n");
    }
    fprintf(f, "    .texture_partition_count = %" PRIu32 "u,\n", p.texture_partition_count);
    if (p.texture_partition_count > 0) {
        fprintf(f, "    .texture_partitions = {\n");
        for (uint32_t i = 0; i < p.texture_partition_count; i++) {
            fprintf(f, "        {\"%s\", %" PRIu32 "u},\n", p.texture_partitions[i].name,
                    p.texture_partitions[i].page_count);
        }
        fprintf(f, "    },\n");
    }
    /* Only the runtime's sections: [render] and [quality] are the host
     * renderer's and the quality check's, which a firmware does not link
     * (budgets/README.md, "Profiles as C headers"). */
    fprintf(f, "};\n\n#endif\n");
    if (out_path != NULL && atomic_file_commit(&af, err, sizeof err) != 0) {
        fprintf(stderr, "sluice: %s\n", err);
        return CLI_IO;
    }
    return CLI_OK;
}

int cmd_budget(int argc, char **argv)
{
    if (argc >= 1 && strcmp(argv[0], "check") == 0) {
        return budget_check(argc - 1, argv + 1);
    }
    if (argc >= 1 && strcmp(argv[0], "header") == 0) {
        return budget_header(argc - 1, argv + 1);
    }
    if (argc >= 1 && strcmp(argv[0], "fit") == 0) {
        return cmd_budget_fit(argc - 1, argv + 1);
    }
    int help = argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0);
    fputs(CHECK_USAGE "       sluice budget header FILE [-o OUT] [--name NAME]\n"
                      "       sluice budget fit PROFILE PACK [--trace FILE | --camera PATH ...] [--json]\n"
                      "(sluice budget SUBCOMMAND --help: its options)\n",
          help ? stdout : stderr);
    return help ? CLI_OK : CLI_USAGE;
}

/* SPDX-License-Identifier: MIT */
/* sluice inspect: what a pack holds, and --verify that every chunk loads. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "escape.h"
#include "lod_error.h"
#include "sluice/platform.h"

typedef struct tally {
    uint64_t chunks, clusters, triangles, decoded, stored;
} tally;

static void add(tally *t, const slc_pack_chunk *c)
{
    t->chunks++;
    t->clusters += c->cluster_count;
    t->triangles += c->triangle_count;
    t->decoded += c->decoded_size;
    t->stored += c->stored_size;
}

static double ratio(const tally *t)
{
    return t->stored ? (double)t->decoded / (double)t->stored : 0.0;
}

/* The pack's errors go to stderr, each on its own line, as the reader words them. */
static void print_error(void *user, slc_log_level level, slc_status status, const char *message)
{
    (void)level;
    const char *file = user;
    fprintf(stderr, "%s: %s (%s)\n", file, message, slc_status_name(status));
}

/* --lods: every object's chain, as JSON members after "levels". */
static void print_lods_json(const slc_pack *p)
{
    const slc_pack_header *h = slc_pack_get_header(p);
    printf(",\n \"objects\": [");
    for (uint32_t o = 0; o < h->object_count; o++) {
        const slc_pack_object *ob = slc_pack_get_object(p, (slc_object_id){o});
        const slc_pack_lod *last = slc_pack_get_lod(p, ob->first_lod + ob->lod_count - 1);
        printf("%s\n  {\"object\": %u, \"name\": ", o ? "," : "", o);
        esc_json(stdout, slc_pack_get_string(p, ob->name));
        printf(", \"chain_end\": ");
        esc_json(stdout, pk_lod_end_name(h->version_minor, last->chain_end));
        printf(", \"levels\": [");
        for (uint32_t l = 0; l < ob->lod_count; l++) {
            const slc_pack_lod *lod = slc_pack_get_lod(p, ob->first_lod + l);
            printf("%s{\"lod\": %u, \"triangles\": %u, \"error\": %.9g, \"measured_error\": %.9g, \"method\": ",
                   l ? ", " : "", l, lod->triangle_count, (double)lod->error, (double)lod->measured_error);
            esc_json(stdout, pk_lod_method_name(h->version_minor, lod->method));
            printf("}");
        }
        printf("]}");
    }
    printf("]");
}

/* --lods: every object's chain, as a table per object. */
static void print_lods_text(const slc_pack *p)
{
    const slc_pack_header *h = slc_pack_get_header(p);
    for (uint32_t o = 0; o < h->object_count; o++) {
        const slc_pack_object *ob = slc_pack_get_object(p, (slc_object_id){o});
        const slc_pack_lod *last = slc_pack_get_lod(p, ob->first_lod + ob->lod_count - 1);
        printf("\nobject %u \"%s\": %u levels, chain ends: %s\n", o, slc_pack_get_string(p, ob->name), ob->lod_count,
               pk_lod_end_name(h->version_minor, last->chain_end));
        printf("  %-4s %10s %12s %12s %s\n", "LOD", "triangles", "error", "measured", "method");
        for (uint32_t l = 0; l < ob->lod_count; l++) {
            const slc_pack_lod *lod = slc_pack_get_lod(p, ob->first_lod + l);
            printf("  %-4u %10u %12.6g %12.6g %s\n", l, lod->triangle_count, (double)lod->error,
                   (double)lod->measured_error, pk_lod_method_name(h->version_minor, lod->method));
        }
    }
}

#define USAGE "usage: sluice inspect FILE [--verify] [--json] [--pread] [--lods]\n"

static const char *const alpha_names[] = {"opaque", "mask", "blend", "?"};
static const char *const kind_names[] = {"?", "color", "data", "normal"};
static const char *const slot_names[SLC_PACK_SLOT_COUNT] = {"base_color", "metallic_roughness", "normal", "occlusion",
                                                            "emissive"};

typedef struct payload {
    uint64_t offset;
    uint64_t size;
} payload;

static int cmp_payload(const void *a, const void *b)
{
    const payload *x = a, *y = b;
    return x->offset < y->offset ? -1 : (x->offset > y->offset);
}

/* A texture's stored bytes: the payloads its chunks read, each once (tiles
 * identical to one another share one payload), so its share of the file
 * is at most all of it. UINT64_MAX when out of memory. O(n log n) for its
 * n chunks. */
static uint64_t texture_stored(const slc_pack *p, const slc_pack_texture *t)
{
    payload *at = malloc(((size_t)t->chunk_count + 1u) * sizeof *at);
    if (at == NULL) {
        return UINT64_MAX;
    }
    for (uint32_t k = 0; k < t->chunk_count; k++) {
        const slc_pack_chunk *ch = slc_pack_get_chunk(p, (slc_chunk_id){t->first_chunk + k});
        at[k].offset = ch->offset;
        at[k].size = ch->stored_size;
    }
    qsort(at, t->chunk_count, sizeof *at, cmp_payload);
    uint64_t n = 0;
    for (uint32_t k = 0; k < t->chunk_count; k++) {
        n += k == 0 || at[k].offset != at[k - 1].offset ? at[k].size : 0u;
    }
    free(at);
    return n;
}

/* The materials and textures (format 1.3), as JSON members. The records
 * were checked at open; a read failing now is reported and ends the
 * listing. */
static int print_materials_json(const slc_pack *p)
{
    printf(",\n \"materials\": [");
    for (uint32_t i = 0; i < slc_pack_material_count(p); i++) {
        slc_pack_material m;
        if (slc_pack_read_material(p, i, &m) != SLC_OK) {
            return -1;
        }
        printf("%s\n  {\"name\": ", i ? "," : "");
        esc_json(stdout, slc_pack_get_string(p, m.name));
        printf(", \"alpha\": \"%s\", \"alpha_cutoff\": %.6g, \"double_sided\": %s, \"base_color\": [%.6g, %.6g, "
               "%.6g, %.6g], \"metallic\": %.6g, \"roughness\": %.6g, \"emissive\": [%.6g, %.6g, %.6g], "
               "\"textures\": {",
               alpha_names[(m.flags & SLC_PACK_MATERIAL_ALPHA_MASK) >> SLC_PACK_MATERIAL_ALPHA_SHIFT],
               (double)m.alpha_cutoff, (m.flags & SLC_PACK_MATERIAL_DOUBLE_SIDED) ? "true" : "false",
               (double)m.base_color[0], (double)m.base_color[1], (double)m.base_color[2], (double)m.base_color[3],
               (double)m.metallic, (double)m.roughness, (double)m.emissive[0], (double)m.emissive[1],
               (double)m.emissive[2]);
        for (uint32_t k = 0, n = 0; k < SLC_PACK_SLOT_COUNT; k++) {
            const slc_pack_texture_slot *t = &m.slot[k];
            if (t->texture != 0) {
                printf("%s\"%s\": {\"texture\": %u, \"texcoord\": %u, \"scale\": %.6g}", n++ ? ", " : "", slot_names[k],
                       t->texture - 1u, t->texcoord, (double)t->scale);
            }
        }
        printf("}}");
    }
    printf("],\n \"textures\": [");
    for (uint32_t i = 0; i < slc_pack_texture_count(p); i++) {
        slc_pack_texture t;
        slc_pack_texture_layout lay;
        if (slc_pack_read_texture(p, i, &t) != SLC_OK ||
            slc_pack_texture_layout_of(t.width, t.height, t.format, t.tile, t.border, &lay) != 0) {
            return -1;
        }
        const uint64_t stored = texture_stored(p, &t);
        if (stored == UINT64_MAX) {
            return -1;
        }
        printf("%s\n  {\"name\": ", i ? "," : "");
        esc_json(stdout, slc_pack_get_string(p, t.name));
        printf(", \"width\": %u, \"height\": %u, \"format\": \"%s\", \"kind\": \"%s\", \"levels\": %u, "
               "\"tiled_levels\": %u, \"tile\": %u, \"border\": %u, \"tiles\": %u, \"chunks\": %u, "
               "\"stored_bytes\": %" PRIu64 ", \"level_bytes\": [",
               t.width, t.height, slc_pack_texel_format_name(t.format), kind_names[t.kind & 3u], t.level_count,
               t.tiled_levels, t.tile, t.border, lay.tiles, t.chunk_count, stored);
        for (uint32_t l = 0; l < lay.tiled_levels; l++) {
            printf("%s%" PRIu64, l ? ", " : "", (uint64_t)lay.cols[l] * lay.rows[l] * lay.tile_bytes);
        }
        printf("], \"tail_bytes\": %" PRIu64 "}", lay.tail_bytes);
    }
    printf("]");
    return 0;
}

static int print_materials_text(const slc_pack *p, uint64_t file_size)
{
    printf("\nmaterials: %u\n", slc_pack_material_count(p));
    for (uint32_t i = 0; i < slc_pack_material_count(p); i++) {
        slc_pack_material m;
        if (slc_pack_read_material(p, i, &m) != SLC_OK) {
            return -1;
        }
        printf("  %u %s: %s%s, base colour (%.3g, %.3g, %.3g, %.3g), metallic %.3g, roughness %.3g; textures", i,
               m.name != SLC_PACK_NO_NAME ? slc_pack_get_string(p, m.name) : "(unnamed)",
               alpha_names[(m.flags & SLC_PACK_MATERIAL_ALPHA_MASK) >> SLC_PACK_MATERIAL_ALPHA_SHIFT],
               (m.flags & SLC_PACK_MATERIAL_DOUBLE_SIDED) ? ", double-sided" : "", (double)m.base_color[0],
               (double)m.base_color[1], (double)m.base_color[2], (double)m.base_color[3], (double)m.metallic,
               (double)m.roughness);
        int any = 0;
        for (uint32_t k = 0; k < SLC_PACK_SLOT_COUNT; k++) {
            if (m.slot[k].texture != 0) {
                printf(" %s=%u", slot_names[k], m.slot[k].texture - 1u);
                any = 1;
            }
        }
        printf("%s\n", any ? "" : " none");
    }
    printf("textures: %u\n", slc_pack_texture_count(p));
    if (slc_pack_texture_count(p) > 0) {
        printf("  %-4s %-28s %11s %-8s %-6s %6s %6s %7s %12s %12s %6s\n", "#", "name", "size", "format", "kind",
               "levels", "tiles", "chunks", "decoded B", "stored B", "share");
    }
    for (uint32_t i = 0; i < slc_pack_texture_count(p); i++) {
        slc_pack_texture t;
        slc_pack_texture_layout lay;
        if (slc_pack_read_texture(p, i, &t) != SLC_OK ||
            slc_pack_texture_layout_of(t.width, t.height, t.format, t.tile, t.border, &lay) != 0) {
            return -1;
        }
        char size[32];
        snprintf(size, sizeof size, "%ux%u", t.width, t.height);
        const uint64_t stored = texture_stored(p, &t);
        if (stored == UINT64_MAX) {
            return -1;
        }
        printf("  %-4u %-28.28s %11s %-8s %-6s %6u %6u %7u %12" PRIu64 " %12" PRIu64 " %5.1f%%\n", i,
               t.name != SLC_PACK_NO_NAME ? slc_pack_get_string(p, t.name) : "(unnamed)", size,
               slc_pack_texel_format_name(t.format), kind_names[t.kind & 3u], t.level_count, lay.tiles, t.chunk_count,
               (uint64_t)lay.tiles * lay.tile_bytes + lay.tail_bytes, stored,
               file_size > 0 ? 100.0 * (double)stored / (double)file_size : 0.0);
    }
    return 0;
}

static int help(const cli_args *spec)
{
    fputs(USAGE "\n"
                "A pack's header, tables, chunk statistics per codec and LOD, and page fill.\n"
                "\n",
          stdout);
    cli_args_print_options(stdout, spec);
    fputs("  -h, --help  this text\n"
          "\n"
          "exit codes: 0 ok, 1 a bad pack or bad chunks, 2 bad command line, 3 the file cannot be read\n",
          stdout);
    return CLI_OK;
}

int cmd_inspect(int argc, char **argv)
{
    const char *path = NULL;
    int verify = 0, json = 0, use_pread = 0, lods = 0;
    const cli_opt table[] = {
        {.name = "--verify",
         .kind = CLI_OPT_FLAG,
         .dest = &verify,
         .help = "read, check (XXH3) and decode every chunk, and check its content;\nexit 1 when any is bad"},
        {.name = "--json",
         .kind = CLI_OPT_FLAG,
         .dest = &json,
         .help = "the same as one JSON object on stdout (every string escaped)"},
        {.name = "--pread",
         .kind = CLI_OPT_FLAG,
         .dest = &use_pread,
         .help = "read the pack with pread instead of mapping it"},
        {.name = "--lods",
         .kind = CLI_OPT_FLAG,
         .dest = &lods,
         .help =
             "per object and level: triangles, recorded error, measured\nHausdorff error to level 0, the method that made it, and\nwhy the chain ends (unknown before format 1.2)"},
    };
    size_t operands = 0;
    const cli_args spec = {.me = "sluice inspect",
                           .opts = table,
                           .count = sizeof table / sizeof table[0],
                           .operands = &path,
                           .max_operands = 1,
                           .operand_count = &operands,
                           .unknown = "unexpected argument '{value}'",
                           .usage = USAGE,
                           .usage_after = CLI_ARGS_ALL,
                           .help_column = 12};
    if (cli_wants_help(argc, argv)) {
        return help(&spec);
    }
    int rc = cli_args_parse(&spec, argc, argv);
    if (rc != CLI_OK) {
        return rc;
    }
    if (path == NULL) {
        fputs(USAGE, stderr);
        return CLI_USAGE;
    }
    slc_logger log = {print_error, (void *)path};
    cli_pack cp;
    rc = cli_pack_open(path, use_pread ? SLC_PLATFORM_FILE_PREAD : 0, &log, &cp);
    if (rc != CLI_OK) {
        return rc;
    }
    const slc_pack *p = cp.pack;
    const slc_pack_header *h = slc_pack_get_header(p);
    tally all = {0}, codecs[SLC_PACK_CODEC_COUNT] = {{0}}, coarsest = {0}, textures = {0}, level[256];
    memset(level, 0, sizeof level);
    uint64_t unique_payloads = 0;
    int max_level = -1;
    uint64_t *offsets = malloc(((size_t)h->chunk_count + 1) * sizeof *offsets);
    for (uint32_t i = 0; i < h->chunk_count; i++) {
        const slc_pack_chunk *c = slc_pack_get_chunk(p, (slc_chunk_id){i});
        add(&all, c);
        add(&codecs[c->codec], c); /* the reader refused any other codec */
        if (c->flags & SLC_PACK_CHUNK_COARSEST) {
            add(&coarsest, c);
        }
        if (c->flags & SLC_PACK_CHUNK_TEXTURE) {
            add(&textures, c); /* tiles: no level of detail */
        } else {
            add(&level[c->lod], c);
            max_level = c->lod > max_level ? c->lod : max_level;
        }
        offsets[i] = c->offset;
    }
    /* Records sharing a payload point at the same offset. */
    qsort(offsets, h->chunk_count, sizeof offsets[0], cli_cmp_u64);
    for (uint32_t i = 0; i < h->chunk_count; i++) {
        unique_payloads += (uint64_t)(i == 0 || offsets[i] != offsets[i - 1]);
    }
    free(offsets);
    /* Of the geometry chunks: a texture chunk is one tile, at most half a page by design. */
    const uint64_t geometry_chunks = all.chunks - textures.chunks;
    double fill = geometry_chunks ? (double)(all.decoded - textures.decoded) / ((double)geometry_chunks * h->page_size)
                                  : 0.0;
    uint64_t lod_triangles = 0, tri0 = 0;
    for (uint32_t o = 0; o < h->object_count; o++) {
        const slc_pack_object *ob = slc_pack_get_object(p, (slc_object_id){o});
        tri0 += slc_pack_get_lod(p, ob->first_lod)->triangle_count;
        for (uint32_t l = 0; l < ob->lod_count; l++) {
            lod_triangles += slc_pack_get_lod(p, ob->first_lod + l)->triangle_count;
        }
    }
    uint64_t bad = 0;
    if (verify) {
        void *page = malloc(h->page_size);
        size_t scratch_size = slc_pack_scratch_size(p);
        void *scratch = scratch_size ? malloc(scratch_size) : NULL;
        for (uint32_t i = 0; i < h->chunk_count; i++) {
            if (slc_pack_load_chunk(p, (slc_chunk_id){i}, page, h->page_size, scratch, scratch_size) != SLC_OK ||
                slc_pack_check_chunk(p, (slc_chunk_id){i}, page) != SLC_OK) {
                bad++;
            }
        }
        free(scratch);
        free(page);
    }
    if (json) {
        fputs("{\"file\": ", stdout);
        esc_json(stdout, path); /* a file name is any bytes but NUL and '/' */
        printf(", \"version\": \"%u.%u\", \"page_size\": %u, \"file_size\": %" PRIu64
               ", \"required_features\": %u, \"optional_features\": %u,\n",
               h->version_major, h->version_minor, h->page_size, h->file_size, h->required_features,
               h->optional_features);
        printf(" \"chunks\": %u, \"unique_payloads\": %" PRIu64 ", \"objects\": %u, \"lods\": %u, \"spans\": %u, "
               "\"instances\": %u, \"string_bytes\": %u,\n",
               h->chunk_count, unique_payloads, h->object_count, h->lod_count, h->span_count, h->instance_count,
               h->string_size);
        printf(" \"triangles_lod0\": %" PRIu64 ", \"triangles_all_lods\": %" PRIu64 ", \"clusters\": %" PRIu64
               ", \"decoded_bytes\": %" PRIu64 ", \"stored_bytes\": %" PRIu64
               ", \"ratio\": %.4f, \"page_fill\": %.4f,\n",
               tri0, lod_triangles, all.clusters, all.decoded, all.stored, ratio(&all), fill);
        printf(" \"codecs\": {\"stored\": %" PRIu64 ", \"lz4\": %" PRIu64 ", \"meshopt\": %" PRIu64
               ", \"meshopt-lz4\": %" PRIu64 "}, \"coarsest_chunks\": %" PRIu64 ",\n",
               codecs[SLC_PACK_CODEC_STORED].chunks, codecs[SLC_PACK_CODEC_LZ4].chunks,
               codecs[SLC_PACK_CODEC_MESHOPT].chunks, codecs[SLC_PACK_CODEC_MESHOPT_LZ4].chunks, coarsest.chunks);
        uint32_t needs = 0;
        for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT; c++) {
            needs |= codecs[c].chunks > 0 ? slc_pack_codec_needs(c) : 0u;
        }
        printf(" \"runtime_needs\": [");
        for (uint32_t bit = 1, n = 0; bit <= needs; bit <<= 1) {
            if ((needs & bit) != 0 && slc_pack_build_option_name(bit) != NULL) {
                printf("%s\"%s\"", n++ > 0 ? ", " : "", slc_pack_build_option_name(bit)); /* fixed names: no escaping */
            }
        }
        printf("],\n");
        printf(" \"levels\": [");
        for (int l = 0; l <= max_level; l++) {
            printf("%s{\"lod\": %d, \"chunks\": %" PRIu64 ", \"clusters\": %" PRIu64 ", \"triangles\": %" PRIu64
                   ", \"decoded_bytes\": %" PRIu64 ", \"stored_bytes\": %" PRIu64 "}",
                   l ? ", " : "", l, level[l].chunks, level[l].clusters, level[l].triangles, level[l].decoded,
                   level[l].stored);
        }
        printf("],\n \"texture_chunks\": {\"chunks\": %" PRIu64 ", \"decoded_bytes\": %" PRIu64
               ", \"stored_bytes\": %" PRIu64 "}",
               textures.chunks, textures.decoded, textures.stored);
        if (print_materials_json(p) != 0) {
            bad++;
        }
        if (lods) {
            print_lods_json(p);
        }
        if (verify) {
            printf(",\n \"verified\": %u, \"bad_chunks\": %" PRIu64, h->chunk_count, bad);
        }
        printf("}\n");
    } else {
        char a[32], b[32];
        printf("pack %s: format %u.%u, %s pages, %s\n", path, h->version_major, h->version_minor,
               cli_size(h->page_size, a, sizeof a), cli_size(h->file_size, b, sizeof b));
        printf("features: required 0x%x, optional 0x%x%s\n", h->required_features, h->optional_features,
               (h->optional_features & SLC_PACK_OPTIONAL_QUANTIZED) ? " (quantized)" : "");
        printf("tables: %u chunks (%" PRIu64 " payloads stored, %" PRIu64 " shared), %u objects, %u LODs, %u spans, "
               "%u instances, %u bytes of strings\n",
               h->chunk_count, unique_payloads, h->chunk_count - unique_payloads, h->object_count, h->lod_count,
               h->span_count, h->instance_count, h->string_size);
        printf("geometry: %" PRIu64 " triangles at LOD 0, %" PRIu64 " over all LODs, in %" PRIu64 " clusters\n", tri0,
               lod_triangles, all.clusters);
        char used[64], needs_text[96];
        size_t un = 0;
        uint32_t needs = 0;
        used[0] = '\0';
        for (uint32_t c = 0; c < SLC_PACK_CODEC_COUNT; c++) {
            if (codecs[c].chunks > 0) {
                un += (size_t)snprintf(used + un, sizeof used - un, "%s%s", un > 0 ? ", " : "", slc_pack_codec_name(c));
                needs |= slc_pack_codec_needs(c);
            }
        }
        printf("codecs: %s; a runtime reads it with %s\n", un > 0 ? used : "none",
               cli_codec_needs(needs, needs_text, sizeof needs_text));
        printf("\n%-12s %8s %10s %12s %14s %14s %7s\n", "chunks", "count", "clusters", "triangles", "decoded B",
               "stored B", "ratio");
        const struct {
            const char *name;
            const tally *t;
        } rows[] = {{"all", &all},
                    {"stored", &codecs[SLC_PACK_CODEC_STORED]},
                    {"lz4", &codecs[SLC_PACK_CODEC_LZ4]},
                    {"meshopt", &codecs[SLC_PACK_CODEC_MESHOPT]},
                    {"meshopt-lz4", &codecs[SLC_PACK_CODEC_MESHOPT_LZ4]},
                    {"coarsest", &coarsest},
                    {"textures", &textures}};
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            const tally *t = rows[r].t;
            printf("%-12s %8" PRIu64 " %10" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.3f\n", rows[r].name,
                   t->chunks, t->clusters, t->triangles, t->decoded, t->stored, ratio(t));
        }
        for (int l = 0; l <= max_level; l++) {
            char name[16];
            snprintf(name, sizeof name, "LOD %d", l);
            const tally *t = &level[l];
            printf("%-12s %8" PRIu64 " %10" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.3f\n", name,
                   t->chunks, t->clusters, t->triangles, t->decoded, t->stored, ratio(t));
        }
        printf("\npage fill: %.1f%% (decoded bytes / (chunks x page size), geometry chunks)\n", 100.0 * fill);
        if ((slc_pack_material_count(p) > 0 || slc_pack_texture_count(p) > 0) &&
            print_materials_text(p, h->file_size) != 0) {
            bad++;
        }
        if (lods) {
            print_lods_text(p);
        }
        if (verify) {
            printf("verify: %u chunks read, checked and decoded; %" PRIu64 " bad\n", h->chunk_count, bad);
        }
    }
    cli_pack_close(&cp);
    return bad ? CLI_FAILED : CLI_OK;
}

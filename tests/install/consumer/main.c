/* SPDX-License-Identifier: MIT */
/* Reads a profile, maps the block it needs, carves it, allocates once, and
 * opens an empty pack: the pack reader brings lz4, xxhash and the codecs
 * into the link, so a package that leaves one out fails to build here. */
#include <stdio.h>
#include <stdlib.h>

#include <sluice/platform.h>
#include <sluice/render_profile.h>
#include <sluice/sluice.h>

/* [quality] is the host tools' image-quality floor: taken and ignored. */
static slc_status ignore_line(void *ctx, const char *key, const char *value, uint32_t line, char *why, size_t cap)
{
    (void)ctx, (void)key, (void)value, (void)line, (void)why, (void)cap;
    return SLC_OK;
}

int main(int argc, char **argv)
{
    static char text[1 << 16];
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    size_t len = f ? fread(text, 1, sizeof text, f) : 0;
    if (f) {
        fclose(f);
    }
    slc_profile p;
    slc_profile_diag diag;
    slc_render_profile render;
    const slc_profile_section sections[] = {slc_render_profile_section(&render), {"quality", ignore_line, NULL, NULL}};
    if (slc_profile_parse_sections(text, len, argv[1], sections, 2, &p, &diag) != SLC_OK) {
        fprintf(stderr, "%s\n", diag.message);
        return 1;
    }
    slc_memory_requirements req;
    slc_platform_block block;
    slc_memory *m;
    slc_arena *meta;
    void *ptr;
    if (slc_memory_calculate_requirements(&p, &req) != SLC_OK ||
        slc_platform_block_map(req.block_size, 0, NULL, &block) != SLC_OK ||
        slc_memory_init(block.base, block.size, &p, NULL, &m) != SLC_OK ||
        slc_memory_scan_arena(m, "cpu/meta", &meta) != SLC_OK || slc_arena_alloc(meta, 4096, 64, &ptr) != SLC_OK) {
        return 1;
    }
    static const slc_io empty = {0};
    slc_pack *pack = NULL;
    slc_status st = slc_pack_open(&empty, "empty.pack", &p, meta, NULL, &pack);
    if (st == SLC_OK) {
        return 1;
    }
    printf("consumer: profile %s, block %zu bytes, cpu/meta arena ok, empty pack refused: %s\n", p.name, req.block_size,
           slc_status_name(st));
    slc_memory_deinit(m);
    slc_platform_block_unmap(&block);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* pack_read PACK: opens PACK with the runtime this program is linked with
 * and loads every chunk into a page. Exit 0 when every chunk loads, 1 with
 * the reader's message when the pack is refused or a chunk fails, 3 when
 * the file cannot be read. Linked with a runtime built without the meshopt
 * codecs (tests/CMakeLists.txt: pack_read_nomeshopt), it shows which packs
 * such a runtime reads (`sluice pack --target-runtime`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice/arena.h"
#include "sluice/limits.h"
#include "sluice/pack.h"
#include "sluice/profile.h"

static void print_log(void *user, slc_log_level level, slc_status status, const char *message)
{
    (void)user;
    (void)level;
    fprintf(stderr, "pack_read: %s (%s)\n", message, slc_status_name(status));
}

/* Opens the pack in data and loads every chunk: the exit status of main. */
static int read_pack(const char *name, unsigned char *data, size_t size, void *meta_mem, size_t meta_size)
{
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = SLC_PAGE_SIZE_MAX;
    limits.max_chunks = limits.max_objects = SLC_TABLE_COUNT_MAX;
    limits.max_lods = SLC_LODS_MAX;
    limits.max_string_bytes = SLC_PROFILE_STRING_BYTES_MAX;
    slc_arena *meta = NULL;
    if (slc_arena_init(meta_mem, meta_size, NULL, SLC_BUDGET_NONE, &meta) != SLC_OK) {
        fprintf(stderr, "pack_read: out of memory\n");
        return 1;
    }
    slc_io io;
    slc_io_from_memory(data, size, &io);
    const slc_logger log = {print_log, NULL};
    slc_pack *p = NULL;
    if (slc_pack_open(&io, name, &limits, meta, &log, &p) != SLC_OK) {
        return 1;
    }
    const slc_pack_header *h = slc_pack_get_header(p);
    size_t scratch_size = slc_pack_scratch_size(p);
    void *page = malloc(h->page_size);
    void *scratch = malloc(scratch_size + 1);
    int rc = 0;
    if (page == NULL || scratch == NULL) {
        fprintf(stderr, "pack_read: out of memory\n");
        rc = 1;
    }
    for (uint32_t i = 0; rc == 0 && i < h->chunk_count; i++) {
        if (slc_pack_load_chunk(p, (slc_chunk_id){i}, page, h->page_size, scratch, scratch_size) != SLC_OK) {
            rc = 1;
        }
    }
    if (rc == 0) {
        printf("pack_read: %s: %u chunks loaded\n", name, h->chunk_count);
    }
    slc_pack_close(p);
    free(scratch);
    free(page);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pack_read PACK\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    long size = -1;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f != NULL) {
            (void)fclose(f); /* read only */
        }
        fprintf(stderr, "pack_read: %s: cannot read\n", argv[1]);
        return 3;
    }
    unsigned char *data = malloc((size_t)size + 1);
    size_t got = data != NULL ? fread(data, 1, (size_t)size, f) : 0;
    (void)fclose(f); /* read only */
    if (got != (size_t)size) {
        free(data);
        fprintf(stderr, "pack_read: %s: cannot read\n", argv[1]);
        return 3;
    }
    /* Every path below frees what was allocated: a refused pack is this
     * program's expected outcome, and the sanitizer builds run it. */
    const size_t meta_size = (size_t)256 << 20;
    void *meta_mem = aligned_alloc(SLC_ARENA_ALIGN, meta_size);
    int rc = 1;
    if (meta_mem == NULL) {
        fprintf(stderr, "pack_read: out of memory\n");
    } else {
        rc = read_pack(argv[1], data, (size_t)size, meta_mem, meta_size);
    }
    free(meta_mem);
    free(data);
    return rc;
}

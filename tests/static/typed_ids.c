/* SPDX-License-Identifier: MIT */
/* Chunk and object ids do not convert: each CASE below but 0 passes one id
 * where another is expected (or a bare integer where an id is, or an id
 * where an integer is) and must fail to compile; CASE 0 makes the same calls
 * with the right types and must compile, so a failure is the types' doing.
 * Compiled (never linked) by tests/static/check_typed_ids.cmake with -Werror
 * -fsyntax-only, one -DCASE=n at a time. */
#include <sluice/sluice.h>

#ifndef CASE
#error "define CASE"
#endif

void typed_ids_case(const slc_pool *pool, const slc_pack *pack, slc_stream *s, slc_page_info *info);

void typed_ids_case(const slc_pool *pool, const slc_pack *pack, slc_stream *s, slc_page_info *info)
{
    const slc_partition part = {0};
    slc_stream_pin_iter it;
    slc_stream_pin_iter_init(&it, pack, 1);
    /* every case uses every parameter, so -Werror refuses it for its types alone */
    (void)pool, (void)pack, (void)s, (void)info, (void)part;
#if CASE == 0
    /* the right types everywhere */
    (void)slc_pool_lookup(pool, (slc_chunk_id){1}, info);
    (void)slc_pack_get_object(pack, (slc_object_id){0});
    (void)slc_pack_get_chunk(pack, info->chunk);
    (void)slc_stream_request_chunk(s, (slc_chunk_id){0}, 0, part);
    slc_stream_object_request r = {{0}, 0, 0, {0}};
    r.object = (slc_object_id){1};
    (void)slc_stream_request(s, &r);
    uint32_t index = info->chunk.index;
    (void)index;
    slc_chunk_id next = SLC_CHUNK_NONE;
    (void)slc_stream_pin_iter_next(&it, &next);
#elif CASE == 1
    /* an object id for a chunk id */
    (void)slc_pool_lookup(pool, (slc_object_id){1}, info);
#elif CASE == 2
    /* a bare integer for a chunk id */
    (void)slc_pool_lookup(pool, 1u, info);
#elif CASE == 3
    /* a chunk id for an object id */
    (void)slc_pack_get_object(pack, (slc_chunk_id){0});
#elif CASE == 4
    /* an object id for a chunk id, in the stream */
    (void)slc_stream_request_chunk(s, (slc_object_id){0}, 0, part);
#elif CASE == 5
    /* a chunk id in an object request */
    slc_stream_object_request r = {{0}, 0, 0, {0}};
    r.object = (slc_chunk_id){1};
    (void)slc_stream_request(s, &r);
#elif CASE == 6
    /* a chunk id read as an integer */
    uint32_t index = info->chunk;
    (void)index;
#elif CASE == 7
    /* an integer for the walk's chunk id */
    uint32_t next = 0;
    (void)slc_stream_pin_iter_next(&it, &next);
#elif CASE == 8
    /* a page's chunk given where an object is asked for */
    (void)slc_pack_get_object(pack, info->chunk);
#else
#error "no such CASE"
#endif
}

/* SPDX-License-Identifier: MIT */
/* sluice: the scheduler's rules as pure functions (see sluice/stream.h),
 * shared by the stream and the offline fit check. */
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "sluice/stream.h"

slc_status slc_stream_get_upload_cap(const slc_profile *p, uint32_t load_frames, bool staged, const slc_logger *log,
                                     uint32_t *out_pages)
{
    SLC_ASSERT(p != NULL && out_pages != NULL && p->page_size > 0);
    *out_pages = 0;
    uint32_t lf = load_frames != 0 ? load_frames : SLC_STREAM_DEFAULT_LOAD_FRAMES;
    if (lf > SLC_STREAM_LOAD_FRAMES_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "stream: load_frames %u is above %u", lf,
                        SLC_STREAM_LOAD_FRAMES_MAX);
    }
    const uint64_t page_size = p->page_size; /* the quotients below are of 64-bit byte counts */
    if (p->upload_cap < page_size) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: upload_per_frame %llu is below the page size %u: no page could be loaded",
                        (unsigned long long)p->upload_cap, p->page_size);
    }
    uint64_t cap = p->upload_cap;
    if (staged) {
        /* A slot stays taken from the frame that writes it until that
         * frame retires: frames_in_flight frames behind, the load_frames
         * before it becomes visible, and the frame being written. */
        const uint64_t frames = (uint64_t)p->frames_in_flight + lf + 1u;
        const uint64_t belt = p->staging_size / frames;
        if (belt < page_size) {
            return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                            "stream: staging_size %llu holds less than one %u-byte page for each of %llu frames "
                            "(frames_in_flight + load_frames + 1)",
                            (unsigned long long)p->staging_size, p->page_size, (unsigned long long)frames);
        }
        if (belt < cap) {
            cap = belt;
        }
    }
    const uint64_t pages = cap / page_size;
    *out_pages = pages > UINT32_MAX ? UINT32_MAX : (uint32_t)pages;
    return SLC_OK;
}

slc_status slc_stream_get_tile_cap(const slc_profile *p, uint32_t load_frames, uint32_t upload_cap_pages,
                                   const slc_logger *log, uint32_t *out_pages)
{
    SLC_ASSERT(p != NULL && out_pages != NULL && p->page_size > 0);
    *out_pages = 0;
    uint32_t lf = load_frames != 0 ? load_frames : SLC_STREAM_DEFAULT_LOAD_FRAMES;
    if (lf > SLC_STREAM_LOAD_FRAMES_MAX) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID, "stream: load_frames %u is above %u", lf,
                        SLC_STREAM_LOAD_FRAMES_MAX);
    }
    if (p->texture_staging_size == 0) {
        *out_pages = upload_cap_pages;
        return SLC_OK;
    }
    const uint64_t frames = (uint64_t)p->frames_in_flight + lf + 1u;
    const uint64_t pages = p->texture_staging_size / frames / p->page_size;
    if (pages == 0) {
        return slc__log(log, SLC_LOG_ERROR, SLC_E_INVALID,
                        "stream: [textures] staging_size %llu holds less than one %u-byte page for each of %llu "
                        "frames (frames_in_flight + load_frames + 1)",
                        (unsigned long long)p->texture_staging_size, p->page_size, (unsigned long long)frames);
    }
    *out_pages = pages < upload_cap_pages ? (uint32_t)pages : upload_cap_pages;
    return SLC_OK;
}

slc_stream_admission slc_stream_admit(uint32_t queue_capacity, uint32_t object_requests, uint32_t chunks,
                                      bool object_request, uint32_t new_chunks)
{
    SLC_ASSERT(object_requests <= queue_capacity && chunks <= queue_capacity);
    if (object_request && object_requests >= queue_capacity) {
        return SLC_STREAM_OBJECTS_FULL;
    }
    if (new_chunks > queue_capacity - chunks) {
        return SLC_STREAM_CHUNKS_FULL;
    }
    return SLC_STREAM_ADMITTED;
}

void slc_stream_pin_iter_init(slc_stream_pin_iter *it, const slc_pack *pack, uint32_t levels)
{
    SLC_ASSERT(it != NULL && pack != NULL);
    it->pack = pack;
    it->levels = levels;
    it->object.index = 0;
    it->lod = 0;
    it->span = 0;
    it->started = false;
}

bool slc_stream_pin_iter_next(slc_stream_pin_iter *it, slc_chunk_id *chunk)
{
    SLC_ASSERT(it != NULL && chunk != NULL);
    if (it->levels == 0) {
        return false;
    }
    const uint32_t objects = slc_pack_get_header(it->pack)->object_count;
    while (it->object.index < objects) {
        const slc_pack_object *o = slc_pack_get_object(it->pack, it->object);
        if (!it->started) {
            it->lod = o->lod_count > it->levels ? o->lod_count - it->levels : 0;
            it->span = 0;
            it->started = true;
        }
        while (it->lod < o->lod_count) {
            const slc_pack_lod *l = slc_pack_get_lod(it->pack, o->first_lod + it->lod);
            if (it->span < l->span_count) {
                chunk->index = slc_pack_get_span(it->pack, l->first_span + it->span)->chunk;
                it->span++;
                return true;
            }
            it->lod++;
            it->span = 0;
        }
        it->object.index++;
        it->started = false;
    }
    return false;
}

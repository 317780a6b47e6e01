/* SPDX-License-Identifier: MIT */
/* sluice: the meshopt chunk codecs' decoder (see codec_meshopt.h and
 * docs/pack-format.md, "Meshopt stream").
 *
 * The stream repeats the chunk header and cluster records as they are
 * decoded, so the decoder copies them into the page, checks the whole
 * layout and every encoded size from that copy (what it checked is what it
 * uses, even if a mapping changes under it), then decodes each cluster's
 * vertices straight into the page and its indices into scratch, narrowing
 * them to the page's uint8 with each triangle rotated to its canonical
 * order.
 *
 * Why per cluster, both codecs: a cluster's vertices and triangles lie
 * together in the page, so a per-cluster vertex buffer decodes in place (a
 * run of clusters would need a page-sized scratch to scatter from), and
 * per-cluster indices need a scratch of one cluster (512 triangles, 3 KiB)
 * where per-chunk indices would need one of the page's triangles. What that
 * costs, measured on the packer's stored packs (64 KiB pages): vertices per
 * run of clusters of one stride would make the stream 1.8% (city 8 MiB),
 * 4.3% (the same quantized), 2.0% (ToyCar) and 4.4% (ToyCar quantized)
 * smaller, 2.0 / 2.8 / 2.4 / 3.2% after LZ4; indices per chunk 1.0 / 2.4 /
 * 1.1 / 2.4%, and 0.3 / 0.7 / 0.3 / 0.7% after LZ4. Both together: at most
 * 6.7%, 3.9% after LZ4, for a page-sized scratch per worker instead of 3 KiB.
 *
 * meshoptimizer's decoders allocate nothing: the library's only heap entry
 * is operator new behind meshopt_setAllocator's default, which neither
 * decoder reaches (tests/unit/test_pack_meshopt.c counts through
 * meshopt_setAllocator while decoding). */
#include "codec_meshopt.h"

#include <string.h>

#include <meshoptimizer.h>

#include "internal.h"
#include "sluice/config.h"

#define HEAD_BYTES(n) ((uint64_t)sizeof(slc_pack_chunk_header) + (uint64_t)(n) * sizeof(slc_pack_cluster))

static slc_status stream_fail(slc__meshopt_error *err, slc__meshopt_check check, uint32_t cluster, uint64_t a,
                              uint64_t b, uint64_t c, uint64_t d)
{
    err->check = check;
    err->cluster = cluster;
    err->a = a;
    err->b = b;
    err->c = c;
    err->d = d;
    if (check == SLC__MESHOPT_DECODED_SIZE) {
        return SLC_E_PACK_DECODED_SIZE;
    }
    return SLC_E_PACK_CORRUPT;
}

slc_status slc__meshopt_decode(const unsigned char *src, size_t size, unsigned char *page, const slc_pack_chunk *c,
                               const slc_pack_object *objects, uint32_t object_count, void *scratch,
                               slc__meshopt_error *err)
{
    memset(err, 0, sizeof *err);
    uint32_t n = c->cluster_count;
    uint64_t head = HEAD_BYTES(n);
    if (head > size) {
        return stream_fail(err, SLC__MESHOPT_SHORT_HEAD, 0, size, head, 0, 0);
    }
    SLC_ASSERT(size <= c->decoded_size); /* pack.c: checked at open (codec 2), LZ4's capacity (codec 3) */
    memcpy(page, src, (size_t)head);
    slc_pack_chunk_header ch;
    memcpy(&ch, page, sizeof ch);
    if (ch.cluster_count != n || ch.magic != SLC_PACK_CHUNK_MAGIC) {
        return stream_fail(err, SLC__MESHOPT_CLUSTER_COUNT, 0, ch.cluster_count, n, ch.magic, 0);
    }
    /* Every size, before anything is decoded. */
    const unsigned char *records = page + sizeof ch;
    uint64_t end = head, pos = head;
    for (uint32_t i = 0; i < n; i++) {
        slc_pack_cluster cl;
        memcpy(&cl, records + (size_t)i * sizeof cl, sizeof cl);
        if (cl.object >= object_count) {
            return stream_fail(err, SLC__MESHOPT_OBJECT, i, cl.object, object_count, 0, 0);
        }
        if (cl.vertex_count == 0 || cl.vertex_count > 255 || cl.triangle_count > SLC_PACK_MESHOPT_MAX_TRIANGLES) {
            return stream_fail(err, SLC__MESHOPT_COUNTS, i, cl.vertex_count, cl.triangle_count, 0, 0);
        }
        uint64_t vo = slc__align_up(end, 4);
        uint64_t io = vo + (uint64_t)cl.vertex_count * objects[cl.object].vertex_stride;
        if (cl.vertex_offset != vo || cl.index_offset != io) {
            return stream_fail(err, SLC__MESHOPT_LAYOUT, i, cl.vertex_offset, cl.index_offset, vo, io);
        }
        end = io + (uint64_t)cl.triangle_count * 3u;
        if (end > c->decoded_size) {
            return stream_fail(err, SLC__MESHOPT_PAST_PAGE, i, end, c->decoded_size, 0, 0);
        }
        slc_pack_meshopt_cluster mc;
        if (sizeof mc > size - pos) {
            return stream_fail(err, SLC__MESHOPT_SHORT_PREFIX, i, pos, size, 0, 0);
        }
        memcpy(&mc, src + pos, sizeof mc);
        pos += sizeof mc;
        if ((uint64_t)mc.vertex_bytes + mc.index_bytes > size - pos) {
            return stream_fail(err, SLC__MESHOPT_PAST_STORED, i, mc.vertex_bytes, mc.index_bytes, pos, size);
        }
        pos += (uint64_t)mc.vertex_bytes + mc.index_bytes;
    }
    if (end != c->decoded_size) {
        return stream_fail(err, SLC__MESHOPT_DECODED_SIZE, n, end, c->decoded_size, 0, 0);
    }
    if (pos != size) {
        return stream_fail(err, SLC__MESHOPT_TRAILING, n, size - pos, 0, 0, 0);
    }
    /* Decode: the sizes were checked above; each call is still bounded by
     * the sizes it is given, so a stream that changed since cannot make it
     * read or write outside its ranges. */
    uint16_t *idx = (uint16_t *)(void *)((unsigned char *)scratch + ((16u - ((uintptr_t)scratch & 15u)) & 15u));
    uint64_t at = head;
    pos = head;
    for (uint32_t i = 0; i < n; i++) {
        slc_pack_cluster cl;
        memcpy(&cl, records + (size_t)i * sizeof cl, sizeof cl);
        uint32_t stride = objects[cl.object].vertex_stride;
        slc_pack_meshopt_cluster mc;
        memcpy(&mc, src + pos, sizeof mc);
        pos += sizeof mc;
        memset(page + at, 0, (size_t)(cl.vertex_offset - at)); /* alignment padding */
        int rc = meshopt_decodeVertexBuffer(page + cl.vertex_offset, cl.vertex_count, stride, src + pos,
                                            mc.vertex_bytes);
        if (rc != 0) {
            return stream_fail(err, SLC__MESHOPT_VERTEX_DECODER, i, (uint64_t)(int64_t)rc, mc.vertex_bytes, 0, 0);
        }
        pos += mc.vertex_bytes;
        size_t count = (size_t)cl.triangle_count * 3u;
        rc = meshopt_decodeIndexBuffer(idx, count, sizeof *idx, src + pos, mc.index_bytes);
        if (rc != 0) {
            return stream_fail(err, SLC__MESHOPT_INDEX_DECODER, i, (uint64_t)(int64_t)rc, mc.index_bytes, 0, 0);
        }
        pos += mc.index_bytes;
        /* Narrowed and rotated in one branch-free pass that also keeps the
         * largest index (a byte written from an index over 255 is wrong, but
         * then the chunk fails: the page's contents are unspecified); the
         * culprit searched for only when there is one. */
        unsigned char *tri = page + cl.index_offset;
        uint32_t top = 0;
        for (size_t k = 0; k < count; k += 3) {
            uint32_t a = idx[k], b = idx[k + 1], c3 = idx[k + 2];
            uint32_t m = a > b ? a : b;
            m = m > c3 ? m : c3;
            top = m > top ? m : top;
            slc_pack_put_triangle(tri + k, a & 0xffu, b & 0xffu, c3 & 0xffu);
        }
        if (top >= cl.vertex_count) {
            size_t k = 0;
            while (idx[k] < cl.vertex_count) {
                k++;
            }
            return stream_fail(err, SLC__MESHOPT_INDEX_RANGE, i, k / 3u, idx[k], cl.vertex_count, 0);
        }
        at = cl.index_offset + count;
    }
    return SLC_OK;
}

size_t slc__meshopt_describe(const slc__meshopt_error *e, char *buf, size_t cap)
{
    unsigned long long a = e->a, b = e->b, c = e->c, d = e->d;
    unsigned i = e->cluster;
    switch (e->check) {
    case SLC__MESHOPT_SHORT_HEAD:
        return slc__fmt(
            buf, cap, "meshopt stream of %llu bytes is shorter than its chunk header and cluster records (%llu bytes)",
            a, b);
    case SLC__MESHOPT_CLUSTER_COUNT:
        return slc__fmt(
            buf, cap, "meshopt stream: chunk header (magic 0x%llx) says %llu clusters, the chunk record %llu", c, a, b);
    case SLC__MESHOPT_OBJECT:
        return slc__fmt(buf, cap, "meshopt stream cluster %u: object %llu does not exist (%llu objects)", i, a, b);
    case SLC__MESHOPT_COUNTS:
        return slc__fmt(buf, cap, "meshopt stream cluster %u: %llu vertices, %llu triangles (1 to 255 and at most %u)",
                        i, a, b, SLC_PACK_MESHOPT_MAX_TRIANGLES);
    case SLC__MESHOPT_LAYOUT:
        return slc__fmt(
            buf, cap,
            "meshopt stream cluster %u: vertices at %llu, triangles at %llu; the layout puts them at %llu and %llu", i,
            a, b, c, d);
    case SLC__MESHOPT_PAST_PAGE:
        return slc__fmt(buf, cap, "meshopt stream cluster %u: ends at %llu, past the %llu decoded bytes", i, a, b);
    case SLC__MESHOPT_SHORT_PREFIX:
        return slc__fmt(buf, cap, "meshopt stream cluster %u: its sizes at %llu lie past the %llu stored bytes", i, a,
                        b);
    case SLC__MESHOPT_PAST_STORED:
        return slc__fmt(
            buf, cap,
            "meshopt stream cluster %u: %llu vertex and %llu index bytes at %llu run past the %llu stored bytes", i, a,
            b, c, d);
    case SLC__MESHOPT_DECODED_SIZE:
        return slc__fmt(buf, cap, "meshopt stream: its clusters end at %llu bytes, the chunk table says %llu", a, b);
    case SLC__MESHOPT_TRAILING:
        return slc__fmt(buf, cap, "meshopt stream: %llu more bytes after its last cluster", a);
    case SLC__MESHOPT_VERTEX_DECODER:
        return slc__fmt(buf, cap, "meshopt stream cluster %u: the vertex decoder rejects its %llu bytes (error %d)", i,
                        b, (int)(int64_t)a);
    case SLC__MESHOPT_INDEX_DECODER:
        return slc__fmt(buf, cap, "meshopt stream cluster %u: the index decoder rejects its %llu bytes (error %d)", i,
                        b, (int)(int64_t)a);
    case SLC__MESHOPT_INDEX_RANGE:
        return slc__fmt(buf, cap, "meshopt stream cluster %u: triangle %llu uses vertex %llu of %llu", i, a, b, c);
    case SLC__MESHOPT_OK:
        break;
    }
    return slc__fmt(buf, cap, "meshopt stream: no error");
}

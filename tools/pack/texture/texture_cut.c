/* SPDX-License-Identifier: MIT */
/* sluice pack: an image made into a pack texture (see texture_cut.h). */
#include "texture_cut.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <xxhash.h>

#include "pack_writer.h"
#include "sluice/pack.h"

/* Tiles each thread encodes per batch: the batch's encoded tiles are held
 * until they are handed on in order, so memory stays at threads x this
 * many tiles whatever the texture's size. */
#define TILES_PER_THREAD 4u

uint32_t pk_texture_tile_size(uint32_t format, uint32_t page_size)
{
    uint32_t bw, bh, bytes;
    if (slc_pack_texel_block(format, &bw, &bh, &bytes) != 0) {
        return 0;
    }
    const uint32_t block = bw > bh ? bw : bh; /* square blocks: bw == bh */
    /* The largest whole number of blocks from 16 to 256 texels whose
     * encoded tile takes at most half a page. */
    for (uint32_t phys = 256u / block * block; phys >= 16u; phys -= block) {
        if (2 * slc_pack_texel_bytes(format, phys, phys) <= page_size) {
            return phys - 2 * PK_TEXTURE_BORDER;
        }
    }
    return 0;
}

/* A 16-bit image's RGBA8 copy (rounded), for the 8-bit formats. */
static int to_rgba8(const pk_image *src, pk_image *dst, const char *name, pk_diag *d)
{
    *dst = *src;
    size_t n = (size_t)src->width * src->height * 4u;
    dst->texels = malloc(n);
    if (dst->texels == NULL) {
        return pk_fail(d, "%s: out of memory for %zu bytes of 8-bit texels", name, n);
    }
    const uint16_t *s = (const uint16_t *)(const void *)src->texels;
    for (size_t i = 0; i < n; i++) {
        dst->texels[i] = (uint8_t)((s[i] * 255u + 32767u) / 65535u);
    }
    dst->format = PK_TEXEL_RGBA8;
    return 0;
}

/* One tile's work: where it is, and what encoding it gave. */
typedef struct tile_slot {
    uint32_t level, x, y;
    unsigned char *texels, *back; /* (tile + 2 border)^2 RGBA8 texels, and level 0's decoded again */
    unsigned char *encoded, *compressed;
    slc_pack_chunk rec;
    const void *stored;
    double sse; /* level 0: squared error of the payload's R, G, B */
    uint64_t compared;
    int rc;
    pk_diag d;
} tile_slot;

typedef struct cut {
    const pk_texture_job *job;
    const pk_mip_chain *chain;
    const pk_tile_grid *grid;
    slc_pack_texture_layout lay;
    uint32_t side;
    tile_slot *slots; /* threads x TILES_PER_THREAD */
    uint32_t batch;   /* slots in use in this batch */
} cut;

/* Stores n encoded bytes of s as a chunk record: LZ4 where it saves enough. */
static void store(const cut *c, tile_slot *s, size_t n, int compressed_cap)
{
    memset(&s->rec, 0, sizeof s->rec);
    s->rec.decoded_size = (uint32_t)n;
    s->rec.flags = SLC_PACK_CHUNK_TEXTURE;
    int z = LZ4_compress_default((const char *)s->encoded, (char *)s->compressed, (int)n, compressed_cap);
    if (z > 0 && (double)z * c->job->stored_ratio < (double)n) {
        s->rec.codec = SLC_PACK_CODEC_LZ4;
        s->rec.stored_size = (uint32_t)z;
        s->stored = s->compressed;
    } else {
        s->rec.codec = SLC_PACK_CODEC_STORED;
        s->rec.stored_size = (uint32_t)n;
        s->stored = s->encoded;
    }
    s->rec.xxh3 = XXH3_64bits(s->stored, s->rec.stored_size);
}

/* Cuts, encodes and stores one tile with encoder enc. */
static void encode_tile(const cut *c, tile_slot *s, pk_encoder *enc)
{
    const pk_texture_job *job = c->job;
    const size_t texels = (size_t)c->side * c->side * 4u;
    s->sse = 0.0;
    s->compared = 0;
    if (pk_tile_write(c->chain, c->grid, s->level, s->x, s->y, job->wrap_s, job->wrap_t, s->texels, texels) != 0) {
        s->rc = pk_fail(&s->d, "%s: level %u tile (%u, %u) could not be cut", job->name, s->level, s->x, s->y);
        return;
    }
    s->rc = pk_encoder_encode(enc, s->texels, c->side, c->side, job->name, s->encoded, (size_t)c->lay.tile_bytes,
                              &s->d);
    if (s->rc == 0 && s->level == 0) { /* level 0's quality: the payload, decoded again */
        s->rc = pk_encoder_decode(enc, s->encoded, (size_t)c->lay.tile_bytes, c->side, c->side, job->name, s->back,
                                  texels, &s->d);
        const uint32_t tile = c->grid->tile, border = c->grid->border;
        const uint32_t lw = c->chain->level[0].width, lh = c->chain->level[0].height;
        const uint32_t w = lw - s->x * tile < tile ? lw - s->x * tile : tile;
        const uint32_t h = lh - s->y * tile < tile ? lh - s->y * tile : tile;
        for (uint32_t ty = 0; s->rc == 0 && ty < h; ty++) {
            for (uint32_t tx = 0; tx < w; tx++) {
                size_t at = ((size_t)(ty + border) * c->side + tx + border) * 4u;
                for (int ch = 0; ch < 3; ch++) {
                    double e = (double)s->texels[at + (size_t)ch] - (double)s->back[at + (size_t)ch];
                    s->sse += e * e;
                }
            }
        }
        s->compared = (uint64_t)w * h * 3u;
    }
    if (s->rc == 0) {
        store(c, s, (size_t)c->lay.tile_bytes, LZ4_compressBound((int)c->lay.tile_bytes));
    }
}

typedef struct worker {
    const cut *c;
    uint32_t first; /* its slots: first, first + threads, ... below c->batch */
    uint32_t step;
    pk_encoder *enc;
} worker;

static void *work(void *arg)
{
    const worker *w = arg;
    for (uint32_t i = w->first; i < w->c->batch; i += w->step) {
        encode_tile(w->c, &w->c->slots[i], w->enc);
    }
    return NULL;
}

/* Encodes the batch's slots on threads (the calling one among them). */
static int run_batch(cut *c, uint32_t threads, pk_diag *d)
{
    worker w[PK_TEXTURE_MAX_THREADS];
    pthread_t t[PK_TEXTURE_MAX_THREADS];
    memset(t, 0, sizeof t); /* only those started are joined */
    uint32_t started = 0;
    for (uint32_t k = 0; k < threads; k++) {
        w[k] = (worker){c, k, threads, c->job->encoders[k]};
    }
    for (uint32_t k = 1; k < threads && k < c->batch; k++) {
        if (pthread_create(&t[k], NULL, work, &w[k]) != 0) {
            break;
        }
        started = k;
    }
    /* Whatever could not be started, this thread does too. */
    for (uint32_t k = started + 1; k < threads; k++) {
        work(&w[k]);
    }
    work(&w[0]);
    for (uint32_t k = 1; k <= started; k++) {
        pthread_join(t[k], NULL);
    }
    for (uint32_t i = 0; i < c->batch; i++) {
        if (c->slots[i].rc != 0) {
            memcpy(d->message, c->slots[i].d.message, sizeof d->message);
            return -1;
        }
    }
    return 0;
}

static void free_slots(tile_slot *slots, uint32_t n)
{
    for (uint32_t i = 0; slots != NULL && i < n; i++) {
        free(slots[i].texels);
        free(slots[i].back);
        free(slots[i].encoded);
        free(slots[i].compressed);
    }
    free(slots);
}

int pk_texture_cut(const pk_texture_job *job, pk_texture_chunk_fn fn, void *user, slc_pack_texture *rec,
                   pk_texture_cut_stats *stats, pk_diag *d)
{
    const pk_image *img = job->image;
    const uint32_t threads = job->threads > 0 && job->threads <= PK_TEXTURE_MAX_THREADS ? job->threads : 1u;
    const uint32_t format = (uint32_t)pk_encoder_format(job->encoders[0]);
    const uint32_t tile = pk_texture_tile_size(format, job->page_size);
    const uint32_t border = PK_TEXTURE_BORDER, side = tile + 2u * PK_TEXTURE_BORDER;
    cut c;
    memset(&c, 0, sizeof c);
    c.job = job;
    c.side = side;
    if (tile == 0) {
        return pk_fail(d, "%s: %u-byte pages cannot hold one %s tile", job->name, job->page_size,
                       slc_pack_texel_format_name(format));
    }
    if (slc_pack_texture_layout_of(img->width, img->height, format, tile, border, &c.lay) != 0) {
        return pk_fail(d, "%s: %u x %u texels cannot be a texture (sides 1 to %u)", job->name, img->width, img->height,
                       SLC_PACK_MAX_TEXTURE_SIDE);
    }
    pk_image rgba8 = {0};
    const pk_image *src = img;
    if (img->format == PK_TEXEL_RGBA16) {
        if (to_rgba8(img, &rgba8, job->name, d) != 0) {
            return -1;
        }
        src = &rgba8;
    }
    pk_mip_chain chain;
    pk_tile_grid grid;
    int rc = pk_mip_build(src, job->kind, job->name, &chain, d);
    free(rgba8.texels);
    if (rc != 0) {
        return -1;
    }
    if (pk_tile_grid_make(&chain, tile, border, job->name, &grid, d) != 0) {
        pk_mip_free(&chain);
        return -1;
    }
    c.chain = &chain;
    c.grid = &grid;
    const uint32_t nslots = threads * TILES_PER_THREAD;
    const size_t tile_texels = (size_t)side * side * 4u;
    const size_t bound = (size_t)(c.lay.tile_bytes > c.lay.tail_bytes ? c.lay.tile_bytes : c.lay.tail_bytes);
    const int zcap = LZ4_compressBound((int)bound);
    c.slots = calloc(nslots, sizeof *c.slots);
    for (uint32_t i = 0; c.slots != NULL && i < nslots; i++) {
        tile_slot *s = &c.slots[i];
        s->texels = malloc(tile_texels);
        s->back = malloc(tile_texels);
        s->encoded = malloc(bound);
        s->compressed = malloc((size_t)zcap);
        if (s->texels == NULL || s->back == NULL || s->encoded == NULL || s->compressed == NULL) {
            free_slots(c.slots, nslots);
            c.slots = NULL;
        }
    }
    if (c.slots == NULL) {
        rc = pk_fail(d, "%s: out of memory for %u %u-texel tiles", job->name, nslots, side);
    }
    pk_texture_cut_stats st;
    memset(&st, 0, sizeof st);
    double sse = 0.0;
    uint64_t compared = 0;
    /* The tiles in the record's order, a batch at a time: encoded on the
     * threads, then handed on in order. */
    uint32_t k = 0, l = 0, x = 0, y = 0;
    while (rc == 0 && k < c.lay.tiles) {
        c.batch = 0;
        while (c.batch < nslots && k + c.batch < c.lay.tiles) {
            tile_slot *s = &c.slots[c.batch++];
            s->level = l;
            s->x = x;
            s->y = y;
            if (++x == c.lay.cols[l]) {
                x = 0;
                if (++y == c.lay.rows[l]) {
                    y = 0;
                    l++;
                }
            }
        }
        rc = run_batch(&c, threads, d);
        for (uint32_t i = 0; rc == 0 && i < c.batch; i++, k++) {
            tile_slot *s = &c.slots[i];
            sse += s->sse;
            compared += s->compared;
            st.encoded_bytes += s->rec.decoded_size;
            st.stored_bytes += s->rec.stored_size;
            rc = fn(user, k, &s->rec, s->stored, d);
        }
    }
    if (rc == 0 && c.lay.tail_bytes > 0) {
        tile_slot *s = &c.slots[0];
        size_t at = 0;
        for (uint32_t lv = c.lay.tiled_levels; rc == 0 && lv < chain.levels; lv++) {
            const pk_mip_level *m = &chain.level[lv];
            size_t n = (size_t)slc_pack_texel_bytes(format, m->width, m->height);
            rc = pk_encoder_encode(job->encoders[0], chain.texels + m->offset, m->width, m->height, job->name,
                                   s->encoded + at, bound - at, d);
            if (rc == 0 && lv == 0) { /* level 0 smaller than a tile: its quality from the tail */
                rc = pk_encoder_decode(job->encoders[0], s->encoded + at, n, m->width, m->height, job->name, s->back,
                                       tile_texels, d);
                if (rc == 0) {
                    sse += (double)pk_encode_sse(chain.texels + m->offset, s->back, m->width, m->height, 3);
                }
                compared = (uint64_t)m->width * m->height * 3u;
            }
            at += n;
        }
        if (rc == 0) {
            store(&c, s, at, zcap);
            st.encoded_bytes += s->rec.decoded_size;
            st.stored_bytes += s->rec.stored_size;
            rc = fn(user, k++, &s->rec, s->stored, d);
        }
    }
    if (rc == 0) {
        memset(rec, 0, sizeof *rec);
        rec->name = SLC_PACK_NO_NAME;
        rec->width = img->width;
        rec->height = img->height;
        rec->format = (uint8_t)format;
        rec->kind = (uint8_t)(job->kind == PK_MIP_COLOR    ? SLC_PACK_TEXTURE_COLOR
                              : job->kind == PK_MIP_NORMAL ? SLC_PACK_TEXTURE_NORMAL
                                                           : SLC_PACK_TEXTURE_DATA);
        rec->level_count = (uint8_t)c.lay.level_count;
        rec->tiled_levels = (uint8_t)c.lay.tiled_levels;
        rec->tile = (uint16_t)tile;
        rec->border = (uint16_t)border;
        rec->wrap = (uint8_t)((uint32_t)job->wrap_s | (uint32_t)job->wrap_t << 2);
        rec->chunk_count = k;
        rec->content_hash = img->hash;
        for (uint32_t lv = 0; lv < chain.levels; lv++) {
            st.texels += (uint64_t)chain.level[lv].width * chain.level[lv].height;
        }
        st.psnr = compared == 0 || sse == 0.0 ? PK_ENCODE_PSNR_IDENTICAL
                                              : 10.0 * log10(255.0 * 255.0 * (double)compared / sse);
        if (stats != NULL) {
            *stats = st;
        }
    }
    free_slots(c.slots, c.slots != NULL ? nslots : 0);
    pk_mip_free(&chain);
    return rc;
}

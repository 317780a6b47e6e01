/* SPDX-License-Identifier: MIT */
/* sluice pack: an image made into a pack texture (see texture_cut.h). */
#include "texture_cut.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <xxhash.h>

#include "pack_writer.h"
#include "sluice/pack.h"

uint32_t pk_texture_tile_size(uint32_t format, uint32_t page_size)
{
    uint32_t bw, bh, bytes;
    if (slc_pack_texel_block(format, &bw, &bh, &bytes) != 0) {
        return 0;
    }
    const uint32_t block = bw > bh ? bw : bh; /* square blocks: bw == bh */
    for (uint32_t side = 256; side >= 16; side /= 2) {
        uint32_t phys = side / block * block;
        if (phys > 2 * PK_TEXTURE_BORDER && 2 * slc_pack_texel_bytes(format, phys, phys) <= page_size) {
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

typedef struct cut {
    const pk_texture_job *job;
    pk_texture_chunk_fn fn;
    void *user;
    unsigned char *encoded, *compressed;
    size_t encoded_cap;
    int compressed_cap;
    pk_texture_cut_stats st;
} cut;

/* Stores n encoded bytes as chunk k: LZ4 where it saves enough. */
static int emit(cut *c, uint32_t k, size_t n, pk_diag *d)
{
    slc_pack_chunk rec;
    memset(&rec, 0, sizeof rec);
    rec.decoded_size = (uint32_t)n;
    rec.flags = SLC_PACK_CHUNK_TEXTURE;
    const void *stored = c->encoded;
    int z = LZ4_compress_default((const char *)c->encoded, (char *)c->compressed, (int)n, c->compressed_cap);
    if (z > 0 && (double)z * c->job->stored_ratio < (double)n) {
        rec.codec = SLC_PACK_CODEC_LZ4;
        rec.stored_size = (uint32_t)z;
        stored = c->compressed;
    } else {
        rec.codec = SLC_PACK_CODEC_STORED;
        rec.stored_size = (uint32_t)n;
    }
    rec.xxh3 = XXH3_64bits(stored, rec.stored_size);
    c->st.encoded_bytes += n;
    c->st.stored_bytes += rec.stored_size;
    return c->fn(c->user, k, &rec, stored, d);
}

int pk_texture_cut(const pk_texture_job *job, pk_texture_chunk_fn fn, void *user, slc_pack_texture *rec,
                   pk_texture_cut_stats *stats, pk_diag *d)
{
    const pk_image *img = job->image;
    const uint32_t format = (uint32_t)pk_encoder_format(job->encoder);
    const uint32_t tile = pk_texture_tile_size(format, job->page_size);
    const uint32_t border = PK_TEXTURE_BORDER, side = tile + 2u * PK_TEXTURE_BORDER;
    slc_pack_texture_layout lay;
    if (tile == 0) {
        return pk_fail(d, "%s: %u-byte pages cannot hold one %s tile", job->name, job->page_size,
                       slc_pack_texel_format_name(format));
    }
    if (slc_pack_texture_layout_of(img->width, img->height, format, tile, border, &lay) != 0) {
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
    cut c = {job, fn, user, NULL, NULL, 0, 0, {0}};
    size_t tile_texels = (size_t)side * side * 4u;
    size_t bound = (size_t)(lay.tile_bytes > lay.tail_bytes ? lay.tile_bytes : lay.tail_bytes);
    c.encoded_cap = bound;
    c.compressed_cap = LZ4_compressBound((int)bound);
    unsigned char *texels = malloc(tile_texels), *back = malloc(tile_texels);
    c.encoded = malloc(bound);
    c.compressed = malloc((size_t)c.compressed_cap);
    if (texels == NULL || back == NULL || c.encoded == NULL || c.compressed == NULL) {
        rc = pk_fail(d, "%s: out of memory for a %u-texel tile", job->name, side);
    }
    double sse = 0.0;
    uint64_t compared = 0;
    uint32_t k = 0;
    for (uint32_t l = 0; rc == 0 && l < lay.tiled_levels; l++) {
        for (uint32_t y = 0; rc == 0 && y < lay.rows[l]; y++) {
            for (uint32_t x = 0; rc == 0 && x < lay.cols[l]; x++) {
                if (pk_tile_write(&chain, &grid, l, x, y, job->wrap_s, job->wrap_t, texels, tile_texels) != 0) {
                    rc = pk_fail(d, "%s: level %u tile (%u, %u) could not be cut", job->name, l, x, y);
                    break;
                }
                rc = pk_encoder_encode(job->encoder, texels, side, side, job->name, c.encoded, c.encoded_cap, d);
                if (rc == 0 && l == 0) { /* level 0's quality: the payload, decoded again */
                    rc = pk_encoder_decode(job->encoder, c.encoded, (size_t)lay.tile_bytes, side, side, job->name,
                                           back, tile_texels, d);
                    const uint32_t w = chain.level[0].width - x * tile < tile ? chain.level[0].width - x * tile : tile;
                    const uint32_t h = chain.level[0].height - y * tile < tile ? chain.level[0].height - y * tile : tile;
                    for (uint32_t ty = 0; rc == 0 && ty < h; ty++) {
                        for (uint32_t tx = 0; tx < w; tx++) {
                            size_t at = ((size_t)(ty + border) * side + tx + border) * 4u;
                            for (int ch = 0; ch < 3; ch++) {
                                double e = (double)texels[at + (size_t)ch] - (double)back[at + (size_t)ch];
                                sse += e * e;
                            }
                        }
                    }
                    compared += (uint64_t)w * h * 3u;
                }
                if (rc == 0) {
                    rc = emit(&c, k++, (size_t)lay.tile_bytes, d);
                }
            }
        }
    }
    if (rc == 0 && lay.tail_bytes > 0) {
        size_t at = 0;
        for (uint32_t l = lay.tiled_levels; rc == 0 && l < chain.levels; l++) {
            const pk_mip_level *lv = &chain.level[l];
            size_t n = (size_t)slc_pack_texel_bytes(format, lv->width, lv->height);
            rc = pk_encoder_encode(job->encoder, chain.texels + lv->offset, lv->width, lv->height, job->name,
                                   c.encoded + at, c.encoded_cap - at, d);
            at += n;
        }
        if (rc == 0) {
            rc = emit(&c, k++, at, d);
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
        rec->level_count = (uint8_t)lay.level_count;
        rec->tiled_levels = (uint8_t)lay.tiled_levels;
        rec->tile = (uint16_t)tile;
        rec->border = (uint16_t)border;
        rec->wrap = (uint8_t)((uint32_t)job->wrap_s | (uint32_t)job->wrap_t << 2);
        rec->chunk_count = k;
        rec->content_hash = img->hash;
        c.st.texels = 0;
        for (uint32_t l = 0; l < chain.levels; l++) {
            c.st.texels += (uint64_t)chain.level[l].width * chain.level[l].height;
        }
        c.st.psnr = compared == 0 || sse == 0.0 ? PK_ENCODE_PSNR_IDENTICAL
                                                : 10.0 * log10(255.0 * 255.0 * (double)compared / sse);
        if (stats != NULL) {
            *stats = c.st;
        }
    }
    free(texels);
    free(back);
    free(c.encoded);
    free(c.compressed);
    pk_mip_free(&chain);
    return rc;
}

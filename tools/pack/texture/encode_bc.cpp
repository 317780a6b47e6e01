/* SPDX-License-Identifier: MIT */
/* sluice pack: BC1 and BC3 through libsquish, for encode.c (see
 * encode_lib.h). One block per call: squish's CompressImage runs its
 * blocks on OpenMP threads, which an encoder used by one thread must not
 * start. */
#include "encode_lib.h"

#include <squish.h>

void pk_squish_compress(const uint8_t rgba[64], bool bc3, bool srgb, pk_encode_quality quality, void *block)
{
    int flags = bc3 ? squish::kDxt5 : squish::kDxt1;
    switch (quality) {
    case PK_ENCODE_FAST:
        flags |= squish::kColourRangeFit;
        break;
    case PK_ENCODE_THOROUGH:
        flags |= squish::kColourIterativeClusterFit;
        break;
    case PK_ENCODE_MEDIUM:
        flags |= squish::kColourClusterFit;
        break;
    }
    /* Rec. 709 luma weights for colour; NULL is squish's uniform weights.
     * squish reads the array only (the parameter is not const). */
    float perceptual[3] = {0.2126f, 0.7152f, 0.0722f};
    squish::Compress(rgba, block, flags, srgb ? perceptual : nullptr);
}

void pk_squish_decompress(const void *block, bool bc3, uint8_t rgba[64])
{
    squish::Decompress(rgba, block, bc3 ? squish::kDxt5 : squish::kDxt1);
}

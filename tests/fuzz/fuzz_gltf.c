/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the packer's glTF importer (JSON and the GLB container)
 * on any bytes, written to a file as the importer reads files, then every
 * mesh and instance loaded, every material read and the images decoded. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gltf.h"

static char glb_path[64];
static char gltf_path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (glb_path[0] == '\0') {
        snprintf(glb_path, sizeof glb_path, "/tmp/sluice-fuzz-%ld.glb", (long)getpid());
        snprintf(gltf_path, sizeof gltf_path, "/tmp/sluice-fuzz-%ld.gltf", (long)getpid());
    }
    /* The same bytes as a .glb and as a .gltf: the extension picks the parser. */
    const char *path = size > 0 && data[0] == '{' ? gltf_path : glb_path;
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return 0;
    }
    fwrite(data, 1, size, f);
    fclose(f);
    gltf_options opt;
    memset(&opt, 0, sizeof opt);
    opt.skip_unsupported = size > 0 && (data[size - 1] & 1);
    gltf_scene *s = NULL;
    pk_diag d;
    if (gltf_open(path, &opt, &s, &d) == 0) {
        for (uint32_t i = 0; i < gltf_mesh_count(s) && i < 16; i++) {
            pk_mesh m;
            memset(&m, 0, sizeof m);
            if (gltf_load_mesh(s, i, &m, &d) == 0) {
                pk_mesh_free(&m);
            }
        }
        uint32_t reads = 0;
        for (uint32_t i = 0; i < gltf_material_count(s); i++) {
            const pk_material *mat = gltf_get_material(s, i);
            reads += mat->double_sided;
        }
        for (uint32_t i = 0; i < gltf_image_count(s) && i < 4; i++) {
            pk_image img;
            if (gltf_load_image(s, i, &img, &d) == 0) {
                reads += img.width;
                pk_image_free(&img);
            }
        }
        (void)reads;
        for (uint32_t i = 0; i < gltf_instance_count(s) && i < 256; i++) {
            pk_instance inst;
            gltf_get_instance(s, i, &inst);
        }
        gltf_close(s);
    }
    unlink(path);
    return 0;
}

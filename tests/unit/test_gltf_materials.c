/* SPDX-License-Identifier: MIT */
/* glTF materials, textures, samplers and images in the packer's importer
 * (tools/pack/gltf/gltf.h, tools/pack/material.h): every field of the core
 * material and KHR_texture_transform read from a file this test writes,
 * defaults where absent, each refusal with its JSON path, skip_unsupported's
 * warning, and images decoded from a file, a data: URI and a bufferView to
 * the texels the test wrote. With ../shared/gltf (argv[1]), ToyCar's and
 * MorphStressTest's materials against the JSON read here independently,
 * and ToyCar's images against libpng's own decode. */
#define _DEFAULT_SOURCE 1
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include <cjson/cJSON.h>
#include <png.h>

#include "builder.h"
#include "gltf.h"
#include "gltf_writer.h"
#include "importer.h"
#include "sluice/arena.h"
#include "sluice/limits.h"
#include "sluice/pack.h"
#include "sluice/profile.h"

static const char *samples; /* ../shared/gltf (argv[1]), or NULL */

typedef struct warnings {
    char last[512];
    int count;
} warnings;

static void on_warn(void *user, const char *message)
{
    warnings *w = user;
    snprintf(w->last, sizeof w->last, "%s", message);
    w->count++;
}

static warnings warned;

static gltf_scene *open_ok(const char *path, int skip)
{
    gltf_options o = {skip, on_warn, &warned, 0, NULL};
    gltf_scene *s = NULL;
    pk_diag d;
    if (gltf_open(path, &o, &s, &d) != 0) {
        fail_msg("open %s: %s", path, d.message);
    }
    return s;
}

/* gltf_open of name fails with exactly "PATH: " + want. */
static void expect_open_error(const char *name, int skip, const char *want)
{
    gltf_options o = {skip, on_warn, &warned, 0, NULL};
    gltf_scene *s = (gltf_scene *)&s;
    pk_diag d;
    char full[640];
    snprintf(full, sizeof full, "%s: %s", path_of(name), want);
    if (gltf_open(path_of(name), &o, &s, &d) == 0) {
        gltf_close(s);
        fail_msg("%s opened; expected: %s", name, want);
    }
    assert_null(s);
    assert_string_equal(d.message, full);
}

/* ---- a PNG of the test's own texels ----------------------------------- */

typedef struct membuf {
    unsigned char *p;
    size_t n, cap;
} membuf;

static void png_put(png_structp png, png_bytep p, png_size_t n)
{
    membuf *b = png_get_io_ptr(png);
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void png_flush_none(png_structp png)
{
    (void)png;
}

/* The 3 x 2 RGBA image texel(x, y) gives, as a PNG in memory. */
static uint8_t texel(uint32_t x, uint32_t y, int c)
{
    return (uint8_t)(x * 70 + y * 31 + (uint32_t)c * 50 + 7);
}

static membuf png_3x2(void)
{
    membuf b = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_true(png != NULL && info != NULL);
    png_set_write_fn(png, &b, png_put, png_flush_none);
    png_set_IHDR(png, info, 3, 2, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < 2; y++) {
        png_byte row[12];
        for (uint32_t x = 0; x < 3; x++) {
            for (int c = 0; c < 4; c++) {
                row[x * 4 + (uint32_t)c] = texel(x, y, c);
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return b;
}

static void expect_texels(const pk_image *img)
{
    assert_int_equal(img->width, 3);
    assert_int_equal(img->height, 2);
    assert_int_equal(img->format, PK_TEXEL_RGBA8);
    for (uint32_t y = 0; y < 2; y++) {
        for (uint32_t x = 0; x < 3; x++) {
            for (int c = 0; c < 4; c++) {
                assert_int_equal(img->texels[(y * 3 + x) * 4 + (uint32_t)c], texel(x, y, c));
            }
        }
    }
}

/* ---- the tests -------------------------------------------------------- */

/* Every field of a material, with its texture's sampler and transform; a
 * material with nothing set gets glTF's defaults; primitives name theirs. */
static void test_material_fields_are_read(void **state)
{
    (void)state;
    write_gltf("mat.gltf",
               "'materials':[{'name':'paint','pbrMetallicRoughness':{'baseColorFactor':[0.5,0.25,1,0.75],"
               "'metallicFactor':0.2,'roughnessFactor':0.7,'baseColorTexture':{'index':0},"
               "'metallicRoughnessTexture':{'index':1,'texCoord':1}},"
               "'normalTexture':{'index':1,'scale':-0.5},'occlusionTexture':{'index':0,'strength':0.3},"
               "'emissiveTexture':{'index':0,'extensions':{'KHR_texture_transform':{'offset':[0.25,-1],"
               "'rotation':1.5,'scale':[3,4],'texCoord':2}}},"
               "'emissiveFactor':[1,0.5,0],'alphaMode':'MASK','alphaCutoff':0.25,'doubleSided':true},{}],"
               "'textures':[{'source':0,'sampler':0},{'source':1,'sampler':1}],"
               "'samplers':[{'magFilter':9728,'minFilter':9986,'wrapS':33071,'wrapT':33648},{}],"
               "'images':[{'uri':'c.png'},{'uri':'d.png'}],"
               "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'material':1},{'attributes':{'POSITION':0}}]}]}");
    gltf_scene *s = open_ok(path_of("mat.gltf"), 0);
    assert_int_equal(gltf_material_count(s), 2);
    assert_int_equal(gltf_image_count(s), 2);
    assert_int_equal(gltf_primitive_count(s, 0), 2);
    assert_int_equal(gltf_primitive_material(s, 0, 0), 1);
    assert_int_equal(gltf_primitive_material(s, 0, 1), PK_NONE);

    const pk_material *m = gltf_get_material(s, 0);
    assert_string_equal(m->name, "paint");
    const float base[4] = {0.5f, 0.25f, 1.0f, 0.75f}, emissive[3] = {1.0f, 0.5f, 0.0f};
    for (int c = 0; c < 4; c++) {
        assert_true(m->base_color[c] == base[c]);
    }
    for (int c = 0; c < 3; c++) {
        assert_true(m->emissive[c] == emissive[c]);
    }
    assert_true(m->metallic == 0.2f && m->roughness == 0.7f && m->alpha_cutoff == 0.25f);
    assert_int_equal(m->alpha_mode, PK_ALPHA_MASK);
    assert_int_equal(m->double_sided, 1);
    const pk_texture_ref *bc = &m->slot[PK_SLOT_BASE_COLOR];
    assert_int_equal(bc->image, 0);
    assert_int_equal(bc->texcoord, 0);
    assert_int_equal(bc->wrap_s, PK_WRAP_CLAMP_TO_EDGE);
    assert_int_equal(bc->wrap_t, PK_WRAP_MIRRORED_REPEAT);
    assert_int_equal(bc->mag_filter, PK_FILTER_NEAREST);
    assert_int_equal(bc->min_filter, PK_FILTER_NEAREST);
    assert_int_equal(bc->mip_filter, PK_FILTER_LINEAR);
    assert_true(bc->scale == 1.0f && bc->offset[0] == 0.0f && bc->rotation == 0.0f && bc->uv_scale[1] == 1.0f);
    const pk_texture_ref *mr = &m->slot[PK_SLOT_METALLIC_ROUGHNESS];
    assert_int_equal(mr->image, 1);
    assert_int_equal(mr->texcoord, 1);
    assert_int_equal(mr->wrap_s, PK_WRAP_REPEAT); /* sampler 1 states nothing */
    assert_int_equal(mr->mag_filter, PK_FILTER_UNSET);
    assert_int_equal(mr->mip_filter, PK_FILTER_UNSET);
    assert_int_equal(m->slot[PK_SLOT_NORMAL].image, 1);
    assert_true(m->slot[PK_SLOT_NORMAL].scale == -0.5f);
    assert_int_equal(m->slot[PK_SLOT_OCCLUSION].image, 0);
    assert_true(m->slot[PK_SLOT_OCCLUSION].scale == 0.3f);
    const pk_texture_ref *em = &m->slot[PK_SLOT_EMISSIVE];
    assert_int_equal(em->image, 0);
    assert_int_equal(em->texcoord, 2);
    assert_true(em->offset[0] == 0.25f && em->offset[1] == -1.0f && em->rotation == 1.5f);
    assert_true(em->uv_scale[0] == 3.0f && em->uv_scale[1] == 4.0f);

    pk_material dflt;
    pk_material_default(&dflt);
    m = gltf_get_material(s, 1);
    assert_string_equal(m->name, "");
    assert_true(m->base_color[0] == 1.0f && m->base_color[3] == 1.0f && m->emissive[0] == 0.0f);
    assert_true(m->metallic == 1.0f && m->roughness == 1.0f && m->alpha_cutoff == 0.5f);
    assert_int_equal(m->alpha_mode, PK_ALPHA_OPAQUE);
    assert_int_equal(m->double_sided, 0);
    for (int t = 0; t < PK_SLOT_COUNT; t++) {
        assert_int_equal(m->slot[t].image, PK_NONE);
    }
    assert_memory_equal(m, &dflt, sizeof dflt);
    gltf_close(s);

    assert_int_equal(pk_material_slot_kind(PK_SLOT_BASE_COLOR), PK_MIP_COLOR);
    assert_int_equal(pk_material_slot_kind(PK_SLOT_EMISSIVE), PK_MIP_COLOR);
    assert_int_equal(pk_material_slot_kind(PK_SLOT_NORMAL), PK_MIP_NORMAL);
    assert_int_equal(pk_material_slot_kind(PK_SLOT_METALLIC_ROUGHNESS), PK_MIP_DATA);
    assert_int_equal(pk_material_slot_kind(PK_SLOT_OCCLUSION), PK_MIP_DATA);
    assert_string_equal(pk_material_slot_name(PK_SLOT_OCCLUSION), "occlusionTexture");
}

/* Each value outside what glTF 2.0 allows is refused naming its path. */
static void test_material_refusals_name_the_json_path(void **state)
{
    (void)state;
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"'materials':[{'pbrMetallicRoughness':{'metallicFactor':2}}],'meshes':[]}",
         "materials[0].pbrMetallicRoughness.metallicFactor: 2 is outside [0, 1]"},
        {"'materials':[{'pbrMetallicRoughness':{'roughnessFactor':'x'}}],'meshes':[]}",
         "materials[0].pbrMetallicRoughness.roughnessFactor: expected a finite number"},
        {"'materials':[{'pbrMetallicRoughness':{'baseColorFactor':[1,1,1]}}],'meshes':[]}",
         "materials[0].pbrMetallicRoughness.baseColorFactor: expected an array of 4 numbers"},
        {"'materials':[{},{'pbrMetallicRoughness':{'baseColorFactor':[1,1,1,-0.5]}}],'meshes':[]}",
         "materials[1].pbrMetallicRoughness.baseColorFactor[3]: -0.5 is outside [0, 1]"},
        {"'materials':[{'emissiveFactor':[2,0,0]}],'meshes':[]}",
         "materials[0].emissiveFactor[0]: 2 is outside [0, 1]"},
        {"'materials':[{'alphaMode':'CUTOUT'}],'meshes':[]}",
         "materials[0].alphaMode: 'CUTOUT' is not OPAQUE, MASK or BLEND"},
        {"'materials':[{'alphaMode':1}],'meshes':[]}", "materials[0].alphaMode: expected a string"},
        {"'materials':[{'alphaCutoff':-1}],'meshes':[]}", "materials[0].alphaCutoff: -1 is below 0"},
        {"'materials':[{'doubleSided':1}],'meshes':[]}", "materials[0].doubleSided: expected true or false"},
        {"'materials':[7],'meshes':[]}", "materials[0]: expected an object"},
        {"'materials':[{'pbrMetallicRoughness':[]}],'meshes':[]}",
         "materials[0].pbrMetallicRoughness: expected an object"},
        {"'materials':[{'occlusionTexture':{'index':0,'strength':1.5}}],'textures':[{'source':0}],"
         "'images':[{'uri':'a.png'}],'meshes':[]}",
         "materials[0].occlusionTexture.strength: 1.5 is outside [0, 1]"},
        {"'materials':[{'normalTexture':{'scale':1}}],'meshes':[]}", "materials[0].normalTexture: 'index' is missing"},
        {"'materials':[{'normalTexture':{'index':0,'texCoord':-1}}],'textures':[{'source':0}],"
         "'images':[{'uri':'a.png'}],'meshes':[]}",
         "materials[0].normalTexture.texCoord: -1 is not an integer in [0, 4294967295]"},
        {"'materials':[{'emissiveTexture':{'index':0,'extensions':{'KHR_texture_transform':{'scale':[1]}}}}],"
         "'textures':[{'source':0}],'images':[{'uri':'a.png'}],'meshes':[]}",
         "materials[0].emissiveTexture.extensions.KHR_texture_transform.scale: expected an array of 2 numbers"},
        {"'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{'index':0}}}],"
         "'textures':[{'extensions':{'KHR_texture_basisu':{'source':0}}}],'images':[{'uri':'a.ktx2'}],'meshes':[]}",
         "materials[0].pbrMetallicRoughness.baseColorTexture (textures[0]): the texture has no PNG or JPEG 'source', "
         "only KHR_texture_basisu (--skip-unsupported packs the material without this texture)"},
        {"'materials':[{},{'normalTexture':{'index':0}}],'textures':[{}],'meshes':[]}",
         "materials[1].normalTexture (textures[0]): the texture has no 'source' (--skip-unsupported packs the "
         "material without this texture)"},
        {"'materials':[{'emissiveTexture':{'index':0}}],'textures':[{'source':0,'sampler':0}],"
         "'samplers':[{'wrapS':1234}],'images':[{'uri':'a.png'}],'meshes':[]}",
         "samplers[0].wrapS: 1234 is not one of 10497, 33071, 33648"},
        {"'materials':[{'emissiveTexture':{'index':0}}],'textures':[{'source':0,'sampler':0}],"
         "'samplers':[{'magFilter':9984}],'images':[{'uri':'a.png'}],'meshes':[]}",
         "samplers[0].magFilter: 9984 is not one of 9728, 9729"},
        {"'images':[{'uri':'a.png','bufferView':0}],'meshes':[]}",
         "images[0]: has both 'uri' and 'bufferView' (glTF allows one)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_gltf("refuse.gltf", cases[i].json);
        expect_open_error("refuse.gltf", 0, cases[i].want);
    }
}

/* With skip_unsupported, a texture with no source is a warning, and only
 * its slot is left empty. */
static void test_skip_unsupported_leaves_only_the_slot_empty(void **state)
{
    (void)state;
    write_gltf("skip.gltf", "'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{'index':0},"
                            "'metallicFactor':0.5},'normalTexture':{'index':1}}],"
                            "'textures':[{'extensions':{'EXT_texture_webp':{'source':0}}},{'source':0}],"
                            "'images':[{'uri':'a.png'}],'meshes':[]}");
    warned.count = 0;
    gltf_scene *s = open_ok(path_of("skip.gltf"), 1);
    assert_int_equal(warned.count, 1);
    char want[512];
    snprintf(want, sizeof want,
             "%s: materials[0].pbrMetallicRoughness.baseColorTexture (textures[0]): the texture has no PNG or JPEG "
             "'source', only EXT_texture_webp; the material is packed without this texture",
             path_of("skip.gltf"));
    assert_string_equal(warned.last, want);
    const pk_material *m = gltf_get_material(s, 0);
    assert_int_equal(m->slot[PK_SLOT_BASE_COLOR].image, PK_NONE);
    assert_int_equal(m->slot[PK_SLOT_NORMAL].image, 0);
    assert_true(m->metallic == 0.5f);
    gltf_close(s);
}

/* The same texels from a file, a data: URI and a bufferView. */
static void test_images_load_from_file_data_uri_and_buffer_view(void **state)
{
    (void)state;
    membuf png = png_3x2();
    write_bytes("c.png", png.p, png.n);
    write_bytes("img.bin", png.p, png.n);
    char *uri = malloc(png.n * 2 + 64);
    assert_non_null(uri);
    data_uri_member(png.p, png.n, uri, png.n * 2 + 64);
    uri[strlen(uri) - 1] = '\0'; /* the member's trailing comma */
    char *json = malloc(strlen(uri) + 512);
    assert_non_null(json);
    snprintf(json, strlen(uri) + 512,
             "{'asset':{'version':'2.0'},'buffers':[{'uri':'img.bin','byteLength':%zu}],"
             "'bufferViews':[{'buffer':0,'byteLength':%zu}],"
             "'images':[{'uri':'c.png'},{%s},{'bufferView':0,'mimeType':'image/png'},{'uri':'missing.png'},"
             "{'uri':'http://example.invalid/a.png'}]}",
             png.n, png.n, uri);
    write_json("img.gltf", "%s", json);
    gltf_scene *s = open_ok(path_of("img.gltf"), 0);
    assert_int_equal(gltf_image_count(s), 5);
    pk_image img[3];
    pk_diag d;
    for (uint32_t i = 0; i < 3; i++) {
        if (gltf_load_image(s, i, &img[i], &d) != 0) {
            fail_msg("image %u: %s", i, d.message);
        }
        expect_texels(&img[i]);
    }
    assert_true(img[0].hash == img[1].hash && img[1].hash == img[2].hash);
    for (int i = 0; i < 3; i++) {
        pk_image_free(&img[i]);
    }
    char want[1024];
    assert_int_equal(gltf_load_image(s, 3, &img[0], &d), -1);
    assert_null(img[0].texels);
    snprintf(want, sizeof want, "%s: images[3]: %s: cannot open", path_of("img.gltf"), path_of("missing.png"));
    assert_memory_equal(d.message, want, strlen(want));
    assert_int_equal(gltf_load_image(s, 4, &img[0], &d), -1);
    snprintf(want, sizeof want, "%s: images[4]: has no file, data: URI or bufferView the packer reads",
             path_of("img.gltf"));
    assert_string_equal(d.message, want);
    assert_int_equal(gltf_load_image(s, 5, &img[0], &d), -1);
    snprintf(want, sizeof want, "%s: images[5]: no such image (5 images)", path_of("img.gltf"));
    assert_string_equal(d.message, want);
    gltf_close(s);
    free(json);
    free(uri);
    free(png.p);
}

/* A truncated PNG and a KTX2 container are refused naming the glTF, the
 * image and the check. */
static void test_bad_images_are_refused_naming_the_image(void **state)
{
    (void)state;
    membuf png = png_3x2();
    write_bytes("cut.png", png.p, png.n / 2);
    static const unsigned char ktx2[16] = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n'};
    write_bytes("a.ktx2", ktx2, sizeof ktx2);
    write_json("bad.gltf", "{'asset':{'version':'2.0'},'images':[{'uri':'cut.png'},{'uri':'a.ktx2'}]}");
    gltf_scene *s = open_ok(path_of("bad.gltf"), 0);
    pk_image img;
    pk_diag d;
    char want[1024];
    assert_int_equal(gltf_load_image(s, 0, &img, &d), -1);
    snprintf(want, sizeof want, "%s: images[0]: %s: ", path_of("bad.gltf"), path_of("cut.png"));
    assert_memory_equal(d.message, want, strlen(want));
    assert_int_equal(gltf_load_image(s, 1, &img, &d), -1);
    assert_non_null(strstr(d.message, "KTX2"));
    snprintf(want, sizeof want, "%s: images[1]: %s: ", path_of("bad.gltf"), path_of("a.ktx2"));
    assert_memory_equal(d.message, want, strlen(want));
    gltf_close(s);
    free(png.p);
}

/* ---- the samples ------------------------------------------------------ */

static cJSON *read_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    char *text = malloc((size_t)n);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    cJSON *root = cJSON_ParseWithLength(text, (size_t)n);
    free(text);
    assert_non_null(root);
    return root;
}

static double num(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* ToyCar's materials as its JSON states them; its images' sizes and a few
 * texels as libpng decodes the files here. */
static void test_toycar_materials_and_images(void **state)
{
    (void)state;
    char path[PATH_MAX], img_path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/ToyCar/glTF/ToyCar.gltf", samples);
    cJSON *root = read_json(path);
    gltf_scene *s = open_ok(path, 0);
    const cJSON *mats = cJSON_GetObjectItemCaseSensitive(root, "materials");
    assert_int_equal(gltf_material_count(s), (uint32_t)cJSON_GetArraySize(mats));
    assert_int_equal(gltf_material_count(s), 3);
    uint32_t i = 0;
    const cJSON *mj;
    cJSON_ArrayForEach(mj, mats)
    {
        const pk_material *m = gltf_get_material(s, i++);
        const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(mj, "pbrMetallicRoughness");
        assert_string_equal(m->name, cJSON_GetObjectItemCaseSensitive(mj, "name")->valuestring);
        assert_true(m->metallic == (float)num(pbr, "metallicFactor", 1.0));
        assert_true(m->roughness == (float)num(pbr, "roughnessFactor", 1.0));
        const cJSON *bcf = cJSON_GetObjectItemCaseSensitive(pbr, "baseColorFactor");
        for (int c = 0; c < 4; c++) {
            assert_true(m->base_color[c] == (bcf != NULL ? (float)cJSON_GetArrayItem(bcf, c)->valuedouble : 1.0f));
        }
        assert_int_equal(m->double_sided, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mj, "doubleSided")));
        const cJSON *bct = cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture");
        if (bct != NULL) {
            int tex = (int)num(bct, "index", -1);
            const cJSON *texture = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "textures"), tex);
            assert_int_equal(m->slot[PK_SLOT_BASE_COLOR].image, (uint32_t)num(texture, "source", -1));
            /* sampler 0: LINEAR, LINEAR_MIPMAP_LINEAR */
            assert_int_equal(m->slot[PK_SLOT_BASE_COLOR].mag_filter, PK_FILTER_LINEAR);
            assert_int_equal(m->slot[PK_SLOT_BASE_COLOR].mip_filter, PK_FILTER_LINEAR);
            const cJSON *xf = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(bct, "extensions"),
                                                               "KHR_texture_transform");
            const cJSON *sc = cJSON_GetObjectItemCaseSensitive(xf, "scale");
            assert_true(m->slot[PK_SLOT_BASE_COLOR].uv_scale[0] ==
                        (sc != NULL ? (float)cJSON_GetArrayItem(sc, 0)->valuedouble : 1.0f));
        } else {
            assert_int_equal(m->slot[PK_SLOT_BASE_COLOR].image, PK_NONE);
        }
    }
    /* Fabric's base colour is tiled three times (KHR_texture_transform). */
    assert_true(gltf_get_material(s, 1)->slot[PK_SLOT_BASE_COLOR].uv_scale[1] == 3.0f);
    const cJSON *images = cJSON_GetObjectItemCaseSensitive(root, "images");
    assert_int_equal(gltf_image_count(s), (uint32_t)cJSON_GetArraySize(images));
    for (uint32_t k = 0; k < gltf_image_count(s); k += 3) { /* 0, 3, 6: three of the eight */
        snprintf(img_path, sizeof img_path, "%s/ToyCar/glTF/%s", samples,
                 cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(images, (int)k), "uri")->valuestring);
        png_image ref;
        memset(&ref, 0, sizeof ref);
        ref.version = PNG_IMAGE_VERSION;
        assert_true(png_image_begin_read_from_file(&ref, img_path));
        ref.format = PNG_FORMAT_RGBA;
        uint8_t *px = malloc(PNG_IMAGE_SIZE(ref));
        assert_non_null(px);
        assert_true(png_image_finish_read(&ref, NULL, px, 0, NULL));
        pk_image img;
        pk_diag d;
        if (gltf_load_image(s, k, &img, &d) != 0) {
            fail_msg("%s", d.message);
        }
        assert_int_equal(img.width, ref.width);
        assert_int_equal(img.height, ref.height);
        assert_int_equal(img.format, PK_TEXEL_RGBA8);
        const uint32_t at[3][2] = {{0, 0}, {ref.width / 2, ref.height / 3}, {ref.width - 1, ref.height - 1}};
        for (int p = 0; p < 3; p++) {
            size_t o = ((size_t)at[p][1] * ref.width + at[p][0]) * 4;
            assert_memory_equal(img.texels + o, px + o, 4);
        }
        free(px);
        pk_image_free(&img);
    }
    gltf_close(s);
    cJSON_Delete(root);
}

/* MorphStressTest's occlusion reads TEXCOORD_1: recorded as such. */
static void test_morphstress_occlusion_reads_its_second_uv_set(void **state)
{
    (void)state;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/MorphStressTest/glTF-Binary/MorphStressTest.glb", samples);
    gltf_scene *s = open_ok(path, 0);
    assert_int_equal(gltf_material_count(s), 2);
    const pk_material *m = gltf_get_material(s, 0);
    assert_string_equal(m->name, "Base");
    assert_int_equal(m->slot[PK_SLOT_OCCLUSION].texcoord, 1);
    assert_int_equal(m->slot[PK_SLOT_BASE_COLOR].texcoord, 0);
    assert_true(m->roughness == 0.4000000059604645f && m->metallic == 0.0f);
    pk_image img;
    pk_diag d;
    for (uint32_t k = 0; k < gltf_image_count(s); k++) { /* bufferViews of the GLB's BIN chunk */
        if (gltf_load_image(s, k, &img, &d) != 0) {
            fail_msg("%s", d.message);
        }
        assert_true(img.width > 0 && img.height > 0);
        pk_image_free(&img);
    }
    gltf_close(s);
}

/* ---- ToyCar into a pack and back -------------------------------------- */

static int to_builder_mesh(void *user, pk_mesh *m, int owned, uint32_t *object, pk_diag *d)
{
    return owned ? pk_builder_add_mesh_owned(user, m, object, d) : pk_builder_add_mesh(user, m, object, d);
}

static int to_builder_instance(void *user, const pk_instance *inst, pk_diag *d)
{
    return pk_builder_add_instance(user, inst, d);
}

static int to_builder_texture(void *user, const pk_image *img, pk_mip_kind kind, pk_wrap ws, pk_wrap wt,
                              const char *name, uint32_t *id, pk_diag *d)
{
    return pk_builder_add_texture(user, img, kind, ws, wt, name, id, d);
}

static int to_builder_material(void *user, const pk_material *m, uint32_t *id, pk_diag *d)
{
    return pk_builder_add_material(user, m, id, d);
}

static _Alignas(64) unsigned char meta_mem[1u << 22];

/* ToyCar packed through the importer and the builder (rgba8 tiles), opened
 * by the runtime: its three materials with their factors and textures, each
 * texture the size of its PNG, and level 0's first and a middle tile's
 * payload equal to libpng's own decoding of the file. */
static void test_toycar_packs_its_materials_and_textures(void **state)
{
    (void)state;
    char path[PATH_MAX], png[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/ToyCar/glTF/ToyCar.gltf", samples);
    const char *out = tracked_path("toycar.pack");
    pk_build_options o;
    memset(&o, 0, sizeof o);
    o.jobs = 1;
    pk_builder *b = NULL;
    pk_diag d;
    assert_int_equal(pk_builder_open(out, &o, &b, &d), 0);
    const pk_importer *imp = pk_importer_for_file(path);
    pk_import_options io;
    memset(&io, 0, sizeof io);
    void *st = NULL;
    if (imp->open(path, &io, &st, &d) != 0) {
        fail_msg("%s", d.message);
    }
    const pk_import_sink sink = {to_builder_mesh,    to_builder_instance, NULL, b,
                                 to_builder_texture, to_builder_material};
    if (imp->run(st, &sink, &d) != 0) {
        fail_msg("%s", d.message);
    }
    imp->close(st);
    pk_build_stats bs;
    assert_int_equal(pk_builder_finish(b, &bs, &d), 0);
    assert_int_equal(bs.materials, 3);
    assert_int_equal(bs.textures, 7); /* the clearcoat map only an extension reads is not packed */

    FILE *f = fopen(out, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size_t size = (size_t)ftell(f);
    rewind(f);
    unsigned char *file = malloc(size);
    assert_non_null(file);
    assert_int_equal(fread(file, 1, size, f), size);
    fclose(f);
    slc_profile limits;
    memset(&limits, 0, sizeof limits);
    limits.page_size = SLC_PAGE_SIZE_MAX;
    limits.max_chunks = limits.max_objects = SLC_TABLE_COUNT_MAX;
    limits.max_lods = SLC_LODS_MAX;
    limits.max_string_bytes = SLC_PROFILE_STRING_BYTES_MAX;
    slc_arena *meta = NULL;
    assert_int_equal(slc_arena_init(meta_mem, sizeof meta_mem, NULL, SLC_BUDGET_NONE, &meta), SLC_OK);
    slc_io sio;
    slc_io_from_memory(file, size, &sio);
    slc_pack *p = NULL;
    assert_int_equal(slc_pack_open(&sio, "toycar.pack", &limits, meta, NULL, &p), SLC_OK);
    assert_int_equal(slc_pack_material_count(p), 3);
    slc_pack_material fabric;
    assert_int_equal(slc_pack_read_material(p, 1, &fabric), SLC_OK);
    assert_string_equal(slc_pack_get_string(p, fabric.name), "Fabric");
    assert_true(fabric.base_color[0] == 0.15f && fabric.metallic == 0.0f && fabric.roughness == 1.0f);
    assert_true(fabric.slot[SLC_PACK_SLOT_BASE_COLOR].texture != 0);
    assert_true(fabric.slot[SLC_PACK_SLOT_BASE_COLOR].uv_scale[0] == 3.0f); /* KHR_texture_transform */
    assert_int_equal(fabric.slot[SLC_PACK_SLOT_METALLIC_ROUGHNESS].texture, 0);
    for (uint32_t i = 0; i < slc_pack_texture_count(p); i++) {
        slc_pack_texture t;
        assert_int_equal(slc_pack_read_texture(p, i, &t), SLC_OK);
        snprintf(png, sizeof png, "%s/ToyCar/glTF/%s", samples, slc_pack_get_string(p, t.name));
        png_image ref;
        memset(&ref, 0, sizeof ref);
        ref.version = PNG_IMAGE_VERSION;
        assert_true(png_image_begin_read_from_file(&ref, png));
        assert_int_equal(t.width, ref.width);
        assert_int_equal(t.height, ref.height);
        assert_int_equal(t.format, SLC_PACK_TEXEL_RGBA8);
        if (strcmp(slc_pack_get_string(p, t.name), "ToyCar_basecolor.png") != 0) {
            png_image_free(&ref);
            continue;
        }
        ref.format = PNG_FORMAT_RGBA;
        uint8_t *px = malloc(PNG_IMAGE_SIZE(ref));
        assert_non_null(px);
        assert_true(png_image_finish_read(&ref, NULL, px, 0, NULL));
        const uint32_t side = t.tile + 2u * t.border, cols = (t.width + t.tile - 1u) / t.tile;
        unsigned char *page = malloc(slc_pack_get_header(p)->page_size);
        size_t scratch_size = slc_pack_scratch_size(p) + slc_pack_get_header(p)->page_size;
        void *scratch = malloc(scratch_size);
        const uint32_t tiles[2][2] = {{0, 0}, {cols / 2, cols / 3}};
        for (int k = 0; k < 2; k++) {
            const uint32_t tx = tiles[k][0], ty = tiles[k][1];
            assert_int_equal(slc_pack_load_chunk(p, (slc_chunk_id){t.first_chunk + ty * cols + tx}, page,
                                                 slc_pack_get_header(p)->page_size, scratch, scratch_size),
                             SLC_OK);
            for (uint32_t y = 0; y < t.tile && ty * t.tile + y < t.height; y++) {
                for (uint32_t x = 0; x < t.tile && tx * t.tile + x < t.width; x++) {
                    const uint8_t *got = page + ((size_t)(y + t.border) * side + x + t.border) * 4u;
                    const uint8_t *want = px + ((size_t)(ty * t.tile + y) * t.width + tx * t.tile + x) * 4u;
                    if (memcmp(got, want, 4) != 0) {
                        fail_msg("tile (%u, %u) texel (%u, %u) differs", tx, ty, x, y);
                    }
                }
            }
        }
        free(page);
        free(scratch);
        free(px);
    }
    slc_pack_close(p);
    free(file);
}

/* Without argv[1] the tests on files this test writes; with it (the
 * samples folder, registered only when it is found) the sample tests. */
int main(int argc, char **argv)
{
    samples = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_material_fields_are_read),
        cmocka_unit_test(test_material_refusals_name_the_json_path),
        cmocka_unit_test(test_skip_unsupported_leaves_only_the_slot_empty),
        cmocka_unit_test(test_images_load_from_file_data_uri_and_buffer_view),
        cmocka_unit_test(test_bad_images_are_refused_naming_the_image),
    };
    const struct CMUnitTest sample_tests[] = {
        cmocka_unit_test(test_toycar_materials_and_images),
        cmocka_unit_test(test_morphstress_occlusion_reads_its_second_uv_set),
        cmocka_unit_test(test_toycar_packs_its_materials_and_textures),
    };
    if (samples != NULL) {
        return cmocka_run_group_tests(sample_tests, gltf_writer_setup, gltf_writer_teardown);
    }
    return cmocka_run_group_tests(tests, gltf_writer_setup, gltf_writer_teardown);
}

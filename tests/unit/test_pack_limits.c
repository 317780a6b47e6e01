/* SPDX-License-Identifier: MIT */
/* The largest scene a pack holds (tools/pack/pack_limits.c): the limits as
 * the format's record types and the runtime's bounds give them, the chunk
 * estimate, and each refusal of pk_limits_check_plan with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pack_limits.h"

static void test_limits_follow_the_record_types(void **state)
{
    (void)state;
    assert_true(PK_LIMIT_INSTANCES == UINT32_MAX);
    assert_true(PK_LIMIT_LOD_RECORDS == UINT32_MAX);
    assert_true(PK_LIMIT_SPANS == UINT32_MAX);
    assert_true(PK_LIMIT_CHUNK_CLUSTERS == UINT16_MAX);
    assert_true(PK_LIMIT_CHUNK_TRIANGLES == UINT32_MAX);
    assert_true(PK_LIMIT_FILE_BYTES == UINT64_MAX);
    assert_true(PK_LIMIT_CHUNKS == SLC_TABLE_COUNT_MAX);
    assert_true(PK_LIMIT_OBJECTS == SLC_TABLE_COUNT_MAX);
    assert_true(PK_LIMIT_STRING_BYTES == SLC_PROFILE_STRING_BYTES_MAX);
    assert_true(PK_LIMIT_OBJECT_LODS == SLC_LODS_MAX);
    /* The limits the runtime sets are within what the fields hold. */
    assert_true(PK_LIMIT_CHUNKS <= PK_FIELD_MAX(slc_pack_header, chunk_count));
    assert_true(PK_LIMIT_OBJECTS <= PK_FIELD_MAX(slc_pack_header, object_count));
    assert_true(PK_LIMIT_STRING_BYTES <= PK_FIELD_MAX(slc_pack_header, string_size));
    assert_true(PK_LIMIT_CLUSTER_TRIANGLES <= PK_FIELD_MAX(slc_pack_cluster, triangle_count));
}

static void test_largest_geometry_is_chunks_times_page(void **state)
{
    (void)state;
    /* 2^24 pages of 64 KiB: 1 TiB; of 4 KiB: 64 GiB; of 64 MiB: 1 PiB. */
    assert_true(pk_limits_largest_geometry(64u << 10) == (uint64_t)1 << 40);
    assert_true(pk_limits_largest_geometry(0) == (uint64_t)1 << 40);
    assert_true(pk_limits_largest_geometry(SLC_PAGE_SIZE_MIN) == (uint64_t)64 << 30);
    assert_true(pk_limits_largest_geometry(SLC_PAGE_SIZE_MAX) == (uint64_t)1 << 50);
}

static void test_chunk_estimate_rounds_up_and_saturates(void **state)
{
    (void)state;
    assert_true(pk_limits_chunk_estimate(0, 65536) == 0);
    assert_true(pk_limits_chunk_estimate(1, 65536) == 1);
    assert_true(pk_limits_chunk_estimate(32768, 65536) == 1);
    assert_true(pk_limits_chunk_estimate(32769, 65536) == 2);
    /* 64 MiB of input at 64 KiB pages: 2048 chunks; the default page. */
    assert_true(pk_limits_chunk_estimate(64u << 20, 65536) == 2048);
    assert_true(pk_limits_chunk_estimate(64u << 20, 0) == 2048);
    /* 100 TiB: 3355443200 chunks, and no overflow at 2^64 - 1. */
    assert_true(pk_limits_chunk_estimate((uint64_t)100 << 40, 65536) == 3355443200ull);
    assert_true(pk_limits_chunk_estimate(UINT64_MAX, SLC_PAGE_SIZE_MIN) == (UINT64_MAX / 4096u) * 2u + 2u);
    assert_true(pk_limits_chunk_estimate(UINT64_MAX, 1) == UINT64_MAX);
}

static void test_plan_at_every_limit_passes(void **state)
{
    (void)state;
    pk_limits_plan plan = {.what = "x.gltf",
                           .meshes = PK_LIMIT_OBJECTS,
                           .instances = PK_LIMIT_INSTANCES,
                           .name_bytes = PK_LIMIT_STRING_BYTES,
                           .input_bytes = PK_LIMIT_CHUNKS * 65536u / 2u,
                           .page_size = 65536};
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_limits_check_plan(&plan, &d), 0);
    assert_string_equal(d.message, "");
    pk_limits_plan unknown = {0};
    assert_int_equal(pk_limits_check_plan(&unknown, &d), 0);
}

static void test_plan_with_too_many_meshes_is_refused(void **state)
{
    (void)state;
    pk_limits_plan plan = {.what = "2 inputs", .meshes = PK_LIMIT_OBJECTS + 1};
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_limits_check_plan(&plan, &d), -1);
    assert_string_equal(d.message, "2 inputs: 16777217 meshes, so up to as many objects; a pack holds at most "
                                   "16777216 (objects: SLC_TABLE_COUNT_MAX, a profile's max_objects); nothing written");
}

static void test_plan_with_too_many_instances_is_refused(void **state)
{
    (void)state;
    pk_limits_plan plan = {.what = "x.gltf", .instances = PK_LIMIT_INSTANCES + 1};
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_limits_check_plan(&plan, &d), -1);
    assert_string_equal(d.message, "x.gltf: 4294967296 instances; a pack holds at most 4294967295 (instances: the "
                                   "header's 32-bit instance_count); nothing written");
}

static void test_plan_with_too_many_name_bytes_is_refused(void **state)
{
    (void)state;
    pk_limits_plan plan = {.what = "x.gltf", .name_bytes = PK_LIMIT_STRING_BYTES + 1};
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_limits_check_plan(&plan, &d), -1);
    assert_string_equal(d.message, "x.gltf: 67108865 bytes of names; a pack holds at most 67108864 (string bytes: "
                                   "SLC_PROFILE_STRING_BYTES_MAX, a profile's max_string_bytes); nothing written");
}

static void test_synthetic_100t_is_refused_by_its_chunk_estimate(void **state)
{
    (void)state;
    pk_limits_plan plan = {.what = "synthetic city", .input_bytes = (uint64_t)100 << 40, .page_size = 65536};
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_limits_check_plan(&plan, &d), -1);
    assert_string_equal(d.message,
                        "synthetic city: 109951162777600 input bytes at 65536-byte pages make about 3355443200 "
                        "chunks; a pack holds at most 16777216 (chunks: SLC_TABLE_COUNT_MAX, a profile's "
                        "max_chunks; a larger --page-size holds more); nothing written");
    /* One byte past the largest estimate that fits, at 64 MiB pages too. */
    plan.input_bytes = PK_LIMIT_CHUNKS * SLC_PAGE_SIZE_MAX / 2u + 1u;
    plan.page_size = SLC_PAGE_SIZE_MAX;
    assert_int_equal(pk_limits_check_plan(&plan, &d), -1);
    assert_non_null(strstr(d.message, "make about 16777217 chunks"));
    plan.input_bytes--;
    assert_int_equal(pk_limits_check_plan(&plan, &d), 0);
}

static void test_first_limit_passed_is_named(void **state)
{
    (void)state;
    pk_limits_plan plan = {.meshes = PK_LIMIT_OBJECTS + 1, .name_bytes = PK_LIMIT_STRING_BYTES + 1};
    pk_diag d;
    memset(&d, 0, sizeof d);
    assert_int_equal(pk_limits_check_plan(&plan, &d), -1);
    assert_non_null(strstr(d.message, "the scene: 16777217 meshes"));
    assert_null(strstr(d.message, "names"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_follow_the_record_types),
        cmocka_unit_test(test_largest_geometry_is_chunks_times_page),
        cmocka_unit_test(test_chunk_estimate_rounds_up_and_saturates),
        cmocka_unit_test(test_plan_at_every_limit_passes),
        cmocka_unit_test(test_plan_with_too_many_meshes_is_refused),
        cmocka_unit_test(test_plan_with_too_many_instances_is_refused),
        cmocka_unit_test(test_plan_with_too_many_name_bytes_is_refused),
        cmocka_unit_test(test_synthetic_100t_is_refused_by_its_chunk_estimate),
        cmocka_unit_test(test_first_limit_passed_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

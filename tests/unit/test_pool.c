/* SPDX-License-Identifier: MIT */
/* The GPU page pool (backend-neutral) and its host backend: every call and
 * every refusal with its exact status and message, the states, stale
 * handles, frames-in-flight safety, partition isolation, the LRU and
 * priority orders, pins, the eviction log and its hash, determinism across
 * runs and architectures (a committed hash), and a randomized check against
 * a reference model. slc_pool_check runs after every step. */
#include <time.h>
#include <xxhash.h>

#include "profile_sections.h"
#include "sluice/host_store.h"
#include "sluice/pool.h"
#include "test_util.h"

/* --- a page store the tests control ---------------------------------------- */

enum { FAKE_CAP = 64, FAKE_PAGE_SIZE = 64, FAKE_SEGMENT_PAGES = 4 };

typedef struct fake_store {
    _Alignas(64) unsigned char mem[FAKE_CAP * FAKE_PAGE_SIZE];
    uint32_t page_count;
    uint64_t submitted;
    uint64_t retired; /* what retired() says when manual */
    int manual;       /* 0: every submitted frame is retired at once */
    slc_status write_begin_status, write_end_status, submit_status;
    unsigned writes_begun, writes_ended, submits;
} fake_store;

static void fake_locate(void *self, uint32_t page, slc_page_location *out)
{
    fake_store *f = self;
    /* Several segments, so that lookup is seen to pass the store's answer on. */
    out->segment = page / FAKE_SEGMENT_PAGES;
    out->reserved = 0;
    out->offset = (uint64_t)(page % FAKE_SEGMENT_PAGES) * FAKE_PAGE_SIZE;
    out->host = page < FAKE_CAP ? f->mem + (size_t)page * FAKE_PAGE_SIZE : NULL;
}

static slc_status fake_write_begin(void *self, uint32_t page, void **dst)
{
    fake_store *f = self;
    if (f->write_begin_status != SLC_OK) {
        return f->write_begin_status;
    }
    assert_true(page < FAKE_CAP);
    f->writes_begun++;
    *dst = f->mem + (size_t)page * FAKE_PAGE_SIZE;
    return SLC_OK;
}

static slc_status fake_write_end(void *self, uint32_t page, size_t bytes)
{
    fake_store *f = self;
    (void)page;
    assert_true(bytes <= FAKE_PAGE_SIZE);
    if (f->write_end_status != SLC_OK) {
        return f->write_end_status;
    }
    f->writes_ended++;
    return SLC_OK;
}

static slc_status fake_submit(void *self, uint64_t frame)
{
    fake_store *f = self;
    if (f->submit_status != SLC_OK) {
        return f->submit_status;
    }
    assert_true(frame == f->submitted + 1);
    f->submitted = frame;
    f->submits++;
    return SLC_OK;
}

static uint64_t fake_retired(void *self)
{
    fake_store *f = self;
    return f->manual ? f->retired : f->submitted;
}

static const slc_page_store_ops fake_ops = {fake_locate, fake_write_begin, fake_write_end, fake_submit, fake_retired};

static slc_page_store fake_new(fake_store *f, uint32_t page_count)
{
    memset(f, 0, sizeof *f);
    f->page_count = page_count;
    slc_page_store s = {&fake_ops, f, "fake", page_count, FAKE_PAGE_SIZE, 0, NULL};
    return s;
}

/* --- helpers ------------------------------------------------------------- */

static _Alignas(64) unsigned char pool_mem[1 << 20];
static fake_store fake;
static capture_log logged;

#define CHECK(pool) assert_true(slc_pool_check(pool))

static slc_pool_desc desc_of(uint32_t pages, uint32_t max_chunks, uint32_t fif, slc_eviction_policy policy)
{
    slc_pool_desc d;
    memset(&d, 0, sizeof d);
    d.page_count = pages;
    d.max_chunks = max_chunks;
    d.frames_in_flight = fif;
    d.eviction = policy;
    return d;
}

static slc_pool *pool_on(const slc_pool_desc *d, const slc_page_store *store)
{
    slc_logger log = capture_logger(&logged);
    slc_pool *pool = NULL;
    size_t need = slc_pool_footprint(d);
    assert_true(need > 0 && need <= sizeof pool_mem);
    slc_status s = slc_pool_init(pool_mem, need, d, store, &log, &pool);
    if (s != SLC_OK) {
        fail_msg("init: %s %s", slc_status_name(s), logged.message);
    }
    CHECK(pool);
    return pool;
}

/* A pool of pages pages over the fake store. */
static slc_pool *fake_pool(uint32_t pages, uint32_t max_chunks, uint32_t fif, slc_eviction_policy policy)
{
    slc_pool_desc d = desc_of(pages, max_chunks, fif, policy);
    slc_page_store store = fake_new(&fake, pages);
    return pool_on(&d, &store);
}

static slc_pool_request req_of(uint32_t chunk, uint16_t partition, uint8_t lod, uint8_t priority)
{
    slc_pool_request r = {{chunk}, {partition}, lod, priority};
    return r;
}

/* Acquire, write bytes of the chunk's id, end the write: a complete load. */
static slc_page load_in(slc_pool *pool, uint32_t chunk, uint16_t partition, uint8_t lod, uint8_t priority)
{
    slc_pool_request r = req_of(chunk, partition, lod, priority);
    slc_page page;
    slc_status s = slc_pool_acquire(pool, &r, &page);
    if (s != SLC_OK) {
        fail_msg("acquire of chunk %u: %s", chunk, slc_status_name(s));
    }
    CHECK(pool);
    void *dst;
    assert_int_equal(slc_pool_write_begin(pool, page, &dst), SLC_OK);
    memset(dst, (int)(chunk & 0xFF), 16);
    assert_int_equal(slc_pool_write_end(pool, page, 16), SLC_OK);
    CHECK(pool);
    return page;
}

static slc_page load(slc_pool *pool, uint32_t chunk)
{
    return load_in(pool, chunk, 0, 0, 0);
}

static uint64_t begin(slc_pool *pool)
{
    uint64_t f = 0;
    assert_int_equal(slc_pool_begin_frame(pool, &f), SLC_OK);
    CHECK(pool);
    return f;
}

static void end(slc_pool *pool)
{
    assert_int_equal(slc_pool_end_frame(pool), SLC_OK);
    CHECK(pool);
}

static void frames(slc_pool *pool, int n)
{
    for (int i = 0; i < n; i++) {
        begin(pool);
        end(pool);
    }
}

static uint32_t page_of(const slc_pool *pool, uint32_t chunk)
{
    slc_page_info info;
    slc_status s = slc_pool_lookup(pool, (slc_chunk_id){chunk}, &info);
    return s == SLC_OK ? info.page.index : SLC_PAGE_NONE;
}

static slc_page_state state_of(const slc_pool *pool, slc_page page)
{
    slc_page_info info;
    slc_pool_get_page(pool, page.index, &info);
    return info.state;
}

static void expect_logged(slc_status got, slc_status want, const char *message)
{
    if (got != want || strcmp(logged.message, message) != 0) {
        fail_msg("got %s \"%s\", want %s \"%s\"", slc_status_name(got), logged.message, slc_status_name(want), message);
    }
    assert_int_equal(logged.status, want);
    logged.message[0] = '\0';
}

/* The log hash of a list of entries, computed here as pool.h defines it. */
static uint64_t chain_hash(uint64_t h, const slc_pool_log_entry *e)
{
    unsigned char b[24];
    const uint32_t words[6] = {
        (uint32_t)e->frame, (uint32_t)(e->frame >> 32), e->evicted.index, e->page, e->loaded.index, e->partition};
    for (int w = 0; w < 6; w++) {
        for (int i = 0; i < 4; i++) {
            b[w * 4 + i] = (unsigned char)(words[w] >> (8 * i));
        }
    }
    return XXH3_64bits_withSeed(b, sizeof b, h);
}

/* --- footprint and init -------------------------------------------------- */

static void test_footprint_matches_macro_and_defaults(void **state)
{
    (void)state;
    slc_pool_desc zero;
    memset(&zero, 0, sizeof zero);
    size_t defaults = SLC_POOL_FOOTPRINT(SLC_DEFAULT_PAGE_COUNT, SLC_POOL_DEFAULT_MAX_CHUNKS,
                                         SLC_POOL_DEFAULT_LOG_CAPACITY, SLC_EVICTION_LRU, 1,
                                         SLC_DEFAULT_FRAMES_IN_FLIGHT);
    assert_int_equal(slc_pool_footprint(&zero), defaults);
    assert_int_equal(slc_pool_footprint(NULL), defaults);
    /* By hand: header, 32 B a page, 4 B a chunk id, 24 B a log entry, each
     * region rounded up to 64; for priority only, frames_in_flight + 1
     * bucket tables (16960 B: 4096 bucket heads and their bitmaps) a
     * partition, whatever the page count. */
    assert_int_equal(defaults, 2560 + 4096 * 32 + 65536 * 4 + 256 * 24);
    slc_pool_desc d = desc_of(3, 5, 1, SLC_EVICTION_PRIORITY);
    d.log_capacity = 1;
    assert_int_equal(slc_pool_footprint(&d), 2560 + 128 + 64 + 2 * 16960 + 64);
    assert_int_equal(slc_pool_footprint(&d), SLC_POOL_FOOTPRINT(3, 5, 1, SLC_EVICTION_PRIORITY, 1, 1));
    d.frames_in_flight = 3; /* a table for each frame in flight and the safe one */
    assert_int_equal(slc_pool_footprint(&d), 2560 + 128 + 64 + 4 * 16960 + 64);
    assert_int_equal(slc_pool_footprint(&d), SLC_POOL_FOOTPRINT(3, 5, 1, SLC_EVICTION_PRIORITY, 1, 3));
    d.frames_in_flight = 1;
    d.partition_count = 2; /* two named and "default": two tables each */
    d.partitions[0] = (slc_pool_partition_desc){"a", 1};
    d.partitions[1] = (slc_pool_partition_desc){"b", 1};
    assert_int_equal(slc_pool_footprint(&d), 2560 + 128 + 64 + 3 * 2 * 16960 + 64);
    assert_int_equal(slc_pool_footprint(&d), SLC_POOL_FOOTPRINT(3, 5, 1, SLC_EVICTION_PRIORITY, 3, 1));
    d.partitions[1].page_count = 2; /* they take every page: no "default" */
    assert_int_equal(slc_pool_footprint(&d), SLC_POOL_FOOTPRINT(3, 5, 1, SLC_EVICTION_PRIORITY, 2, 1));
    d.partition_count = 0;
    d.eviction = SLC_EVICTION_LRU;
    assert_int_equal(slc_pool_footprint(&d), 2560 + 128 + 64 + 64);
    d.page_count = SLC_PAGE_COUNT_MAX + 1; /* invalid: 0 */
    assert_int_equal(slc_pool_footprint(&d), 0);
    /* The largest pool fits a 32-bit size_t. */
    d = desc_of(SLC_PAGE_COUNT_MAX, SLC_TABLE_COUNT_MAX, 8, SLC_EVICTION_PRIORITY);
    d.log_capacity = SLC_POOL_LOG_CAPACITY_MAX;
    assert_true(slc_pool_footprint(&d) > ((size_t)1 << 29));
    assert_true((uint64_t)slc_pool_footprint(&d) < ((uint64_t)1 << 32));
}

static void test_init_with_zeroed_desc_gives_defaults(void **state)
{
    (void)state;
    slc_page_store store = fake_new(&fake, SLC_DEFAULT_PAGE_COUNT);
    slc_pool *pool;
    assert_int_equal(slc_pool_init(pool_mem, sizeof pool_mem, NULL, &store, NULL, &pool), SLC_OK);
    CHECK(pool);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.page_count, 4096);
    assert_int_equal(st.free, 4096);
    assert_int_equal(st.partition_count, 1);
    assert_int_equal(st.frame, 0);
    assert_int_equal(st.log_count, 0);
    assert_int_equal(st.log_hash, 0);
    slc_partition p;
    assert_int_equal(slc_pool_scan_partition(pool, "default", &p), SLC_OK);
    assert_int_equal(p.index, 0);
    slc_partition none;
    assert_int_equal(slc_pool_scan_partition(pool, "gauges", &none), SLC_E_NOT_FOUND);
    slc_pool_partition_stats ps;
    slc_pool_get_partition_stats(pool, p, &ps);
    assert_string_equal(ps.name, "default");
    assert_int_equal(ps.first_page, 0);
    assert_int_equal(ps.page_count, 4096);
    /* Chunk ids below 65536; 2 frames in flight. */
    slc_pool_request r = req_of(65535, 0, 0, 0);
    slc_page page;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    r.chunk.index = 65536;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_INVALID);
    fake.manual = 1;
    frames(pool, 2);
    assert_int_equal(slc_pool_begin_frame(pool, NULL), SLC_E_FRAMES_IN_FLIGHT);
}

static void test_init_refuses_bad_memory(void **state)
{
    (void)state;
    slc_pool_desc d = desc_of(4, 8, 2, SLC_EVICTION_LRU);
    slc_page_store store = fake_new(&fake, 4);
    slc_logger log = capture_logger(&logged);
    size_t need = slc_pool_footprint(&d);
    slc_pool *pool = (slc_pool *)1;
    expect_logged(slc_pool_init(NULL, need, &d, &store, &log, &pool), SLC_E_BLOCK_NULL, "pool: memory is NULL");
    assert_null(pool);
    char want[128];
    snprintf(want, sizeof want, "pool: memory at 0x%llx is not aligned to 64 bytes",
             (unsigned long long)(uintptr_t)(pool_mem + 32));
    expect_logged(slc_pool_init(pool_mem + 32, need, &d, &store, &log, &pool), SLC_E_BLOCK_MISALIGNED, want);
    snprintf(want, sizeof want, "pool: memory of %zu bytes is smaller than the %zu bytes required", need - 1, need);
    expect_logged(slc_pool_init(pool_mem, need - 1, &d, &store, &log, &pool), SLC_E_BLOCK_TOO_SMALL, want);
    assert_null(pool);
    assert_int_equal(slc_pool_init(pool_mem, need, &d, &store, &log, &pool), SLC_OK);
    CHECK(pool);
}

static void expect_bad_desc(const slc_pool_desc *d, const slc_page_store *store, const char *message)
{
    slc_logger log = capture_logger(&logged);
    slc_pool *pool = (slc_pool *)1;
    expect_logged(slc_pool_init(pool_mem, sizeof pool_mem, d, store, &log, &pool), SLC_E_INVALID, message);
    assert_null(pool);
}

static void test_init_refuses_bad_desc(void **state)
{
    (void)state;
    slc_page_store store = fake_new(&fake, 10);
    slc_pool_desc d = desc_of(10, 8, 2, SLC_EVICTION_LRU);
    d.page_count = 11;
    expect_bad_desc(&d, &store, "pool: page_count 11 differs from the fake store's 10 pages");
    d.page_count = SLC_PAGE_COUNT_MAX + 1;
    expect_bad_desc(&d, &store, "pool: page_count 16777217 is above 16777216");
    d = desc_of(10, SLC_TABLE_COUNT_MAX + 1, 2, SLC_EVICTION_LRU);
    expect_bad_desc(&d, &store, "pool: max_chunks 16777217 is above 16777216");
    d = desc_of(10, 8, 9, SLC_EVICTION_LRU);
    expect_bad_desc(&d, &store, "pool: frames_in_flight 9 is above 8");
    d = desc_of(10, 8, 2, SLC_EVICTION_LRU);
    d.log_capacity = SLC_POOL_LOG_CAPACITY_MAX + 1;
    expect_bad_desc(&d, &store, "pool: log_capacity 16777217 is above 16777216");
    d = desc_of(10, 8, 2, (slc_eviction_policy)3);
    expect_bad_desc(&d, &store, "pool: eviction 3 is not a policy (0 lru, 1 priority, 2 predict)");
    d = desc_of(10, 8, 2, SLC_EVICTION_LRU);
    d.reserved[3] = 1;
    expect_bad_desc(&d, &store, "pool: reserved[3] is 1; reserved fields must be 0");
    d = desc_of(10, 8, 2, SLC_EVICTION_LRU);
    d.partition_count = 16;
    expect_bad_desc(&d, &store, "pool: 16 partitions named; at most 15");
    d.partition_count = 2;
    d.partitions[0] = (slc_pool_partition_desc){"a", 4};
    d.partitions[1] = (slc_pool_partition_desc){NULL, 4};
    expect_bad_desc(&d, &store, "pool: partition 1 has no name");
    d.partitions[1] = (slc_pool_partition_desc){"", 4};
    expect_bad_desc(&d, &store, "pool: partition 1 has no name");
    d.partitions[1] = (slc_pool_partition_desc){"a_partition_name_of_32_bytes_xyz", 4};
    expect_bad_desc(&d, &store, "pool: partition 1: name is longer than 31 bytes");
    d.partitions[1] = (slc_pool_partition_desc){"default", 4};
    expect_bad_desc(&d, &store, "pool: partition 1: 'default' is reserved for the pages no partition claims");
    d.partitions[1] = (slc_pool_partition_desc){"a", 4};
    expect_bad_desc(&d, &store, "pool: partition 1: 'a' is also partition 0");
    d.partitions[1] = (slc_pool_partition_desc){"b", 0};
    expect_bad_desc(&d, &store, "pool: partition 'b' has no pages");
    d.partitions[1] = (slc_pool_partition_desc){"b", 7};
    expect_bad_desc(&d, &store, "pool: partitions claim 11 pages; the pool has 10");
    static const slc_page_store_ops no_submit = {fake_locate, fake_write_begin, fake_write_end, NULL, fake_retired};
    slc_page_store broken = store;
    broken.ops = &no_submit;
    d = desc_of(10, 8, 2, SLC_EVICTION_LRU);
    expect_bad_desc(&d, &broken, "pool: the page store lacks an operation");
    broken.ops = NULL;
    expect_bad_desc(&d, &broken, "pool: the page store lacks an operation");
    /* A name of exactly 31 bytes is fine, and partitions may take every page. */
    d.partition_count = 2;
    d.partitions[0] = (slc_pool_partition_desc){"a_partition_name_of_31_bytes_xy", 4};
    d.partitions[1] = (slc_pool_partition_desc){"b", 6};
    slc_pool *pool = pool_on(&d, &store);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.partition_count, 2); /* no "default": nothing was left for it */
    slc_partition p;
    assert_int_equal(slc_pool_scan_partition(pool, "default", &p), SLC_E_NOT_FOUND);
    assert_int_equal(slc_pool_scan_partition(pool, "a_partition_name_of_31_bytes_xy", &p), SLC_OK);
    assert_int_equal(p.index, 0);
}

static void test_spec_from_profile_builds_the_partitions(void **state)
{
    (void)state;
    size_t len;
    char *text = read_source_file("budgets/auto-cluster.profile", &len);
    slc_profile prof;
    slc_profile_diag diag;
    if (tool_profile_parse(text, len, "auto-cluster.profile", &prof, NULL, &diag) != SLC_OK) {
        fail_msg("%s", diag.message);
    }
    free(text);
    slc_pool_desc d;
    slc_pool_spec spec;
    memset(&spec, 0xa5, sizeof spec); /* every field is written */
    slc_pool_spec_from_profile(&prof, SLC_POOL_GEOMETRY, &spec);
    /* what the store is built from besides the page count */
    assert_int_equal(spec.kind, SLC_POOL_GEOMETRY);
    assert_int_equal(spec.page_size, prof.page_size);
    assert_true(spec.staging_size == prof.staging_size);
    assert_string_equal(spec.budget, "gpu/pool");
    assert_string_equal(spec.section, "pool");
    assert_int_equal(spec.pool.log_capacity, 0);
    assert_int_equal(spec.pool.reserved[0], 0);
    d = spec.pool;
    assert_int_equal(d.page_count, prof.page_count);
    assert_int_equal(d.max_chunks, prof.max_chunks);
    assert_int_equal(d.frames_in_flight, prof.frames_in_flight);
    assert_int_equal(d.eviction, SLC_EVICTION_PRIORITY);
    assert_int_equal(d.partition_count, 2);
    slc_page_store store = fake_new(&fake, prof.page_count);
    store.page_size = prof.page_size;
    slc_pool *pool = pool_on(&d, &store);
    static const char *const names[] = {"gauges", "navigation", "default"};
    uint32_t first = 0;
    for (uint16_t i = 0; i < 3; i++) {
        slc_partition p;
        assert_int_equal(slc_pool_scan_partition(pool, names[i], &p), SLC_OK);
        assert_int_equal(p.index, i);
        slc_pool_partition_stats ps;
        slc_pool_get_partition_stats(pool, p, &ps);
        assert_string_equal(ps.name, names[i]);
        assert_int_equal(ps.first_page, first);
        assert_int_equal(ps.free, ps.page_count);
        first += ps.page_count;
    }
    assert_int_equal(first, 2048);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.partition_count, 3);
}

/* --- states, lookups, writes --------------------------------------------- */

static void test_states_from_free_to_pinned_and_back(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(4, 16, 2, SLC_EVICTION_LRU);
    slc_page_info info;
    slc_pool_get_page(pool, 0, &info);
    assert_int_equal(info.state, SLC_PAGE_FREE);
    assert_int_equal(info.chunk.index, SLC_CHUNK_NONE_INDEX);

    slc_pool_request r = req_of(7, 0, 2, 9);
    slc_page page;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    CHECK(pool);
    assert_int_equal(page.index, 0); /* free pages go lowest index first */
    assert_int_equal(page.generation, 1);
    assert_int_equal(state_of(pool, page), SLC_PAGE_LOADING);
    assert_int_equal(slc_pool_lookup(pool, (slc_chunk_id){7}, &info),
                     SLC_OK); /* a loading page is found, with its state */
    assert_int_equal(info.state, SLC_PAGE_LOADING);
    assert_int_equal(info.lod, 2);
    assert_int_equal(info.priority, 9);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.free, 3);
    assert_int_equal(st.loading, 1);
    assert_int_equal(st.acquires, 1);
    assert_int_equal(st.peak_used, 1);

    void *dst;
    assert_int_equal(slc_pool_write_begin(pool, page, &dst), SLC_OK);
    assert_ptr_equal(dst, fake.mem);
    memcpy(dst, "chunk seven", 12);
    assert_int_equal(state_of(pool, page), SLC_PAGE_LOADING);
    assert_int_equal(slc_pool_write_end(pool, page, 12), SLC_OK);
    CHECK(pool);
    assert_int_equal(state_of(pool, page), SLC_PAGE_RESIDENT);
    assert_int_equal(fake.writes_ended, 1);
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.loading, 0);
    assert_int_equal(st.resident, 1);

    assert_int_equal(slc_pool_pin(pool, page), SLC_OK);
    assert_int_equal(slc_pool_pin(pool, page), SLC_OK);
    CHECK(pool);
    assert_int_equal(state_of(pool, page), SLC_PAGE_PINNED);
    slc_pool_get_page(pool, 0, &info);
    assert_int_equal(info.pins, 2);
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.pinned, 1);
    assert_int_equal(st.resident, 0);
    assert_int_equal(slc_pool_unpin(pool, page), SLC_OK);
    assert_int_equal(state_of(pool, page), SLC_PAGE_PINNED);
    assert_int_equal(slc_pool_unpin(pool, page), SLC_OK);
    CHECK(pool);
    assert_int_equal(state_of(pool, page), SLC_PAGE_RESIDENT);

    begin(pool);
    assert_int_equal(slc_pool_touch(pool, page, 3), SLC_OK);
    CHECK(pool);
    slc_pool_get_page(pool, 0, &info);
    assert_int_equal(info.last_used, 1);
    assert_int_equal(info.priority, 3);
    end(pool);
    frames(pool, 2); /* frame 1 is safe once frame 3 begins */
    assert_int_equal(slc_pool_release(pool, page), SLC_OK);
    CHECK(pool);
    assert_int_equal(state_of(pool, page), SLC_PAGE_FREE);
    assert_int_equal(slc_pool_lookup(pool, (slc_chunk_id){7}, &info), SLC_E_NOT_FOUND);
    assert_int_equal(info.page.index, SLC_PAGE_NONE);
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.free, 4);
    assert_int_equal(st.releases, 1);
    assert_int_equal(st.peak_used, 1);
}

static void test_lookup_gives_location_and_generation(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(12, 32, 2, SLC_EVICTION_LRU);
    for (uint32_t c = 0; c < 10; c++) {
        load(pool, 20 + c);
    }
    slc_page_info info;
    assert_int_equal(slc_pool_lookup(pool, (slc_chunk_id){29}, &info), SLC_OK);
    assert_int_equal(info.page.index, 9);
    assert_int_equal(info.page.generation, 1);
    assert_int_equal(info.chunk.index, 29);
    assert_int_equal(info.state, SLC_PAGE_RESIDENT);
    assert_int_equal(info.partition.index, 0);
    assert_int_equal(info.location.segment, 2);
    assert_int_equal(info.location.offset, 1 * FAKE_PAGE_SIZE);
    assert_ptr_equal(info.location.host, fake.mem + 9 * FAKE_PAGE_SIZE);
    assert_int_equal(((unsigned char *)info.location.host)[0], 29);
    assert_int_equal(slc_pool_lookup(pool, (slc_chunk_id){31}, &info), SLC_E_NOT_FOUND);
    logged.message[0] = '\0';
    expect_logged(slc_pool_lookup(pool, (slc_chunk_id){32}, &info), SLC_E_INVALID,
                  "pool: chunk 32 is out of range (max_chunks 32)");
    assert_int_equal(info.page.index, SLC_PAGE_NONE);
}

static void test_acquire_refusals_change_nothing(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(2, 8, 2, SLC_EVICTION_LRU);
    slc_page a, b, none;
    slc_pool_request r = req_of(1, 0, 0, 0);
    assert_int_equal(slc_pool_acquire(pool, &r, &a), SLC_OK);
    slc_pool_stats before, after;
    slc_pool_get_stats(pool, &before);

    r.chunk.index = 8;
    expect_logged(slc_pool_acquire(pool, &r, &none), SLC_E_INVALID, "pool: chunk 8 is out of range (max_chunks 8)");
    assert_int_equal(none.index, SLC_PAGE_NONE);
    assert_int_equal(none.generation, 0);
    r = req_of(2, 1, 0, 0);
    expect_logged(slc_pool_acquire(pool, &r, &none), SLC_E_INVALID, "pool: partition 1 does not exist (1 partitions)");
    r = req_of(2, 0, SLC_LODS_MAX, 0);
    expect_logged(slc_pool_acquire(pool, &r, &none), SLC_E_INVALID, "pool: chunk 2: lod 16 is not below 16");
    r = req_of(1, 0, 0, 0);
    expect_logged(slc_pool_acquire(pool, &r, &none), SLC_E_INVALID, "pool: chunk 1 already has page 0");
    CHECK(pool);
    slc_pool_get_stats(pool, &after);
    assert_memory_equal(&before, &after, sizeof before);

    /* Every page loading: nothing can be given; counted, not logged. */
    r.chunk.index = 2;
    assert_int_equal(slc_pool_acquire(pool, &r, &b), SLC_OK);
    r.chunk.index = 3;
    logged.calls = 0;
    assert_int_equal(slc_pool_acquire(pool, &r, &none), SLC_E_POOL_BUSY);
    assert_int_equal(logged.calls, 0);
    assert_int_equal(none.index, SLC_PAGE_NONE);
    CHECK(pool);
    slc_pool_get_stats(pool, &after);
    assert_int_equal(after.busy, 1);
    assert_int_equal(after.acquires, 2);
    assert_int_equal(after.log_count, 2);
    assert_int_equal(page_of(pool, 3), SLC_PAGE_NONE);
    slc_pool_partition_stats ps;
    slc_pool_get_partition_stats(pool, (slc_partition){0}, &ps);
    assert_int_equal(ps.busy, 1);
}

static void test_write_refusals(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(4, 8, 2, SLC_EVICTION_LRU);
    slc_page done = load(pool, 1);
    void *dst = (void *)1;
    expect_logged(slc_pool_write_begin(pool, done, &dst), SLC_E_INVALID,
                  "pool: page 0 (chunk 1) is resident: only a loading page is written");
    assert_null(dst);
    expect_logged(slc_pool_write_end(pool, done, 1), SLC_E_INVALID,
                  "pool: page 0 (chunk 1): no write is open (write_begin first)");

    slc_pool_request r = req_of(2, 0, 0, 0);
    slc_page page;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    expect_logged(slc_pool_write_end(pool, page, 1), SLC_E_INVALID,
                  "pool: page 1 (chunk 2): no write is open (write_begin first)");
    /* The store's refusal passes through; the page goes on loading. */
    fake.write_begin_status = SLC_E_CAPACITY;
    dst = (void *)1;
    assert_int_equal(slc_pool_write_begin(pool, page, &dst), SLC_E_CAPACITY);
    assert_null(dst);
    assert_int_equal(state_of(pool, page), SLC_PAGE_LOADING);
    CHECK(pool);
    fake.write_begin_status = SLC_OK;
    assert_int_equal(slc_pool_write_begin(pool, page, &dst), SLC_OK);
    expect_logged(slc_pool_write_begin(pool, page, &dst), SLC_E_INVALID,
                  "pool: page 1 (chunk 2): a write is already open");
    expect_logged(slc_pool_write_end(pool, page, FAKE_PAGE_SIZE + 1), SLC_E_INVALID,
                  "pool: page 1 (chunk 2): 65 bytes written; a page holds 64");
    fake.write_end_status = SLC_E_DEVICE;
    assert_int_equal(slc_pool_write_end(pool, page, FAKE_PAGE_SIZE), SLC_E_DEVICE);
    assert_int_equal(state_of(pool, page), SLC_PAGE_LOADING); /* the write stays open: retry or release */
    CHECK(pool);
    fake.write_end_status = SLC_OK;
    assert_int_equal(slc_pool_write_end(pool, page, FAKE_PAGE_SIZE), SLC_OK);
    assert_int_equal(state_of(pool, page), SLC_PAGE_RESIDENT);
    /* A load abandoned with its write open: the page is simply free again. */
    r.chunk.index = 3;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    assert_int_equal(slc_pool_write_begin(pool, page, &dst), SLC_OK);
    assert_int_equal(slc_pool_release(pool, page), SLC_OK);
    CHECK(pool);
    assert_int_equal(state_of(pool, page), SLC_PAGE_FREE);
    assert_int_equal(page_of(pool, 3), SLC_PAGE_NONE);
}

static void test_stale_handles_are_detected_never_aliased(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(1, 8, 1, SLC_EVICTION_LRU);
    slc_page old = load(pool, 1);
    begin(pool);
    assert_int_equal(slc_pool_touch(pool, old, 0), SLC_OK);
    end(pool);
    begin(pool);                  /* frame 1 is safe now */
    slc_page now = load(pool, 2); /* evicts chunk 1 from the same page */
    assert_int_equal(now.index, old.index);
    assert_int_not_equal(now.generation, old.generation);
    logged.calls = 0;
    void *dst;
    assert_int_equal(slc_pool_touch(pool, old, 0), SLC_E_STALE);
    assert_int_equal(slc_pool_pin(pool, old), SLC_E_STALE);
    assert_int_equal(slc_pool_unpin(pool, old), SLC_E_STALE);
    assert_int_equal(slc_pool_write_begin(pool, old, &dst), SLC_E_STALE);
    assert_null(dst);
    assert_int_equal(slc_pool_write_end(pool, old, 0), SLC_E_STALE);
    assert_int_equal(slc_pool_release(pool, old), SLC_E_STALE);
    assert_int_equal(logged.calls, 0); /* counted, not logged */
    CHECK(pool);
    slc_page_info info;
    slc_pool_get_page(pool, 0, &info);
    assert_int_equal(info.chunk.index, 2); /* nothing reached chunk 2 through the old handle */
    assert_int_equal(info.pins, 0);
    assert_int_equal(slc_pool_touch(pool, now, 0), SLC_OK);
    end(pool);
    begin(pool);
    /* A released page: its handle is stale too, and stays so when the page is reused. */
    assert_int_equal(slc_pool_release(pool, now), SLC_OK);
    assert_int_equal(slc_pool_pin(pool, now), SLC_E_STALE);
    slc_page again = load(pool, 3);
    assert_int_equal(again.index, now.index);
    assert_int_equal(slc_pool_touch(pool, now, 0), SLC_E_STALE);
    assert_int_equal(slc_pool_touch(pool, again, 0), SLC_OK);
    /* {0, 0} is never valid; an index that does not exist is a mistake. */
    assert_int_equal(slc_pool_touch(pool, (slc_page){0, 0}, 0), SLC_E_STALE);
    expect_logged(slc_pool_touch(pool, (slc_page){1, 1}, 0), SLC_E_INVALID, "pool: page 1 does not exist (1 pages)");
    expect_logged(slc_pool_pin(pool, (slc_page){SLC_PAGE_NONE, 0}), SLC_E_INVALID,
                  "pool: page 4294967295 does not exist (1 pages)");
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.stale, 9);
    CHECK(pool);
}

static void test_each_reuse_gives_a_new_generation(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(1, 4, 1, SLC_EVICTION_LRU);
    uint32_t last = 0;
    for (int i = 0; i < 1000; i++) {
        slc_pool_request r = req_of((uint32_t)(i % 4), 0, 0, 0);
        slc_page page;
        assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
        assert_int_equal(page.generation, last + 1); /* a release moves the generation on by one */
        last = page.generation;
        assert_int_equal(slc_pool_release(pool, page), SLC_OK);
        assert_int_equal(slc_pool_release(pool, page), SLC_E_STALE);
    }
    CHECK(pool);
}

/* --- frames -------------------------------------------------------------- */

static void test_frames_gate_and_misuse(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(2, 8, 2, SLC_EVICTION_LRU);
    fake.manual = 1; /* the "device" retires nothing until told */
    slc_page page = load(pool, 1);
    expect_logged(slc_pool_touch(pool, page, 0), SLC_E_INVALID,
                  "pool: page 0 (chunk 1) touched outside a frame: begin one first");
    expect_logged(slc_pool_end_frame(pool), SLC_E_INVALID, "pool: no frame is open");
    assert_int_equal(begin(pool), 1);
    expect_logged(slc_pool_begin_frame(pool, NULL), SLC_E_INVALID,
                  "pool: frame 1 is open: end it before beginning another");
    slc_pool_request r = req_of(2, 0, 0, 0);
    slc_page loading;
    assert_int_equal(slc_pool_acquire(pool, &r, &loading), SLC_OK);
    expect_logged(slc_pool_touch(pool, loading, 0), SLC_E_INVALID,
                  "pool: page 1 (chunk 2) is still loading: a frame cannot use it");
    /* A store that cannot submit: the frame stays open, the message says so. */
    fake.submit_status = SLC_E_DEVICE;
    expect_logged(slc_pool_end_frame(pool), SLC_E_DEVICE,
                  "pool: the fake store could not submit frame 1; it stays open");
    fake.submit_status = SLC_OK;
    end(pool);
    assert_int_equal(begin(pool), 2);
    end(pool);
    /* Frames 1 and 2 are in flight, and the profile allows 2. */
    uint64_t f = 99;
    logged.calls = 0;
    assert_int_equal(slc_pool_begin_frame(pool, &f), SLC_E_FRAMES_IN_FLIGHT);
    assert_int_equal(slc_pool_begin_frame(pool, &f), SLC_E_FRAMES_IN_FLIGHT);
    assert_int_equal(logged.calls, 0);
    assert_int_equal(f, 99);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.frames_refused, 2);
    assert_int_equal(st.frame, 2);
    assert_int_equal(st.submitted, 2);
    assert_int_equal(st.safe_frame, 0);
    fake.retired = 1;
    assert_int_equal(begin(pool), 3);
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.safe_frame, 1);
    end(pool);
    /* A store that claims to have retired frames never submitted is not believed. */
    fake.retired = 1000;
    assert_int_equal(begin(pool), 4);
    end(pool);
    assert_int_equal(fake.submits, 4);
}

static void test_page_of_unretired_frame_is_never_handed_out(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(2, 8, 2, SLC_EVICTION_LRU);
    fake.manual = 1;
    slc_page a = load(pool, 1), b = load(pool, 2);
    begin(pool); /* frame 1 reads both pages */
    assert_int_equal(slc_pool_touch(pool, a, 0), SLC_OK);
    assert_int_equal(slc_pool_touch(pool, b, 0), SLC_OK);
    slc_pool_request r = req_of(3, 0, 0, 0);
    slc_page c;
    assert_int_equal(slc_pool_acquire(pool, &r, &c), SLC_E_POOL_BUSY);
    end(pool);
    assert_int_equal(slc_pool_acquire(pool, &r, &c), SLC_E_POOL_BUSY);
    assert_int_equal(slc_pool_release(pool, a), SLC_E_POOL_BUSY);
    begin(pool); /* frame 2: frame 1 may still be in flight */
    assert_int_equal(slc_pool_acquire(pool, &r, &c), SLC_E_POOL_BUSY);
    end(pool);
    /* The device has not finished frame 1: frame 3 cannot begin, so nothing
     * frame 1 reads can be given away. */
    assert_int_equal(slc_pool_begin_frame(pool, NULL), SLC_E_FRAMES_IN_FLIGHT);
    assert_int_equal(slc_pool_acquire(pool, &r, &c), SLC_E_POOL_BUSY);
    CHECK(pool);
    assert_int_equal(page_of(pool, 1), a.index);
    assert_int_equal(page_of(pool, 2), b.index);
    assert_int_equal(fake.mem[a.index * FAKE_PAGE_SIZE], 1); /* untouched */
    /* Frame 1 retires: frame 3 begins and the pages frame 1 used are free to go. */
    fake.retired = 1;
    begin(pool);
    assert_int_equal(slc_pool_acquire(pool, &r, &c), SLC_OK);
    assert_int_equal(c.index, a.index); /* the least recently used of the two */
    CHECK(pool);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.busy, 5);
    assert_int_equal(st.evictions, 1);
}

static void test_host_store_retires_at_submit(void **state)
{
    (void)state;
    /* With the host backend every submitted frame is finished: after
     * frames_in_flight more frames begin, a page is free to go. */
    static _Alignas(64) unsigned char amem[SLC_ARENA_FOOTPRINT(4096)];
    slc_arena *arena;
    assert_int_equal(slc_arena_init(amem, sizeof amem, NULL, SLC_BUDGET_NONE, &arena), SLC_OK);
    slc_page_store store;
    assert_int_equal(slc_host_store_init(arena, 4, 256, NULL, &store), SLC_OK);
    slc_pool_desc d = desc_of(4, 16, 3, SLC_EVICTION_LRU);
    slc_pool *pool = pool_on(&d, &store);
    for (uint32_t c = 0; c < 4; c++) {
        load(pool, c);
    }
    begin(pool);
    for (uint32_t c = 0; c < 4; c++) {
        slc_page_info info;
        assert_int_equal(slc_pool_lookup(pool, (slc_chunk_id){c}, &info), SLC_OK);
        assert_int_equal(slc_pool_touch(pool, info.page, 0), SLC_OK);
    }
    end(pool);
    slc_pool_request r = req_of(9, 0, 0, 0);
    slc_page page;
    for (int f = 2; f <= 3; f++) {
        begin(pool);
        assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_POOL_BUSY);
        end(pool);
    }
    begin(pool); /* frame 4: 4 - 3 = 1 is safe */
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    slc_host_store_stats hs;
    slc_host_store_get_stats(&store, &hs);
    assert_int_equal(hs.submitted, 3);
    assert_int_equal(hs.writes, 4);
    assert_int_equal(hs.bytes_written, 64);
}

/* --- the eviction orders -------------------------------------------------- */

static void test_lru_evicts_least_recently_used_in_order(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(4, 32, 1, SLC_EVICTION_LRU);
    slc_page p[4];
    for (uint32_t c = 0; c < 4; c++) {
        p[c] = load(pool, c); /* written in order 0, 1, 2, 3 */
    }
    begin(pool); /* frame 1 uses 2, then 0 */
    assert_int_equal(slc_pool_touch(pool, p[2], 0), SLC_OK);
    assert_int_equal(slc_pool_touch(pool, p[0], 0), SLC_OK);
    end(pool);
    begin(pool); /* frame 2 uses 1 */
    assert_int_equal(slc_pool_touch(pool, p[1], 0), SLC_OK);
    end(pool);
    begin(pool); /* frame 3: frames up to 2 are safe. Recency: 3, 2, 0, 1 */
    static const uint32_t victims[] = {3, 2, 0, 1};
    for (uint32_t i = 0; i < 4; i++) {
        load(pool, 10 + i);
        assert_int_equal(page_of(pool, victims[i]), SLC_PAGE_NONE);
        for (uint32_t j = i + 1; j < 4; j++) {
            assert_int_not_equal(page_of(pool, victims[j]), SLC_PAGE_NONE);
        }
    }
    /* Chunks 10.. were loaded in frame 3: not safe until frame 4 begins. */
    slc_pool_request r = req_of(20, 0, 0, 0);
    slc_page page;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_POOL_BUSY);
    end(pool);
    begin(pool);
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    assert_int_equal(page_of(pool, 10), SLC_PAGE_NONE);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.evictions, 5);
    CHECK(pool);
}

static void test_priority_evicts_by_priority_lod_then_least_recently_used(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(8, 128, 1, SLC_EVICTION_PRIORITY);
    /* chunk, lod, priority; touched in frame 1 only: 5 and 6. */
    static const struct {
        uint32_t chunk;
        uint8_t lod, priority;
    } pages[] = {
        {40, 0, 2}, {30, 1, 1}, {31, 0, 1}, {20, 0, 1}, {21, 0, 1}, {50, 0, 0}, {11, 2, 1}, {10, 3, 0},
    };
    slc_page p[8];
    for (int i = 0; i < 8; i++) {
        p[i] = load_in(pool, pages[i].chunk, 0, pages[i].lod, pages[i].priority);
    }
    begin(pool);
    assert_int_equal(slc_pool_touch(pool, p[5], 0), SLC_OK); /* chunk 50, last used in frame 1 */
    assert_int_equal(slc_pool_touch(pool, p[6], 1), SLC_OK); /* chunk 11 */
    end(pool);
    begin(pool); /* frame 2: frame 1 is safe */
    /* priority 0: chunk 10 (lod 3, last use 0) and 50 (lod 0, last use 1):
     * finer first, so 50, then 10. Priority 1: lod 0 chunks 31, 20, 21 (last
     * use 0 for all): in the order they were written, 31, 20, 21, not by
     * chunk id; then lod 1 chunk 30, lod 2 chunk 11. Priority 2: chunk 40. */
    static const uint32_t order[] = {50, 10, 31, 20, 21, 30, 11, 40};
    for (uint32_t i = 0; i < 8; i++) {
        load_in(pool, 100 + i, 0, 0, 255);
        if (page_of(pool, order[i]) != SLC_PAGE_NONE) {
            fail_msg("eviction %u: chunk %u should have gone", i, order[i]);
        }
        for (uint32_t j = i + 1; j < 8; j++) {
            assert_int_not_equal(page_of(pool, order[j]), SLC_PAGE_NONE);
        }
    }
    CHECK(pool);
}

/* Buckets in every word of the bitmap and at both ends of it: the victims
 * come out by (priority, lod), then in the order they were written. */
static void test_priority_buckets_span_the_whole_bitmap(void **state)
{
    (void)state;
    enum { N = 14 };
    slc_pool *pool = fake_pool(N, 64, 1, SLC_EVICTION_PRIORITY);
    static const struct {
        uint8_t lod, priority;
    } pages[N] = {
        {15, 255}, {0, 0},  {3, 128}, {15, 3},   {0, 4},   {7, 200}, {0, 0},
        {0, 255},  {2, 64}, {1, 63},  {15, 255}, {0, 130}, {14, 0},  {2, 64},
    };
    for (uint32_t i = 0; i < N; i++) {
        load_in(pool, i, 0, pages[i].lod, pages[i].priority);
    }
    uint32_t order[N];
    for (uint32_t i = 0; i < N; i++) { /* a stable insertion sort by (priority, lod) */
        uint32_t at = i;
        while (at > 0 &&
               (pages[order[at - 1]].priority > pages[i].priority ||
                (pages[order[at - 1]].priority == pages[i].priority && pages[order[at - 1]].lod > pages[i].lod))) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    begin(pool);
    end(pool);
    begin(pool); /* frame 2: frame 0 is safe */
    for (uint32_t i = 0; i < N; i++) {
        load_in(pool, 32 + i, 0, 0, 255);
        if (page_of(pool, order[i]) != SLC_PAGE_NONE) {
            fail_msg("eviction %u: chunk %u should have gone", i, order[i]);
        }
        for (uint32_t j = i + 1; j < N; j++) {
            assert_int_not_equal(page_of(pool, order[j]), SLC_PAGE_NONE);
        }
        CHECK(pool);
    }
}

static void test_priority_touch_updates_the_key(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(3, 16, 1, SLC_EVICTION_PRIORITY);
    slc_page a = load_in(pool, 1, 0, 0, 5), b = load_in(pool, 2, 0, 0, 6);
    load_in(pool, 3, 0, 0, 7);
    frames(pool, 1);
    begin(pool);
    /* Make the heap hold them, then raise a's priority in this frame: a
     * leaves the heap (it is in use) and b is the victim. */
    slc_pool_request r = req_of(4, 0, 0, 9);
    slc_page page;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK); /* evicts 1 (priority 5) */
    assert_int_equal(page.index, a.index);
    assert_int_equal(slc_pool_touch(pool, b, 200), SLC_OK);
    CHECK(pool);
    end(pool);
    begin(pool); /* frame 3: the touch in frame 2 is safe; b now outranks chunk 3 */
    r.chunk.index = 5;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    assert_int_equal(page_of(pool, 3), SLC_PAGE_NONE);
    assert_int_equal(page_of(pool, 2), b.index);
    CHECK(pool);
}

/* Acquires chunk (priority 255, partition 0) and returns the chunk its page
 * held, from the log: SLC_CHUNK_NONE_INDEX for a free page. */
static uint32_t evict_for(slc_pool *pool, uint32_t chunk)
{
    load_in(pool, chunk, 0, 0, 255);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    slc_pool_log_entry e;
    assert_int_equal(slc_pool_walk_log(pool, st.log_count - 1, &e, 1), 1);
    assert_int_equal(e.loaded.index, chunk);
    return e.evicted.index;
}

/* Pages used in frame f wait in f's own bucket table and join the safe one,
 * a whole bucket at a time, when begin_frame makes f safe: after the pages
 * already safe in that bucket (or as the whole bucket), in the order of f's
 * calls; frame f + frames_in_flight then reuses f's table. */
static void test_priority_a_frames_pages_join_their_buckets_when_it_becomes_safe(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(8, 512, 2, SLC_EVICTION_PRIORITY);
    /* Frame 0 (safe at once): 0, 1, 2 at priority 1; 3 at 2; 6, 7 at 3. */
    slc_page p0 = load_in(pool, 0, 0, 0, 1);
    load_in(pool, 1, 0, 0, 1);
    load_in(pool, 2, 0, 0, 1);
    slc_page p3 = load_in(pool, 3, 0, 0, 2);
    slc_page p6 = load_in(pool, 6, 0, 0, 3);
    load_in(pool, 7, 0, 0, 3);
    assert_int_equal(begin(pool), 1);
    /* Frame 1, in this order: 0 used, 4 written (priority 1), 5 written
     * (priority 0, a bucket empty in the safe table), 3 used at priority 1. */
    assert_int_equal(slc_pool_touch(pool, p0, 1), SLC_OK);
    load_in(pool, 4, 0, 0, 1);
    load_in(pool, 5, 0, 0, 0);
    assert_int_equal(slc_pool_touch(pool, p3, 1), SLC_OK);
    CHECK(pool);
    end(pool);
    assert_int_equal(begin(pool), 2); /* safe frame 0: frame 1's pages wait */
    assert_int_equal(evict_for(pool, 100), 1);
    assert_int_equal(slc_pool_touch(pool, p6, 3), SLC_OK); /* 6 now waits for frame 2 */
    end(pool);
    assert_int_equal(begin(pool), 3); /* safe frame 1 */
    /* Priority 0: 5 (frame 1's, alone). Priority 1: 2 (frame 0's, left
     * from frame 2), then frame 1's in call order: 0, 4, 3. Priority 3: 7;
     * 6 and 100 are frame 2's. Frame 3's loads go to frame 1's table. */
    static const uint32_t order[] = {5, 2, 0, 4, 3, 7};
    for (uint32_t i = 0; i < 6; i++) {
        uint32_t got = evict_for(pool, 200 + i);
        if (got != order[i]) {
            fail_msg("eviction %u in frame 3: chunk %u, expected %u", i, got, order[i]);
        }
    }
    slc_pool_request r = req_of(300, 0, 0, 255);
    slc_page page;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_POOL_BUSY);
    end(pool);
    assert_int_equal(begin(pool), 4); /* safe frame 2: 6 (priority 3), then 100 (255) */
    assert_int_equal(evict_for(pool, 300), 6);
    assert_int_equal(evict_for(pool, 301), 100);
    r.chunk.index = 400;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_POOL_BUSY); /* frame 3's are not safe yet */
    end(pool);
    assert_int_equal(begin(pool), 5); /* safe frame 3: its pages come out of frame 1's reused table */
    assert_int_equal(evict_for(pool, 302), 200);
    CHECK(pool);
}

/* The checker knows which table a waiting page belongs in: a page whose
 * last use says "safe" but sits in its frame's table is caught. The record
 * layout is fixed (SLC_POOL_PAGE_RECORD_SIZE bytes a page after the
 * header, last_used first), so the test edits it in place. */
static void test_check_finds_a_page_in_the_wrong_bucket_table(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(4, 16, 2, SLC_EVICTION_PRIORITY);
    slc_page a = load_in(pool, 1, 0, 0, 7);
    begin(pool);
    assert_int_equal(slc_pool_touch(pool, a, 7), SLC_OK); /* into frame 1's table */
    CHECK(pool);
    unsigned char *rec = pool_mem + SLC_POOL_HEADER_SIZE + (size_t)SLC_POOL_PAGE_RECORD_SIZE * a.index;
    uint64_t last_used;
    memcpy(&last_used, rec, sizeof last_used);
    assert_int_equal(last_used, 1);
    uint64_t wrong = 0; /* safe: it would belong in the safe table */
    memcpy(rec, &wrong, sizeof wrong);
    assert_false(slc_pool_check(pool));
    memcpy(rec, &last_used, sizeof last_used);
    CHECK(pool);
}

static void test_pinned_pages_are_never_evicted(void **state)
{
    (void)state;
    for (int policy = 0; policy < 2; policy++) {
        slc_pool *pool = fake_pool(3, 64, 1, (slc_eviction_policy)policy);
        /* The coarsest level, pinned before its load completes. */
        slc_pool_request r = req_of(1, 0, 7, 0);
        slc_page coarse;
        assert_int_equal(slc_pool_acquire(pool, &r, &coarse), SLC_OK);
        assert_int_equal(slc_pool_pin(pool, coarse), SLC_OK);
        assert_int_equal(state_of(pool, coarse), SLC_PAGE_LOADING);
        void *dst;
        assert_int_equal(slc_pool_write_begin(pool, coarse, &dst), SLC_OK);
        assert_int_equal(slc_pool_write_end(pool, coarse, 0), SLC_OK);
        assert_int_equal(state_of(pool, coarse), SLC_PAGE_PINNED);
        CHECK(pool);
        slc_page fine = load_in(pool, 2, 0, 0, 9);
        load_in(pool, 3, 0, 0, 9);
        /* A stream of requests: only the two unpinned pages ever turn over. */
        for (uint32_t i = 0; i < 50; i++) {
            begin(pool);
            load_in(pool, 10 + i, 0, 0, (uint8_t)i);
            assert_int_equal(page_of(pool, 1), coarse.index);
            assert_int_equal(slc_pool_touch(pool, coarse, 0), SLC_OK); /* a pinned page may be touched */
            end(pool);
        }
        assert_int_equal(page_of(pool, 2), SLC_PAGE_NONE);
        assert_int_equal(slc_pool_release(pool, fine), SLC_E_STALE);
        /* Every page pinned: nothing is evictable. */
        slc_page_info info;
        begin(pool);
        for (uint32_t c = 0; c < 64; c++) {
            if (slc_pool_lookup(pool, (slc_chunk_id){c}, &info) == SLC_OK && info.state == SLC_PAGE_RESIDENT) {
                assert_int_equal(slc_pool_pin(pool, info.page), SLC_OK);
            }
        }
        end(pool);
        frames(pool, 2);
        begin(pool);
        r.chunk.index = 63;
        slc_page page;
        assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_POOL_BUSY);
        expect_logged(slc_pool_release(pool, coarse), SLC_E_INVALID,
                      "pool: page 0 (chunk 1) is pinned: unpin it before releasing it");
        assert_int_equal(slc_pool_unpin(pool, coarse), SLC_OK);
        expect_logged(slc_pool_unpin(pool, coarse), SLC_E_INVALID, "pool: page 0 (chunk 1) holds no pin");
        /* Unpinning counts as a use in this frame: safe only from the next. */
        assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_POOL_BUSY);
        end(pool);
        begin(pool);
        assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
        assert_int_equal(page.index, coarse.index);
        end(pool);
        CHECK(pool);
    }
}

static void test_pin_count_is_bounded(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(1, 4, 1, SLC_EVICTION_LRU);
    slc_page page = load(pool, 1);
    for (unsigned i = 0; i < 65535; i++) {
        assert_int_equal(slc_pool_pin(pool, page), SLC_OK);
    }
    expect_logged(slc_pool_pin(pool, page), SLC_E_CAPACITY, "pool: page 0 (chunk 1) already holds 65535 pins");
    slc_page_info info;
    slc_pool_get_page(pool, 0, &info);
    assert_int_equal(info.pins, 65535);
    CHECK(pool);
}

static void test_release_paths_and_free_page_reuse(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(4, 16, 1, SLC_EVICTION_PRIORITY);
    slc_page p[4];
    for (uint32_t c = 0; c < 4; c++) {
        p[c] = load(pool, c);
    }
    begin(pool);
    assert_int_equal(slc_pool_touch(pool, p[1], 0), SLC_OK);
    assert_int_equal(slc_pool_release(pool, p[1]), SLC_E_POOL_BUSY); /* frame 1 uses it */
    assert_int_equal(slc_pool_release(pool, p[2]), SLC_OK);          /* in the recency list */
    end(pool);
    begin(pool);
    slc_pool_request r = req_of(9, 0, 0, 0);
    slc_page page;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK); /* the freed page first, no eviction */
    assert_int_equal(page.index, p[2].index);
    r.chunk.index = 10;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK); /* evicts 0: moves the safe pages into the heap */
    assert_int_equal(page.index, p[0].index);
    assert_int_equal(slc_pool_release(pool, p[3]), SLC_OK); /* from the heap */
    assert_int_equal(slc_pool_release(pool, p[1]), SLC_OK); /* frame 1 is safe now */
    CHECK(pool);
    /* The free stack: the most recently freed page first. */
    r.chunk.index = 11;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    assert_int_equal(page.index, p[1].index);
    r.chunk.index = 12;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
    assert_int_equal(page.index, p[3].index);
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.releases, 3);
    assert_int_equal(st.evictions, 1);
    assert_int_equal(st.busy, 1);
    CHECK(pool);
}

/* --- partitions ------------------------------------------------------------ */

static void test_partition_flood_leaves_other_partitions_untouched(void **state)
{
    (void)state;
    enum { PAGES = 16, PAGE_SIZE = 128 };
    static _Alignas(64) unsigned char amem[SLC_ARENA_FOOTPRINT(4096)];
    for (int policy = 0; policy < 2; policy++) {
        slc_arena *arena;
        assert_int_equal(slc_arena_init(amem, sizeof amem, NULL, SLC_BUDGET_NONE, &arena), SLC_OK);
        slc_page_store store;
        assert_int_equal(slc_host_store_init(arena, PAGES, PAGE_SIZE, NULL, &store), SLC_OK);
        slc_pool_desc d = desc_of(PAGES, 4096, 2, (slc_eviction_policy)policy);
        d.partition_count = 2;
        d.partitions[0] = (slc_pool_partition_desc){"gauges", 4};
        d.partitions[1] = (slc_pool_partition_desc){"navigation", 8};
        slc_pool *pool = pool_on(&d, &store);
        slc_partition gauges, nav, other;
        assert_int_equal(slc_pool_scan_partition(pool, "gauges", &gauges), SLC_OK);
        assert_int_equal(slc_pool_scan_partition(pool, "navigation", &nav), SLC_OK);
        assert_int_equal(slc_pool_scan_partition(pool, "default", &other), SLC_OK);
        assert_int_equal(other.index, 2);

        /* The gauges fill their share, with the whole page written. */
        slc_page g[4];
        unsigned char snapshot[4][PAGE_SIZE];
        for (uint32_t i = 0; i < 4; i++) {
            slc_pool_request r = req_of(i, gauges.index, 0, 200);
            assert_int_equal(slc_pool_acquire(pool, &r, &g[i]), SLC_OK);
            void *dst;
            assert_int_equal(slc_pool_write_begin(pool, g[i], &dst), SLC_OK);
            for (int b = 0; b < PAGE_SIZE; b++) {
                ((unsigned char *)dst)[b] = (unsigned char)(0xA0 + i + 7 * b);
            }
            memcpy(snapshot[i], dst, PAGE_SIZE);
            assert_int_equal(slc_pool_write_end(pool, g[i], PAGE_SIZE), SLC_OK);
        }
        slc_page o = load_in(pool, 50, other.index, 0, 0);
        slc_pool_partition_stats gauges_before, other_before, ps;
        slc_pool_get_partition_stats(pool, gauges, &gauges_before);
        slc_pool_get_partition_stats(pool, other, &other_before);

        /* The navigation map floods its partition: five new tiles a frame
         * on eight pages with two frames in flight. The gauges are drawn
         * every frame. */
        uint32_t next = 1000, busy = 0;
        for (int f = 0; f < 200; f++) {
            begin(pool);
            for (uint32_t i = 0; i < 4; i++) {
                assert_int_equal(slc_pool_touch(pool, g[i], 200), SLC_OK);
            }
            for (int k = 0; k < 5; k++) {
                slc_pool_request r = req_of(next, nav.index, (uint8_t)(next % 3), (uint8_t)(next % 5));
                slc_page page;
                slc_status s = slc_pool_acquire(pool, &r, &page);
                if (s == SLC_E_POOL_BUSY) {
                    busy++;
                    continue;
                }
                assert_int_equal(s, SLC_OK);
                next++;
                assert_true(page.index >= 4 && page.index < 12); /* navigation's own pages */
                void *dst;
                assert_int_equal(slc_pool_write_begin(pool, page, &dst), SLC_OK);
                memset(dst, 0xEE, PAGE_SIZE);
                assert_int_equal(slc_pool_write_end(pool, page, PAGE_SIZE), SLC_OK);
                assert_int_equal(slc_pool_touch(pool, page, 1), SLC_OK);
            }
            end(pool);
        }
        /* The gauges: the same pages, generations and bytes. */
        for (uint32_t i = 0; i < 4; i++) {
            slc_page_info info;
            assert_int_equal(slc_pool_lookup(pool, (slc_chunk_id){i}, &info), SLC_OK);
            assert_int_equal(info.page.index, g[i].index);
            assert_int_equal(info.page.generation, g[i].generation);
            assert_memory_equal(info.location.host, snapshot[i], PAGE_SIZE);
        }
        slc_pool_get_partition_stats(pool, gauges, &ps);
        assert_int_equal(ps.evictions, 0);
        assert_int_equal(ps.busy, 0);
        assert_int_equal(ps.acquires, gauges_before.acquires);
        assert_int_equal(ps.resident, 4);
        slc_pool_get_partition_stats(pool, other, &ps);
        assert_int_equal(ps.acquires, other_before.acquires);
        assert_int_equal(ps.evictions, 0);
        assert_int_equal(page_of(pool, 50), o.index);
        /* Navigation degraded on its own: it evicted its own tiles and was
         * told to wait, and never held more than its eight pages. */
        slc_pool_get_partition_stats(pool, nav, &ps);
        assert_int_equal(ps.busy, busy);
        assert_true(busy > 0);
        assert_true(ps.evictions > 500);
        assert_int_equal(ps.peak_used, 8);
        print_message("%s: navigation loaded %llu tiles, evicted %llu, was refused %llu times\n",
                      policy ? "priority" : "lru", (unsigned long long)ps.acquires, (unsigned long long)ps.evictions,
                      (unsigned long long)ps.busy);
        /* And the gauges still get pages from their own share when they ask. */
        frames(pool, 2);
        slc_pool_request r = req_of(9, gauges.index, 0, 0);
        slc_page page;
        assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_OK);
        assert_true(page.index < 4);
        CHECK(pool);
    }
}

/* --- the eviction log ------------------------------------------------------ */

static void test_eviction_log_entries_ring_and_hash(void **state)
{
    (void)state;
    slc_pool_desc d = desc_of(2, 16, 1, SLC_EVICTION_LRU);
    d.log_capacity = 4;
    d.partition_count = 1;
    d.partitions[0] = (slc_pool_partition_desc){"a", 1};
    slc_page_store store = fake_new(&fake, 2);
    slc_pool *pool = pool_on(&d, &store);
    load_in(pool, 5, 0, 0, 0);
    slc_page six = load_in(pool, 6, 1, 0, 0);
    begin(pool);
    load_in(pool, 7, 0, 0, 0); /* evicts 5 */
    assert_int_equal(slc_pool_release(pool, six), SLC_OK);
    load_in(pool, 8, 1, 0, 0);
    end(pool);
    const uint32_t N = SLC_CHUNK_NONE_INDEX;
    const slc_pool_log_entry want[] = {
        {0, 0, {N}, 0, {5}, 0}, {1, 0, {N}, 1, {6}, 1}, {2, 1, {5}, 0, {7}, 0},
        {3, 1, {6}, 1, {N}, 1}, {4, 1, {N}, 1, {8}, 1},
    };
    uint64_t hash = 0;
    for (int i = 0; i < 5; i++) {
        hash = chain_hash(hash, &want[i]);
    }
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.log_count, 5);
    assert_int_equal(st.log_hash, hash);
    print_message("log hash 0x%016llx\n", (unsigned long long)hash);

    slc_pool_log_entry got[8];
    assert_int_equal(slc_pool_walk_log(pool, 0, got, 8), 4); /* the ring keeps the newest 4 */
    for (int i = 0; i < 4; i++) {
        assert_memory_equal(&got[i], &want[i + 1], sizeof got[i]);
    }
    assert_int_equal(slc_pool_walk_log(pool, 3, got, 8), 2);
    assert_int_equal(got[0].seq, 3);
    assert_int_equal(got[1].seq, 4);
    assert_int_equal(slc_pool_walk_log(pool, 0, got, 2), 2);
    assert_int_equal(got[0].seq, 1);
    assert_int_equal(got[1].seq, 2);
    assert_int_equal(slc_pool_walk_log(pool, 5, got, 8), 0);
    assert_int_equal(slc_pool_walk_log(pool, 0, NULL, 0), 0);
    /* Refusals log nothing. */
    slc_pool_request r = req_of(9, 0, 0, 0);
    slc_page page;
    slc_page_info info;
    begin(pool);
    assert_int_equal(slc_pool_lookup(pool, (slc_chunk_id){7}, &info), SLC_OK);
    assert_int_equal(slc_pool_touch(pool, info.page, 0), SLC_OK);
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_POOL_BUSY);
    r.chunk.index = 99;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_INVALID);
    slc_pool_get_stats(pool, &st);
    assert_int_equal(st.log_count, 5);
    assert_int_equal(st.log_hash, hash);
}

/* --- a reference model and a random driver --------------------------------- */

enum { MP = 32, MC = 48, MPART = 4, HANDLES = 32 };

typedef struct mpage {
    int state; /* SLC_PAGE_FREE, _LOADING or _RESIDENT */
    int writing;
    uint32_t chunk, gen;
    uint64_t last_used, stamp;
    uint16_t pins, part;
    uint8_t lod, prio;
} mpage;

/* The pool's rules written the slow, obvious way: a scan over every page
 * for the victim, a plain array stack of free pages per partition. */
typedef struct model {
    uint32_t pages, fif, policy, parts;
    uint32_t first[MPART], count[MPART];
    uint32_t stack[MPART][MP], top[MPART];
    mpage pg[MP];
    uint32_t map[MC];
    uint64_t hlast[MC], hgap[MC]; /* SLC_EVICTION_PREDICT: a chunk's last use when it lost its page, its gap */
    uint64_t frame, submitted, stamp, hash, logged, stale, busy;
    int open;
} model;

static void model_init(model *m, const slc_pool_desc *d)
{
    memset(m, 0, sizeof *m);
    m->pages = d->page_count;
    m->fif = d->frames_in_flight;
    m->policy = (uint32_t)d->eviction;
    uint32_t first = 0;
    for (uint32_t p = 0; p <= d->partition_count && first < m->pages; p++) {
        uint32_t count = p < d->partition_count ? d->partitions[p].page_count : m->pages - first;
        m->first[p] = first;
        m->count[p] = count;
        for (uint32_t k = 0; k < count; k++) {
            m->stack[p][k] = first + count - 1 - k; /* pops come out lowest index first */
            m->pg[first + k] = (mpage){SLC_PAGE_FREE, 0, SLC_CHUNK_NONE_INDEX, 1, 0, 0, 0, (uint16_t)p, 0, 0};
        }
        m->top[p] = count;
        first += count;
        m->parts = p + 1;
    }
    for (uint32_t c = 0; c < MC; c++) {
        m->map[c] = SLC_PAGE_NONE;
    }
}

static uint64_t model_safe(const model *m)
{
    return m->frame >= m->fif ? m->frame - m->fif : 0;
}

static void model_log(model *m, uint32_t evicted, uint32_t page, uint32_t loaded, uint32_t part)
{
    slc_pool_log_entry e = {m->logged++, m->frame, {evicted}, page, {loaded}, part};
    m->hash = chain_hash(m->hash, &e);
}

/* SLC_EVICTION_PREDICT: the frame chunk of page p is predicted back at. */
static uint64_t model_predict(const model *m, const mpage *p)
{
    uint64_t g = m->hgap[p->chunk];
    return p->last_used + (g != 0 && m->frame - p->last_used <= 2u * g ? g : SLC_POOL_PREDICT_HORIZON);
}

/* A use of chunk last used at last (0: never): after a frame without one, a new gap. */
static void model_use(model *m, uint32_t chunk, uint64_t last)
{
    if (last != 0 && m->frame - last > 1u) {
        m->hgap[chunk] = m->frame - last;
    }
}

static int model_before(const model *m, const mpage *a, const mpage *b)
{
    if (m->policy == SLC_EVICTION_LRU) {
        return a->stamp < b->stamp;
    }
    if (m->policy == SLC_EVICTION_PREDICT) {
        uint64_t x = model_predict(m, a), y = model_predict(m, b);
        return x != y ? x > y : a->stamp < b->stamp;
    }
    if (a->prio != b->prio) {
        return a->prio < b->prio;
    }
    if (a->lod != b->lod) {
        return a->lod < b->lod;
    }
    return a->stamp < b->stamp; /* the least recently used, in LRU's order (implies last_used's) */
}

static void model_free(model *m, uint32_t i)
{
    mpage *p = &m->pg[i];
    m->map[p->chunk] = SLC_PAGE_NONE;
    m->hlast[p->chunk] = p->last_used;
    p->gen = p->gen + 1 == 0 ? 1 : p->gen + 1;
    p->state = SLC_PAGE_FREE;
    p->chunk = SLC_CHUNK_NONE_INDEX;
    p->writing = 0;
}

static slc_status model_acquire(model *m, const slc_pool_request *r, slc_page *out)
{
    *out = (slc_page){SLC_PAGE_NONE, 0};
    if (r->chunk.index >= MC || r->partition.index >= m->parts || m->map[r->chunk.index] != SLC_PAGE_NONE) {
        return SLC_E_INVALID;
    }
    uint32_t part = r->partition.index, i = SLC_PAGE_NONE, evicted = SLC_CHUNK_NONE_INDEX;
    if (m->top[part] > 0) {
        i = m->stack[part][--m->top[part]];
    } else {
        for (uint32_t k = m->first[part]; k < m->first[part] + m->count[part]; k++) {
            const mpage *p = &m->pg[k];
            if (p->state == SLC_PAGE_RESIDENT && p->pins == 0 && p->last_used <= model_safe(m) &&
                (i == SLC_PAGE_NONE || model_before(m, p, &m->pg[i]))) {
                i = k;
            }
        }
        if (i == SLC_PAGE_NONE) {
            m->busy++;
            return SLC_E_POOL_BUSY;
        }
        evicted = m->pg[i].chunk;
        model_free(m, i);
    }
    model_use(m, r->chunk.index, m->hlast[r->chunk.index]);
    mpage *p = &m->pg[i];
    p->state = SLC_PAGE_LOADING;
    p->chunk = r->chunk.index;
    p->lod = r->lod;
    p->prio = r->priority;
    p->last_used = m->frame;
    p->pins = 0;
    m->map[r->chunk.index] = i;
    model_log(m, evicted, i, r->chunk.index, part);
    *out = (slc_page){i, p->gen};
    return SLC_OK;
}

static slc_status model_resolve(model *m, slc_page h, mpage **out)
{
    if (h.index >= m->pages) {
        return SLC_E_INVALID;
    }
    mpage *p = &m->pg[h.index];
    if (p->gen != h.generation || p->state == SLC_PAGE_FREE) {
        m->stale++;
        return SLC_E_STALE;
    }
    *out = p;
    return SLC_OK;
}

static void model_to_mru(model *m, mpage *p)
{
    p->last_used = m->frame;
    p->stamp = ++m->stamp;
}

static slc_status model_write_begin(model *m, slc_page h)
{
    mpage *p = NULL;
    slc_status s = model_resolve(m, h, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (p->state != SLC_PAGE_LOADING || p->writing) {
        return SLC_E_INVALID;
    }
    p->writing = 1;
    return SLC_OK;
}

static slc_status model_write_end(model *m, slc_page h, size_t bytes)
{
    mpage *p = NULL;
    slc_status s = model_resolve(m, h, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (p->state != SLC_PAGE_LOADING || !p->writing || bytes > FAKE_PAGE_SIZE) {
        return SLC_E_INVALID;
    }
    p->writing = 0;
    p->state = SLC_PAGE_RESIDENT;
    if (p->pins == 0) {
        model_to_mru(m, p);
    } else {
        p->last_used = m->frame;
    }
    return SLC_OK;
}

static slc_status model_release(model *m, slc_page h)
{
    mpage *p = NULL;
    slc_status s = model_resolve(m, h, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (p->pins > 0) {
        return SLC_E_INVALID;
    }
    if (p->state == SLC_PAGE_RESIDENT && p->last_used > model_safe(m)) {
        m->busy++;
        return SLC_E_POOL_BUSY;
    }
    model_log(m, p->chunk, h.index, SLC_CHUNK_NONE_INDEX, p->part);
    model_free(m, h.index);
    m->stack[p->part][m->top[p->part]++] = h.index;
    return SLC_OK;
}

static slc_status model_touch(model *m, slc_page h, uint8_t prio)
{
    mpage *p = NULL;
    slc_status s = model_resolve(m, h, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (!m->open || p->state == SLC_PAGE_LOADING) {
        return SLC_E_INVALID;
    }
    model_use(m, p->chunk, p->last_used);
    p->prio = prio;
    if (p->pins == 0) {
        model_to_mru(m, p);
    } else {
        p->last_used = m->frame;
    }
    return SLC_OK;
}

static slc_status model_pin(model *m, slc_page h)
{
    mpage *p = NULL;
    slc_status s = model_resolve(m, h, &p);
    if (s == SLC_OK) {
        p->pins++;
    }
    return s;
}

static slc_status model_unpin(model *m, slc_page h)
{
    mpage *p = NULL;
    slc_status s = model_resolve(m, h, &p);
    if (s != SLC_OK) {
        return s;
    }
    if (p->pins == 0) {
        return SLC_E_INVALID;
    }
    if (--p->pins == 0 && p->state == SLC_PAGE_RESIDENT) {
        model_to_mru(m, p);
    }
    return SLC_OK;
}

static slc_status model_begin(model *m, uint64_t retired)
{
    if (m->open) {
        return SLC_E_INVALID;
    }
    if (retired > m->submitted) {
        retired = m->submitted;
    }
    if (m->submitted - retired >= m->fif) {
        return SLC_E_FRAMES_IN_FLIGHT;
    }
    m->frame++;
    m->open = 1;
    return SLC_OK;
}

static slc_status model_end(model *m)
{
    if (!m->open) {
        return SLC_E_INVALID;
    }
    m->open = 0;
    m->submitted = m->frame;
    return SLC_OK;
}

typedef struct driver {
    slc_pool *pool;
    model *m; /* NULL: no comparison */
    uint64_t rng;
    uint32_t pages, parts;
    slc_page handles[HANDLES];
    uint32_t nh;
    uint64_t steps;
} driver;

static uint32_t pick(driver *d, uint32_t n)
{
    return (uint32_t)(rng_next(&d->rng) % n);
}

static void remember(driver *d, slc_page h)
{
    d->handles[d->nh++ % HANDLES] = h;
}

/* A handle to act on: the current one of a page, an old one, or a forgery. */
static slc_page some_handle(driver *d)
{
    uint32_t how = pick(d, 10);
    if (how < 5) {
        slc_page_info info;
        slc_pool_get_page(d->pool, pick(d, d->pages), &info);
        return info.page;
    }
    if (how < 9 && d->nh > 0) {
        return d->handles[pick(d, d->nh < HANDLES ? d->nh : HANDLES)];
    }
    return (slc_page){pick(d, d->pages + 1), pick(d, 4)};
}

#define SAME(got, want)                                                                                      \
    do {                                                                                                     \
        slc_status g_ = (got), w_ = (want);                                                                  \
        if (g_ != w_) {                                                                                      \
            fail_msg("step %llu: pool says %s, model %s", (unsigned long long)d->steps, slc_status_name(g_), \
                     slc_status_name(w_));                                                                   \
        }                                                                                                    \
    } while (0)

static void compare_with_model(driver *d)
{
    const model *m = d->m;
    for (uint32_t i = 0; i < d->pages; i++) {
        slc_page_info info;
        slc_pool_get_page(d->pool, i, &info);
        const mpage *p = &m->pg[i];
        slc_page_state want = p->state == SLC_PAGE_RESIDENT && p->pins > 0 ? SLC_PAGE_PINNED : (slc_page_state)p->state;
        if (info.state != want || info.chunk.index != p->chunk || info.page.generation != p->gen ||
            info.pins != p->pins || (p->state != SLC_PAGE_FREE && info.last_used != p->last_used) ||
            (p->state != SLC_PAGE_FREE && (info.lod != p->lod || info.priority != p->prio))) {
            fail_msg("step %llu: page %u: pool (state %d, chunk %u, generation %u, pins %u, last use %llu), model "
                     "(state %d, chunk %u, generation %u, pins %u, last use %llu)",
                     (unsigned long long)d->steps, i, info.state, info.chunk.index, info.page.generation, info.pins,
                     (unsigned long long)info.last_used, want, p->chunk, p->gen, p->pins,
                     (unsigned long long)p->last_used);
        }
    }
    slc_pool_stats st;
    slc_pool_get_stats(d->pool, &st);
    assert_int_equal(st.log_count, m->logged);
    assert_int_equal(st.log_hash, m->hash);
    assert_int_equal(st.frame, m->frame);
    assert_int_equal(st.submitted, m->submitted);
    assert_int_equal(st.stale, m->stale);
    assert_int_equal(st.busy, m->busy);
}

static void step(driver *d)
{
    slc_pool *pool = d->pool;
    model *m = d->m;
    uint32_t op = pick(d, 100);
    d->steps++;
    if (op < 30) {
        uint32_t part = pick(d, 20) == 0 ? d->parts : pick(d, d->parts);
        slc_pool_request r = req_of(pick(d, MC + 2), (uint16_t)part, (uint8_t)pick(d, 4), (uint8_t)pick(d, 4));
        slc_page got, want;
        slc_status s = slc_pool_acquire(pool, &r, &got);
        if (m != NULL) {
            /* Frames-in-flight safety, against what the store says, not the
             * pool's own bookkeeping: a page a frame may still read (last
             * used after the newest retired frame) is never handed out. */
            if (s == SLC_OK && m->pg[got.index].state == SLC_PAGE_RESIDENT &&
                m->pg[got.index].last_used > fake.retired) {
                fail_msg("step %llu: page %u, last used in frame %llu, given away with frame %llu retired",
                         (unsigned long long)d->steps, got.index, (unsigned long long)m->pg[got.index].last_used,
                         (unsigned long long)fake.retired);
            }
            SAME(s, model_acquire(m, &r, &want));
            assert_memory_equal(&got, &want, sizeof got);
        }
        if (s == SLC_OK) {
            remember(d, got);
        }
    } else if (op < 50) {
        slc_page h = some_handle(d);
        slc_page_info info;
        int writing = h.index < d->pages && m != NULL && m->pg[h.index].writing;
        if (h.index < d->pages) {
            slc_pool_get_page(pool, h.index, &info);
        }
        if (writing || pick(d, 4) == 0) {
            size_t bytes = pick(d, 8) == 0 ? FAKE_PAGE_SIZE + 1 : pick(d, FAKE_PAGE_SIZE + 1);
            slc_status s = slc_pool_write_end(pool, h, bytes);
            if (m != NULL) {
                SAME(s, model_write_end(m, h, bytes));
            }
        } else {
            void *dst;
            slc_status s = slc_pool_write_begin(pool, h, &dst);
            if (m != NULL) {
                SAME(s, model_write_begin(m, h));
            }
            if (s == SLC_OK) {
                memset(dst, (int)h.index, FAKE_PAGE_SIZE);
            }
        }
    } else if (op < 68) {
        slc_page h = some_handle(d);
        uint8_t prio = (uint8_t)pick(d, 4);
        slc_status s = slc_pool_touch(pool, h, prio);
        if (m != NULL) {
            SAME(s, model_touch(m, h, prio));
        }
    } else if (op < 74) {
        slc_page h = some_handle(d);
        slc_status s = slc_pool_pin(pool, h);
        if (m != NULL) {
            SAME(s, model_pin(m, h));
        }
    } else if (op < 80) {
        slc_page h = some_handle(d);
        slc_status s = slc_pool_unpin(pool, h);
        if (m != NULL) {
            SAME(s, model_unpin(m, h));
        }
    } else if (op < 85) {
        slc_page h = some_handle(d);
        slc_status s = slc_pool_release(pool, h);
        if (m != NULL) {
            if (s == SLC_OK && m->pg[h.index].state == SLC_PAGE_RESIDENT && m->pg[h.index].last_used > fake.retired) {
                fail_msg("step %llu: page %u released while frame %llu may read it", (unsigned long long)d->steps,
                         h.index, (unsigned long long)m->pg[h.index].last_used);
            }
            SAME(s, model_release(m, h));
        }
    } else if (op < 97) {
        slc_pool_stats st;
        slc_pool_get_stats(pool, &st);
        if (st.submitted + (st.submitted < st.frame) != st.frame || pick(d, 2) == 0) {
            slc_status s = slc_pool_end_frame(pool);
            if (m != NULL) {
                SAME(s, model_end(m));
            }
        } else {
            /* The device finishes some of the frames in flight, or none. */
            if (fake.retired < fake.submitted) {
                fake.retired += pick(d, (uint32_t)(fake.submitted - fake.retired) + 1);
            }
            slc_status s = slc_pool_begin_frame(pool, NULL);
            if (m != NULL) {
                SAME(s, model_begin(m, fake.retired));
            }
        }
    } else {
        uint32_t chunk = pick(d, MC + 1);
        slc_page_info info;
        slc_status s = slc_pool_lookup(pool, (slc_chunk_id){chunk}, &info);
        if (m != NULL) {
            slc_status want = chunk >= MC ? SLC_E_INVALID : m->map[chunk] == SLC_PAGE_NONE ? SLC_E_NOT_FOUND : SLC_OK;
            SAME(s, want);
            if (s == SLC_OK) {
                assert_int_equal(info.page.index, m->map[chunk]);
                assert_int_equal(info.page.generation, m->pg[m->map[chunk]].gen);
            }
        }
        if (s == SLC_OK) {
            remember(d, info.page);
        }
    }
    if (!slc_pool_check(pool)) {
        fail_msg("step %llu: slc_pool_check failed", (unsigned long long)d->steps);
    }
    if (m != NULL) {
        compare_with_model(d);
    }
}

/* The pool the random tests drive: 24 pages in "a" (8), "b" (10) and
 * "default" (6), chunk ids below MC, a 16-entry log ring. */
static slc_pool *random_pool(slc_eviction_policy policy, uint32_t fif, slc_pool_desc *d)
{
    *d = desc_of(24, MC, fif, policy);
    d->log_capacity = 16;
    d->partition_count = 2;
    d->partitions[0] = (slc_pool_partition_desc){"a", 8};
    d->partitions[1] = (slc_pool_partition_desc){"b", 10};
    slc_page_store store = fake_new(&fake, 24);
    fake.manual = 1;
    return pool_on(d, &store);
}

static uint64_t random_run(slc_eviction_policy policy, uint32_t fif, uint64_t seed, int steps, int with_model)
{
    static model m;
    slc_pool_desc desc;
    driver d;
    memset(&d, 0, sizeof d);
    d.pool = random_pool(policy, fif, &desc);
    d.rng = seed;
    d.pages = 24;
    d.parts = 3;
    if (with_model) {
        model_init(&m, &desc);
        d.m = &m;
    }
    for (int i = 0; i < steps; i++) {
        step(&d);
    }
    slc_pool_stats st;
    slc_pool_get_stats(d.pool, &st);
    assert_true(st.evictions > 0 && st.busy > 0 && st.releases > 0 && st.stale > 0);
    return st.log_hash;
}

static void test_matches_reference_model_step_by_step(void **state)
{
    (void)state;
    static const char *const names[] = {"lru", "priority", "predict"};
    for (int policy = 0; policy < 3; policy++) {
        for (uint32_t fif = 1; fif <= 3; fif++) {
            uint64_t seed = 0x9E3779B97F4A7C15ull ^ ((uint64_t)policy << 8) ^ fif;
            print_message("model check: %s, %u frames in flight, seed 0x%llx\n", names[policy], fif,
                          (unsigned long long)seed);
            random_run((slc_eviction_policy)policy, fif, seed, 4000, 1);
        }
    }
}

static void test_random_sequence_is_deterministic(void **state)
{
    (void)state;
    /* A new sequence each run, printed; SLUICE_TEST_SEED=0x... replays one. */
    const char *env = getenv("SLUICE_TEST_SEED");
    uint64_t seed = env != NULL ? strtoull(env, NULL, 0) : 0x5EED0000ull ^ (uint64_t)time(NULL);
    print_message("determinism: seed 0x%llx\n", (unsigned long long)seed);
    static const char *const names[] = {"lru", "priority", "predict"};
    for (int policy = 0; policy < 3; policy++) {
        uint64_t first = random_run((slc_eviction_policy)policy, 2, seed, 3000, 0);
        uint64_t second = random_run((slc_eviction_policy)policy, 2, seed, 3000, 0);
        if (first != second) {
            fail_msg("seed 0x%llx, %s: two runs of one sequence hash 0x%llx and 0x%llx", (unsigned long long)seed,
                     names[policy], (unsigned long long)first, (unsigned long long)second);
        }
        assert_int_not_equal(first, random_run((slc_eviction_policy)policy, 2, seed + 1, 3000, 0));
    }
}

/* A fixed trace: a camera moving along a strip of 600 chunks, seeing 48 of
 * them at a time at a priority that falls with distance, over three
 * partitions; a few chunks of the coarse level pinned and unpinned; some
 * released. No randomness and no platform-dependent arithmetic: its log
 * hash is the same on every architecture. */
static slc_pool_stats fixed_trace(slc_eviction_policy policy)
{
    slc_pool_desc d = desc_of(64, 600, 2, policy);
    d.partition_count = 2;
    d.partitions[0] = (slc_pool_partition_desc){"near", 32};
    d.partitions[1] = (slc_pool_partition_desc){"far", 16};
    slc_page_store store = fake_new(&fake, 64);
    slc_pool *pool = pool_on(&d, &store);
    for (uint32_t f = 0; f < 400; f++) {
        begin(pool);
        uint32_t at = (f * 7) % 552;
        for (uint32_t k = 0; k < 48; k++) {
            uint32_t chunk = at + k;
            uint32_t dist = k < 24 ? 24 - k : k - 24;
            uint16_t part = dist < 12 ? 0 : dist < 20 ? 1 : 2;
            uint8_t lod = (uint8_t)(chunk % 4);
            uint8_t prio = (uint8_t)(255 - dist * 10);
            slc_page_info info;
            if (slc_pool_lookup(pool, (slc_chunk_id){chunk}, &info) == SLC_OK) {
                if (info.state != SLC_PAGE_LOADING) {
                    assert_int_equal(slc_pool_touch(pool, info.page, prio), SLC_OK);
                }
                continue;
            }
            slc_pool_request r = req_of(chunk, part, lod, prio);
            slc_page page;
            if (slc_pool_acquire(pool, &r, &page) != SLC_OK) {
                continue;
            }
            if ((chunk + f) % 5 != 0) { /* one load in five completes a frame late */
                void *dst;
                assert_int_equal(slc_pool_write_begin(pool, page, &dst), SLC_OK);
                assert_int_equal(slc_pool_write_end(pool, page, 8), SLC_OK);
            }
            if (lod == 3 && chunk % 8 == 3) {
                assert_int_equal(slc_pool_pin(pool, page), SLC_OK);
            }
        }
        /* Finish last frame's late loads; unpin and release a few. */
        for (uint32_t i = 0; i < 64; i++) {
            slc_page_info info;
            slc_pool_get_page(pool, i, &info);
            if (info.state == SLC_PAGE_LOADING && info.last_used < f + 1) {
                void *dst;
                assert_int_equal(slc_pool_write_begin(pool, info.page, &dst), SLC_OK);
                assert_int_equal(slc_pool_write_end(pool, info.page, 8), SLC_OK);
            } else if (info.state == SLC_PAGE_PINNED && (info.chunk.index + f) % 37 == 0) {
                assert_int_equal(slc_pool_unpin(pool, info.page), SLC_OK);
            } else if (info.state == SLC_PAGE_RESIDENT && (info.chunk.index * 3 + f) % 41 == 0) {
                slc_status s = slc_pool_release(pool, info.page);
                assert_true(s == SLC_OK || s == SLC_E_POOL_BUSY);
            }
        }
        CHECK(pool);
        end(pool);
    }
    slc_pool_stats st;
    slc_pool_get_stats(pool, &st);
    return st;
}

/* Committed results of fixed_trace: the same on x86-64, aarch64 and armhf
 * (the cross builds run this test under qemu). A change to the policy that
 * changes them must change them here, on purpose. */
#define TRACE_LRU_HASH 0x919cd164473488dbull
#define TRACE_LRU_LOGGED 3011ull
#define TRACE_PRIORITY_HASH 0xd5a717f705efabb0ull
#define TRACE_PRIORITY_LOGGED 3002ull

static void test_fixed_trace_hash_is_constant(void **state)
{
    (void)state;
    slc_pool_stats lru = fixed_trace(SLC_EVICTION_LRU), prio = fixed_trace(SLC_EVICTION_PRIORITY);
    print_message("lru: %llu entries, hash 0x%016llx, %llu evictions, %llu refused\n",
                  (unsigned long long)lru.log_count, (unsigned long long)lru.log_hash,
                  (unsigned long long)lru.evictions, (unsigned long long)lru.busy);
    print_message("priority: %llu entries, hash 0x%016llx, %llu evictions, %llu refused\n",
                  (unsigned long long)prio.log_count, (unsigned long long)prio.log_hash,
                  (unsigned long long)prio.evictions, (unsigned long long)prio.busy);
    assert_true(lru.evictions > 1000 && prio.evictions > 1000);
    assert_int_equal(lru.log_count, TRACE_LRU_LOGGED);
    assert_int_equal(lru.log_hash, TRACE_LRU_HASH);
    assert_int_equal(prio.log_count, TRACE_PRIORITY_LOGGED);
    assert_int_equal(prio.log_hash, TRACE_PRIORITY_HASH);
}

/* --- SLC_EVICTION_PREDICT -------------------------------------------------- */

static void touch_chunk(slc_pool *pool, uint32_t chunk)
{
    slc_page_info info;
    assert_int_equal(slc_pool_lookup(pool, (slc_chunk_id){chunk}, &info), SLC_OK);
    assert_int_equal(slc_pool_touch(pool, info.page, 0), SLC_OK);
    CHECK(pool);
}

/* Loads chunk in the open frame and says which chunk lost its page (NONE: a free page). */
static uint32_t load_evicting(slc_pool *pool, uint32_t chunk)
{
    slc_pool_stats before, after;
    slc_pool_get_stats(pool, &before);
    load(pool, chunk);
    slc_pool_get_stats(pool, &after);
    slc_pool_log_entry e;
    assert_int_equal(slc_pool_walk_log(pool, after.log_count - 1u, &e, 1), 1);
    assert_int_equal(after.log_count, before.log_count + 1u);
    return e.evicted.index;
}

static void test_predict_keeps_the_chunk_back_sooner(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(3, 64, 1, SLC_EVICTION_PREDICT);
    /* Frame 1: chunks 1, 2, 3. Chunk 1 comes back at frame 3 (gap 2 frames
     * after its use at 1), chunk 2 at frame 11 (gap 10): their predictions
     * are last use + gap = 3 + 2 = 5 and 11 + 10 = 21 once both are used
     * again; chunk 3 has no gap: 1 + 256. */
    begin(pool);
    load(pool, 1);
    load(pool, 2);
    load(pool, 3);
    end(pool);
    begin(pool); /* frame 2 */
    end(pool);
    begin(pool); /* frame 3 */
    touch_chunk(pool, 1);
    end(pool);
    frames(pool, 7); /* frames 4..10 */
    begin(pool);     /* frame 11 */
    touch_chunk(pool, 2);
    end(pool);
    begin(
        pool); /* frame 12: 1 predicted at 5 (overdue? away 9 frames > 2 x 2: yes, so 3 + 256 = 259), 2 at 21, 3 at 257 */
    assert_int_equal(load_evicting(pool, 4), 1);
    end(pool);
    begin(pool); /* frame 13: 2 at 21 (away 2 <= 20), 3 at 257, 4 (new, no gap) at 12 + 256 = 268: 4 goes */
    assert_int_equal(load_evicting(pool, 5), 4);
    end(pool);
    begin(pool); /* frame 14: 3 at 257, 2 at 21, 5 at 13 + 256 = 269 */
    assert_int_equal(load_evicting(pool, 6), 5);
    end(pool);
    /* The chunk with a fresh gap is kept over one without: 3 (257) goes before 2 (21). */
    begin(pool);
    end(pool);
    begin(pool); /* frame 16: 6 at 270, 3 at 257, 2 at 21 */
    assert_int_equal(load_evicting(pool, 7), 6);
    assert_int_equal(load_evicting(pool, 8), 3);
    assert_int_not_equal(page_of(pool, 2), SLC_PAGE_NONE);
    end(pool);
    CHECK(pool);
}

static void test_predict_history_outlives_the_page(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(2, 64, 1, SLC_EVICTION_PREDICT);
    begin(pool); /* frame 1 */
    load(pool, 1);
    load(pool, 2);
    end(pool);
    begin(pool); /* frame 2: 1 and 2 tie at 1 + 256: the less recently used, 1, goes */
    assert_int_equal(load_evicting(pool, 3), 1);
    end(pool);
    frames(pool, 2); /* frames 3, 4 */
    begin(pool);     /* frame 5: 2 at 1 + 256, 3 at 2 + 256: 3 goes; chunk 1 is back after 4 frames (it
                  * lost its page with its last use, 1, remembered): gap 4 */
    assert_int_equal(load_evicting(pool, 1), 3);
    end(pool);
    begin(pool); /* frame 6: 2 at 257, 1 at 5 + 4 = 9: 2 goes, 1 stays */
    assert_int_equal(load_evicting(pool, 4), 2);
    assert_int_not_equal(page_of(pool, 1), SLC_PAGE_NONE);
    end(pool);
    CHECK(pool);
}

static void test_predict_respects_frames_in_flight_and_pins(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(3, 64, 2, SLC_EVICTION_PREDICT);
    begin(pool); /* frame 1 */
    load(pool, 1);
    slc_page pinned = load(pool, 2);
    assert_int_equal(slc_pool_pin(pool, pinned), SLC_OK);
    load(pool, 3);
    end(pool);
    begin(pool); /* frame 2: safe frame 0: nothing evictable */
    slc_pool_request r = req_of(9, 0, 0, 0);
    slc_page page;
    assert_int_equal(slc_pool_acquire(pool, &r, &page), SLC_E_POOL_BUSY);
    touch_chunk(pool, 3);
    end(pool);
    begin(pool); /* frame 3: safe frame 1: 1 only (3 was used in frame 2, 2 is pinned) */
    assert_int_equal(load_evicting(pool, 9), 1);
    assert_int_equal(slc_pool_acquire(pool, &(slc_pool_request){{10}, {0}, 0, 0}, &page), SLC_E_POOL_BUSY);
    end(pool);
    begin(pool); /* frame 4: 3 safe (last use 2); 9 loaded in 3 is not */
    assert_int_equal(load_evicting(pool, 10), 3);
    assert_int_not_equal(page_of(pool, 2), SLC_PAGE_NONE);
    assert_int_equal(slc_pool_unpin(pool, pinned), SLC_OK);
    end(pool);
    frames(pool, 2);
    begin(pool); /* frame 7: 9 (used at 3) at 259, 10 (loaded at 4) and 2 (unpinned at 4, after) at 260: the
                  * tie goes to the less recently used, 10, then 2 */
    assert_int_equal(load_evicting(pool, 11), 10);
    assert_int_equal(load_evicting(pool, 12), 2);
    end(pool);
    CHECK(pool);
}

static void test_predict_partitions_evict_apart(void **state)
{
    (void)state;
    slc_pool_desc d = desc_of(4, 64, 1, SLC_EVICTION_PREDICT);
    d.partition_count = 1;
    d.partitions[0] = (slc_pool_partition_desc){"near", 2};
    slc_page_store store = fake_new(&fake, 4);
    slc_pool *pool = pool_on(&d, &store);
    begin(pool); /* frame 1: 1, 2 in near (0); 3, 4 in default (1) */
    load_in(pool, 1, 0, 0, 0);
    load_in(pool, 2, 0, 0, 0);
    load_in(pool, 3, 1, 0, 0);
    load_in(pool, 4, 1, 0, 0);
    end(pool);
    begin(pool); /* frame 2: a load in default evicts from default only */
    load_in(pool, 5, 1, 0, 0);
    assert_int_equal(page_of(pool, 3), SLC_PAGE_NONE);
    assert_int_not_equal(page_of(pool, 1), SLC_PAGE_NONE);
    assert_int_not_equal(page_of(pool, 2), SLC_PAGE_NONE);
    end(pool);
    slc_pool_partition_stats ps;
    slc_pool_get_partition_stats(pool, (slc_partition){0}, &ps);
    assert_int_equal(ps.evictions, 0);
    assert_int_equal(ps.resident, 2);
    CHECK(pool);
}

/* fixed_trace's results with SLC_EVICTION_PREDICT, as TRACE_LRU_HASH's. */
static void test_predict_footprint_holds_the_heaps_and_the_history(void **state)
{
    (void)state;
    /* By hand: as LRU, plus 32 B a page (its entries in the two heaps) and
     * 8 B a chunk id (its history), each region rounded up to 64. */
    slc_pool_desc d = desc_of(3, 5, 1, SLC_EVICTION_PREDICT);
    d.log_capacity = 1;
    assert_int_equal(slc_pool_footprint(&d), 2560 + 128 + 64 + 128 + 64 + 64);
    assert_int_equal(slc_pool_footprint(&d), SLC_POOL_FOOTPRINT(3, 5, 1, SLC_EVICTION_PREDICT, 1, 1));
    d.partition_count = 1; /* partitions share the regions: no more bytes */
    d.partitions[0] = (slc_pool_partition_desc){"a", 1};
    assert_int_equal(slc_pool_footprint(&d), SLC_POOL_FOOTPRINT(3, 5, 1, SLC_EVICTION_PREDICT, 2, 1));
    assert_int_equal(slc_pool_footprint(&d), 2560 + 128 + 64 + 128 + 64 + 64);
    /* A pool one byte short is refused, naming both sizes. */
    slc_page_store store = fake_new(&fake, 3);
    slc_logger log = capture_logger(&logged);
    slc_pool *pool = NULL;
    const size_t need = slc_pool_footprint(&d);
    char want[128];
    snprintf(want, sizeof want, "pool: memory of %zu bytes is smaller than the %zu bytes required", need - 1u, need);
    expect_logged(slc_pool_init(pool_mem, need - 1u, &d, &store, &log, &pool), SLC_E_BLOCK_TOO_SMALL, want);
    /* The largest pool fits a 32-bit size_t. */
    d = desc_of(SLC_PAGE_COUNT_MAX, SLC_TABLE_COUNT_MAX, 8, SLC_EVICTION_PREDICT);
    d.log_capacity = SLC_POOL_LOG_CAPACITY_MAX;
    assert_true((uint64_t)slc_pool_footprint(&d) < ((uint64_t)1 << 32));
}

#define TRACE_PREDICT_HASH 0x7369c2c9fbddc273ull
#define TRACE_PREDICT_LOGGED 3007ull

static void test_predict_fixed_trace_hash_is_constant(void **state)
{
    (void)state;
    slc_pool_stats st = fixed_trace(SLC_EVICTION_PREDICT);
    print_message("predict: %llu entries, hash 0x%016llx, %llu evictions, %llu refused\n",
                  (unsigned long long)st.log_count, (unsigned long long)st.log_hash, (unsigned long long)st.evictions,
                  (unsigned long long)st.busy);
    assert_true(st.evictions > 1000);
    assert_int_equal(st.log_count, TRACE_PREDICT_LOGGED);
    assert_int_equal(st.log_hash, TRACE_PREDICT_HASH);
}

/* --- the host backend ------------------------------------------------------ */

static void test_host_store(void **state)
{
    (void)state;
    static _Alignas(64) unsigned char amem[SLC_ARENA_FOOTPRINT(4096)];
    assert_int_equal(slc_host_store_footprint(0, 64), 0);
    assert_int_equal(slc_host_store_footprint(4, 0), 0);
    assert_int_equal(slc_host_store_footprint(4, 100), 64 + 4 * 128 + 63);
    assert_int_equal(slc_host_store_footprint(4, 128), 64 + 4 * 128 + 63);
    if (sizeof(size_t) == 4) {
        assert_int_equal(slc_host_store_footprint(UINT32_MAX, 4096), 0);
    }

    slc_arena *arena;
    capture_log c;
    slc_logger log = capture_logger(&c);
    slc_page_store store;
    /* Exactly the footprint, after an allocation that leaves the arena
     * misaligned: the padding is included. */
    size_t fp = slc_host_store_footprint(4, 100);
    assert_int_equal(slc_arena_init(amem, SLC_ARENA_FOOTPRINT(fp + 1), NULL, SLC_BUDGET_NONE, &arena), SLC_OK);
    void *odd;
    assert_int_equal(slc_arena_alloc(arena, 1, 1, &odd), SLC_OK);
    assert_int_equal(slc_host_store_init(arena, 4, 100, &log, &store), SLC_OK);
    assert_string_equal(store.backend, "host");
    assert_int_equal(store.page_count, 4);
    assert_int_equal(store.page_size, 100);
    slc_page_location loc[4];
    for (uint32_t i = 0; i < 4; i++) {
        store.ops->locate(store.self, i, &loc[i]);
        assert_int_equal(loc[i].segment, 0);
        assert_int_equal(loc[i].offset, i * 128);
        assert_int_equal((uintptr_t)loc[i].host % SLC_HOST_STORE_PAGE_ALIGN, 0);
        assert_ptr_equal(loc[i].host, (unsigned char *)loc[0].host + i * 128);
        assert_true((unsigned char *)loc[i].host + 100 <= amem + sizeof amem);
        void *dst;
        assert_int_equal(store.ops->write_begin(store.self, i, &dst), SLC_OK);
        assert_ptr_equal(dst, loc[i].host); /* no staging: straight into the page */
        memset(dst, (int)i, 100);
        assert_int_equal(store.ops->write_end(store.self, i, 100), SLC_OK);
    }
    assert_int_equal(store.ops->retired(store.self), 0);
    assert_int_equal(store.ops->submit(store.self, 1), SLC_OK);
    assert_int_equal(store.ops->retired(store.self), 1);
    slc_host_store_stats hs;
    slc_host_store_get_stats(&store, &hs);
    assert_int_equal(hs.stride, 128);
    assert_int_equal(hs.writes, 4);
    assert_int_equal(hs.bytes_written, 400);
    assert_int_equal(hs.submitted, 1);
    assert_int_equal(c.calls, 0);

    /* The arena full: refused, the arena unchanged, the store zeroed. */
    slc_arena_stats before, after;
    slc_arena_get_stats(arena, &before);
    assert_int_equal(slc_host_store_init(arena, 1, 64, &log, &store), SLC_E_CAPACITY);
    assert_string_equal(c.message, "host store: the arena has no room for the pages (slc_host_store_footprint)");
    assert_null(store.ops);
    slc_arena_get_stats(arena, &after);
    assert_int_equal(after.used, before.used);
    assert_int_equal(slc_host_store_init(arena, 0, 64, &log, &store), SLC_E_INVALID);
    assert_string_equal(c.message,
                        "host store: page_count and page_size must be non-zero and their product fit this target");
    assert_int_equal(slc_host_store_init(arena, 4, 0, &log, &store), SLC_E_INVALID);

    /* A budget that refuses. */
    static _Alignas(64) unsigned char bmem[SLC_BUDGETS_FOOTPRINT(1, 1)];
    const slc_budget_desc one = {"cpu", 100, SLC_BUDGET_NONE_INDEX};
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(bmem, sizeof bmem, &one, 1, 1, NULL, &b), SLC_OK);
    assert_int_equal(slc_arena_init(amem, sizeof amem, b, (slc_budget_id){0}, &arena), SLC_OK);
    assert_int_equal(slc_host_store_init(arena, 4, 64, &log, &store), SLC_E_BUDGET_REFUSED);
    assert_string_equal(c.message, "host store: the arena's budget refused the pages");
}

/* A host store over the caller's memory charges exactly its pages to the
 * budget (its record and padding to nobody), and gives them back. */
static void test_host_store_at_charges_its_pages(void **state)
{
    (void)state;
    static _Alignas(64) unsigned char bmem[SLC_BUDGETS_FOOTPRINT(2, 1)];
    const slc_budget_desc d[2] = {{"gpu", 1000, SLC_BUDGET_NONE_INDEX}, {"gpu/pool", 400, 0}};
    slc_budgets *b;
    assert_int_equal(slc_budgets_init(bmem, sizeof bmem, d, 2, 1, NULL, &b), SLC_OK);
    size_t fp = slc_host_store_footprint(4, 100);
    static _Alignas(64) unsigned char mem[1024];
    assert_true(fp <= sizeof mem);
    capture_log c;
    slc_logger log = capture_logger(&c);
    slc_page_store store;
    slc_budget_stats bs;
    assert_int_equal(slc_host_store_init_at(mem, fp, b, (slc_budget_id){1}, 4, 100, &log, &store), SLC_OK);
    slc_budgets_get(b, (slc_budget_id){1}, &bs);
    assert_int_equal(bs.current, 400); /* the pages exactly: the limit holds them */
    slc_page_location loc;
    store.ops->locate(store.self, 3, &loc);
    assert_true((unsigned char *)loc.host + 100 <= mem + fp);
    assert_int_equal((uintptr_t)loc.host % SLC_HOST_STORE_PAGE_ALIGN, 0);
    slc_host_store_deinit(&store);
    assert_null(store.ops);
    slc_budgets_get(b, (slc_budget_id){1}, &bs);
    assert_int_equal(bs.current, 0);
    /* refusals: the budget, the size, the alignment, the counts; nothing reserved */
    assert_int_equal(slc_host_store_init_at(mem, sizeof mem, b, (slc_budget_id){1}, 5, 100, &log, &store),
                     SLC_E_BUDGET_REFUSED);
    assert_string_equal(c.message, "host store: the budget refused the pages");
    assert_null(store.ops);
    assert_int_equal(
        slc_host_store_init_at(mem, fp - SLC_HOST_STORE_PAGE_ALIGN, b, (slc_budget_id){1}, 4, 100, &log, &store),
        SLC_E_INVALID);
    assert_string_equal(c.message, "host store: the memory is misaligned or smaller than slc_host_store_footprint");
    assert_int_equal(slc_host_store_init_at(mem + 8, fp, b, (slc_budget_id){1}, 4, 100, &log, &store), SLC_E_INVALID);
    assert_int_equal(slc_host_store_init_at(mem, fp, b, (slc_budget_id){1}, 0, 100, &log, &store), SLC_E_INVALID);
    assert_string_equal(c.message,
                        "host store: page_count and page_size must be non-zero and their product fit this target");
    slc_budgets_get(b, (slc_budget_id){1}, &bs);
    assert_int_equal(bs.current, 0);
    /* no budget: nothing reserved, nothing released */
    assert_int_equal(slc_host_store_init_at(mem, fp, NULL, SLC_BUDGET_NONE, 4, 100, &log, &store), SLC_OK);
    slc_host_store_deinit(&store);
    assert_true(slc_budgets_check(b));
}

/* --- contracts --------------------------------------------------------------- */

static void test_contract_violations_assert(void **state)
{
    (void)state;
    slc_pool *pool = fake_pool(2, 4, 1, SLC_EVICTION_LRU);
    slc_page page = {0, 0};
    slc_page_info info;
    slc_pool_stats st;
    slc_pool_request r = req_of(0, 0, 0, 0);
    expect_assert_failure(slc_pool_acquire(pool, NULL, &page));
    expect_assert_failure(slc_pool_acquire(pool, &r, NULL));
    expect_assert_failure(slc_pool_lookup(pool, (slc_chunk_id){0}, NULL));
    expect_assert_failure(slc_pool_write_begin(pool, page, NULL));
    expect_assert_failure(slc_pool_get_page(pool, 2, &info));
    expect_assert_failure(slc_pool_get_partition_stats(pool, (slc_partition){1}, NULL));
    expect_assert_failure(slc_pool_get_stats(NULL, &st));
    expect_assert_failure(slc_pool_walk_log(pool, 0, NULL, 1));
    slc_pool *out;
    expect_assert_failure(slc_pool_init(pool_mem, sizeof pool_mem, NULL, NULL, NULL, &out));
    CHECK(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_footprint_matches_macro_and_defaults),
        cmocka_unit_test(test_init_with_zeroed_desc_gives_defaults),
        cmocka_unit_test(test_init_refuses_bad_memory),
        cmocka_unit_test(test_init_refuses_bad_desc),
        cmocka_unit_test(test_spec_from_profile_builds_the_partitions),
        cmocka_unit_test(test_states_from_free_to_pinned_and_back),
        cmocka_unit_test(test_lookup_gives_location_and_generation),
        cmocka_unit_test(test_acquire_refusals_change_nothing),
        cmocka_unit_test(test_write_refusals),
        cmocka_unit_test(test_stale_handles_are_detected_never_aliased),
        cmocka_unit_test(test_each_reuse_gives_a_new_generation),
        cmocka_unit_test(test_frames_gate_and_misuse),
        cmocka_unit_test(test_page_of_unretired_frame_is_never_handed_out),
        cmocka_unit_test(test_host_store_retires_at_submit),
        cmocka_unit_test(test_lru_evicts_least_recently_used_in_order),
        cmocka_unit_test(test_priority_evicts_by_priority_lod_then_least_recently_used),
        cmocka_unit_test(test_priority_buckets_span_the_whole_bitmap),
        cmocka_unit_test(test_priority_touch_updates_the_key),
        cmocka_unit_test(test_priority_a_frames_pages_join_their_buckets_when_it_becomes_safe),
        cmocka_unit_test(test_check_finds_a_page_in_the_wrong_bucket_table),
        cmocka_unit_test(test_pinned_pages_are_never_evicted),
        cmocka_unit_test(test_pin_count_is_bounded),
        cmocka_unit_test(test_release_paths_and_free_page_reuse),
        cmocka_unit_test(test_partition_flood_leaves_other_partitions_untouched),
        cmocka_unit_test(test_eviction_log_entries_ring_and_hash),
        cmocka_unit_test(test_matches_reference_model_step_by_step),
        cmocka_unit_test(test_random_sequence_is_deterministic),
        cmocka_unit_test(test_fixed_trace_hash_is_constant),
        cmocka_unit_test(test_host_store),
        cmocka_unit_test(test_host_store_at_charges_its_pages),
        cmocka_unit_test(test_contract_violations_assert),
        cmocka_unit_test(test_predict_keeps_the_chunk_back_sooner),
        cmocka_unit_test(test_predict_history_outlives_the_page),
        cmocka_unit_test(test_predict_respects_frames_in_flight_and_pins),
        cmocka_unit_test(test_predict_partitions_evict_apart),
        cmocka_unit_test(test_predict_footprint_holds_the_heaps_and_the_history),
        cmocka_unit_test(test_predict_fixed_trace_hash_is_constant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* Every reservation of the init paths, refused in turn.
 *
 * Two setups, each what a host program does before its first frame. Both
 * parse a profile, carve the block (slc_memory_init and its arenas), open a
 * pack read through io.read (its tables in cpu/meta) and build the host
 * page store (pages charged to gpu/pool). Then
 *   - the parts: take the pack's decode scratch (cpu/decode), the page pool
 *     over the store (its record in cpu/meta), a request ring (cpu/queues)
 *     and two fixed-size records (a block pool charged to cpu/queues), and
 *     make the driver's first host allocations (the TLSF heap charged to
 *     cpu/driver);
 *   - the stream: slc_stream_create, which takes all of its memory from
 *     cpu/meta, cpu/queues and cpu/decode, builds the pool and loads and
 *     pins the coarsest chunks ([stream] pin_coarsest = 1).
 *
 * For each, a first run counts its reservations, R. Then for N = 1 .. R
 * the setup runs with the Nth reservation refused (SLC_FAULT_RESERVE, armed
 * through slc_test_fault_arm) and the test checks, every time:
 *   - the step that made it fails with SLC_E_BUDGET_REFUSED, the refusal is
 *     counted on exactly one budget, and a step that has a logger says why
 *     (a message with that status);
 *   - the failed step left nothing behind: every budget's use, every
 *     arena's mark, the heap's use and the block pool's count are what they
 *     were before it, its outputs are NULL or zeroed, and the invariant
 *     checkers hold;
 *   - undoing the steps that succeeded brings every budget back to zero and
 *     every arena back to its mark;
 *   - a full setup right after succeeds, and tears down to zero as well.
 * With N = R + 1 the setup succeeds and the fault never fires: the sweep
 * covered every reservation.
 *
 * Then a whole streaming run, not only its init: the memory, the host
 * store, the pack, slc_stream_create with pinning, the platform's worker
 * threads (2), a 200-frame camera fly-through over a pack several times
 * larger than the pool, and the teardown. A clean run counts R, the
 * reservations of the whole run, and proves that the frames themselves make
 * none (the hook sees no reservation between the first begin_frame and the
 * last end_frame: "no heap after init" for budgets). Then for N = 1 .. R
 * the run goes with the Nth refused: the failing call returns
 * SLC_E_BUDGET_REFUSED with a message, leaves every budget's use and every
 * arena's mark as they were before it, exactly one budget counts the
 * refusal, the invariant checkers hold, the teardown brings every budget
 * back to zero and every arena to its mark, and a complete run right after,
 * in the same process, streams to the eviction log hash of the clean run.
 *
 * The same whole run over a textured pack (a synthetic city with its
 * facade textures, the test's argument), with a texture pool: a second host
 * store charged to gpu/textures, every texture's mip tail pinned at create,
 * tiles requested by chunk id each frame and evicted by the texture pool's
 * own policy. The sweep covers the texture store's reservation too; every
 * frame keeps every tail pinned (no texture without a level), and after
 * every refusal a complete run repeats both pools' eviction logs. */
#define _POSIX_C_SOURCE 200809L /* nanosleep in stream_pack.h */
#include <inttypes.h>

#include "sluice/heap.h"
#include "stream_fixture.h"
#include "test_pack.h"

static const char profile_text[] = "[profile]\n"
                                   "name = sweep\n"
                                   "[budgets]\n"
                                   "cpu = 1 MiB\n"
                                   "cpu/meta = 256 KiB\n"
                                   "cpu/decode = 64 KiB\n"
                                   "cpu/queues = 64 KiB\n"
                                   "cpu/driver = 256 KiB\n"
                                   "gpu = 2 MiB\n"
                                   "gpu/pool = 1 MiB\n"
                                   "gpu/staging = 64 KiB\n"
                                   "[pool]\n"
                                   "page_size = 4 KiB\n"
                                   "page_count = 64\n"
                                   "eviction = priority\n"
                                   "[partitions]\n"
                                   "ui = 16\n"
                                   "[stream]\n"
                                   "frames_in_flight = 2\n"
                                   "workers = 0\n"
                                   "queue_capacity = 64\n"
                                   "staging_size = 0 B\n"
                                   "upload_per_frame = 64 KiB\n"
                                   "pin_coarsest = 1\n"
                                   "[tables]\n"
                                   "max_objects = 16\n"
                                   "max_chunks = 64\n"
                                   "max_lods = 4\n"
                                   "max_string_bytes = 1 KiB\n";

enum { RECORD_SIZE = 48, DRIVER_ALLOCS = 3 };

static _Alignas(64) unsigned char block[2u << 20];
static _Alignas(64) unsigned char pages_mem[SLC_ARENA_FOOTPRINT(300u << 10)];
static _Alignas(64) unsigned char records_mem[4096];
static _Alignas(64) unsigned char heap_mem[SLC_HEAP_FOOTPRINT(64u << 10)];

static slc_profile profile;
static test_pack tpack;
static capture_log logged;
static slc_logger logger;

/* Everything the setup makes. */
typedef struct world {
    slc_memory *mem;
    slc_budgets *b;
    slc_arena *meta, *decode, *queues, *pages;
    slc_block_pool *records;
    slc_heap *heap;
    slc_io io;
    slc_pack *pack;
    void *scratch;
    slc_page_store store;
    slc_pool_desc desc;
    void *pool_mem;
    slc_pool *pool;
    void *ring;
    void *record[2];
    void *driver[DRIVER_ALLOCS];
    slc_stream *stream;
} world;

static world w;

/* What a step may change, taken before it runs. */
typedef struct snapshot {
    size_t count;
    slc_budget_stats budget[SLC_BUDGET_MAX];
    size_t meta, decode, queues, pages; /* arena marks */
    size_t heap_used, heap_live, records_in_use;
    int log_calls;
} snapshot;

static void take(snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->count = slc_budgets_walk_report(w.b, s->budget, SLC_BUDGET_MAX);
    s->meta = slc_arena_get_mark(w.meta).offset;
    s->decode = slc_arena_get_mark(w.decode).offset;
    s->queues = slc_arena_get_mark(w.queues).offset;
    s->pages = slc_arena_get_mark(w.pages).offset;
    slc_heap_stats hs;
    slc_heap_get_stats(w.heap, &hs);
    s->heap_used = hs.used;
    s->heap_live = hs.live;
    slc_block_pool_stats ps;
    slc_block_pool_get_stats(w.records, &ps);
    s->records_in_use = ps.in_use;
    s->log_calls = logged.calls;
}

/* The use of everything is what it was; refusals may have been counted. */
static void assert_same_use(const snapshot *before, const char *when)
{
    snapshot now;
    take(&now);
    for (size_t i = 0; i < now.count; i++) {
        if (now.budget[i].current != before->budget[i].current) {
            fail_msg("%s: budget %s holds %llu bytes, %llu before", when, now.budget[i].name,
                     (unsigned long long)now.budget[i].current, (unsigned long long)before->budget[i].current);
        }
    }
    assert_int_equal(now.meta, before->meta);
    assert_int_equal(now.decode, before->decode);
    assert_int_equal(now.queues, before->queues);
    assert_int_equal(now.pages, before->pages);
    assert_int_equal(now.heap_used, before->heap_used);
    assert_int_equal(now.heap_live, before->heap_live);
    assert_int_equal(now.records_in_use, before->records_in_use);
    assert_true(slc_budgets_check(w.b));
    assert_true(slc_arena_check(w.meta) && slc_arena_check(w.decode) && slc_arena_check(w.queues) &&
                slc_arena_check(w.pages));
    assert_true(slc_heap_check(w.heap));
    assert_true(slc_block_pool_check(w.records));
}

/* The pack, read through io.read (as pread would serve it), so that it needs
 * decode scratch. */
static slc_status read_pack(void *user, uint64_t offset, void *dst, size_t size)
{
    const test_pack *t = user;
    if (offset > t->size || size > t->size - offset) {
        return SLC_E_IO_SHORT;
    }
    memcpy(dst, t->data + offset, size);
    return SLC_OK;
}

/* --- the steps ------------------------------------------------------------ */

typedef struct step {
    const char *name;
    slc_status (*run)(void);
    void (*undo)(void);
    int logs; /* the step has a logger: a refusal must come with a message */
} step;

static slc_status run_memory(void)
{
    slc_memory_requirements req;
    assert_int_equal(slc_memory_calculate_requirements(&profile, &req), SLC_OK);
    assert_true(req.block_size <= sizeof block);
    slc_status s = slc_memory_init(block, req.block_size, &profile, &logger, &w.mem);
    if (s != SLC_OK) {
        return s;
    }
    w.b = slc_memory_budgets(w.mem);
    assert_int_equal(slc_memory_scan_arena(w.mem, "cpu/meta", &w.meta), SLC_OK);
    assert_int_equal(slc_memory_scan_arena(w.mem, "cpu/decode", &w.decode), SLC_OK);
    assert_int_equal(slc_memory_scan_arena(w.mem, "cpu/queues", &w.queues), SLC_OK);
    /* What lives outside the block: the host store's pages (the host
     * backend's device memory, charged to gpu/pool), the records (charged to
     * cpu/queues block by block) and the driver heap (charged to cpu/driver
     * allocation by allocation, as the Vulkan backend's is). None of these
     * inits reserves anything. */
    slc_budget_id pool_id, queues_id, driver_id;
    assert_int_equal(slc_budgets_scan(w.b, "gpu/pool", &pool_id), SLC_OK);
    assert_int_equal(slc_budgets_scan(w.b, "cpu/queues", &queues_id), SLC_OK);
    assert_int_equal(slc_budgets_scan(w.b, "cpu/driver", &driver_id), SLC_OK);
    assert_int_equal(slc_arena_init(pages_mem, sizeof pages_mem, w.b, pool_id, &w.pages), SLC_OK);
    assert_int_equal(slc_block_pool_init(records_mem, sizeof records_mem, RECORD_SIZE, 16, w.b, queues_id, &w.records),
                     SLC_OK);
    assert_int_equal(slc_heap_init(heap_mem, sizeof heap_mem, w.b, driver_id, &w.heap), SLC_OK);
    return SLC_OK;
}

static void undo_memory(void)
{
    slc_memory_deinit(w.mem);
    memset(&w, 0, sizeof w);
}

static slc_status run_pack_open(void)
{
    memset(&w.io, 0, sizeof w.io);
    w.io.read = read_pack;
    w.io.user = &tpack;
    w.io.size = tpack.size;
    w.pack = (slc_pack *)&w; /* must come back NULL on failure */
    return slc_pack_open(&w.io, "sweep", &profile, w.meta, &logger, &w.pack);
}

static void undo_pack_open(void)
{
    slc_pack_close(w.pack);
}

static slc_status run_scratch(void)
{
    w.scratch = &w;
    return slc_arena_alloc(w.decode, slc_pack_scratch_size(w.pack), 16, &w.scratch);
}

static void undo_scratch(void)
{
    slc_arena_reset(w.decode, (slc_arena_mark){0});
}

static slc_status run_host_store(void)
{
    memset(&w.store, 0xA5, sizeof w.store); /* must come back zeroed on failure */
    slc_host_store_desc d;
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&profile, SLC_POOL_GEOMETRY, &spec);
    slc_host_store_desc_from_spec(&spec, &d);
    return slc_host_store_init(w.pages, d.page_count, d.page_size, &logger, &w.store);
}

static void undo_host_store(void)
{
    slc_arena_reset(w.pages, (slc_arena_mark){0});
}

static slc_status run_pool_memory(void)
{
    slc_pool_spec spec;
    slc_pool_spec_from_profile(&profile, SLC_POOL_GEOMETRY, &spec);
    w.desc = spec.pool;
    size_t need = slc_pool_footprint(&w.desc);
    assert_true(need > 0);
    w.pool_mem = &w;
    return slc_arena_alloc(w.meta, need, SLC_POOL_ALIGN, &w.pool_mem);
}

static slc_arena_mark pool_mark; /* cpu/meta before the pool's record */

static void undo_pool_memory(void)
{
    slc_arena_reset(w.meta, pool_mark);
}

static slc_status run_pool(void)
{
    slc_status s = slc_pool_init(w.pool_mem, slc_pool_footprint(&w.desc), &w.desc, &w.store, &logger, &w.pool);
    if (s == SLC_OK) {
        assert_true(slc_pool_check(w.pool));
    }
    return s;
}

static void undo_pool(void)
{
    w.pool = NULL;
} /* the pool owns nothing but its memory */

static slc_status run_ring(void)
{
    w.ring = &w;
    return slc_arena_alloc(w.queues, (size_t)profile.queue_capacity * 16u, 64, &w.ring);
}

static void undo_ring(void)
{
    slc_arena_reset(w.queues, (slc_arena_mark){0});
}

static slc_status run_record(int i)
{
    w.record[i] = &w;
    return slc_block_pool_alloc(w.records, &w.record[i]);
}

static slc_status run_record0(void)
{
    return run_record(0);
}
static slc_status run_record1(void)
{
    return run_record(1);
}
static void undo_record0(void)
{
    slc_block_pool_free(w.records, w.record[0]);
}
static void undo_record1(void)
{
    slc_block_pool_free(w.records, w.record[1]);
}

/* The first host allocations a driver makes: small, aligned, large. */
static slc_status run_driver(int i)
{
    static const size_t sizes[DRIVER_ALLOCS] = {200, 64, 20000};
    static const size_t aligns[DRIVER_ALLOCS] = {8, 64, 16};
    w.driver[i] = &w;
    return slc_heap_alloc(w.heap, sizes[i], aligns[i], &w.driver[i]);
}

static slc_status run_driver0(void)
{
    return run_driver(0);
}
static slc_status run_driver1(void)
{
    return run_driver(1);
}
static slc_status run_driver2(void)
{
    return run_driver(2);
}
static void undo_driver0(void)
{
    slc_heap_free(w.heap, w.driver[0]);
}
static void undo_driver1(void)
{
    slc_heap_free(w.heap, w.driver[1]);
}
static void undo_driver2(void)
{
    slc_heap_free(w.heap, w.driver[2]);
}

static slc_status run_stream(void)
{
    slc_stream_footprint fp;
    assert_int_equal(slc_stream_calculate_footprint(&profile, slc_pack_scratch_size(w.pack), 0, &fp), SLC_OK);
    slc_arena_stats meta, queues, decode;
    slc_arena_get_stats(w.meta, &meta);
    slc_arena_get_stats(w.queues, &queues);
    slc_arena_get_stats(w.decode, &decode);
    assert_true(fp.meta <= meta.capacity - meta.used && fp.queues <= queues.capacity - queues.used &&
                fp.decode <= decode.capacity - decode.used);
    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &profile;
    d.memory = w.mem;
    d.pack = w.pack;
    d.stores[SLC_POOL_GEOMETRY] = &w.store;
    d.log = &logger;
    w.stream = (slc_stream *)&w; /* must come back NULL on failure */
    return slc_stream_create(&d, &w.stream);
}

static void undo_stream(void)
{
    slc_stream_destroy(w.stream);
}

/* The parts, one by one. */
static const step parts[] = {
    {"slc_memory_init", run_memory, undo_memory, 1},
    {"slc_pack_open", run_pack_open, undo_pack_open, 1},
    {"slc_host_store_init", run_host_store, undo_host_store, 1},
    {"pack scratch (cpu/decode)", run_scratch, undo_scratch, 0},
    {"pool memory (cpu/meta)", run_pool_memory, undo_pool_memory, 0},
    {"slc_pool_init", run_pool, undo_pool, 1},
    {"request ring (cpu/queues)", run_ring, undo_ring, 0},
    {"record 0 (block pool)", run_record0, undo_record0, 0},
    {"record 1 (block pool)", run_record1, undo_record1, 0},
    {"driver allocation 0 (heap)", run_driver0, undo_driver0, 0},
    {"driver allocation 1 (heap)", run_driver1, undo_driver1, 0},
    {"driver allocation 2 (heap)", run_driver2, undo_driver2, 0},
};

/* The stream over the same pack and store. */
static const step streamed[] = {
    {"slc_memory_init", run_memory, undo_memory, 1},
    {"slc_pack_open", run_pack_open, undo_pack_open, 1},
    {"slc_host_store_init", run_host_store, undo_host_store, 1},
    {"slc_stream_create", run_stream, undo_stream, 1},
};

#define STEP_MAX (sizeof parts / sizeof parts[0])

typedef struct setup_kind {
    const char *name;
    const step *steps;
    size_t count;
} setup_kind;

static const setup_kind kind_parts = {"parts", parts, sizeof parts / sizeof parts[0]};
static const setup_kind kind_stream = {"stream", streamed, sizeof streamed / sizeof streamed[0]};

/* What a failed step must have left in its outputs. */
static void assert_outputs_cleared(const step *st)
{
    if (st->run == run_stream) {
        assert_null(w.stream);
    } else if (st->run == run_pack_open) {
        assert_null(w.pack);
    } else if (st->run == run_scratch) {
        assert_null(w.scratch);
    } else if (st->run == run_host_store) {
        slc_page_store zero;
        memset(&zero, 0, sizeof zero);
        assert_memory_equal(&w.store, &zero, sizeof zero);
    } else if (st->run == run_pool_memory) {
        assert_null(w.pool_mem);
    } else if (st->run == run_ring) {
        assert_null(w.ring);
    } else if (st->run == run_record0) {
        assert_null(w.record[0]);
    } else if (st->run == run_record1) {
        assert_null(w.record[1]);
    } else if (st->run == run_driver0 || st->run == run_driver1 || st->run == run_driver2) {
        int i = st->run == run_driver0 ? 0 : st->run == run_driver1 ? 1 : 2;
        assert_null(w.driver[i]);
    }
}

/* Undoes steps [0, done) in reverse; after the memory step's undo nothing is
 * left to check but that the use went back to zero before it. */
static void teardown_steps(const setup_kind *kind, size_t done, const snapshot *base, const char *when)
{
    for (size_t k = done; k-- > 1;) {
        kind->steps[k].undo();
    }
    if (done > 0) {
        assert_same_use(base, when); /* every budget at zero, every arena at its mark */
        kind->steps[0].undo();
    }
}

/* Runs a setup. Returns the number of steps that succeeded (kind->count on
 * success); on a failure checks everything about it and tears down. */
static size_t setup(const setup_kind *kind, const char *when)
{
    const step *steps = kind->steps;
    snapshot base, before;
    memset(&base, 0, sizeof base);
    for (size_t k = 0; k < kind->count; k++) {
        if (k == 1) {
            take(&base); /* after the block is carved: every budget at zero */
            for (size_t i = 0; i < base.count; i++) {
                assert_int_equal(base.budget[i].current, 0);
            }
        }
        if (k > 0) {
            take(&before);
        }
        if (steps[k].run == run_pool_memory) {
            pool_mark = slc_arena_get_mark(w.meta);
        }
        slc_status s = steps[k].run();
        if (s == SLC_OK) {
            continue;
        }
        char what[160];
        snprintf(what, sizeof what, "%s: %s, step '%s'", kind->name, when, steps[k].name);
        if (s != SLC_E_BUDGET_REFUSED) {
            fail_msg("%s: %s, not SLC_E_BUDGET_REFUSED (%s)", what, slc_status_name(s), logged.message);
        }
        assert_true(k > 0); /* carving the block reserves nothing */
        assert_true(slc_test_fault_fired());
        if (steps[k].logs) {
            assert_true(logged.calls > before.log_calls);
            assert_int_equal(logged.status, SLC_E_BUDGET_REFUSED);
            assert_true(logged.message[0] != '\0');
        }
        /* Exactly one budget counted the refusal, at its own limit. */
        snapshot after;
        take(&after);
        int refused = 0;
        for (size_t i = 0; i < after.count; i++) {
            uint64_t more = after.budget[i].refused - before.budget[i].refused;
            uint64_t here = after.budget[i].refused_here - before.budget[i].refused_here;
            assert_true(more <= 1 && here == more);
            refused += (int)more;
        }
        assert_int_equal(refused, 1);
        assert_same_use(&before, what);
        assert_outputs_cleared(&steps[k]);
        teardown_steps(kind, k, &base, what);
        return k;
    }
    return kind->count;
}

static void teardown_all(const setup_kind *kind, const char *when)
{
    snapshot base;
    memset(&base, 0, sizeof base);
    /* Zero use is the baseline: compare against a zeroed snapshot's budgets
     * with the current marks (all zero). */
    take(&base);
    for (size_t i = 0; i < base.count; i++) {
        base.budget[i].current = 0;
    }
    base.meta = base.decode = base.queues = base.pages = 0;
    base.heap_used = base.heap_live = base.records_in_use = 0;
    teardown_steps(kind, kind->count, &base, when);
}

static int group_setup(void **state)
{
    (void)state;
    slc_profile_diag d;
    if (slc_profile_parse(profile_text, strlen(profile_text), "sweep.profile", &profile, &d) != SLC_OK) {
        fprintf(stderr, "%s\n", d.message);
        return -1;
    }
    tp_build(&tpack);
    logger = capture_logger(&logged);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    free(tpack.data);
    return 0;
}

/* --- the sweep ------------------------------------------------------------- */

/* The sweep of one setup (see the top of the file). */
static void sweep(const setup_kind *kind)
{
    /* Count the reservations of a clean setup. */
    slc_test_fault_arm(UINT64_MAX);
    assert_int_equal(setup(kind, "counting run"), kind->count);
    uint64_t reservations = slc_test_fault_seen();
    assert_false(slc_test_fault_fired());
    teardown_all(kind, "counting run");
    slc_test_fault_arm(0);
    size_t reserving = 0; /* every step but carving the block and slc_pool_init reserves */
    for (size_t k = 1; k < kind->count; k++) {
        reserving += kind->steps[k].run != run_pool;
    }
    assert_true(reservations >= reserving);
    printf("fault sweep, %s: %llu reservations in %zu steps\n", kind->name, (unsigned long long)reservations,
           kind->count);

    size_t failed_at[STEP_MAX] = {0};
    for (uint64_t n = 1; n <= reservations + 1; n++) {
        char when[64];
        snprintf(when, sizeof when, "reservation %llu refused", (unsigned long long)n);
        slc_test_fault_arm(n);
        size_t done = setup(kind, when);
        if (n <= reservations) {
            if (done == kind->count) {
                fail_msg("%s: %s: the setup succeeded anyway (a refusal was ignored)", kind->name, when);
            }
            failed_at[done]++;
        } else {
            /* Past the last reservation: nothing is refused. */
            assert_int_equal(done, kind->count);
            assert_false(slc_test_fault_fired());
            teardown_all(kind, when);
        }
        /* Right after, the whole setup succeeds. */
        slc_test_fault_arm(0);
        snprintf(when, sizeof when, "full setup after reservation %llu", (unsigned long long)n);
        assert_int_equal(setup(kind, when), kind->count);
        teardown_all(kind, when);
    }
    /* Every step that reserves was reached by the sweep. */
    for (size_t k = 1; k < kind->count; k++) {
        if (kind->steps[k].run != run_pool && failed_at[k] == 0) {
            fail_msg("%s: step '%s' was never refused", kind->name, kind->steps[k].name);
        }
    }
    assert_int_equal(failed_at[0], 0);
}

static void test_every_refused_reservation_of_the_parts_unwinds(void **state)
{
    (void)state;
    sweep(&kind_parts);
}

static void test_every_refused_reservation_of_stream_create_unwinds(void **state)
{
    (void)state;
    sweep(&kind_stream);
}

/* The hook refuses like a full budget: the refusal names the budget itself
 * with its use and limit, and nothing else changes. */
static void test_injected_refusal_looks_like_a_full_budget(void **state)
{
    (void)state;
    assert_int_equal(setup(&kind_parts, "hook check"), kind_parts.count);
    slc_budget_id meta;
    assert_int_equal(slc_budgets_scan(w.b, "cpu/meta", &meta), SLC_OK);
    slc_budget_stats before, after;
    slc_budgets_get(w.b, meta, &before);
    slc_budget_refusal why;
    slc_test_fault_arm(1);
    assert_int_equal(slc_budgets_reserve(w.b, meta, 100, &why), SLC_E_BUDGET_REFUSED);
    assert_true(slc_test_fault_fired());
    slc_test_fault_arm(0);
    assert_int_equal(why.budget.index, meta.index);
    assert_int_equal(why.refused_by.index, meta.index);
    assert_int_equal(why.requested, 100);
    assert_int_equal(why.current, before.current);
    assert_int_equal(why.limit, before.limit);
    slc_budgets_get(w.b, meta, &after);
    assert_int_equal(after.current, before.current);
    assert_int_equal(after.refused, before.refused + 1);
    assert_int_equal(after.refused_here, before.refused_here + 1);
    assert_int_equal(after.reservations, before.reservations);
    /* Disarmed, the same reservation goes through. */
    assert_int_equal(slc_budgets_reserve(w.b, meta, 100, NULL), SLC_OK);
    slc_budgets_release(w.b, meta, 100);
    teardown_all(&kind_parts, "hook check");
}

/* --- a whole streaming run --------------------------------------------------- */

static const char run_profile_text[] = "[profile]\n"
                                       "name = sweep-run\n"
                                       "[budgets]\n"
                                       "cpu = 8 MiB\n"
                                       "cpu/meta = 2 MiB\n"
                                       "cpu/decode = 1 MiB\n"
                                       "cpu/queues = 1 MiB\n"
                                       "cpu/driver = 1 MiB\n"
                                       "gpu = 8 MiB\n"
                                       "gpu/pool = 4 MiB\n"
                                       "gpu/staging = 1 MiB\n"
                                       "[pool]\n"
                                       "page_size = 4 KiB\n"
                                       "page_count = 96\n"
                                       "eviction = lru\n"
                                       "[stream]\n"
                                       "frames_in_flight = 2\n"
                                       "workers = 2\n"
                                       "queue_capacity = 256\n"
                                       "staging_size = 0 B\n"
                                       "upload_per_frame = 16 KiB\n"
                                       "pin_coarsest = 1\n"
                                       "[tables]\n"
                                       "max_objects = 1024\n"
                                       "max_chunks = 4096\n"
                                       "max_lods = 4\n"
                                       "max_string_bytes = 4 KiB\n";

enum { RUN_FRAMES = 200, RUN_PAGES = 96, RUN_PAGE_SIZE = 4096 };

/* The textured run: a synthetic city with its facade textures, packed by
 * the CLI (tests/CMakeLists.txt: `sluice pack --synthetic city --size
 * 256KiB --seed 11 --textures --texture-format rgba8 --page-size 16KiB`),
 * its path the test's argument; a texture pool of its two mip tails and
 * six tiles, every frame asking for TEX_TILES_A_FRAME of its tiles. */
static const char tex_profile_text[] = "[profile]\n"
                                       "name = sweep-textured\n"
                                       "[budgets]\n"
                                       "cpu = 8 MiB\n"
                                       "cpu/meta = 2 MiB\n"
                                       "cpu/decode = 1 MiB\n"
                                       "cpu/queues = 1 MiB\n"
                                       "cpu/driver = 1 MiB\n"
                                       "gpu = 8 MiB\n"
                                       "gpu/pool = 2 MiB\n"
                                       "gpu/staging = 1 MiB\n"
                                       "gpu/textures = 1 MiB\n"
                                       "[pool]\n"
                                       "page_size = 16 KiB\n"
                                       "page_count = 24\n"
                                       "eviction = lru\n"
                                       "[stream]\n"
                                       "frames_in_flight = 2\n"
                                       "workers = 2\n"
                                       "queue_capacity = 256\n"
                                       "staging_size = 0 B\n"
                                       "upload_per_frame = 64 KiB\n"
                                       "pin_coarsest = 1\n"
                                       "[tables]\n"
                                       "max_objects = 64\n"
                                       "max_chunks = 4096\n"
                                       "max_lods = 8\n"
                                       "max_string_bytes = 4 KiB\n"
                                       "[textures]\n"
                                       "format = rgba8\n"
                                       "page_count = 8\n";
enum { TEX_PAGE_SIZE = 16384, TEX_GEO_PAGES = 24, TEX_TILE_PAGES = 8, TEX_TILES_A_FRAME = 3 };
static const char *textured_pack_path; /* argv[1]; NULL: the textured run is not registered */

/* The run's steps, in order; a failed run says which one failed. */
enum { RUN_MEMORY, RUN_STORE, RUN_TEX_STORE, RUN_PACK, RUN_STREAM, RUN_WORKERS, RUN_FRAMES_STEP, RUN_DONE };
static const char *const run_step_names[] = {"slc_memory_init", "slc_host_store_init", "slc_host_store_init (textures)",
                                             "slc_pack_open",   "slc_stream_create",   "workers start",
                                             "frames"};

typedef struct run_world {
    slc_profile profile;
    sp_pack pack;
    sp_io io;
    const slc_io *pack_io; /* &io.io, or the textured pack's file in memory */
    const char *pack_name;
    uint32_t page_count, page_size;
    void *block;
    size_t block_size;
    void *store_mem;
    size_t store_mem_size;
    slc_memory *mem;
    slc_budgets *b;
    slc_arena *meta, *decode, *queues, *pages;
    slc_page_store store;
    /* The textured run's texture pool: its store's pages in their own
     * arena, charged to gpu/textures (tex_page_count 0: none). */
    uint32_t tex_page_count;
    void *tex_store_mem;
    size_t tex_store_mem_size;
    slc_arena *tex_pages;
    slc_page_store tex_store;
    slc_pack *pk;
    slc_stream *s;
    capture_log log;
    slc_logger logger;
} run_world;

static run_world rw;
static slc_platform_workers run_workers; /* must not move while started */

typedef struct run_result {
    int failed_step; /* RUN_DONE when the run completed */
    uint64_t seen_before_frames, seen_after_frames, seen_total;
    uint64_t log_hash, log_count, loads, evictions;
    uint64_t tex_log_hash, tex_log_count, tex_evictions, tile_bytes_read; /* the texture pool's */
} run_result;

typedef struct run_snapshot {
    size_t count;
    slc_budget_stats budget[SLC_BUDGET_MAX];
    size_t meta, decode, queues, pages, tex_pages;
    int log_calls;
} run_snapshot;

static void run_take(run_snapshot *sn)
{
    memset(sn, 0, sizeof *sn);
    sn->count = slc_budgets_walk_report(rw.b, sn->budget, SLC_BUDGET_MAX);
    sn->meta = slc_arena_get_mark(rw.meta).offset;
    sn->decode = slc_arena_get_mark(rw.decode).offset;
    sn->queues = slc_arena_get_mark(rw.queues).offset;
    sn->pages = slc_arena_get_mark(rw.pages).offset;
    sn->tex_pages = rw.tex_pages != NULL ? slc_arena_get_mark(rw.tex_pages).offset : 0;
    sn->log_calls = rw.log.calls;
}

static void run_assert_same_use(const run_snapshot *before, const char *when)
{
    run_snapshot now;
    run_take(&now);
    for (size_t i = 0; i < now.count; i++) {
        if (now.budget[i].current != before->budget[i].current) {
            fail_msg("%s: budget %s holds %" PRIu64 " bytes, %" PRIu64 " before", when, now.budget[i].name,
                     now.budget[i].current, before->budget[i].current);
        }
    }
    assert_int_equal(now.meta, before->meta);
    assert_int_equal(now.decode, before->decode);
    assert_int_equal(now.queues, before->queues);
    assert_int_equal(now.pages, before->pages);
    assert_int_equal(now.tex_pages, before->tex_pages);
    assert_true(slc_budgets_check(rw.b));
    assert_true(slc_arena_check(rw.meta) && slc_arena_check(rw.decode) && slc_arena_check(rw.queues) &&
                slc_arena_check(rw.pages) && (rw.tex_pages == NULL || slc_arena_check(rw.tex_pages)));
}

/* A failed step: refused, with a message, one refusal counted, nothing left
 * behind by the step itself. */
static void run_check_failure(int at, slc_status st, const run_snapshot *before, const char *when)
{
    char what[160];
    snprintf(what, sizeof what, "run: %s, step '%s'", when, run_step_names[at]);
    if (st != SLC_E_BUDGET_REFUSED) {
        fail_msg("%s: %s, not SLC_E_BUDGET_REFUSED (%s)", what, slc_status_name(st), rw.log.message);
    }
    assert_true(slc_test_fault_fired());
    assert_true(rw.log.calls > before->log_calls);
    assert_int_equal(rw.log.status, SLC_E_BUDGET_REFUSED);
    assert_true(rw.log.message[0] != '\0');
    run_snapshot after;
    run_take(&after);
    int refused = 0;
    for (size_t i = 0; i < after.count; i++) {
        uint64_t more = after.budget[i].refused - before->budget[i].refused;
        uint64_t here = after.budget[i].refused_here - before->budget[i].refused_here;
        assert_true(more <= 1 && here == more);
        refused += (int)more;
    }
    assert_int_equal(refused, 1);
    run_assert_same_use(before, what);
}

/* The tiles of a textured pack: every texture's chunks but its mip tail
 * (pinned by the stream), texture by texture; tile k of them. */
static uint32_t texture_tiles(const slc_pack *pk, uint32_t i, slc_pack_texture *t)
{
    assert_int_equal(slc_pack_read_texture(pk, i, t), SLC_OK);
    slc_chunk_id tail;
    return t->chunk_count - (slc_pack_texture_tail(pk, i, &tail) == SLC_OK ? 1u : 0u);
}

static uint32_t run_tile_count(const slc_pack *pk)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < slc_pack_texture_count(pk); i++) {
        slc_pack_texture t;
        n += texture_tiles(pk, i, &t);
    }
    assert_true(n > 0);
    return n;
}

static slc_chunk_id run_tile(const slc_pack *pk, uint32_t k)
{
    for (uint32_t i = 0; i < slc_pack_texture_count(pk); i++) {
        slc_pack_texture t;
        uint32_t tiles = texture_tiles(pk, i, &t);
        if (k < tiles) {
            return (slc_chunk_id){t.first_chunk + k};
        }
        k -= tiles;
    }
    fail_msg("tile %u past the pack's tiles", k);
    return (slc_chunk_id){0};
}

/* A host store of pages pages of rw.page_size on arena into *store, which
 * a failure leaves zeroed. */
static slc_status run_store_init(slc_arena *arena, uint32_t pages, slc_page_store *store)
{
    memset(store, 0xA5, sizeof *store);
    slc_status st = slc_host_store_init(arena, pages, rw.page_size, &rw.logger, store);
    if (st != SLC_OK) {
        slc_page_store zero;
        memset(&zero, 0, sizeof zero);
        assert_memory_equal(store, &zero, sizeof zero);
    }
    return st;
}

/* One whole run; the fault hook armed by the caller. Tears down whatever
 * succeeded and checks that every budget is back to zero. */
static void run_once(run_result *out, const char *when)
{
    memset(out, 0, sizeof *out);
    out->failed_step = RUN_DONE;
    rw.logger = capture_logger(&rw.log);
    slc_status st = slc_memory_init(rw.block, rw.block_size, &rw.profile, &rw.logger, &rw.mem);
    assert_int_equal(st, SLC_OK); /* carving the block reserves nothing */
    rw.b = slc_memory_budgets(rw.mem);
    assert_int_equal(slc_memory_scan_arena(rw.mem, "cpu/meta", &rw.meta), SLC_OK);
    assert_int_equal(slc_memory_scan_arena(rw.mem, "cpu/decode", &rw.decode), SLC_OK);
    assert_int_equal(slc_memory_scan_arena(rw.mem, "cpu/queues", &rw.queues), SLC_OK);
    slc_budget_id pool_id;
    assert_int_equal(slc_budgets_scan(rw.b, "gpu/pool", &pool_id), SLC_OK);
    assert_int_equal(slc_arena_init(rw.store_mem, rw.store_mem_size, rw.b, pool_id, &rw.pages), SLC_OK);
    if (rw.tex_page_count > 0) {
        slc_budget_id tex_id;
        assert_int_equal(slc_budgets_scan(rw.b, "gpu/textures", &tex_id), SLC_OK);
        assert_int_equal(slc_arena_init(rw.tex_store_mem, rw.tex_store_mem_size, rw.b, tex_id, &rw.tex_pages), SLC_OK);
    }
    run_snapshot base, before;
    run_take(&base);
    for (size_t i = 0; i < base.count; i++) {
        assert_int_equal(base.budget[i].current, 0);
    }

    int at = RUN_STORE;
    run_take(&before);
    if ((st = run_store_init(rw.pages, rw.page_count, &rw.store)) != SLC_OK) {
        goto failed;
    }
    at = RUN_TEX_STORE;
    if (rw.tex_page_count > 0) {
        run_take(&before);
        if ((st = run_store_init(rw.tex_pages, rw.tex_page_count, &rw.tex_store)) != SLC_OK) {
            goto failed;
        }
    }
    at = RUN_PACK;
    run_take(&before);
    rw.pk = (slc_pack *)&rw;
    st = slc_pack_open(rw.pack_io, rw.pack_name, &rw.profile, rw.meta, &rw.logger, &rw.pk);
    if (st != SLC_OK) {
        assert_null(rw.pk);
        goto failed;
    }
    at = RUN_STREAM;
    run_take(&before);
    slc_stream_desc d;
    memset(&d, 0, sizeof d);
    d.profile = &rw.profile;
    d.memory = rw.mem;
    d.pack = rw.pk;
    d.stores[SLC_POOL_GEOMETRY] = &rw.store;
    d.stores[SLC_POOL_TEXTURES] = rw.tex_page_count > 0 ? &rw.tex_store : NULL;
    d.log = &rw.logger;
    slc_platform_workers_executor(&run_workers, &d.executor);
    rw.s = (slc_stream *)&rw;
    st = slc_stream_create(&d, &rw.s);
    if (st != SLC_OK) {
        assert_null(rw.s);
        goto failed;
    }
    at = RUN_WORKERS;
    assert_int_equal(slc_platform_workers_start(&run_workers, rw.profile.workers, sff_work, rw.s, NULL), SLC_OK);

    at = RUN_FRAMES_STEP;
    out->seen_before_frames = slc_test_fault_seen();
    const slc_pack_header *h = slc_pack_get_header(rw.pk);
    const slc_pool *tex_pool = slc_stream_pool_of_kind(rw.s, SLC_POOL_TEXTURES);
    const uint32_t textures = slc_pack_texture_count(rw.pk);
    for (uint32_t t = 1; t <= RUN_FRAMES; t++) {
        assert_int_equal(slc_stream_begin_frame(rw.s, NULL), SLC_OK);
        slc_stream_object_request req[64];
        uint32_t n = sfx_camera_requests(t, h->object_count, req, 64);
        for (uint32_t i = 0; i < n; i++) {
            if (req[i].lod >= slc_pack_get_object(rw.pk, req[i].object)->lod_count) {
                req[i].lod = (uint8_t)(slc_pack_get_object(rw.pk, req[i].object)->lod_count - 1u);
            }
            assert_int_equal(slc_stream_request(rw.s, &req[i]), SLC_OK);
        }
        /* Tiles: TEX_TILES_A_FRAME of them, the window moving on by two a
         * frame over every texture's tiles (its chunks but the tail). */
        for (uint32_t i = 0, k = 0; textures > 0 && i < TEX_TILES_A_FRAME; i++) {
            uint32_t tile = (t * 2u + i) % run_tile_count(rw.pk);
            slc_chunk_id c = run_tile(rw.pk, tile);
            assert_int_equal(slc_stream_request_chunk(rw.s, c, (uint8_t)(100u - k++), (slc_partition){0}), SLC_OK);
        }
        assert_int_equal(slc_stream_end_frame(rw.s), SLC_OK);
        if (textures > 0) {
            /* Every texture's tail stays pinned: never a texture with no level. */
            slc_pool_stats tps;
            slc_pool_get_stats(tex_pool, &tps);
            assert_int_equal(tps.pinned, textures);
            assert_true(slc_pool_check(tex_pool));
        }
        for (uint32_t i = 0; i < slc_stream_result_count(rw.s); i++) {
            slc_stream_result r;
            assert_int_equal(slc_stream_resident(rw.s, i, &r, NULL, 0) == SLC_OK || r.span_count > 0, 1);
            assert_true(r.lod != SLC_STREAM_LOD_NONE); /* pinned coarsest levels: never a hole */
        }
        assert_true(slc_stream_check(rw.s));
        assert_true(slc_pool_check(slc_stream_pool(rw.s)));
        assert_true(slc_budgets_check(rw.b));
    }
    out->seen_after_frames = slc_test_fault_seen();
    slc_pool_stats ps;
    slc_pool_get_stats(slc_stream_pool(rw.s), &ps);
    out->log_hash = ps.log_hash;
    out->log_count = ps.log_count;
    if (textures > 0) {
        slc_pool_get_stats(tex_pool, &ps);
        out->tex_log_hash = ps.log_hash;
        out->tex_log_count = ps.log_count;
        out->tex_evictions = ps.evictions;
    }
    slc_stream_stats ss;
    slc_stream_get_stats(rw.s, &ss);
    out->loads = ss.loads_completed;
    out->evictions = ss.evictions;
    out->tile_bytes_read = ss.tile_bytes_read;
    assert_int_equal(ss.refused, 0);
    assert_int_equal(ss.failures, 0);
    at = RUN_DONE;

failed:
    if (at != RUN_DONE) {
        out->failed_step = at;
        run_check_failure(at, st, &before, when);
    }
    /* Undo what succeeded, in reverse. */
    if (at > RUN_WORKERS) {
        slc_platform_workers_stop(&run_workers);
    }
    if (at > RUN_STREAM) {
        slc_stream_destroy(rw.s);
    }
    rw.s = NULL;
    if (at > RUN_PACK) {
        slc_pack_close(rw.pk);
    }
    rw.pk = NULL;
    if (at > RUN_STORE) {
        slc_arena_reset(rw.pages, (slc_arena_mark){0}); /* the host store's pages */
    }
    if (at > RUN_TEX_STORE && rw.tex_page_count > 0) {
        slc_arena_reset(rw.tex_pages, (slc_arena_mark){0});
    }
    out->seen_total = slc_test_fault_seen();
    /* Every budget back to zero, every arena at its mark (base: zero use). */
    char what[160];
    snprintf(what, sizeof what, "run: %s, after teardown", when);
    run_assert_same_use(&base, what);
    slc_memory_deinit(rw.mem);
    rw.mem = NULL;
    rw.b = NULL;
    rw.meta = rw.decode = rw.queues = rw.pages = rw.tex_pages = NULL;
}

/* The sweep over rw as set up: a clean run counts R, then every
 * reservation refused in turn, each followed by a complete run. `what`
 * names the run in its lines. */
static void sweep_run(const char *what)
{
    slc_memory_requirements req;
    assert_int_equal(slc_memory_calculate_requirements(&rw.profile, &req), SLC_OK);
    rw.block_size = req.block_size;
    rw.block = aligned_alloc(64, (rw.block_size + 63u) & ~(size_t)63u);
    rw.store_mem_size = SLC_ARENA_FOOTPRINT(slc_host_store_footprint(rw.page_count, rw.page_size));
    rw.store_mem = aligned_alloc(64, (rw.store_mem_size + 63u) & ~(size_t)63u);
    assert_non_null(rw.block);
    assert_non_null(rw.store_mem);
    if (rw.tex_page_count > 0) {
        rw.tex_store_mem_size = SLC_ARENA_FOOTPRINT(slc_host_store_footprint(rw.tex_page_count, rw.page_size));
        rw.tex_store_mem = aligned_alloc(64, (rw.tex_store_mem_size + 63u) & ~(size_t)63u);
        assert_non_null(rw.tex_store_mem);
    }

    /* The clean run: R, and no reservation at all while streaming. */
    run_result clean;
    slc_test_fault_arm(UINT64_MAX);
    run_once(&clean, "clean run");
    assert_int_equal(clean.failed_step, RUN_DONE);
    assert_false(slc_test_fault_fired());
    assert_int_equal(clean.seen_after_frames, clean.seen_before_frames); /* the frames reserve nothing */
    assert_true(clean.loads > 100 && clean.evictions > 0);
    if (rw.tex_page_count > 0) {
        assert_true(clean.tex_evictions > 0 && clean.tile_bytes_read > 0); /* tiles came and went */
    }
    uint64_t reservations = clean.seen_total;
    printf("fault sweep, %s: R = %" PRIu64 " reservations (%" PRIu64 " before the first frame, %" PRIu64
           " in %d frames with %u workers); %" PRIu64 " loads, %" PRIu64 " evictions, log %" PRIu64
           " entries, hash 0x%016" PRIx64 "\n",
           what, reservations, clean.seen_before_frames, clean.seen_after_frames - clean.seen_before_frames, RUN_FRAMES,
           rw.profile.workers, clean.loads, clean.evictions, clean.log_count, clean.log_hash);
    if (rw.tex_page_count > 0) {
        printf("fault sweep, %s: texture pool %" PRIu64 " evictions, log %" PRIu64 " entries, hash 0x%016" PRIx64 "\n",
               what, clean.tex_evictions, clean.tex_log_count, clean.tex_log_hash);
    }
    assert_true(reservations > 0);

    uint32_t failed_at[RUN_DONE + 1] = {0};
    for (uint64_t n = 1; n <= reservations + 1; n++) {
        char when[64];
        snprintf(when, sizeof when, "reservation %" PRIu64 " refused", n);
        run_result r;
        slc_test_fault_arm(n);
        run_once(&r, when);
        if (n <= reservations) {
            if (r.failed_step == RUN_DONE) {
                fail_msg("%s: %s: the run completed anyway (a refusal was ignored)", what, when);
            }
            failed_at[r.failed_step]++;
        } else {
            assert_int_equal(r.failed_step, RUN_DONE);
            assert_false(slc_test_fault_fired());
            assert_int_equal(r.log_hash, clean.log_hash);
            assert_int_equal(r.tex_log_hash, clean.tex_log_hash);
        }
        /* Right after, in the same process, a complete run streams the same. */
        snprintf(when, sizeof when, "complete run after reservation %" PRIu64, n);
        slc_test_fault_arm(UINT64_MAX);
        run_once(&r, when);
        assert_int_equal(r.failed_step, RUN_DONE);
        assert_false(slc_test_fault_fired());
        assert_int_equal(r.seen_after_frames, r.seen_before_frames);
        assert_int_equal(r.seen_total, reservations);
        assert_int_equal(r.log_count, clean.log_count);
        assert_int_equal(r.log_hash, clean.log_hash);
        assert_int_equal(r.tex_log_count, clean.tex_log_count);
        assert_int_equal(r.tex_log_hash, clean.tex_log_hash);
    }
    slc_test_fault_arm(0);
    printf("fault sweep, %s: refusals failed slc_host_store_init %u (textures %u), slc_pack_open %u, "
           "slc_stream_create %u times\n",
           what, failed_at[RUN_STORE], failed_at[RUN_TEX_STORE], failed_at[RUN_PACK], failed_at[RUN_STREAM]);
    /* Every step that reserves was reached; nothing else failed. */
    assert_true(failed_at[RUN_STORE] > 0 && failed_at[RUN_PACK] > 0 && failed_at[RUN_STREAM] > 0);
    assert_true(rw.tex_page_count == 0 ? failed_at[RUN_TEX_STORE] == 0 : failed_at[RUN_TEX_STORE] > 0);
    assert_int_equal(failed_at[RUN_STORE] + failed_at[RUN_TEX_STORE] + failed_at[RUN_PACK] + failed_at[RUN_STREAM],
                     reservations);
    free(rw.block);
    free(rw.store_mem);
    free(rw.tex_store_mem);
}

static void test_every_refused_reservation_of_a_streaming_run_unwinds(void **state)
{
    (void)state;
    memset(&rw, 0, sizeof rw);
    sfx_profile_parse(run_profile_text, "sweep-run.profile", &rw.profile);
    static const sp_params pack_params = {RUN_PAGE_SIZE, 48, 3, {6, 2, 1}, 42};
    sp_build(&rw.pack, &pack_params);
    assert_true(rw.pack.chunk_count >= 4u * RUN_PAGES); /* several times the pool */
    sp_io_init(&rw.io, &rw.pack);
    rw.pack_io = &rw.io.io;
    rw.pack_name = "sweep-run.pack";
    rw.page_count = RUN_PAGES;
    rw.page_size = RUN_PAGE_SIZE;
    sweep_run("streaming run");
    sp_free(&rw.pack);
}

/* The same over a textured pack, with a texture pool: its store's
 * reservation, the tails pinned at create and the tiles streamed are
 * swept too, and its eviction log repeats after every refusal. */
static void test_every_refused_reservation_of_a_textured_run_unwinds(void **state)
{
    (void)state;
    memset(&rw, 0, sizeof rw);
    sfx_profile_parse(tex_profile_text, "sweep-textured.profile", &rw.profile);
    size_t size = 0;
    char *data = read_file(textured_pack_path, &size);
    assert_true(size > 0);
    slc_io io;
    slc_io_from_memory(data, size, &io);
    rw.pack_io = &io;
    rw.pack_name = textured_pack_path;
    rw.page_count = TEX_GEO_PAGES;
    rw.page_size = TEX_PAGE_SIZE;
    rw.tex_page_count = TEX_TILE_PAGES;
    sweep_run("textured run");
    free(data);
}

/* argv[1], when given: the textured pack (tests/CMakeLists.txt packs it). */
int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_refused_reservation_of_the_parts_unwinds),
        cmocka_unit_test(test_every_refused_reservation_of_stream_create_unwinds),
        cmocka_unit_test(test_injected_refusal_looks_like_a_full_budget),
        cmocka_unit_test(test_every_refused_reservation_of_a_streaming_run_unwinds),
        cmocka_unit_test(test_every_refused_reservation_of_a_textured_run_unwinds),
    };
    textured_pack_path = argc > 1 ? argv[1] : NULL;
    const size_t count = sizeof tests / sizeof tests[0] - (textured_pack_path == NULL ? 1u : 0u);
    return _cmocka_run_group_tests("test_fault_sweep", tests, count, group_setup, group_teardown);
}

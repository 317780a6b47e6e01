/* SPDX-License-Identifier: MIT */
/* Threads reserve and release at random on a shared tree while a watcher
 * samples it; afterwards every use is back to zero, no peak ever went above
 * its limit, and every refusal a thread saw is counted. Run under TSan too. */
#include <pthread.h>
#include <stdatomic.h>

#include "test_util.h"

#define THREADS 4
#define OPS 200000
#define HELD_MAX 32

enum { ROOT, A, B, A1, A2, COUNT };
static const slc_budget_desc tree[COUNT] = {
    {"cpu", 100000, SLC_BUDGET_NONE_INDEX},
    {"cpu/a", 60000, ROOT},
    {"cpu/b", 30000, ROOT},
    {"cpu/a/x", 30000, A},
    {"cpu/a/y", 30000, A},
};

static _Alignas(64) unsigned char mem[SLC_BUDGETS_FOOTPRINT(COUNT, 4)];
static slc_budgets *budgets;
static atomic_int stop_watch;
static atomic_int watcher_violations;

typedef struct worker {
    pthread_t thread;
    uint64_t seed;
    uint64_t refused_seen[COUNT];
    uint64_t reserved_ok[COUNT];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    struct {
        uint16_t budget;
        uint64_t bytes;
    } held[HELD_MAX];
    int n = 0;
    for (int op = 0; op < OPS; op++) {
        uint64_t r = rng_next(&w->seed);
        if (n == HELD_MAX || (n > 0 && (r & 1))) {
            int k = (int)((r >> 8) % (uint64_t)n);
            slc_budgets_release(budgets, (slc_budget_id){held[k].budget}, held[k].bytes);
            held[k] = held[--n];
            continue;
        }
        uint16_t b = (uint16_t)((r >> 16) % COUNT);
        uint64_t bytes = 1 + (r >> 24) % 4000;
        slc_budget_refusal why;
        slc_status s = slc_budgets_reserve(budgets, (slc_budget_id){b}, bytes, &why);
        if (s == SLC_OK) {
            held[n].budget = b;
            held[n].bytes = bytes;
            n++;
            w->reserved_ok[b]++;
        } else {
            assert_int_equal(s, SLC_E_BUDGET_REFUSED);
            assert_int_equal(why.budget.index, b);
            assert_true(why.requested == bytes);
            assert_true(why.current + bytes > why.limit); /* refused for a true reason at that instant */
            w->refused_seen[b]++;
        }
    }
    while (n > 0) {
        n--;
        slc_budgets_release(budgets, (slc_budget_id){held[n].budget}, held[n].bytes);
    }
    return NULL;
}

static void *watch(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_watch)) {
        for (uint16_t i = 0; i < COUNT; i++) {
            slc_budget_stats s;
            slc_budgets_get(budgets, (slc_budget_id){i}, &s);
            if (s.current > s.limit || s.peak > s.limit) {
                atomic_fetch_add(&watcher_violations, 1);
            }
        }
    }
    return NULL;
}

static void test_random_reserve_release_from_threads(void **state)
{
    (void)state;
    assert_int_equal(slc_budgets_init(mem, sizeof mem, tree, COUNT, 4, NULL, &budgets), SLC_OK);
    worker w[THREADS];
    memset(w, 0, sizeof w);
    pthread_t watcher;
    atomic_store(&stop_watch, 0);
    assert_int_equal(pthread_create(&watcher, NULL, watch, NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        w[i].seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
        print_message("thread %d seed %llx\n", i, (unsigned long long)w[i].seed);
        assert_int_equal(pthread_create(&w[i].thread, NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(w[i].thread, NULL), 0);
    }
    atomic_store(&stop_watch, 1);
    assert_int_equal(pthread_join(watcher, NULL), 0);
    assert_int_equal(atomic_load(&watcher_violations), 0);

    uint64_t refused_total = 0;
    for (uint16_t b = 0; b < COUNT; b++) {
        slc_budget_stats s;
        slc_budgets_get(budgets, (slc_budget_id){b}, &s);
        uint64_t seen = 0, ok = 0;
        for (int i = 0; i < THREADS; i++) {
            seen += w[i].refused_seen[b];
            ok += w[i].reserved_ok[b];
        }
        print_message("%-8s peak %6llu/%6llu reservations %7llu refused %6llu (here %6llu)\n", s.name,
                      (unsigned long long)s.peak, (unsigned long long)s.limit, (unsigned long long)s.reservations,
                      (unsigned long long)s.refused, (unsigned long long)s.refused_here);
        assert_int_equal(s.current, 0); /* every reservation released, no refusal left a trace */
        assert_true(s.peak <= s.limit);
        assert_int_equal(s.refused, seen); /* every refusal counted */
        assert_int_equal(s.reservations, ok);
        refused_total += s.refused;
    }
    uint64_t here_total = 0;
    for (uint16_t b = 0; b < COUNT; b++) {
        slc_budget_stats s;
        slc_budgets_get(budgets, (slc_budget_id){b}, &s);
        here_total += s.refused_here;
    }
    assert_int_equal(here_total, refused_total); /* each refusal blamed on exactly one level */
    assert_true(refused_total > 0);              /* the test did push against the limits */
    assert_true(slc_budgets_check(budgets));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_reserve_release_from_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

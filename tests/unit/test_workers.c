/* SPDX-License-Identifier: MIT */
/* The platform's worker threads (platform/src/workers.c) as the stream's
 * executor: jobs claimed through an atomic counter run exactly once with 1,
 * 2, 4 and 64 threads, each worker number in range and never running twice
 * at once; notifications beyond the thread count, and billions of them, owe
 * no more wakeups than there are threads; wait returns once completed was
 * called and at once if it already was; stop waits for the job under way,
 * joins, and is idempotent; start refuses a count outside 1..64 and cleans
 * up after every pthread call that can fail (those calls are wrapped with
 * the linker's --wrap, see tests/CMakeLists.txt). Worker callbacks never
 * call cmocka: they count violations, which the test thread asserts. Run
 * under TSan too (the plain payload writes check wait's ordering). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "sluice/workers.h"
#include "test_util.h"

/* --- the wrapped pthread calls: failure injection and balance ------------- */

int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int __real_pthread_join(pthread_t thread, void **ret);
int __real_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int __real_pthread_mutex_destroy(pthread_mutex_t *m);
int __real_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
int __real_pthread_cond_destroy(pthread_cond_t *c);

static atomic_int inject_calls; /* init and create calls since inject() */
static atomic_int inject_fail_at = -1;
static atomic_int threads_live; /* created minus joined */
static atomic_int syncs_live;   /* mutexes and conditions initialised minus destroyed */

static void inject(int fail_at)
{
    atomic_store(&inject_calls, 0);
    atomic_store(&inject_fail_at, fail_at);
}

static bool inject_now(void)
{
    return atomic_fetch_add(&inject_calls, 1) == atomic_load(&inject_fail_at);
}

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    if (inject_now()) {
        return EAGAIN;
    }
    int err = __real_pthread_create(thread, attr, fn, arg);
    if (err == 0) {
        atomic_fetch_add(&threads_live, 1);
    }
    return err;
}

int __wrap_pthread_join(pthread_t thread, void **ret);
int __wrap_pthread_join(pthread_t thread, void **ret)
{
    int err = __real_pthread_join(thread, ret);
    if (err == 0) {
        atomic_fetch_sub(&threads_live, 1);
    }
    return err;
}

int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    if (inject_now()) {
        return ENOMEM;
    }
    int err = __real_pthread_mutex_init(m, attr);
    if (err == 0) {
        atomic_fetch_add(&syncs_live, 1);
    }
    return err;
}

int __wrap_pthread_mutex_destroy(pthread_mutex_t *m);
int __wrap_pthread_mutex_destroy(pthread_mutex_t *m)
{
    atomic_fetch_sub(&syncs_live, 1);
    return __real_pthread_mutex_destroy(m);
}

int __wrap_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
int __wrap_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
    if (inject_now()) {
        return ENOMEM;
    }
    int err = __real_pthread_cond_init(c, attr);
    if (err == 0) {
        atomic_fetch_add(&syncs_live, 1);
    }
    return err;
}

int __wrap_pthread_cond_destroy(pthread_cond_t *c);
int __wrap_pthread_cond_destroy(pthread_cond_t *c)
{
    atomic_fetch_sub(&syncs_live, 1);
    return __real_pthread_cond_destroy(c);
}

/* --- jobs claimed with an atomic counter, as the stream's loads are ------- */

#define JOBS_MAX 8192u
/* Work calls that find nothing number at most the wakeups owed, a few
 * thousand in any test here; past this a worker slows down. */
#define IDLE_CALLS_THROTTLE 100000u

typedef struct jobs {
    atomic_uint published; /* jobs [0, published) may be claimed */
    atomic_uint next;      /* the next job to claim */
    atomic_uint started;
    atomic_uint finished;
    atomic_uchar runs[JOBS_MAX];
    uint32_t payload[JOBS_MAX]; /* plain: written by the job, read after wait */
    atomic_int busy[SLC_PLATFORM_WORKERS_MAX];
    atomic_uint bad_index;   /* a worker number at or above threads */
    atomic_uint overlap;     /* a worker number running twice at once */
    atomic_ulong idle_calls; /* work calls that found no job */
    uint32_t threads;
    unsigned job_sleep_us;
    slc_stream_executor ex;
} jobs;

static jobs J;
static slc_platform_workers W;
static const slc_platform_workers zero_workers;

static void sleep_us(unsigned us)
{
    struct timespec ts = {0, (long)us * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static bool run_job(void *ctx, uint32_t worker)
{
    jobs *j = ctx;
    if (worker >= j->threads) {
        atomic_fetch_add(&j->bad_index, 1);
        return false;
    }
    if (atomic_exchange(&j->busy[worker], 1) != 0) {
        atomic_fetch_add(&j->overlap, 1);
    }
    unsigned i = atomic_load(&j->next);
    bool got = false;
    while (i < atomic_load(&j->published)) {
        if (atomic_compare_exchange_weak(&j->next, &i, i + 1)) {
            got = true;
            break;
        }
    }
    if (got) {
        atomic_fetch_add(&j->started, 1);
        if (j->job_sleep_us > 0) {
            sleep_us(j->job_sleep_us);
        }
        atomic_fetch_add(&j->runs[i], 1);
        j->payload[i] = i * 3u + 1u;
    } else if (atomic_fetch_add(&j->idle_calls, 1) > IDLE_CALLS_THROTTLE) {
        sleep_us(100); /* far past any correct count: let a broken executor's test fail, not starve */
    }
    atomic_store(&j->busy[worker], 0);
    if (got) {
        atomic_fetch_add(&j->finished, 1);
        j->ex.ops->completed(j->ex.self);
    }
    return got;
}

/* Resets J and starts `threads` workers on it. */
static void start_jobs(uint32_t threads)
{
    memset(&J, 0, sizeof J);
    J.threads = threads;
    slc_platform_workers_executor(&W, &J.ex);
    capture_log c;
    slc_logger log = capture_logger(&c);
    assert_int_equal(slc_platform_workers_start(&W, threads, run_job, &J, &log), SLC_OK);
    assert_int_equal(c.calls, 0);
    assert_int_equal(atomic_load(&threads_live), (int)threads);
}

static void publish(uint32_t n)
{
    assert_true(atomic_load(&J.published) + n <= JOBS_MAX);
    atomic_fetch_add(&J.published, n);
    J.ex.ops->notify(J.ex.self, n);
}

/* Waits, through the executor, until every published job has finished. */
static void wait_all(void)
{
    while (atomic_load(&J.finished) < atomic_load(&J.published)) {
        J.ex.ops->wait(J.ex.self);
    }
}

static void assert_each_job_ran_once(void)
{
    unsigned n = atomic_load(&J.published);
    assert_int_equal(atomic_load(&J.finished), n);
    for (unsigned i = 0; i < n; i++) {
        if (atomic_load(&J.runs[i]) != 1 || J.payload[i] != i * 3u + 1u) {
            fail_msg("job %u ran %u times (payload %u)", i, (unsigned)atomic_load(&J.runs[i]), J.payload[i]);
        }
    }
    assert_int_equal(atomic_load(&J.bad_index), 0);
    assert_int_equal(atomic_load(&J.overlap), 0);
}

static void stop_and_check(void)
{
    slc_platform_workers_stop(&W);
    assert_memory_equal(&W, &zero_workers, sizeof W);
    assert_int_equal(atomic_load(&threads_live), 0);
    assert_int_equal(atomic_load(&syncs_live), 0);
}

/* --- tests ----------------------------------------------------------------- */

static void test_start_refuses_count_outside_1_to_64(void **state)
{
    (void)state;
    capture_log c;
    slc_logger log = capture_logger(&c);
    memset(&W, 0xA5, sizeof W);
    assert_int_equal(slc_platform_workers_start(&W, 0, run_job, &J, &log), SLC_E_INVALID);
    assert_string_equal(c.message, "platform: workers: count 0 is outside 1..64");
    assert_int_equal(c.status, SLC_E_INVALID);
    assert_int_equal(c.calls, 1);
    assert_memory_equal(&W, &zero_workers, sizeof W);

    assert_int_equal(slc_platform_workers_start(&W, 65, run_job, &J, &log), SLC_E_INVALID);
    assert_string_equal(c.message, "platform: workers: count 65 is outside 1..64");
    assert_int_equal(c.calls, 2);
    assert_int_equal(slc_platform_workers_start(&W, UINT32_MAX, run_job, &J, NULL), SLC_E_INVALID); /* no logger */
    assert_memory_equal(&W, &zero_workers, sizeof W);
    assert_int_equal(atomic_load(&threads_live), 0);
    assert_int_equal(atomic_load(&syncs_live), 0);
    slc_platform_workers_stop(&W); /* a refused start leaves nothing to stop */
}

static void test_contract_violations_assert(void **state)
{
    (void)state;
    expect_assert_failure(slc_platform_workers_start(NULL, 1, run_job, &J, NULL));
    expect_assert_failure(slc_platform_workers_start(&W, 1, NULL, &J, NULL));
    expect_assert_failure(slc_platform_workers_stop(NULL));
    slc_stream_executor ex;
    expect_assert_failure(slc_platform_workers_executor(NULL, &ex));
    expect_assert_failure(slc_platform_workers_executor(&W, NULL));
    /* The executor may be filled before start, but not used. */
    memset(&W, 0, sizeof W);
    slc_platform_workers_executor(&W, &ex);
    assert_ptr_equal(ex.self, &W);
    expect_assert_failure(ex.ops->notify(ex.self, 1));
    expect_assert_failure(ex.ops->completed(ex.self));
    expect_assert_failure(ex.ops->wait(ex.self));
    assert_int_equal(atomic_load(&threads_live), 0);
}

static void run_every_job_once(uint32_t threads)
{
    start_jobs(threads);
    /* One batch far larger than the thread count... */
    publish(2000);
    wait_all();
    /* ...then many small ones, some waited for, some overlapping the next. */
    uint64_t seed = 0x5EED0000u + threads;
    print_message("threads %u seed %llx\n", (unsigned)threads, (unsigned long long)seed);
    for (int round = 0; round < 600; round++) {
        publish(1 + (uint32_t)(rng_next(&seed) % 9));
        if (rng_next(&seed) & 1) {
            wait_all();
        }
    }
    wait_all();
    assert_each_job_ran_once();
    stop_and_check();
}

static void test_every_job_runs_exactly_once_with_1_2_4_threads(void **state)
{
    (void)state;
    run_every_job_once(1);
    run_every_job_once(2);
    run_every_job_once(4);
}

static void test_every_job_runs_exactly_once_with_64_threads(void **state)
{
    (void)state;
    run_every_job_once(SLC_PLATFORM_WORKERS_MAX);
}

static void test_notifications_beyond_thread_count_are_capped(void **state)
{
    (void)state;
    start_jobs(2);
    /* Each wakeup owed makes one work call that finds nothing; if wakeups
     * were counted without the cap (or wrapped around), these would owe
     * billions of them. */
    for (int i = 0; i < 1000; i++) {
        J.ex.ops->notify(J.ex.self, UINT32_MAX);
        J.ex.ops->notify(J.ex.self, 0);
    }
    publish(100);
    wait_all();
    slc_platform_workers_stop(&W);
    assert_each_job_ran_once();
    unsigned long idle = atomic_load(&J.idle_calls);
    print_message("idle work calls: %lu\n", idle);
    assert_true(idle <= 1001ul * 2);
    assert_int_equal(atomic_load(&threads_live), 0);
}

/* Jobs that each wait (up to 2 s) until `want` of them are running at once. */
static atomic_uint meeting;

static bool meet(void *ctx, uint32_t worker)
{
    (void)worker;
    jobs *j = ctx;
    unsigned i = atomic_load(&j->next);
    bool got = false;
    while (i < atomic_load(&j->published)) {
        if (atomic_compare_exchange_weak(&j->next, &i, i + 1)) {
            got = true;
            break;
        }
    }
    if (!got) {
        return false;
    }
    atomic_fetch_add(&meeting, 1);
    for (int t = 0; t < 20000 && atomic_load(&meeting) < atomic_load(&j->published); t++) {
        sleep_us(100);
    }
    if (atomic_load(&meeting) >= atomic_load(&j->published)) {
        atomic_fetch_add(&j->runs[i], 1); /* ran alongside all the others */
    }
    atomic_fetch_add(&j->finished, 1);
    j->ex.ops->completed(j->ex.self);
    return true;
}

static void test_notify_wakes_as_many_workers_as_jobs(void **state)
{
    (void)state;
    /* 3 jobs on 4 sleeping threads: one notify(3) must wake 3 of them, since
     * each job holds its thread until all 3 run. */
    memset(&J, 0, sizeof J);
    atomic_store(&meeting, 0);
    J.threads = 4;
    slc_platform_workers_executor(&W, &J.ex);
    assert_int_equal(slc_platform_workers_start(&W, 4, meet, &J, NULL), SLC_OK);
    sleep_us(2000); /* let them reach their first sleep, so the signals are what wakes them */
    publish(3);
    wait_all();
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(atomic_load(&J.runs[i]), 1);
    }
    stop_and_check();
}

static void test_wait_returns_once_completed_was_called(void **state)
{
    (void)state;
    start_jobs(1);
    J.job_sleep_us = 5000; /* the job is still running when wait starts */
    publish(1);
    J.ex.ops->wait(J.ex.self);
    /* completed was called after the job's plain write: TSan checks that
     * wait ordered it before this read. */
    assert_int_equal(J.payload[0], 1);
    assert_int_equal(atomic_load(&J.finished), 1);
    stop_and_check();
}

typedef struct waiter {
    slc_stream_executor ex;
    atomic_int returned;
} waiter;

static void *wait_thread(void *arg)
{
    waiter *t = arg;
    t->ex.ops->wait(t->ex.self);
    atomic_store(&t->returned, 1);
    return NULL;
}

/* Asserts that wait blocks (for 20 ms) until completed is called. */
static void assert_wait_blocks_until_completed(void)
{
    waiter t = {J.ex, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, wait_thread, &t), 0);
    sleep_us(20000);
    assert_int_equal(atomic_load(&t.returned), 0);
    J.ex.ops->completed(J.ex.self);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(atomic_load(&t.returned), 1);
}

static void test_wait_does_not_block_when_completed_came_first(void **state)
{
    (void)state;
    start_jobs(1);
    publish(1);
    while (atomic_load(&J.finished) < 1) { /* the job called completed... */
        sleep_us(100);
    }
    J.ex.ops->wait(J.ex.self); /* ...so this returns at once */
    assert_int_equal(J.payload[0], 1);
    /* wait cleared the flag: the next one blocks. */
    assert_wait_blocks_until_completed();
    /* completed from any thread, twice: one flag, not a count. */
    J.ex.ops->completed(J.ex.self);
    J.ex.ops->completed(J.ex.self);
    J.ex.ops->wait(J.ex.self);
    assert_wait_blocks_until_completed();
    stop_and_check();
}

static void test_stop_finishes_the_job_under_way_and_runs_no_more(void **state)
{
    (void)state;
    start_jobs(1);
    J.job_sleep_us = 2000;
    publish(500);
    while (atomic_load(&J.started) < 1) {
        sleep_us(100);
    }
    stop_and_check();
    unsigned started = atomic_load(&J.started);
    unsigned finished = atomic_load(&J.finished);
    print_message("jobs run before stop: %u of 500\n", finished);
    assert_int_equal(started, finished); /* the job under way finished before the join */
    assert_true(finished >= 1 && finished < 500);
    for (unsigned i = 0; i < finished; i++) {
        assert_int_equal(J.payload[i], i * 3u + 1u);
    }
    sleep_us(5000);
    assert_int_equal(atomic_load(&J.started), started); /* nothing runs after stop */
}

static void test_stop_is_idempotent_and_start_again_works(void **state)
{
    (void)state;
    memset(&W, 0, sizeof W);
    slc_platform_workers_stop(&W); /* never started */
    start_jobs(4);
    publish(50);
    wait_all();
    stop_and_check();
    slc_platform_workers_stop(&W);
    stop_and_check();
    /* The same struct starts again (J is reset; the executor is the same). */
    start_jobs(3);
    publish(50);
    wait_all();
    assert_each_job_ran_once();
    stop_and_check();
}

static void test_every_failing_pthread_call_of_start_is_cleaned_up(void **state)
{
    (void)state;
    static const char *const syncs[] = {"work lock", "work condition", "completion lock", "completion condition"};
    enum { THREADS = 4 };
    int k = 0;
    for (;; k++) {
        memset(&J, 0, sizeof J);
        J.threads = THREADS;
        capture_log c;
        slc_logger log = capture_logger(&c);
        inject(k);
        slc_status s = slc_platform_workers_start(&W, THREADS, run_job, &J, &log);
        inject(-1);
        if (s == SLC_OK) {
            assert_int_equal(c.calls, 0);
            stop_and_check();
            break;
        }
        char want[192];
        if (k < 4) {
            snprintf(want, sizeof want, "platform: workers: cannot initialise the %s: %s", syncs[k], strerror(ENOMEM));
        } else {
            snprintf(want, sizeof want, "platform: workers: cannot create thread %d of %d: %s", k - 4, THREADS,
                     strerror(EAGAIN));
        }
        assert_int_equal(s, SLC_E_PLATFORM);
        assert_int_equal(c.calls, 1);
        assert_int_equal(c.status, SLC_E_PLATFORM);
        assert_string_equal(c.message, want);
        assert_memory_equal(&W, &zero_workers, sizeof W);
        assert_int_equal(atomic_load(&threads_live), 0); /* the threads created were joined */
        assert_int_equal(atomic_load(&syncs_live), 0);   /* and every lock destroyed */
    }
    assert_int_equal(k, 4 + THREADS); /* every call was made to fail once */
}

int main(void)
{
    alarm(120); /* a wait that never returns fails the run instead of hanging it */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_refuses_count_outside_1_to_64),
        cmocka_unit_test(test_contract_violations_assert),
        cmocka_unit_test(test_every_job_runs_exactly_once_with_1_2_4_threads),
        cmocka_unit_test(test_every_job_runs_exactly_once_with_64_threads),
        cmocka_unit_test(test_notifications_beyond_thread_count_are_capped),
        cmocka_unit_test(test_notify_wakes_as_many_workers_as_jobs),
        cmocka_unit_test(test_wait_returns_once_completed_was_called),
        cmocka_unit_test(test_wait_does_not_block_when_completed_came_first),
        cmocka_unit_test(test_stop_finishes_the_job_under_way_and_runs_no_more),
        cmocka_unit_test(test_stop_is_idempotent_and_start_again_works),
        cmocka_unit_test(test_every_failing_pthread_call_of_start_is_cleaned_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

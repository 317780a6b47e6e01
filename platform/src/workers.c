/* SPDX-License-Identifier: MIT */
/* sluice: worker threads on POSIX threads (sluice/workers.h); in a build
 * without threads (SLUICE_THREADS=OFF) none can be started. */
#define _GNU_SOURCE 1

#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sluice/config.h"
#include "sluice/workers.h"

#include "os_sync.h"

static void log_error(const slc_logger *log, slc_status status, const char *msg)
{
    if (log != NULL && log->fn != NULL) {
        log->fn(log->user, SLC_LOG_ERROR, status, msg);
    }
}

/* SLC_OK when count is within 1..SLC_PLATFORM_WORKERS_MAX, else
 * SLC_E_INVALID, logged: the same check with threads and without. */
static slc_status check_count(uint32_t count, const slc_logger *log)
{
    if (count == 0 || count > SLC_PLATFORM_WORKERS_MAX) {
        char msg[96];
        snprintf(msg, sizeof msg, "platform: workers: count %u is outside 1..%u", (unsigned)count,
                 (unsigned)SLC_PLATFORM_WORKERS_MAX);
        log_error(log, SLC_E_INVALID, msg);
        return SLC_E_INVALID;
    }
    return SLC_OK;
}

#if SLUICE_THREADS

#include <pthread.h>

/* "Started": the state is live. Anything else (a zeroed struct) is not. */
#define WORKERS_MAGIC 0x736c7777u /* "slww" */

struct workers_state;

/* What each thread is handed: its state and its number. */
typedef struct worker_slot {
    struct workers_state *owner;
    uint32_t index;
    pthread_t thread;
} worker_slot;

typedef struct workers_state {
    /* The work side: the caller notifies, the workers take wakeups. */
    pthread_mutex_t work_lock;
    pthread_cond_t work_cond;
    uint32_t pending; /* wakeups owed, <= count (under work_lock) */
    uint32_t count;   /* threads running */
    uint32_t magic;   /* WORKERS_MAGIC while started */
    atomic_bool stop; /* written under work_lock; read unlocked between jobs too */
    bool (*work)(void *ctx, uint32_t worker);
    void *ctx;
    /* Keeps the completion lock, taken by every worker after every job, off
     * the cache line of the work lock, whatever the struct's alignment. */
    unsigned char separate_lines_[64];
    /* The completion side: workers signal, the caller waits. */
    pthread_mutex_t done_lock;
    pthread_cond_t done_cond;
    /* completed() since wait() last returned; the caller is (about to be)
     * blocked in wait(). Both sequentially consistent: a worker stores done
     * then reads waiting, the caller stores waiting then reads done, so one
     * of them sees the other's store and no wakeup is lost, and a worker
     * takes the lock only when the caller may be asleep. */
    atomic_bool done;
    atomic_bool waiting;
    worker_slot slots[SLC_PLATFORM_WORKERS_MAX];
} workers_state;

_Static_assert(sizeof(workers_state) <= sizeof(slc_platform_workers),
               "SLC_PLATFORM_WORKERS_STORAGE_SIZE is too small for this target's pthread types");
_Static_assert(alignof(workers_state) <= alignof(slc_platform_workers),
               "slc_platform_workers is not aligned enough for this target's pthread types");
_Static_assert(SLC_PLATFORM_WORKERS_MAX <= 999u, "thread names hold at most three digits");

static workers_state *state_of(void *self)
{
    return (workers_state *)(void *)((slc_platform_workers *)self)->opaque_.bytes;
}

static void *worker_main(void *arg)
{
    const worker_slot *slot = arg;
    workers_state *st = slot->owner;
#if defined(__GLIBC__)
    char name[16];
    snprintf(name, sizeof name, "sluice-w%u", (unsigned)slot->index);
    (void)pthread_setname_np(pthread_self(), name); /* for debuggers and top; failing is harmless */
#endif
    for (;;) {
        pthread_mutex_lock(&st->work_lock);
        while (st->pending == 0 && !atomic_load_explicit(&st->stop, memory_order_relaxed)) {
            pthread_cond_wait(&st->work_cond, &st->work_lock);
        }
        if (atomic_load_explicit(&st->stop, memory_order_relaxed)) {
            pthread_mutex_unlock(&st->work_lock);
            return NULL;
        }
        st->pending--;
        pthread_mutex_unlock(&st->work_lock);
        /* The stop flag is checked between jobs so stop does not wait for
         * a whole queue; a job under way always finishes. */
        while (!atomic_load_explicit(&st->stop, memory_order_relaxed) && st->work(st->ctx, slot->index)) {
        }
    }
}

/* Sets stop, wakes every thread and joins the first `started` of them. */
static void stop_and_join(workers_state *st, uint32_t started)
{
    pthread_mutex_lock(&st->work_lock);
    atomic_store_explicit(&st->stop, true, memory_order_relaxed);
    pthread_cond_broadcast(&st->work_cond);
    pthread_mutex_unlock(&st->work_lock);
    for (uint32_t i = 0; i < started; i++) {
        pthread_join(st->slots[i].thread, NULL);
    }
}

/* Destroys the synchronisation objects initialised so far (inits, in the
 * order of start: 0 none .. 4 all). */
static void destroy_sync(workers_state *st, int inits)
{
    if (inits > 3) {
        pthread_cond_destroy(&st->done_cond);
    }
    if (inits > 2) {
        pthread_mutex_destroy(&st->done_lock);
    }
    if (inits > 1) {
        pthread_cond_destroy(&st->work_cond);
    }
    if (inits > 0) {
        pthread_mutex_destroy(&st->work_lock);
    }
}

slc_status slc_platform_workers_start(slc_platform_workers *w, uint32_t count, bool (*work)(void *ctx, uint32_t worker),
                                      void *ctx, const slc_logger *log)
{
    SLC_ASSERT(w != NULL);
    SLC_ASSERT(work != NULL);
    memset(w, 0, sizeof *w);
    char msg[192];
    if (check_count(count, log) != SLC_OK) {
        return SLC_E_INVALID;
    }
    workers_state *st = state_of(w);
    st->count = count;
    st->work = work;
    st->ctx = ctx;
    atomic_init(&st->stop, false);
    atomic_init(&st->done, false);
    atomic_init(&st->waiting, false);

    static const char *const sync_names[] = {"work lock", "work condition", "completion lock", "completion condition"};
    int inits = 0;
    int err = pthread_mutex_init(&st->work_lock, NULL);
    if (err == 0) {
        inits++;
        err = pthread_cond_init(&st->work_cond, NULL);
    }
    if (err == 0) {
        inits++;
        err = pthread_mutex_init(&st->done_lock, NULL);
    }
    if (err == 0) {
        inits++;
        err = pthread_cond_init(&st->done_cond, NULL);
    }
    if (err != 0) {
        snprintf(msg, sizeof msg, "platform: workers: cannot initialise the %s: %s", sync_names[inits], strerror(err));
        destroy_sync(st, inits);
        memset(w, 0, sizeof *w);
        log_error(log, SLC_E_PLATFORM, msg);
        return SLC_E_PLATFORM;
    }
    inits++;

    /* The threads inherit the creating thread's signal mask: block every
     * signal around the creations so that asynchronous signals go to the
     * application's threads, never to a worker. */
    sigset_t all, old;
    sigfillset(&all);
    /* not the faults a worker itself raises: blocked, they kill the process
     * without their handler (a mapped pack's SIGBUS: sluice/platform.h) */
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    const bool masked = slc__signal_mask(SIG_SETMASK, &all, &old) == 0;
    uint32_t started = 0;
    for (; started < count; started++) {
        worker_slot *slot = &st->slots[started];
        slot->owner = st;
        slot->index = started;
        err = pthread_create(&slot->thread, NULL, worker_main, slot);
        if (err != 0) {
            break;
        }
    }
    if (masked) {
        (void)slc__signal_mask(SIG_SETMASK, &old, NULL);
    }
    if (started < count) {
        snprintf(msg, sizeof msg, "platform: workers: cannot create thread %u of %u: %s", (unsigned)started,
                 (unsigned)count, strerror(err));
        stop_and_join(st, started);
        destroy_sync(st, inits);
        memset(w, 0, sizeof *w);
        log_error(log, SLC_E_PLATFORM, msg);
        return SLC_E_PLATFORM;
    }
    /* Written last, read only by this thread and by the threads' ops calls,
     * which follow start (pthread_create orders the earlier writes). */
    st->magic = WORKERS_MAGIC;
    return SLC_OK;
}

void slc_platform_workers_stop(slc_platform_workers *w)
{
    SLC_ASSERT(w != NULL);
    workers_state *st = state_of(w);
    if (st->magic != WORKERS_MAGIC) {
        return; /* zeroed: never started, start failed, or already stopped */
    }
    stop_and_join(st, st->count);
    destroy_sync(st, 4);
    memset(w, 0, sizeof *w);
}

static void workers_notify(void *self, uint32_t jobs)
{
    workers_state *st = state_of(self);
    SLC_ASSERT(st->magic == WORKERS_MAGIC);
    if (jobs == 0) {
        return;
    }
    pthread_mutex_lock(&st->work_lock);
    /* pending <= count always, so room cannot wrap, nor pending overflow. */
    const uint32_t room = st->count - st->pending;
    const uint32_t add = jobs < room ? jobs : room;
    st->pending += add;
    if (add == st->count) {
        pthread_cond_broadcast(&st->work_cond);
    } else {
        for (uint32_t i = 0; i < add; i++) {
            pthread_cond_signal(&st->work_cond);
        }
    }
    pthread_mutex_unlock(&st->work_lock);
}

static void workers_completed(void *self)
{
    workers_state *st = state_of(self);
    SLC_ASSERT(st->magic == WORKERS_MAGIC);
    atomic_store(&st->done, true);
    if (atomic_load(&st->waiting)) {
        pthread_mutex_lock(&st->done_lock);
        pthread_cond_signal(&st->done_cond); /* one waiter at most: the caller's thread */
        pthread_mutex_unlock(&st->done_lock);
    }
}

static void workers_wait(void *self)
{
    workers_state *st = state_of(self);
    SLC_ASSERT(st->magic == WORKERS_MAGIC);
    if (atomic_exchange(&st->done, false)) {
        return; /* completed() came first: no lock, no sleep */
    }
    pthread_mutex_lock(&st->done_lock);
    atomic_store(&st->waiting, true);
    while (!atomic_exchange(&st->done, false)) {
        pthread_cond_wait(&st->done_cond, &st->done_lock);
    }
    atomic_store(&st->waiting, false);
    pthread_mutex_unlock(&st->done_lock);
}

static const slc_stream_executor_ops workers_ops = {
    workers_notify,
    workers_completed,
    workers_wait,
};

void slc_platform_workers_executor(slc_platform_workers *w, slc_stream_executor *out)
{
    SLC_ASSERT(w != NULL && out != NULL);
    out->ops = &workers_ops;
    out->self = w;
}

#else /* SLUICE_THREADS == 0 */

slc_status slc_platform_workers_start(slc_platform_workers *w, uint32_t count, bool (*work)(void *ctx, uint32_t worker),
                                      void *ctx, const slc_logger *log)
{
    SLC_ASSERT(w != NULL);
    SLC_ASSERT(work != NULL);
    (void)work, (void)ctx;
    memset(w, 0, sizeof *w);
    if (check_count(count, log) != SLC_OK) {
        return SLC_E_INVALID;
    }
    char msg[192];
    snprintf(msg, sizeof msg,
             "platform: workers: cannot start %u: this build has no threads (SLUICE_THREADS=OFF); stream with "
             "workers = 0, the caller loading",
             (unsigned)count);
    log_error(log, SLC_E_UNSUPPORTED, msg);
    return SLC_E_UNSUPPORTED;
}

void slc_platform_workers_stop(slc_platform_workers *w)
{
    (void)w;
    SLC_ASSERT(w != NULL);
}

void slc_platform_workers_executor(slc_platform_workers *w, slc_stream_executor *out)
{
    SLC_ASSERT(w != NULL && out != NULL);
    out->ops = NULL; /* no operations: slc_stream_create refuses workers > 0 */
    out->self = w;
}

#endif

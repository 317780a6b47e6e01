/* SPDX-License-Identifier: MIT */
/* sluice: worker threads that run the stream's loads (an slc_stream_executor).
 *
 * A fixed set of threads, created once at start (the init path) and joined
 * at stop. Each thread sleeps until notified, then calls work(ctx, index)
 * until it returns false, then sleeps again. With the stream, whose desc
 * needs the executor before the stream exists to be the threads' ctx:
 *
 *     static bool run(void *s, uint32_t worker) { return slc_stream_work(s, worker); }
 *
 *     static slc_platform_workers w;                   // must not move
 *     slc_platform_workers_executor(&w, &desc.executor); // before start: allowed
 *     slc_stream_create(&desc, &stream);
 *     slc_platform_workers_start(&w, profile->workers, run, stream, &log);
 *     ... frames ...
 *     slc_platform_workers_stop(&w);                   // before slc_stream_destroy
 *     slc_stream_destroy(stream);
 *
 * Nothing here touches the heap (pthread_create maps the threads' stacks;
 * that is the C library's, on the init path). The threads block every
 * asynchronous signal, so the application's handlers run on its own
 * threads.
 *
 * A build without threads (-DSLUICE_THREADS=OFF) keeps these three calls
 * so that the same code links: start refuses every count (below), stop is
 * a no-op, and the executor has no operations (ops NULL), so
 * slc_stream_create refuses a profile whose workers is above 0. Stream
 * with workers = 0 there. */
#ifndef SLUICE_WORKERS_H
#define SLUICE_WORKERS_H

#include <stdbool.h>
#include <stdint.h>

#include "sluice/status.h"
#include "sluice/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most threads one slc_platform_workers runs: the profile's limit. */
#define SLC_PLATFORM_WORKERS_MAX SLC_PROFILE_WORKERS_MAX

/* Bytes of the opaque state (locks, flags and one record per thread); the
 * implementation asserts at compile time that its state fits. */
#define SLC_PLATFORM_WORKERS_STORAGE_SIZE 3072u

/* Worker threads and their executor. Opaque: the storage holds the threads,
 * a mutex and condition variable with the count of wakeups owed, a mutex,
 * condition variable and flag for "a job completed", and the stop flag. A
 * zeroed struct is "not started" (stop is a no-op on it). It must not move
 * or be copied while started: the threads and the executor refer to it. */
typedef struct slc_platform_workers {
    union {
        unsigned char bytes[SLC_PLATFORM_WORKERS_STORAGE_SIZE];
        /* alignment for the pthread objects inside, without pthread.h here */
        uint64_t align_u64;
        void *align_ptr;
        double align_double;
        long double align_long_double;
    } opaque_;
} slc_platform_workers;

/* Creates count threads, numbered 0..count-1, and returns once all exist.
 * Each one loops: sleep until notified (see slc_platform_workers_executor),
 * then call work(ctx, its number) until it returns false (or stop is
 * requested), then sleep again. work runs on the worker threads, several
 * at once with different numbers; one number never runs twice at once.
 *
 * w: not started (zeroed, never used, or stopped); SLC_ASSERT if NULL.
 * work: SLC_ASSERT if NULL. ctx: passed to work as is. log: may be NULL;
 * gets the reason of a failure.
 *
 * Fails iff count is 0 or above SLC_PLATFORM_WORKERS_MAX (SLC_E_INVALID,
 * "platform: workers: count 65 is outside 1..64"), or the OS refuses a lock
 * or a thread (SLC_E_PLATFORM, naming it and the reason: "platform: workers:
 * cannot create thread 3 of 8: Resource temporarily unavailable"); the
 * threads already created are then stopped and joined; or, in a build
 * without threads, for every count within range (SLC_E_UNSUPPORTED,
 * "platform: workers: cannot start 2: this build has no threads
 * (SLUICE_THREADS=OFF); stream with workers = 0, the caller loading"). On failure *w is
 * zeroed. O(count) thread creations: the init path. Not thread-safe with
 * any other call on the same w. */
slc_status slc_platform_workers_start(slc_platform_workers *w, uint32_t count, bool (*work)(void *ctx, uint32_t worker),
                                      void *ctx, const slc_logger *log);

/* Requests stop, wakes every thread and joins them all, then zeroes *w. A
 * thread inside work finishes that call first, and calls it no more (the
 * jobs it would have found are left to whoever else runs them: with the
 * stream, slc_stream_destroy). Idempotent: a no-op on a zeroed or stopped
 * w. Blocks for as long as the longest running work call. Call it from the
 * thread that started w, never from work. */
void slc_platform_workers_stop(slc_platform_workers *w);

/* Fills *out with the executor of w, for slc_stream_desc.executor:
 * out->self is w, out->ops are these (the contract of
 * slc_stream_executor_ops in sluice/stream.h):
 *
 *   notify(self, jobs)  on the caller's thread after jobs were published:
 *       makes min(jobs, count) workers run work until it returns false. A
 *       wakeup is owed until a worker takes it, so none is lost: one that
 *       finds every worker busy is taken by the next to finish, which then
 *       calls work again, after the jobs were published. Wakeups owed are
 *       capped at the thread count (more would find nothing to do), so the
 *       count never overflows however many notifications arrive. jobs 0
 *       does nothing. O(min(jobs, count)); blocks only on a short lock.
 *   completed(self)  on a worker's thread after each job it finished (the
 *       stream's slc_stream_work calls it): sets the "completed" flag and
 *       wakes wait. Everything the thread wrote before it is visible to the
 *       thread that wait then returns on. O(1).
 *   wait(self)  on the caller's thread when it needs a job another thread
 *       is running: blocks until completed has been called since wait last
 *       returned (at once if it has), then clears the flag and returns. One
 *       thread waits at a time. No timeout: a job that never completes
 *       blocks it for ever.
 *
 * Without threads (SLUICE_THREADS=OFF) out->ops is NULL: no executor.
 *
 * w: SLC_ASSERT if NULL. The executor holds no state but w, so it may be
 * filled before w is started; its ops must be called only while w is
 * started (SLC_ASSERT). O(1). */
void slc_platform_workers_executor(slc_platform_workers *w, slc_stream_executor *out);

#ifdef __cplusplus
}
#endif

#endif

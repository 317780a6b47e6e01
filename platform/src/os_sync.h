/* SPDX-License-Identifier: MIT */
/* sluice: the locks, once-flags and signal masks platform/ takes, in one
 * place. With threads (SLUICE_THREADS=1, the default) they are POSIX
 * threads'; a build without threads (-DSLUICE_THREADS=OFF: one thread calls
 * sluice, the stream runs with workers = 0) takes none of them: a lock is a
 * flag that asserts it is not taken twice, a once-flag a plain flag, and a
 * signal mask the process's (sigprocmask), so nothing in platform/
 * references the thread library. Internal to platform/src. */
#ifndef SLUICE_OS_SYNC_H
#define SLUICE_OS_SYNC_H

#include <signal.h>

#include "sluice/config.h"

#ifndef SLUICE_THREADS
#define SLUICE_THREADS 1
#endif

#if SLUICE_THREADS

#include <pthread.h>

typedef pthread_mutex_t slc__mutex;
#define SLC__MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
typedef pthread_once_t slc__once;
#define SLC__ONCE_INIT PTHREAD_ONCE_INIT

/* 0, or the error pthread_mutex_init gives. */
static inline int slc__mutex_init(slc__mutex *m)
{
    return pthread_mutex_init(m, NULL);
}
static inline void slc__mutex_destroy(slc__mutex *m)
{
    (void)pthread_mutex_destroy(m);
}
static inline void slc__mutex_lock(slc__mutex *m)
{
    (void)pthread_mutex_lock(m);
}
static inline void slc__mutex_unlock(slc__mutex *m)
{
    (void)pthread_mutex_unlock(m);
}
/* Runs fn once in the process, whichever thread comes first. */
static inline void slc__once_run(slc__once *o, void (*fn)(void))
{
    (void)pthread_once(o, fn);
}
#if defined(_POSIX_C_SOURCE) /* a file that asked for POSIX: sigset_t */
/* Changes this thread's signal mask (how: SIG_BLOCK, SIG_UNBLOCK,
 * SIG_SETMASK); 0 or the error. */
static inline int slc__signal_mask(int how, const sigset_t *set, sigset_t *old)
{
    return pthread_sigmask(how, set, old);
}
#endif

#else

typedef struct slc__mutex {
    int held;
} slc__mutex;
#define SLC__MUTEX_INIT \
    {                   \
        0               \
    }
typedef struct slc__once {
    int done;
} slc__once;
#define SLC__ONCE_INIT \
    {                  \
        0              \
    }

static inline int slc__mutex_init(slc__mutex *m)
{
    m->held = 0;
    return 0;
}
static inline void slc__mutex_destroy(slc__mutex *m)
{
    (void)m;
    SLC_ASSERT(m->held == 0);
}
/* One thread: a lock taken twice is a call from inside a locked region. */
static inline void slc__mutex_lock(slc__mutex *m)
{
    SLC_ASSERT(m->held == 0);
    m->held = 1;
}
static inline void slc__mutex_unlock(slc__mutex *m)
{
    SLC_ASSERT(m->held == 1);
    m->held = 0;
}
static inline void slc__once_run(slc__once *o, void (*fn)(void))
{
    if (o->done == 0) {
        o->done = 1;
        fn();
    }
}
#if defined(_POSIX_C_SOURCE)
/* The process's mask: it has one thread. */
static inline int slc__signal_mask(int how, const sigset_t *set, sigset_t *old)
{
    return sigprocmask(how, set, old) == 0 ? 0 : -1;
}
#endif

#endif

#endif

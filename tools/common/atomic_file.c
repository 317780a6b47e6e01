/* SPDX-License-Identifier: MIT */
/* Files written through a temporary and a rename (see atomic_file.h). */
#define _GNU_SOURCE /* realpath */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Temporaries not yet committed, for the signal handler and atexit: fixed
 * storage, because a handler may only call async-signal-safe functions
 * (unlink, signal, raise) and read what is already there. */
static char reg_path[ATOMIC_FILE_MAX][PATH_MAX];
static volatile sig_atomic_t reg_used[ATOMIC_FILE_MAX];
static int handlers_installed;

/* The signals that remove the temporaries: handled, and blocked while one
 * is created and registered. */
static const int handled_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define HANDLED_SIGS (sizeof handled_sigs / sizeof handled_sigs[0])

static void remove_all(void)
{
    for (int i = 0; i < ATOMIC_FILE_MAX; i++) {
        if (reg_used[i]) {
            unlink(reg_path[i]);
            reg_used[i] = 0;
        }
    }
}

static void on_signal(int sig)
{
    remove_all();
    /* The default action, then the signal again: pending until this handler
     * returns, when it ends the process as it would have. */
    (void)signal(sig, SIG_DFL);
    (void)raise(sig);
}

static void install_handlers(void)
{
    if (handlers_installed) {
        return;
    }
    handlers_installed = 1;
    if (atexit(remove_all) != 0) {
        /* Nothing better to do: an exit without commit then leaves the temporary. */
    }
    for (size_t i = 0; i < HANDLED_SIGS; i++) {
        struct sigaction old;
        /* A signal the caller ignores (nohup, a shell's trap '') stays ignored. */
        if (sigaction(handled_sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
            continue;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(handled_sigs[i], &sa, NULL);
    }
}

static int reg_add(const char *tmp)
{
    size_t n = strlen(tmp);
    if (n >= PATH_MAX) {
        return -1;
    }
    for (int i = 0; i < ATOMIC_FILE_MAX; i++) {
        if (!reg_used[i]) {
            memcpy(reg_path[i], tmp, n + 1);
            reg_used[i] = 1;
            return i;
        }
    }
    return -1;
}

static void reg_drop(int slot)
{
    if (slot >= 0 && slot < ATOMIC_FILE_MAX) {
        reg_used[slot] = 0;
    }
}

static void clear(atomic_file *a)
{
    free(a->path);
    free(a->tmp);
    a->f = NULL;
    a->fd = -1;
    a->path = NULL;
    a->tmp = NULL;
    a->slot = -1;
}

static int failf(char *err, size_t cap, const char *path, const char *what, int e)
{
    if (err != NULL && cap > 0) {
        snprintf(err, cap, "%s: %s: %s", path, what, strerror(e));
    }
    return -1;
}

/* The directory part of path ("." when there is none), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        return strdup(".");
    }
    if (slash == path) {
        return strdup("/");
    }
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

int atomic_file_open(atomic_file *a, const char *path, char *err, size_t cap)
{
    a->f = NULL;
    a->fd = -1;
    a->path = NULL;
    a->tmp = NULL;
    a->slot = -1;
    install_handlers();

    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        return failf(err, cap, path, "cannot create", EISDIR);
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or FIFO: written in place, nothing to rename over. */
        a->f = fopen(path, "w");
        if (a->f == NULL) {
            return failf(err, cap, path, "cannot open", errno);
        }
        a->fd = fileno(a->f);
        a->path = strdup(path);
        return 0;
    }
    /* Follow a symbolic link, so the link stays and its file is replaced. */
    char *target = exists ? realpath(path, NULL) : strdup(path);
    if (target == NULL) {
        return failf(err, cap, path, "cannot create", errno != 0 ? errno : ENOMEM);
    }
    char *dir = dir_of(target);
    const char *base = strrchr(target, '/') != NULL ? strrchr(target, '/') + 1 : target;
    size_t tmp_len = (dir != NULL ? strlen(dir) : 0) + strlen(base) + 16;
    char *tmp = dir != NULL ? malloc(tmp_len) : NULL;
    if (tmp == NULL) {
        free(dir);
        free(target);
        return failf(err, cap, path, "cannot create", ENOMEM);
    }
    snprintf(tmp, tmp_len, "%s/.%s.XXXXXX", dir, base);
    free(dir);

    /* Block the handled signals between creating the temporary and
     * registering it, so none is left behind by a signal in between. */
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < HANDLED_SIGS; i++) {
        sigaddset(&block, handled_sigs[i]);
    }
    sigprocmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(tmp);
    int e = errno;
    int slot = fd >= 0 ? reg_add(tmp) : -1;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        /* The template as it was: mkstemp may have rewritten the X's. */
        char what[PATH_MAX + 64];
        snprintf(what, sizeof what, "cannot create temporary '%.*sXXXXXX'", (int)(strlen(tmp) - 6), tmp);
        failf(err, cap, path, what, e);
        free(tmp);
        free(target);
        return -1;
    }
    if (slot < 0) {
        close(fd);
        unlink(tmp);
        free(tmp);
        free(target);
        return failf(err, cap, path, "cannot create", EMFILE);
    }
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0 || (a->f = fdopen(fd, "w")) == NULL) {
        e = errno;
        close(fd);
        unlink(tmp);
        reg_drop(slot);
        free(tmp);
        free(target);
        return failf(err, cap, path, "cannot create", e);
    }
    a->fd = fd;
    a->path = target;
    a->tmp = tmp;
    a->slot = slot;
    return 0;
}

int atomic_file_commit(atomic_file *a, char *err, size_t cap)
{
    if (a->f == NULL) {
        clear(a);
        return failf(err, cap, "(closed)", "cannot write", EBADF);
    }
    int e = 0;
    if (fflush(a->f) != 0 || ferror(a->f)) {
        e = errno != 0 ? errno : EIO;
    }
    if (e == 0 && a->tmp != NULL && fsync(a->fd) != 0) {
        e = errno;
    }
    if (fclose(a->f) != 0 && e == 0) {
        e = errno;
    }
    a->f = NULL;
    a->fd = -1;
    if (a->tmp == NULL) { /* written in place */
        int rc = e != 0 ? failf(err, cap, a->path, "cannot write", e) : 0;
        clear(a);
        return rc;
    }
    if (e == 0 && rename(a->tmp, a->path) != 0) {
        e = errno;
    }
    if (e != 0) {
        unlink(a->tmp);
        reg_drop(a->slot);
        failf(err, cap, a->path, "cannot write", e);
        clear(a);
        return -1;
    }
    reg_drop(a->slot);
    /* The rename itself is durable once the directory is synced. */
    char *dir = dir_of(a->path);
    if (dir != NULL) {
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    clear(a);
    return 0;
}

void atomic_file_abort(atomic_file *a)
{
    if (a == NULL) {
        return;
    }
    /* An open a always has its path; a zeroed one (fd 0) owns no file. */
    if (a->f != NULL) {
        (void)fclose(a->f); /* the bytes are discarded anyway */
    } else if (a->fd >= 0 && a->path != NULL) {
        close(a->fd);
    }
    if (a->tmp != NULL) {
        unlink(a->tmp);
        reg_drop(a->slot);
    }
    clear(a);
}

int atomic_file_find_input(const char *out, const char *const *inputs, size_t n)
{
    struct stat o;
    if (out == NULL || stat(out, &o) != 0) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct stat s;
        if (inputs[i] != NULL && stat(inputs[i], &s) == 0 && s.st_dev == o.st_dev && s.st_ino == o.st_ino) {
            return (int)i;
        }
    }
    return -1;
}

int atomic_file_same(const char *path, const char *other)
{
    return atomic_file_find_input(path, &other, 1) == 0;
}

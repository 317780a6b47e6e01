/* SPDX-License-Identifier: MIT */
/* Files the tools write, written so that a failure never destroys the old
 * one: the bytes go to a temporary in the target's directory, which is
 * flushed (fsync) and renamed over the target only when complete
 * (atomic_file_commit). On an error (atomic_file_abort), on SIGINT, SIGTERM,
 * SIGHUP or SIGPIPE, and at exit without a commit, the temporary is removed
 * and the target is left as it was. Only SIGKILL (or a crash) can leave a
 * temporary behind: ".NAME.XXXXXX" next to the target, never the target
 * itself half-written.
 *
 * A target that exists and is not a regular file (/dev/stdout, a FIFO) is
 * written in place: there is nothing to rename over. A symbolic link is
 * followed, so the file it names is replaced and the link stays.
 *
 * Not thread-safe: open and commit from the main thread. */
#ifndef SLUICE_TOOLS_ATOMIC_FILE_H
#define SLUICE_TOOLS_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

/* At most this many files open at once (a command writes a few). */
#define ATOMIC_FILE_MAX 16

typedef struct atomic_file {
    FILE *f;    /* the temporary as a stream, for writers that print */
    int fd;     /* the same file, for writers that pwrite (do not mix) */
    char *path; /* the target (symbolic links resolved) */
    char *tmp;  /* the temporary; NULL when written in place */
    int slot;   /* entry in the cleanup registry, -1 when none */
} atomic_file;

/* Creates the temporary for path (mode "w" semantics: the target's mode is
 * kept when it exists, else 0666 less the umask). Returns 0, or -1 with
 * "PATH: cannot create ...: reason" in err (cap bytes) and nothing created. */
int atomic_file_open(atomic_file *a, const char *path, char *err, size_t cap);

/* Flushes the stream, fsyncs, closes and renames the temporary over the
 * target, then fsyncs the directory. Returns 0, or -1 with "PATH: cannot
 * write: reason" in err, the temporary removed and the target untouched.
 * Either way a is closed. */
int atomic_file_commit(atomic_file *a, char *err, size_t cap);

/* Closes and removes the temporary; the target is untouched. Safe on a
 * zeroed or already closed a. */
void atomic_file_abort(atomic_file *a);

/* 1 when path names the same file (device and inode) as other, 0 when not
 * or when either does not exist. */
int atomic_file_same(const char *path, const char *other);

/* Returns the index of the first inputs[i] that names the same file as
 * out, or -1 when none does (or out does not exist yet). */
int atomic_file_find_input(const char *out, const char *const *inputs, size_t n);

#endif

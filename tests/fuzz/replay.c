/* SPDX-License-Identifier: MIT */
/* Replays inputs through a libFuzzer target without libFuzzer, so that every
 * build (not only the clang `fuzz` preset) runs each target's seed corpus,
 * and any input a campaign found and added to it, as a regression test:
 *
 *     fuzz_profile_replay FILE_OR_FOLDER...
 *
 * Each file named, and each regular file in each folder named (not
 * recursively, in name order), is read whole and handed to
 * LLVMFuzzerTestOneInput once. A target reports a broken property by
 * aborting; a crash is a crash. Exits 0 when every input ran, 1 when an
 * argument cannot be read or no input was found (an empty corpus is a
 * mistake, not a pass). */
#define _POSIX_C_SOURCE 200809L
/* 64-bit inode numbers and sizes on 32-bit targets too: under qemu-arm the
 * host's file system hands out inode numbers that a 32-bit stat() and
 * readdir() refuse with EOVERFLOW. */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 1 << 16, size = 0;
    uint8_t *data = malloc(cap);
    size_t got;
    while (data != NULL && (got = fread(data + size, 1, cap - size, f)) > 0) {
        size += got;
        if (size == cap) {
            uint8_t *grown = realloc(data, cap * 2);
            if (grown == NULL) {
                free(data);
            }
            data = grown;
            cap *= 2;
        }
    }
    int err = ferror(f);
    (void)fclose(f);
    if (data == NULL || err) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(data);
        return -1;
    }
    /* An exact-size copy, as libFuzzer gives, so that ASan sees a read
     * past the end of the input. */
    uint8_t *exact = malloc(size > 0 ? size : 1);
    if (exact == NULL) {
        free(data);
        return -1;
    }
    memcpy(exact, data, size);
    free(data);
    printf("replay: %s (%zu bytes)\n", path, size);
    fflush(stdout); /* the name is out before a crash */
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    size_t inputs = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot read %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) != 0) {
                return 1;
            }
            inputs++;
            continue;
        }
        DIR *dir = opendir(argv[i]);
        if (dir == NULL) {
            fprintf(stderr, "replay: cannot open folder %s\n", argv[i]);
            return 1;
        }
        char **names = NULL;
        size_t count = 0;
        for (;;) {
            errno = 0;
            struct dirent *e = readdir(dir);
            if (e == NULL) {
                if (errno != 0) {
                    fprintf(stderr, "replay: cannot list %s: %s\n", argv[i], strerror(errno));
                    return 1;
                }
                break;
            }
            size_t need = strlen(argv[i]) + strlen(e->d_name) + 2;
            char *path = malloc(need);
            char **grown = realloc(names, (count + 1) * sizeof *names);
            if (path == NULL || grown == NULL) {
                fprintf(stderr, "replay: out of memory\n");
                return 1;
            }
            names = grown;
            snprintf(path, need, "%s/%s", argv[i], e->d_name);
            if (stat(path, &st) != 0) {
                fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
                return 1;
            }
            if (!S_ISREG(st.st_mode)) {
                free(path);
                continue;
            }
            names[count++] = path;
        }
        closedir(dir);
        if (count > 0) {
            qsort(names, count, sizeof *names, by_name);
        }
        for (size_t k = 0; k < count; k++) {
            if (run_file(names[k]) != 0) {
                return 1;
            }
            inputs++;
            free(names[k]);
        }
        free(names);
    }
    if (inputs == 0) {
        fprintf(stderr, "replay: no input found\n");
        return 1;
    }
    printf("replay: %zu inputs, none failed\n", inputs);
    return 0;
}

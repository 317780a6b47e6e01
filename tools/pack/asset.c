/* SPDX-License-Identifier: MIT */
/* sluice pack: the asset root (asset.h). */
#define _GNU_SOURCE 1

#include "asset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether path (resolved) is dir (resolved) or lies below it. */
static int within(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (strcmp(dir, "/") == 0) {
        return path[0] == '/';
    }
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Appends the components of path to out[0 .. *len) (an absolute path),
 * "." dropped, ".." removing the last one. 0, or -1 when it does not fit
 * or, with above_root_fails, a ".." climbs above "/" (else it stays there). */
static int append_components(const char *path, int above_root_fails, char *out, size_t *len, size_t cap)
{
    for (const char *c = path; *c != '\0';) {
        size_t k = strcspn(c, "/");
        if (k == 2 && c[0] == '.' && c[1] == '.') {
            if (*len <= 1 && above_root_fails) {
                return -1;
            }
            while (*len > 1 && out[*len - 1] != '/') {
                (*len)--;
            }
            *len = *len > 1 ? *len - 1 : 1; /* drop the slash, keep the root's */
        } else if (k > 0 && !(k == 1 && c[0] == '.')) {
            size_t sep = *len > 1 ? 1u : 0u;
            if (*len + sep + k >= cap) {
                return -1;
            }
            if (sep) {
                out[(*len)++] = '/';
            }
            memcpy(out + *len, c, k);
            *len += k;
        }
        out[*len] = '\0';
        c += k;
        c += *c == '/';
    }
    return 0;
}

size_t pk_path_join(const char *base, const char *path, int above_root_fails, char *out, size_t cap)
{
    if (cap < 2 || base[0] != '/') {
        return 0;
    }
    out[0] = '/';
    out[1] = '\0';
    size_t len = 1;
    if ((path[0] != '/' && append_components(base, above_root_fails, out, &len, cap) != 0) ||
        append_components(path, above_root_fails, out, &len, cap) != 0) {
        return 0;
    }
    return len;
}

/* path made absolute (against the current directory) and normalised
 * lexically, never above "/". 0, or -1 when it does not fit. */
static int lexical(const char *path, char *out, size_t cap)
{
    char cwd[PATH_MAX];
    if (path[0] != '/' && getcwd(cwd, sizeof cwd) == NULL) {
        return -1;
    }
    return pk_path_join(path[0] == '/' ? "/" : cwd, path, 0, out, cap) != 0 ? 0 : -1;
}

/* path resolved: realpath where the file exists, else the realpath of its
 * nearest existing folder with the rest appended as written (lexically
 * normalised). 0, or -1 when it does not fit. */
static int resolve(const char *path, char *out)
{
    if (realpath(path, out) != NULL) {
        return 0;
    }
    char lex[PATH_MAX];
    if (lexical(path, lex, sizeof lex) != 0) {
        return -1;
    }
    size_t cut = strlen(lex);
    for (;;) {
        /* lex[0 .. cut - 1) is the folder tried, lex[cut ..] the rest */
        while (cut > 0 && lex[cut - 1] != '/') {
            cut--;
        }
        if (cut <= 1) {
            memcpy(out, lex, strlen(lex) + 1);
            return 0;
        }
        char head[PATH_MAX];
        memcpy(head, lex, cut - 1);
        head[cut - 1] = '\0';
        if (realpath(head, out) != NULL) {
            size_t n = strlen(out);
            if (n + 1 + strlen(lex + cut) >= PATH_MAX) {
                return -1;
            }
            snprintf(out + n, PATH_MAX - n, "%s%s", n == 1 ? "" : "/", lex + cut);
            return 0;
        }
        cut--;
    }
}

int pk_asset_root_for(const char *input_path, const char *explicit_dir, int allow_any, pk_asset_root *out, pk_diag *d)
{
    out->dir[0] = '\0';
    if (allow_any) {
        return 0;
    }
    if (explicit_dir != NULL) {
        struct stat st;
        if (realpath(explicit_dir, out->dir) == NULL || stat(out->dir, &st) != 0) {
            snprintf(d->message, sizeof d->message, "--asset-root %s: %s", explicit_dir, strerror(errno));
            out->dir[0] = '\0';
            return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
            snprintf(d->message, sizeof d->message, "--asset-root %s: not a folder", explicit_dir);
            out->dir[0] = '\0';
            return -1;
        }
        return 0;
    }
    char in[PATH_MAX], cwd[PATH_MAX];
    if (realpath(input_path, in) == NULL) {
        snprintf(d->message, sizeof d->message, "%s: cannot open: %s", input_path, strerror(errno));
        return -1;
    }
    char *slash = strrchr(in, '/');
    if (slash != NULL) {
        *slash = '\0';
    }
    if (in[0] == '\0') {
        in[0] = '/';
        in[1] = '\0';
    }
    if (getcwd(cwd, sizeof cwd) != NULL && realpath(cwd, out->dir) != NULL && within(out->dir, in)) {
        return 0;
    }
    snprintf(out->dir, sizeof out->dir, "%s", in);
    return 0;
}

int pk_asset_check(const pk_asset_root *root, const char *written, const char *path, char *why, size_t cap)
{
    if (root->dir[0] == '\0') {
        return 0;
    }
    if (written != NULL && written[0] == '/') {
        snprintf(why, cap, "'%s' is an absolute path (--allow-outside-paths reads it)", written);
        return -1;
    }
    char real[PATH_MAX];
    if (resolve(path, real) != 0) {
        snprintf(why, cap, "'%.48s...': the path is too long (%zu bytes; at most %d)", path, strlen(path),
                 PATH_MAX - 1);
        return -1;
    }
    if (!within(root->dir, real)) {
        snprintf(why, cap,
                 "'%s' is outside the asset root %s (--asset-root DIR widens it; --allow-outside-paths reads any "
                 "path)",
                 path, root->dir);
        return -1;
    }
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* sluice pack: the asset root, the one rule for which files an input may
 * make the packer read.
 *
 * A glTF names its buffers and images, a USD layer its sublayers,
 * references and payloads, by paths relative to itself; real asset kits
 * climb out of a file's folder ("../geo/car.usd", "../../materials/m.usd").
 * A downloaded asset must still not make the packer read /etc or a sibling
 * project, so every such path is resolved and checked here, by every
 * importer:
 *
 * - the asset root is --asset-root DIR when given; otherwise the current
 *   directory when the input lies within it (run sluice from the top of the
 *   asset kit), else the input's own folder;
 * - a path an input writes must be relative (an absolute one is refused:
 *   it names the machine, not the asset) and must resolve within the asset
 *   root, through symbolic links where the file exists, lexically where it
 *   does not;
 * - --allow-outside-paths lifts both rules.
 *
 * The messages name the path (an absolute one as written), the root and the
 * options:
 *
 *     'car/../../x.bin' is outside the asset root /srv/kit/car (--asset-root
 *     DIR widens it; --allow-outside-paths reads any path)
 *     '/etc/x.bin' is an absolute path (--allow-outside-paths reads it)
 */
#ifndef SLUICE_PACK_ASSET_H
#define SLUICE_PACK_ASSET_H

#include <limits.h>

#include "mesh.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef struct pk_asset_root {
    char dir[PATH_MAX]; /* the root, resolved (realpath); "" when any path may be read */
} pk_asset_root;

/* The asset root of the input at input_path: explicit_dir when not NULL
 * (it must be an existing folder), else the current directory when the
 * input lies within it, else the input's folder; none ("") with
 * allow_any. 0, or -1 with d->message naming the folder and why (a root
 * that does not exist or is not a folder, an input that cannot be
 * resolved). O(path length) plus the realpath calls. */
int pk_asset_root_for(const char *input_path, const char *explicit_dir, int allow_any, pk_asset_root *out, pk_diag *d);

/* base (an absolute path: a folder, or a USD prim path) joined with path
 * and normalised lexically: path replaces base when it is absolute; "."
 * and empty components are dropped; ".." removes the component before it.
 * A ".." above "/" fails with above_root_fails, else stays at "/". Returns
 * the length written to out (NUL-terminated), or 0 when base is not
 * absolute, the result does not fit in cap, or a ".." fails. O(length). */
size_t pk_path_join(const char *base, const char *path, int above_root_fails, char *out, size_t cap);

/* Whether the file at path, which an input names as written (after any
 * percent-decoding; NULL when there is no written form to check), may be
 * read under root: 0, or -1 with why (cap bytes) saying which rule it
 * breaks, naming written (an absolute path) or path, and the options. A written path that is
 * absolute is refused; path must lie within root->dir once resolved. */
int pk_asset_check(const pk_asset_root *root, const char *written, const char *path, char *why, size_t cap);

#endif

/* SPDX-License-Identifier: MIT */
/* sluice pack: the in-memory mesh. */
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

void pk_mesh_free(pk_mesh *m)
{
    free(m->positions);
    free(m->normals);
    free(m->uvs);
    free(m->indices);
    memset(m, 0, sizeof *m);
}

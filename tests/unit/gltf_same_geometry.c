/* SPDX-License-Identifier: MIT */
/* gltf_same_geometry A B [--normals-unit]: loads every mesh of the glTF
 * files A and B with the packer's importer and exits 0 when they hold the
 * same geometry: the same meshes, vertex counts, positions, uvs and normals
 * bit for bit, and the same triangles in the same order, each up to a
 * rotation of its three corners (meshoptimizer's index codec may start a
 * triangle at another corner, winding kept). With --normals-unit, B's
 * normals are not compared and each of A's must be of unit length within
 * 0.02 instead: gltfpack's fallback data for a view with the octahedral
 * filter holds the filter's encoded form, which only the decoded normals
 * match. Else it prints the first difference and exits 1 (2: a file does
 * not load, or a bad command line). On success it prints "same geometry:
 * M meshes, V vertices, T triangles". The gltfpack sample tests run it on
 * a model gltfpack wrote compressed and plain. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gltf.h"

/* The triangle at t rotated to start at its smallest index. */
static void canonical(const uint32_t *t, uint32_t out[3])
{
    int k = t[0] <= t[1] && t[0] <= t[2] ? 0 : t[1] <= t[2] ? 1 : 2;
    for (int j = 0; j < 3; j++) {
        out[j] = t[(k + j) % 3];
    }
}

static int compare_mesh(uint32_t i, const pk_mesh *a, const pk_mesh *b, int normals_unit)
{
    if (a->vertex_count != b->vertex_count || a->index_count != b->index_count) {
        printf("mesh %u: %u vertices and %u indices, against %u and %u\n", i, a->vertex_count, a->index_count,
               b->vertex_count, b->index_count);
        return 1;
    }
    size_t nv = a->vertex_count;
    if (memcmp(a->positions, b->positions, nv * 3 * sizeof(float)) != 0 || (a->uvs != NULL) != (b->uvs != NULL) ||
        (a->uvs != NULL && memcmp(a->uvs, b->uvs, nv * 2 * sizeof(float)) != 0)) {
        printf("mesh %u: positions or uvs differ\n", i);
        return 1;
    }
    if ((a->normals != NULL) != (b->normals != NULL)) {
        printf("mesh %u: normals in one file only\n", i);
        return 1;
    }
    for (size_t k = 0; normals_unit && a->normals != NULL && k < nv; k++) {
        const float *n = a->normals + 3 * k;
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (fabsf(len - 1.0f) > 0.02f) {
            printf("mesh %u: normal %zu (%.4f %.4f %.4f) has length %.4f\n", i, k, n[0], n[1], n[2], len);
            return 1;
        }
    }
    if (!normals_unit && a->normals != NULL && memcmp(a->normals, b->normals, nv * 3 * sizeof(float)) != 0) {
        printf("mesh %u: normals differ\n", i);
        return 1;
    }
    for (uint32_t t = 0; t < a->index_count; t += 3) {
        uint32_t x[3], y[3];
        canonical(a->indices + t, x);
        canonical(b->indices + t, y);
        if (memcmp(x, y, sizeof x) != 0) {
            printf("mesh %u: triangle %u: (%u %u %u) against (%u %u %u)\n", i, t / 3, x[0], x[1], x[2], y[0], y[1],
                   y[2]);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    int normals_unit = argc == 4 && strcmp(argv[3], "--normals-unit") == 0;
    if (argc != 3 && !normals_unit) {
        fprintf(stderr, "usage: gltf_same_geometry A B [--normals-unit]\n");
        return 2;
    }
    gltf_scene *s[2] = {NULL, NULL};
    pk_diag d;
    for (int f = 0; f < 2; f++) {
        if (gltf_open(argv[1 + f], NULL, &s[f], &d) != 0) {
            fprintf(stderr, "%s\n", d.message);
            gltf_close(s[0]);
            return 2;
        }
    }
    int rc = 0;
    uint32_t n = gltf_mesh_count(s[0]);
    if (n != gltf_mesh_count(s[1])) {
        printf("%u meshes against %u\n", n, gltf_mesh_count(s[1]));
        rc = 1;
    }
    uint64_t vertices = 0, triangles = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        pk_mesh m[2];
        if (gltf_load_mesh(s[0], i, &m[0], &d) != 0) {
            fprintf(stderr, "%s\n", d.message);
            rc = 2;
            break;
        }
        if (gltf_load_mesh(s[1], i, &m[1], &d) != 0) {
            fprintf(stderr, "%s\n", d.message);
            pk_mesh_free(&m[0]);
            rc = 2;
            break;
        }
        rc = compare_mesh(i, &m[0], &m[1], normals_unit);
        vertices += m[0].vertex_count;
        triangles += m[0].index_count / 3;
        pk_mesh_free(&m[0]);
        pk_mesh_free(&m[1]);
    }
    if (rc == 0) {
        printf("same geometry: %u meshes, %llu vertices, %llu triangles\n", n, (unsigned long long)vertices,
               (unsigned long long)triangles);
    }
    gltf_close(s[0]);
    gltf_close(s[1]);
    return rc;
}

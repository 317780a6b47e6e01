/* SPDX-License-Identifier: MIT */
// One invocation per page of a segment: FNV-1a over the page's 32-bit words,
// written to sums[first_page + page]. test_vulkan.c computes the same on the
// CPU and compares, so every byte a page holds is read by the GPU.
#version 450
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Pages { uint words[]; } pages;
layout(std430, set = 0, binding = 1) writeonly buffer Sums { uint sums[]; } result;

layout(push_constant) uniform Push {
    uint first_page;     // global index of the segment's first page
    uint page_count;     // pages in the segment
    uint words_per_page;
} pc;

void main()
{
    uint p = gl_GlobalInvocationID.x;
    if (p >= pc.page_count) {
        return;
    }
    uint base = p * pc.words_per_page;
    uint h = 2166136261u;
    for (uint i = 0u; i < pc.words_per_page; i++) {
        h = (h ^ pages.words[base + i]) * 16777619u;
    }
    result.sums[pc.first_page + p] = h;
}

# default: the CI class. Lavapipe (Mesa's CPU Vulkan driver) on a 2-core
# x86-64 machine: one 2 GiB DEVICE_LOCAL | HOST_VISIBLE heap, so it behaves
# like a unified-memory SoC. Sized to stream a synthetic city many times
# larger than the pool while leaving the machine room for a parallel build.

[profile]
name = default

[budgets]
cpu             = 50 MiB   # children take 47 MiB; the other 3 MiB are the cpu arena itself
cpu/meta        = 8 MiB    # pack tables: 65536 chunks x 64 B (4 MiB) + 16384 objects x 8 LODs x 24 B (3 MiB) + 1 MiB of names
cpu/decode      = 4 MiB    # per worker: one 64 KiB page of decode scratch, twice, plus read buffers
cpu/queues      = 1 MiB    # 1024-entry request, load and completion rings
cpu/driver      = 32 MiB   # lavapipe's host allocations: device, pipeline cache, command pools
cpu/render      = 2 MiB    # slc_render_footprint: the record (under 2 KiB), 4 B an object (16384: 64 KiB), 4 B a pack instance: room for 490000
gpu             = 426 MiB  # children take 426 MiB
gpu/pool        = 256 MiB  # 4096 pages of 64 KiB
gpu/staging     = 72 MiB   # [stream] staging_size, used only when the staging path is forced, and [textures] staging_size
gpu/render      = 34 MiB   # from [render] below, per the arithmetic there
gpu/textures    = 64 MiB   # 1024 texture tiles of 64 KiB ([textures] page_count)

[pool]
page_size       = 64 KiB   # a Nanite-sized page: many clusters, one LZ4 block
page_count      = 4096

[stream]
frames_in_flight = 2
workers          = 2       # both cores; the caller's thread only schedules
queue_capacity   = 1024
staging_size     = 32 MiB
upload_per_frame = 16 MiB  # 256 pages a frame: ~1 GB/s at 60 Hz, within one core's LZ4 rate
pin_coarsest     = 1       # every object's coarsest level stays resident: over budget means coarser, never a hole

[tables]
max_objects      = 16384
max_chunks       = 65536
max_lods         = 8
max_string_bytes = 1 MiB

# What the pack's texture tiles hold (`sluice pack --profile` takes it as
# its --texture-format): RGBA8, which every Vulkan device samples (lavapipe,
# which runs the tests, samples BC1 and BC3 too, but not ASTC).
[textures]
format           = rgba8
page_count       = 1024   # the texture tile pool (gpu/textures): the tiles of a textured sample model at its close-up mips, with the mip tails
staging_size     = 40 MiB # the tiles' belt into the atlas images (gpu/staging): 640 slots, so 160 tile loads a frame (frames_in_flight + 2 frames a slot): the textured city's first frame

[report]
max_phases       = 8

# The reference renderer (`sluice render`, the conformance suite's image
# checks). gpu/render holds, for 1280 x 720 and frames_in_flight = 2:
#   own target: 1280 x 720 x 4 B colour + x 4 B depth         7.03 MiB
#   readback:   1280 x 720 x 4 B x 2 frames                   7.03 MiB
#   lists:      (65536 draws x (32 B draw + 16 B indirect)
#                + 65536 placements x 80 B) x 2 frames       16.00 MiB
#   objects:    16384 x 64 B                                  1.00 MiB
#   sum 31.06 MiB, + 1 MiB for uniforms, the timestamp queries and
#   alignment, rounded up to 2 MiB: 34 MiB.
#   (`sluice render` on lavapipe charges 28.06 MiB to it at this size.)
[render]
width            = 1280
height           = 720
max_draws        = 65536   # cluster draws a frame
max_placements   = 65536   # instance placements a frame

# The floor every frame keeps against the unlimited reference (sluice render
# --reference): the conformance workload (8 fly frames at 160x90 over a
# 1 MiB city, tests/conformance/quality.sh) measured 28.05 dB at its worst
# frame (frame 2, among the first a load lands in; lit from over the
# camera's shoulder); 25 dB leaves 3 dB for drivers that round differently.
[quality]
min_psnr_db      = 25

# default: the CI class. Lavapipe (Mesa's CPU Vulkan driver) on a 2-core
# x86-64 machine: one 2 GiB DEVICE_LOCAL | HOST_VISIBLE heap, so it behaves
# like a unified-memory SoC. Sized to stream a synthetic city many times
# larger than the pool while leaving the machine room for a parallel build.

[profile]
name = default

[budgets]
cpu             = 48 MiB
cpu/meta        = 8 MiB    # pack tables: 65536 chunks x 64 B (4 MiB) + 16384 objects x 8 LODs x 24 B (3 MiB) + 1 MiB of names
cpu/decode      = 4 MiB    # per worker: one 64 KiB page of decode scratch, twice, plus read buffers
cpu/queues      = 1 MiB    # 1024-entry request, load and completion rings
cpu/driver      = 32 MiB   # lavapipe's host allocations: device, pipeline cache, command pools
gpu             = 320 MiB
gpu/pool        = 256 MiB  # 4096 pages of 64 KiB
gpu/staging     = 32 MiB   # only used when the staging path is forced

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

[report]
max_phases       = 8

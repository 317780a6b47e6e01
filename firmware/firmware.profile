# The bare-metal firmware's budgets (firmware/main.c, under qemu-system-arm):
# the synthetic city pack of firmware/CMakeLists.txt (188 chunks of 16 KiB
# pages, 2.7 MiB) streamed through a pool of 48 pages, so the camera's path
# evicts. `sluice budget header` turns this file into the static arrays.
[profile]
name = firmware

[budgets]
cpu             = 512 KiB
cpu/meta        = 64 KiB   # the pack's tables: 188 chunks x 64 B, 2 objects, 16 LODs (32 KiB used)
cpu/decode      = 64 KiB   # unused: the pack is read in place (slc_io_from_memory) and stored raw
cpu/queues      = 64 KiB   # request, load and completion rings of 64 entries
cpu/driver      = 0        # no GPU driver
cpu/render      = 0        # no renderer
# No gpu budget: a host-only profile. The pool's 48 pages of 16 KiB (768
# KiB) live in host memory (the host backend), sized by [pool] below.

[pool]
page_size       = 16 KiB
page_count      = 48

[stream]
frames_in_flight = 2
workers          = 0       # no threads: the caller loads
queue_capacity   = 64
staging_size     = 0
upload_per_frame = 128 KiB # 8 pages a frame
pin_coarsest     = 1

[tables]
max_objects      = 16
max_chunks       = 256
max_lods         = 8
max_string_bytes = 1 KiB

[report]
max_phases       = 4

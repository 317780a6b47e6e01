# host-only: the default profile's host side with no gpu budget, so it is
# for the host backend only (sluice/profile.h: host-only profiles). Its
# pool of 1024 pages of 64 KiB (64 MiB) is sized by [pool] alone and lives
# in host memory; nothing stages (tests/CMakeLists.txt: cli_host_only_*).

[profile]
name = host-only

[budgets]
cpu             = 16 MiB
cpu/meta        = 8 MiB    # pack tables: 65536 chunks x 64 B (4 MiB) + 16384 objects x 8 LODs x 24 B (3 MiB) + 1 MiB of names
cpu/decode      = 4 MiB    # per worker: one 64 KiB page of decode scratch, twice, plus read buffers
cpu/queues      = 1 MiB    # 1024-entry request, load and completion rings
cpu/driver      = 0        # no GPU driver

[pool]
page_size       = 64 KiB
page_count      = 1024

[stream]
frames_in_flight = 2
workers          = 1
queue_capacity   = 1024
staging_size     = 0       # no staging belt on the host backend
upload_per_frame = 4 MiB
pin_coarsest     = 1

[tables]
max_objects      = 16384
max_chunks       = 65536
max_lods         = 8
max_string_bytes = 1 MiB

[report]
max_phases       = 8

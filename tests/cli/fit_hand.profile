# fit-hand: a pool small enough to count by hand (tests/cli/fit_hand.trace, tests/CMakeLists.txt:
# cli_fit_hand_*): 26 pages, 2 of them the partition "nav", 24 "default" (which takes the 20 pins);
# one frame in flight, 6 requests and 6 distinct chunks a frame, an upload cap of 4 pages.

[profile]
name = fit-hand

[budgets]
cpu             = 48 MiB
cpu/meta        = 8 MiB
cpu/decode      = 4 MiB
cpu/queues      = 1 MiB
cpu/driver      = 32 MiB
gpu             = 8 MiB
gpu/pool        = 1664 KiB # 26 pages of 64 KiB
gpu/staging     = 1 MiB

[pool]
page_size       = 64 KiB
page_count      = 26

[stream]
frames_in_flight = 1
workers          = 0
queue_capacity   = 6
staging_size     = 1 MiB
upload_per_frame = 256 KiB # 4 pages
pin_coarsest     = 1

[partitions]
nav              = 2

[tables]
max_objects      = 16384
max_chunks       = 65536
max_lods         = 8
max_string_bytes = 1 MiB

[report]
max_phases       = 8

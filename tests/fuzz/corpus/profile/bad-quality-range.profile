[profile]
name = small
[budgets]
cpu = 4 MiB
cpu/meta = 1 MiB
cpu/decode = 1 MiB
cpu/queues = 64 KiB
cpu/driver = 1 MiB
gpu = 8 MiB
gpu/pool = 4 MiB
gpu/staging = 1 MiB
[pool]
page_size = 64 KiB
page_count = 64
eviction = priority
[partitions]
ui = 8
map = 16
[stream]
frames_in_flight = 2
workers = 1
queue_capacity = 64
staging_size = 1 MiB
upload_per_frame = 256 KiB
pin_coarsest = 1
[tables]
max_objects = 64
max_chunks = 256
max_lods = 4
max_string_bytes = 4 KiB
[report]
max_phases = 4
[quality]
min_psnr_db = 201

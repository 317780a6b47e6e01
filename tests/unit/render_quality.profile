# A profile that declares every [render] and [quality] key, each with a
# value no shipped profile uses, so the emitted header is checked to carry
# them all (test_profile_header).
[profile]
name = render-quality

[budgets]
cpu = 16 MiB
cpu/meta = 1 MiB
cpu/decode = 1 MiB
cpu/queues = 1 MiB
cpu/driver = 1 MiB
cpu/render = 3 MiB
gpu = 64 MiB
gpu/pool = 32 MiB
gpu/staging = 0
gpu/render = 16 MiB

[pool]
page_size = 64 KiB
page_count = 512

[stream]
frames_in_flight = 2
workers = 1
queue_capacity = 64
staging_size = 0
upload_per_frame = 1 MiB

[tables]
max_objects = 16
max_chunks = 64
max_lods = 4
max_string_bytes = 4 KiB

[render]
width = 641
height = 479
max_draws = 12345
max_placements = 16777216

[quality]
min_psnr_db = 31.125

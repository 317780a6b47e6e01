# auto-cluster: a digital instrument cluster on a small automotive SoC of the
# NXP i.MX 8QuadMax / Renesas R-Car M3 class: 2 big cores (Cortex-A72 or
# A57) and 4 Cortex-A53, a few GiB of LPDDR4 shared under a hypervisor with
# the infotainment guest (the cluster guest gets a fixed slice of it), a
# Vivante GC7000-class (i.MX 8) or PowerVR Rogue GX6250-class (R-Car M3) GPU
# behind a Vulkan 1.0/1.1 vendor driver, eMMC 5.1 at a few hundred MB/s
# shared with the other guests, and a 60 Hz panel (16.7 ms a frame).
#
# The scene is small and known in advance (gauges, the car model, a 3D
# navigation tile set) and must never stall. maxStorageBufferRange is
# 128 MiB on these drivers, so the pool stays at half of that and is bound as
# one segment. Small pages keep the coarse levels of many small objects from
# each wasting a large page. A small staging belt is kept for GPU-sharing
# setups under the hypervisor that expose no DEVICE_LOCAL | HOST_VISIBLE type.

[profile]
name = auto-cluster

[budgets]
cpu             = 13 MiB   # children take 11.75 MiB; the other 1.25 MiB are the cpu arena itself
cpu/meta        = 2 MiB    # pack tables: 8192 chunks x 64 B (512 KiB) + 1024 objects x 6 LODs x 48 B (288 KiB) + 256 KiB of names
cpu/decode      = 512 KiB  # 1 worker x 16 pages of 32 KiB: 2 of decode scratch, 14 of reads in flight
cpu/queues      = 256 KiB  # 256-entry request, load and completion rings (1 KiB an entry, as default)
cpu/driver      = 8 MiB    # the vendor driver's host allocations for the runtime's own objects; an estimate until measured
cpu/render      = 1 MiB    # slc_render_footprint: the record (under 2 KiB), 4 B an object (1024: 4 KiB), 4 B a pack instance: room for 250000
gpu             = 127 MiB  # children take 64 + 5 + 26 + 32 MiB
gpu/pool        = 64 MiB   # 2048 pages of 32 KiB, half of maxStorageBufferRange
gpu/staging     = 5 MiB    # [stream] staging_size and [textures] staging_size
gpu/render      = 26 MiB   # from [render] below, per the arithmetic there
gpu/textures    = 32 MiB   # 1024 texture tiles of 32 KiB ([textures] page_count)

[pool]
page_size       = 32 KiB
page_count      = 2048
eviction        = priority # the HMI requests navigation tiles off the route at low priority: they go first

# Freedom from interference: the gauges are safety-relevant (speed, tell-tale
# symbols) and must never lose a page because the navigation map pans across
# a city. Each partition is guaranteed its pages; a request in one never
# evicts a page of another, and a partition that asks for more than its share
# evicts its own pages or is told to wait (SLC_E_POOL_BUSY), alone.
[partitions]
gauges          = 256      # 8 MiB: dials, needles, bezels and tell-tales at every LOD, with room to spare
navigation      = 1024     # 32 MiB: the 3D map tiles around the car; it streams all the time
# the other 768 pages (24 MiB) form the "default" partition: the car model and everything else

[stream]
frames_in_flight = 2       # double buffering: the lowest latency a cluster may show
workers          = 1       # one A53-class core; the others run the cluster's HMI and the hypervisor's guests
queue_capacity   = 256
staging_size     = 4 MiB   # upload_per_frame x (frames_in_flight + 2): a slot is taken when its load is published and freed when the frame that copies it retires
upload_per_frame = 1 MiB   # 32 pages a frame: 60 MiB/s at 60 Hz, a fraction of the shared eMMC; refills the whole pool in 1.1 s
pin_coarsest     = 1       # every object's coarsest level stays resident: the cluster never shows a hole

[tables]
max_objects      = 1024
max_chunks       = 8192    # 256 MiB of 32 KiB chunks: a pack four times the pool
max_lods         = 6
max_string_bytes = 256 KiB

# What the pack's texture tiles hold (`sluice pack --profile` takes it as
# its --texture-format): ASTC 6x6, 3.56 bits a texel, which the GC7000 and
# Rogue drivers sample natively (OpenGL ES 3.2's ASTC LDR); the stream
# refuses a pack in a format the device does not sample, at init.
[textures]
format           = astc6x6
page_count       = 1024   # the texture tile pool (gpu/textures): a cluster's gauges and car model at 6x6 blocks
staging_size     = 1 MiB  # the tiles' belt into the atlas images (gpu/staging): 32 slots, 8 tile loads a frame

[report]
max_phases       = 4       # init, open, warmup, stream

# The reference renderer at the cluster panel's size, 1920 x 720. The scene
# is small: 1024 objects, so a few thousand placements and clusters a frame.
# gpu/render holds, for that size and frames_in_flight = 2:
#   own target: 1920 x 720 x 4 B colour + x 4 B depth        10.55 MiB
#   readback:   1920 x 720 x 4 B x 2 frames                  10.55 MiB
#   lists:      (16384 draws x (32 B draw + 16 B indirect)
#                + 8192 placements x 80 B) x 2 frames         2.75 MiB
#   objects:    1024 x 64 B                                   0.06 MiB
#   sum 23.91 MiB, + 1 MiB for uniforms, the timestamp queries and
#   alignment, rounded up to 2 MiB: 26 MiB.
#   (`sluice render` on lavapipe charges 23.60 MiB to it at this size.)
[render]
width            = 1920
height           = 720
max_draws        = 16384   # cluster draws a frame
max_placements   = 8192    # instance placements a frame

# The floor every frame keeps against the unlimited reference (sluice render
# --reference): the conformance workload (8 fly frames at 160x90 over a
# 1 MiB city, tests/conformance/quality.sh) measured 28.05 dB at its worst
# frame; 25 dB leaves 3 dB for drivers that round differently.
[quality]
min_psnr_db      = 25

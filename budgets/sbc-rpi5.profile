# sbc-rpi5: a Raspberry Pi 5 class single-board computer. BCM2712: 4x
# Cortex-A76 at 2.4 GHz, 4 or 8 GiB of LPDDR4X shared by CPU and GPU, a
# VideoCore VII GPU driven by Mesa's v3dv (Vulkan 1.2), storage on microSD
# (about 90 MB/s at best) or NVMe on the PCIe 2.0 x1 connector (about
# 400 MB/s), and a 60 Hz desktop or kiosk display (16.7 ms a frame).
#
# v3dv exposes one heap and one memory type, DEVICE_LOCAL | HOST_VISIBLE |
# HOST_COHERENT; the heap is half of RAM on a 4 GiB board (2 GiB) and 3/4 of
# RAM, at most 4 GiB, above that. It reports VK_EXT_memory_budget. Pages are
# written in place, so the pages need no staging belt (the texture tiles'
# own belt into the atlas images is gpu/staging). Sized for the 4 GiB board
# with a desktop running: the pool is under a fifth of its heap. An 8 GiB
# board can double page_count and gpu/pool. maxStorageBufferRange is 1 GiB
# on current Mesa (128 MiB on older releases, where the pool is split).

[profile]
name = sbc-rpi5

[budgets]
cpu             = 31 MiB   # children take 28 MiB; the other 3 MiB are the cpu arena itself
cpu/meta        = 8 MiB    # pack tables: 65536 chunks x 64 B (4 MiB) + 8192 objects x 8 LODs x 48 B (3 MiB) + 512 KiB of names
cpu/decode      = 2 MiB    # 2 workers x 16 pages of 64 KiB: 2 of decode scratch, 14 of reads in flight
cpu/queues      = 1 MiB    # 1024-entry request, load and completion rings (1 KiB an entry, as default)
cpu/driver      = 16 MiB   # v3dv's host allocations for the runtime's own objects; an estimate until measured on a board
cpu/render      = 1 MiB    # slc_render_footprint: the record (under 2 KiB), 4 B an object (8192: 32 KiB), 4 B a pack instance: room for 240000
gpu             = 540 MiB  # children take 384 + 4 + 24 + 128 MiB
gpu/pool        = 384 MiB  # 6144 pages of 64 KiB
gpu/staging     = 4 MiB    # unified memory: pages are written in place; the texture tiles' belt ([textures] staging_size)
gpu/render      = 24 MiB   # from [render] below, per the arithmetic there
gpu/textures    = 128 MiB  # 2048 texture tiles of 64 KiB ([textures] page_count)

[pool]
page_size       = 64 KiB   # a Nanite-sized page: many clusters, one LZ4 block
page_count      = 6144

[stream]
frames_in_flight = 2
workers          = 2       # of 4 cores: the app's main and render threads keep the other two
queue_capacity   = 1024
staging_size     = 0 B     # no belt; see the header
upload_per_frame = 4 MiB   # 64 pages a frame: 240 MiB/s at 60 Hz, within NVMe; on microSD (1.5 MB a frame) the card is the limit
pin_coarsest     = 1       # every object's coarsest level stays resident: over budget means coarser, never a hole

[tables]
max_objects      = 8192
max_chunks       = 65536   # 4 GiB of 64 KiB chunks: a pack about ten times the pool
max_lods         = 8
max_string_bytes = 512 KiB

# What the pack's texture tiles hold (`sluice pack --profile` takes it as
# its --texture-format): ASTC 6x6, 3.56 bits a texel; v3dv exposes
# textureCompressionASTC_LDR on VideoCore VII. The stream refuses a pack in
# a format the device does not sample, at init.
[textures]
format           = astc6x6
page_count       = 2048   # the texture tile pool (gpu/textures): a quarter of the board's 8 GiB shared with the desktop
staging_size     = 4 MiB  # the tiles' belt into the atlas images (gpu/staging): 64 slots, 16 tile loads a frame

[report]
max_phases       = 8

# The reference renderer at 1280 x 720 (a 1080p frame would take 2.25
# times the target and readback below), with half the default lists: the
# board's pack tables are half the default's too (8192 objects).
# gpu/render holds, for that size and frames_in_flight = 2:
#   own target: 1280 x 720 x 4 B colour + x 4 B depth         7.03 MiB
#   readback:   1280 x 720 x 4 B x 2 frames                   7.03 MiB
#   lists:      (32768 draws x (32 B draw + 16 B indirect)
#                + 32768 placements x 80 B) x 2 frames        8.00 MiB
#   objects:    8192 x 64 B                                   0.50 MiB
#   sum 22.56 MiB, + 1 MiB for uniforms, the timestamp queries and
#   alignment, rounded up to 2 MiB: 24 MiB.
#   (`sluice render` on lavapipe charges 21.06 MiB to it at this size.)
[render]
width            = 1280
height           = 720
max_draws        = 32768   # cluster draws a frame
max_placements   = 32768   # instance placements a frame

# The floor every frame keeps against the unlimited reference (sluice render
# --reference): the conformance workload (8 fly frames at 160x90 over a
# 1 MiB city, tests/conformance/quality.sh) measured 28.05 dB at its worst
# frame; 25 dB leaves 3 dB for drivers that round differently.
[quality]
min_psnr_db      = 25

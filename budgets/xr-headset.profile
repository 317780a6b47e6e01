# xr-headset: a standalone XR headset of the Snapdragon XR2 Gen 2 class
# (Pico 4 Ultra: 12 GiB; Meta Quest 3 is the same SoC with 8 GiB and fits
# too). Android on a big.LITTLE Kryo CPU, an Adreno 740 GPU, 12 GiB of LPDDR5
# shared by CPU and GPU, UFS 3.1 storage (about 2 GB/s sequential read, much
# less for scattered 64 KiB reads), displays at 90 Hz (11.1 ms a frame) and an
# XR compositor that holds one frame while the app renders the next.
#
# The OS, the XR runtime (tracking, passthrough, compositor) and the app's
# own textures and render targets take most of the 12 GiB; a 1 GiB geometry
# pool is a twelfth of the device. Adreno exposes DEVICE_LOCAL | HOST_VISIBLE
# memory, so chunks decode straight into the mapped page and there is no
# staging belt for them: [stream] staging_size is 0. A profile with no belt
# suits only devices that have such a memory type. The texture tiles go into
# atlas images through a belt of their own, [textures] staging_size, which
# is what gpu/staging holds.

[profile]
name = xr-headset

[budgets]
cpu             = 42 MiB   # children take 39 MiB; the other 3 MiB are the cpu arena itself
cpu/meta        = 16 MiB   # pack tables: 131072 chunks x 64 B (8 MiB) + 16384 objects x 8 LODs x 48 B (6 MiB) + 1 MiB of names
cpu/decode      = 3 MiB    # 3 workers x 16 pages of 64 KiB: 2 of decode scratch, 14 of reads in flight
cpu/queues      = 2 MiB    # 2048-entry request, load and completion rings (1 KiB an entry, as default)
cpu/driver      = 16 MiB   # Adreno's host allocations for the runtime's own Vulkan objects; an estimate until measured on a device
cpu/render      = 2 MiB    # slc_render_footprint: the record (under 2 KiB), 4 B an object (16384: 64 KiB), 4 B a pack instance: room for 490000
gpu             = 1638 MiB # children take 1 GiB + 8 + 94 + 512 MiB
gpu/pool        = 1 GiB    # 16384 pages of 64 KiB
gpu/staging     = 8 MiB    # unified memory: pages are written in place; the texture tiles' belt ([textures] staging_size)
gpu/render      = 94 MiB   # from [render] below, per the arithmetic there
gpu/textures    = 512 MiB  # 8192 texture tiles of 64 KiB ([textures] page_count)

[pool]
page_size       = 64 KiB   # a Nanite-sized page: many clusters, one LZ4 block, one efficient UFS read
page_count      = 16384

[stream]
frames_in_flight = 3       # app frame, compositor frame, frame on the display
workers          = 3       # the big cores stay with the app's render thread and the XR runtime
queue_capacity   = 2048    # a head turn at 90 Hz can ask for a few hundred pages at once
staging_size     = 0 B     # no belt; see the header
upload_per_frame = 8 MiB   # 128 pages a frame: 720 MiB/s at 90 Hz, about 550 MiB/s read at LZ4's 1.3 ratio, half of UFS
pin_coarsest     = 1       # every object's coarsest level stays resident: over budget means coarser, never a hole

[tables]
max_objects      = 16384
max_chunks       = 131072  # 8 GiB of 64 KiB chunks: a pack eight times the pool
max_lods         = 8
max_string_bytes = 1 MiB

# What the pack's texture tiles hold (`sluice pack --profile` takes it as
# its --texture-format): ASTC 6x6, 3.56 bits a texel, which Adreno samples
# natively. The stream refuses a pack in a format the device does not
# sample, at init.
[textures]
format           = astc6x6
page_count       = 8192   # the texture tile pool (gpu/textures): a room-scale scene's materials at the headset's texel density
staging_size     = 8 MiB  # the tiles' belt into the atlas images (gpu/staging): 128 slots, 25 tile loads a frame (frames_in_flight + 2 frames a slot)

[report]
max_phases       = 8

# The reference renderer draws one view into its own target: one eye at
# 1832 x 1920, a stated size below this class's default per-eye swapchain
# (2064 x 2208 on Quest 3), which would take 1.3 times the target and
# readback below. A stereo application draws each eye in its own render
# pass.
# gpu/render holds, for that size and frames_in_flight = 3:
#   own target: 1832 x 1920 x 4 B colour + x 4 B depth       26.84 MiB
#   readback:   1832 x 1920 x 4 B x 3 frames                 40.25 MiB
#   lists:      (65536 draws x (32 B draw + 16 B indirect)
#                + 65536 placements x 80 B) x 3 frames       24.00 MiB
#   objects:    16384 x 64 B                                  1.00 MiB
#   sum 92.09 MiB, + 1 MiB for uniforms, the timestamp queries and
#   alignment, rounded up to 2 MiB: 94 MiB.
#   (`sluice render` on lavapipe charges 88.21 MiB to it at this size.)
[render]
width            = 1832
height           = 1920
max_draws        = 65536   # cluster draws a frame
max_placements   = 65536   # instance placements a frame

# The floor every frame keeps against the unlimited reference (sluice render
# --reference): the conformance workload (8 fly frames at 160x90 over a
# 1 MiB city, tests/conformance/quality.sh) measured 28.05 dB at its worst
# frame; 25 dB leaves 3 dB for drivers that round differently.
[quality]
min_psnr_db      = 25

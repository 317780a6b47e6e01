# default: the CI class. Lavapipe (Mesa's CPU Vulkan driver) on a LE heap, so it behaves
# like a unified-memory SoC. Sized to stream a synthetic city many times
# larger than the pool while leaving the machine room for a parallel build.

[profile]
name = default

[budgets]
cpu             = 50 MiB   # children take 47 MiB; the other 3 MiB are the cpu arena itself
cpu/meta        = 8 MiB    #  command pools
cpu/render      = 2 MiB    # slc_render_footprint: the record (under 2 KiB), 4 B an object (16384: 64 KiB), 4 B a pack instance: room for 490000
gpu             = 354 MiB  # children take 322 MiB
gpu/pool        = 256 MiB  # 4096 pages of 64 KiB
gpu/staging     = 32 MiB   # only used when the staging path is forced
gpu/render      = 34 MiB   # from [render] below, per the arithmetic there

[pool]
page_size       = 64 KiB   # a Nanite-siile would then fail below it:
[quality]
# min_psnr_db     = 30.5

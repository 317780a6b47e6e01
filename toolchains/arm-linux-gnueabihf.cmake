# SPDX-License-Identifier: MIT
# Cross build for 32-bit ARM Linux with hardware floating point (ARMv7-A,
# armhf), against Debian's multiarch packages: crossbuild-essential-armhf,
# liblz4-dev:armhf, libxxhash-dev:armhf, libcmocka-dev:armhf
# (scripts/deps.sh --cross installs them).
#
# Serves: 32-bit instrument clusters and head units (NXP i.MX 6 and i.MX 7,
# Renesas R-Car E2/E3 run 32-bit, TI Sitara AM57x), and 32-bit userlands on
# 64-bit SoCs (Raspberry Pi OS armhf). void *, size_t and long are 4 bytes,
# so this build catches size and alignment assumptions the 64-bit builds
# cannot. The cross-built tests run under qemu-arm.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)
set(CMAKE_LIBRARY_ARCHITECTURE arm-linux-gnueabihf)

set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/arm-linux-gnueabihf/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/qemu-arm)

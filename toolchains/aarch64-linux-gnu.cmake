# SPDX-License-Identifier: MIT
# Cross build for 64-bit ARM Linux (AArch64), against Debian's multiarch
# packages: crossbuild-essential-arm64, liblz4-dev:arm64, libxxhash-dev:arm64,
# libcmocka-dev:arm64 (scripts/deps.sh --cross installs them).
#
# Serves: standalone XR headsets (Snapdragon XR2 / XR2 Gen 2, Cortex-A78/A55
# class), automotive cockpit and cluster SoCs (Renesas R-Car H3/M3, NXP
# i.MX 8/9, Qualcomm SA8155/SA8295, TI Jacinto 7), and SBCs such as the
# Raspberry Pi 4 and 5 (Cortex-A72/A76). The cross-built tests run under
# qemu-aarch64 through CMAKE_CROSSCOMPILING_EMULATOR, so `ctest` works on an
# x86-64 host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# pkg-config must hand back the arm64 libraries, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# Plain qemu-aarch64, without -L: the binaries name the multiarch loader,
# which Debian installs at /lib/ld-linux-aarch64.so.1.
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/qemu-aarch64)

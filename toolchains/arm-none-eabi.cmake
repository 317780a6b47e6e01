# SPDX-License-Identifier: MIT
# Bare-metal 32-bit ARM (no OS): Debian's gcc-arm-none-eabi with newlib
# (libnewlib-arm-none-eabi; scripts/deps.sh --cross installs them). The
# top-level CMakeLists.txt sees CMAKE_SYSTEM_NAME Generic and builds the
# runtime freestanding and the firmware image of firmware/, nothing else.
#
# ARMv7-A (Cortex-A5 to A17) in Thumb-2, soft-float ABI (newlib's
# thumb/v7-a/nofp multilib; the runtime does no float work on the load
# path): ARMv7-A has 64-bit exclusives (LDREXD/STREXD), so the runtime's
# 64-bit C11 atomics are lock-free and need no libatomic, which newlib
# lacks. A Cortex-M (ARMv7-M) has no LDREXD: its 64-bit atomics would call
# libatomic, and the configure step refuses it. -mno-unaligned-access: the
# firmware runs with the MMU off, where all memory is Device memory and an
# unaligned access faults. Sections per function and object, so the image
# links in only what it calls.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "objcopy for the target")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "size for the target")

set(SLUICE_TARGET_FLAGS "-march=armv7-a -mtune=cortex-a15 -mthumb -mfloat-abi=soft -mno-unaligned-access")
set(CMAKE_C_FLAGS_INIT "${SLUICE_TARGET_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")

# Configure checks compile; nothing links without the firmware's start-up
# code and linker script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

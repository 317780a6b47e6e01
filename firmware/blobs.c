/* SPDX-License-Identifier: MIT */
/* The pack and the camera's trace, linked into the image as they are
 * (read-only data: flash on a device). FW_PACK_PATH and FW_TRACE_PATH name
 * the files firmware/CMakeLists.txt generates with the host's sluice. The
 * pack is 64-byte aligned, as slc_io_from_memory's reader maps it. */
#include "firmware.h"

#define FW_BLOB(name, path)                                \
    __asm__(".section .rodata." #name ",\"a\",%progbits\n" \
            ".balign 64\n"                                 \
            ".global " #name "\n" #name ":\n"              \
            ".incbin \"" path "\"\n"                       \
            ".global " #name "_end\n" #name "_end:\n"      \
            ".byte 0\n"                                    \
            ".previous\n")

FW_BLOB(fw_pack, FW_PACK_PATH);
FW_BLOB(fw_trace, FW_TRACE_PATH);

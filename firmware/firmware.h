/* SPDX-License-Identifier: MIT */
/* The bare-metal firmware's board layer: start-up, the stack, the console
 * (semihosting), the exit, and the blobs linked into the image. */
#ifndef SLUICE_FIRMWARE_H
#define SLUICE_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

/* The pack and the camera's trace, linked in as they are (blobs.c). */
extern const unsigned char fw_pack[];
extern const unsigned char fw_pack_end[];
extern const unsigned char fw_trace[];
extern const unsigned char fw_trace_end[];

/* Bytes of the stack (start.c), and the most of it used so far: the stack
 * is filled with a pattern before fw_main runs. */
#define FW_STACK_SIZE (64u * 1024u)
size_t fw_stack_used(void);

/* Writes the NUL-terminated text to the host's console (semihosting
 * SYS_WRITE0). */
void fw_puts(const char *text);

/* Ends the run: qemu exits with status 0 when ok is non-zero, 1 otherwise
 * (semihosting SYS_EXIT). Never returns. */
_Noreturn void fw_exit(int ok);

/* The firmware proper (main.c), called by the start-up code on the static
 * stack with .bss cleared. */
_Noreturn void fw_main(void);

#endif

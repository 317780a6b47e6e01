/* SPDX-License-Identifier: MIT */
/* The firmware's start-up code and console for qemu-system-arm -M virt
 * (ARMv7-A, Thumb-2, MMU and caches off as qemu leaves them): a static
 * stack, .bss cleared, semihosting for output and exit. */
#include <string.h>

#include "firmware.h"

/* Semihosting operations (ARM's "Semihosting for AArch32 and AArch64"). */
#define SYS_WRITE0 0x04u
#define SYS_EXIT 0x18u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023u

#define STACK_FILL 0xa5u

__attribute__((section(".stack"), aligned(8))) unsigned char fw_stack[FW_STACK_SIZE];

/* The entry point: sp to the top of fw_stack (fw_stack_top, the linker
 * script's), .bss cleared word by word
 * (the linker script aligns both ends to 8), then fw_main. */
__attribute__((naked, noreturn, section(".text.start"))) void _start(void)
{
    __asm__ volatile("ldr r0, =fw_stack_top\n"
                     "mov sp, r0\n"
                     "ldr r0, =__bss_start__\n"
                     "ldr r1, =__bss_end__\n"
                     "movs r2, #0\n"
                     "1: cmp r0, r1\n"
                     "bhs 2f\n"
                     "str r2, [r0], #4\n"
                     "b 1b\n"
                     "2: bl fw_stack_fill\n"
                     "bl fw_main\n"
                     "b .\n");
}

/* Fills the stack below this call's frame with the pattern fw_stack_used
 * looks for. */
void fw_stack_fill(void);
__attribute__((noinline)) void fw_stack_fill(void)
{
    unsigned char *sp = __builtin_frame_address(0);
    size_t below = (size_t)(sp - fw_stack);
    memset(fw_stack, STACK_FILL, below > 256u ? below - 256u : 0u);
}

size_t fw_stack_used(void)
{
    size_t untouched = 0;
    while (untouched < FW_STACK_SIZE && fw_stack[untouched] == STACK_FILL) {
        untouched++;
    }
    return FW_STACK_SIZE - untouched;
}

static uint32_t semihost(uint32_t op, uintptr_t arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register uintptr_t r1 __asm__("r1") = arg;
    __asm__ volatile("svc 0xab" : "+r"(r0) : "r"(r1) : "memory"); /* Thumb state: SVC 0xAB */
    return r0;
}

void fw_puts(const char *text)
{
    (void)semihost(SYS_WRITE0, (uintptr_t)text);
}

_Noreturn void fw_exit(int ok)
{
    (void)semihost(SYS_EXIT, ok ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUN_TIME_ERROR);
    for (;;) {
    }
}

/* newlib's assert() reports through here (a build without NDEBUG). */
void __assert_func(const char *file, int line, const char *func, const char *expr);
_Noreturn void __assert_func(const char *file, int line, const char *func, const char *expr)
{
    (void)line;
    fw_puts("firmware: assertion failed: ");
    fw_puts(expr);
    fw_puts(" in ");
    fw_puts(func != NULL ? func : "?");
    fw_puts(" (");
    fw_puts(file);
    fw_puts(")\n");
    fw_exit(0);
}

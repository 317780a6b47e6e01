/* SPDX-License-Identifier: MIT */
/* Layer canary: a tool's header. */
int canary_tool(void);

/* SPDX-License-Identifier: MIT */
/* Layer canary: a runtime header, included by every layer above. */
int canary_core(void);

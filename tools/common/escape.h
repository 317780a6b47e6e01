/* SPDX-License-Identifier: MIT */
/* Strings in machine-readable output, escaped once for every tool: a file
 * name or a profile name with quotes, backslashes, markup characters,
 * control characters or bytes that are not UTF-8 still gives valid JSON and
 * well-formed XML. */
#ifndef SLUICE_TOOLS_ESCAPE_H
#define SLUICE_TOOLS_ESCAPE_H

#include <stdio.h>

/* Writes s as a JSON string, quotes included: '"' and '\' escaped, control
 * characters as \b \f \n \r \t or \u00XX, every byte that is not part of a
 * well-formed UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at
 * most U+10FFFF) as \ufffd. A NULL s is written as null. */
void esc_json(FILE *f, const char *s);

/* Writes s as XML character data or an attribute value (without quotes):
 * & < > " ' as entities, tab, newline and carriage return as character
 * references, other control characters (not allowed in XML 1.0) and bytes
 * that are not well-formed UTF-8 as U+FFFD. */
void esc_xml(FILE *f, const char *s);

/* The length (1-4) of the well-formed UTF-8 sequence at s, or 0 when the
 * bytes there are not one. s must be NUL-terminated. */
int esc_utf8_len(const unsigned char *s);

#endif

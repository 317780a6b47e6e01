/* SPDX-License-Identifier: MIT */
/* JSON and XML escaping (see escape.h). */
#include "escape.h"

int esc_utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) {
        return 1;
    }
    int n;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c == 0xE0) {
        n = 3, lo = 0xA0;
    } else if (c == 0xED) {
        n = 3, hi = 0x9F; /* no surrogates */
    } else if (c >= 0xE1 && c <= 0xEF) {
        n = 3;
    } else if (c == 0xF0) {
        n = 4, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
        n = 4;
    } else if (c == 0xF4) {
        n = 4, hi = 0x8F; /* at most U+10FFFF */
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (int i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF) {
            return 0;
        }
    }
    return n;
}

void esc_json(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
            p++;
        } else if (c < 0x20) {
            switch (c) {
            case '\b':
                fputs("\\b", f);
                break;
            case '\f':
                fputs("\\f", f);
                break;
            case '\n':
                fputs("\\n", f);
                break;
            case '\r':
                fputs("\\r", f);
                break;
            case '\t':
                fputs("\\t", f);
                break;
            default:
                fprintf(f, "\\u%04x", c);
                break;
            }
            p++;
        } else if (c == 0x7F) {
            fputs("\\u007f", f);
            p++;
        } else {
            int n = esc_utf8_len(p);
            if (n == 0) {
                fputs("\\ufffd", f);
                p++;
            } else {
                (void)fwrite(p, 1, (size_t)n, f); /* a failed write shows in ferror(f), as for fputs */
                p += n;
            }
        }
    }
    fputc('"', f);
}

void esc_xml(FILE *f, const char *s)
{
    if (s == NULL) {
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        switch (c) {
        case '&':
            fputs("&amp;", f);
            p++;
            continue;
        case '<':
            fputs("&lt;", f);
            p++;
            continue;
        case '>':
            fputs("&gt;", f);
            p++;
            continue;
        case '"':
            fputs("&quot;", f);
            p++;
            continue;
        case '\'':
            fputs("&apos;", f);
            p++;
            continue;
        case '\t':
            fputs("&#9;", f);
            p++;
            continue;
        case '\n':
            fputs("&#10;", f);
            p++;
            continue;
        case '\r':
            fputs("&#13;", f);
            p++;
            continue;
        default:
            break;
        }
        if (c < 0x20 || c == 0x7F) {
            fputs("\xEF\xBF\xBD", f);
            p++;
            continue;
        }
        int n = esc_utf8_len(p);
        if (n == 0) {
            fputs("\xEF\xBF\xBD", f);
            p++;
        } else {
            (void)fwrite(p, 1, (size_t)n, f); /* a failed write shows in ferror(f), as for fputs */
            p += n;
        }
    }
}

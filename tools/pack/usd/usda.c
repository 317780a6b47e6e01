/* SPDX-License-Identifier: MIT */
/* sluice pack: the USDA text parser (usd_layer_internal.h).
 *
 * One pass over the text builds the layer's structure; property values are
 * not converted then, only lexed (so a malformed number, string or bracket
 * fails the open, with its line and column) and kept as the byte span of
 * their text. The readers below walk that span again on request and write
 * straight into the caller's buffer. Recursion (prims, variants, values)
 * is bounded by USD_MAX_DEPTH; every token is bounded by the text. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usd_layer_internal.h"

typedef enum tok_kind {
    T_EOF = 0,
    T_IDENT,
    T_STRING, /* '..', "..", '''..''', """.."""; body = inside the quotes */
    T_ASSET,  /* @..@ or @@@..@@@; body = inside */
    T_PATH,   /* <..>; body = inside */
    T_NUMBER,
    T_PUNCT,
} tok_kind;

typedef struct tok {
    tok_kind kind;
    char punct;
    size_t start, end;     /* the raw span */
    size_t body, body_len; /* strings, assets, paths: the inside */
    uint32_t line, col;
    uint8_t triple; /* a ''' / """ string, or a @@@ asset */
} tok;

typedef struct lexer {
    const char *s;
    size_t n; /* end of the text (or of a value's span) */
    size_t pos;
    uint32_t line;
    size_t line_start;
} lexer;

typedef struct parser {
    lexer lx;
    usd_layer *L;
    const char *file;
    pk_diag *d;
    const usd_prim *prim; /* the prim being parsed, for messages */
    unsigned depth;
    int failed;
} parser;

/* ---- messages --------------------------------------------------------- */

static int fail_at(parser *P, uint32_t line, uint32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int fail_at(parser *P, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (P->failed) {
        return -1;
    }
    P->failed = 1;
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): va_start is just above */
    va_end(ap);
    char full[1024];
    if (P->prim && P->prim->parent) {
        char path[256];
        usd_prim_path(P->prim, path, sizeof path);
        snprintf(full, sizeof full, "%s:%u:%u: %s (in prim <%s>)", P->file, line, col, what, path);
    } else {
        snprintf(full, sizeof full, "%s:%u:%u: %s", P->file, line, col, what);
    }
    size_t n = strlen(full);
    if (n >= sizeof P->d->message) {
        n = sizeof P->d->message - 1u;
    }
    memcpy(P->d->message, full, n);
    P->d->message[n] = '\0';
    return -1;
}

static int fail_tok(parser *P, const tok *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail_tok(parser *P, const tok *t, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): va_start is just above */
    va_end(ap);
    return fail_at(P, t->line, t->col, "%s", what);
}

static int oom(parser *P)
{
    return fail_at(P, P->lx.line, 1, "out of memory");
}

/* A token's text for messages: at most 40 bytes, control bytes as '?'. */
static const char *tok_text(const lexer *lx, const tok *t, char *buf, size_t cap)
{
    if (t->kind == T_EOF) {
        return "end of file";
    }
    size_t n = t->end - t->start;
    if (n > 40) {
        n = 40;
    }
    if (n > cap - 1u) {
        n = cap - 1u;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)lx->s[t->start + i];
        buf[i] = (char)(c < 0x20 || c == 0x7f ? '?' : c);
    }
    buf[n] = '\0';
    return buf;
}

/* ---- lexer ------------------------------------------------------------ */

static int is_ident_start(unsigned char c)
{
    return c == '_' || (unsigned)((c | 0x20) - 'a') < 26u || c >= 0x80;
}
static int is_ident_char(unsigned char c)
{
    return is_ident_start(c) || (unsigned)(c - '0') < 10u || c == ':';
}
static int is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10u;
}

static void newline(lexer *lx, size_t at)
{
    lx->line++;
    lx->line_start = at + 1u;
}

/* Skips blanks and comments. */
static void skip_space(lexer *lx)
{
    while (lx->pos < lx->n) {
        char c = lx->s[lx->pos];
        if (c == '\n') {
            newline(lx, lx->pos);
            lx->pos++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->pos++;
        } else if (c == '#') {
            while (lx->pos < lx->n && lx->s[lx->pos] != '\n') {
                lx->pos++;
            }
        } else {
            break;
        }
    }
}

/* Lexes one number at lx->pos (sign, digits, fraction, exponent, or
 * inf / nan after a sign). Returns 0, or -1 when malformed. */
static int lex_number(lexer *lx)
{
    size_t p = lx->pos;
    const char *s = lx->s;
    if (p < lx->n && (s[p] == '-' || s[p] == '+')) {
        p++;
    }
    if (p + 3 <= lx->n && (memcmp(s + p, "inf", 3) == 0 || memcmp(s + p, "nan", 3) == 0)) {
        p += 3;
        if (p < lx->n && (is_ident_start((unsigned char)s[p]) || is_digit((unsigned char)s[p]))) {
            return -1;
        }
        lx->pos = p;
        return 0;
    }
    size_t digits = 0;
    while (p < lx->n && is_digit((unsigned char)s[p])) {
        p++;
        digits++;
    }
    if (p < lx->n && s[p] == '.') {
        p++;
        while (p < lx->n && is_digit((unsigned char)s[p])) {
            p++;
            digits++;
        }
    }
    if (!digits) {
        return -1;
    }
    if (p < lx->n && (s[p] == 'e' || s[p] == 'E')) {
        p++;
        if (p < lx->n && (s[p] == '-' || s[p] == '+')) {
            p++;
        }
        size_t ed = 0;
        while (p < lx->n && is_digit((unsigned char)s[p])) {
            p++;
            ed++;
        }
        if (!ed) {
            return -1;
        }
    }
    if (p < lx->n && (is_ident_start((unsigned char)s[p]) || s[p] == '.')) {
        return -1;
    }
    lx->pos = p;
    return 0;
}

/* A string, '...', "..." or tripled (C is its quote); t->body spans its contents. */
static int lex_string(parser *P, lexer *lx, tok *t, unsigned char c)
{
    const char *s = lx->s;
    int triple = lx->pos + 2 < lx->n && s[lx->pos + 1] == (char)c && s[lx->pos + 2] == (char)c;
    size_t p = lx->pos + (triple ? 3u : 1u);
    t->body = p;
    for (;;) {
        if (p >= lx->n || (!triple && s[p] == '\n')) {
            return P ? fail_tok(P, t, "unterminated string") : -1;
        }
        if (s[p] == '\\') {
            if (p + 1 < lx->n && s[p + 1] == '\n') {
                newline(lx, p + 1);
            }
            p += 2;
            continue;
        }
        if (s[p] == '\n') {
            newline(lx, p);
        }
        if (s[p] == (char)c && (!triple || (p + 2 < lx->n && s[p + 1] == (char)c && s[p + 2] == (char)c))) {
            break;
        }
        p++;
    }
    t->body_len = p - t->body;
    t->kind = T_STRING;
    t->triple = (uint8_t)triple;
    lx->pos = p + (triple ? 3u : 1u);
    t->end = lx->pos;
    return 0;
}

/* An asset path, @...@ or @@@...@@@. */
static int lex_asset(parser *P, lexer *lx, tok *t)
{
    const char *s = lx->s;
    int triple = lx->pos + 2 < lx->n && s[lx->pos + 1] == '@' && s[lx->pos + 2] == '@';
    size_t p = lx->pos + (triple ? 3u : 1u);
    t->body = p;
    for (;;) {
        if (p >= lx->n || s[p] == '\n') {
            return P ? fail_tok(P, t, "unterminated asset path") : -1;
        }
        if (triple && s[p] == '\\' && p + 3 < lx->n && memcmp(s + p + 1, "@@@", 3) == 0) {
            p += 4;
            continue;
        }
        if (s[p] == '@' && (!triple || (p + 2 < lx->n && s[p + 1] == '@' && s[p + 2] == '@'))) {
            break;
        }
        p++;
    }
    t->body_len = p - t->body;
    if (t->body_len > USD_MAX_PATH) {
        return P ? fail_tok(P, t, "asset path too long (%zu bytes, at most %u)", t->body_len, USD_MAX_PATH) : -1;
    }
    t->kind = T_ASSET;
    t->triple = (uint8_t)triple;
    lx->pos = p + (triple ? 3u : 1u);
    t->end = lx->pos;
    return 0;
}

/* A path, <...> on one line. */
static int lex_path(parser *P, lexer *lx, tok *t)
{
    const char *s = lx->s;
    size_t p = lx->pos + 1;
    t->body = p;
    while (p < lx->n && s[p] != '>' && s[p] != '\n') {
        p++;
    }
    if (p >= lx->n || s[p] != '>') {
        return P ? fail_tok(P, t, "unterminated path") : -1;
    }
    t->body_len = p - t->body;
    if (t->body_len > USD_MAX_PATH) {
        return P ? fail_tok(P, t, "path too long (%zu bytes, at most %u)", t->body_len, USD_MAX_PATH) : -1;
    }
    t->kind = T_PATH;
    lx->pos = p + 1;
    t->end = lx->pos;
    return 0;
}

/* A number; on a malformed one the token spans what looks like it, for the message. */
static int lex_number_tok(parser *P, lexer *lx, tok *t)
{
    const char *s = lx->s;
    if (lex_number(lx) != 0) {
        size_t p = lx->pos;
        while (p < lx->n && (is_ident_char((unsigned char)s[p]) || s[p] == '.' || s[p] == '-' || s[p] == '+')) {
            p++;
        }
        t->end = p;
        t->kind = T_NUMBER;
        char buf[48];
        return P ? fail_tok(P, t, "bad number '%s'", tok_text(lx, t, buf, sizeof buf)) : -1;
    }
    t->kind = T_NUMBER;
    t->end = lx->pos;
    return 0;
}

/* An identifier of at most USD_MAX_IDENTIFIER bytes. */
static int lex_ident(parser *P, lexer *lx, tok *t)
{
    const char *s = lx->s;
    size_t p = lx->pos;
    while (p < lx->n && is_ident_char((unsigned char)s[p])) {
        p++;
    }
    t->kind = T_IDENT;
    t->end = p;
    lx->pos = p;
    if (p - t->start > USD_MAX_IDENTIFIER) {
        return P ? fail_tok(P, t, "identifier too long (%zu bytes, at most %u)", p - t->start, USD_MAX_IDENTIFIER) : -1;
    }
    return 0;
}

/* Whether the byte C at the lexer's position starts a number (a digit, or a sign or dot before a digit, a dot,
 * "inf" or "nan"). */
static int starts_number(const lexer *lx, unsigned char c)
{
    const char *s = lx->s;
    return is_digit(c) || ((c == '-' || c == '+' || c == '.') && lx->pos + 1 < lx->n &&
                           (is_digit((unsigned char)s[lx->pos + 1]) || s[lx->pos + 1] == '.' || s[lx->pos + 1] == 'i' ||
                            s[lx->pos + 1] == 'n'));
}

/* Lexes the next token. Returns 0, or -1 with a message through P (P may
 * be NULL when re-reading a span that was lexed at open: the error cannot
 * happen then, and -1 only stops the reader). */
static int next(parser *P, lexer *lx, tok *t)
{
    skip_space(lx);
    memset(t, 0, sizeof *t);
    t->start = lx->pos;
    t->line = lx->line;
    t->col = (uint32_t)(lx->pos - lx->line_start + 1u);
    if (lx->pos >= lx->n) {
        t->kind = T_EOF;
        t->end = lx->pos;
        return 0;
    }
    const char *s = lx->s;
    unsigned char c = (unsigned char)s[lx->pos];
    if (c == '"' || c == '\'') {
        return lex_string(P, lx, t, c);
    }
    if (c == '@') {
        return lex_asset(P, lx, t);
    }
    if (c == '<') {
        return lex_path(P, lx, t);
    }
    if (starts_number(lx, c)) {
        return lex_number_tok(P, lx, t);
    }
    if (is_ident_start(c)) {
        return lex_ident(P, lx, t);
    }
    if (strchr("()[]{}=,;:.&", (int)c) && c) {
        t->kind = T_PUNCT;
        t->punct = (char)c;
        lx->pos++;
        t->end = lx->pos;
        return 0;
    }
    t->end = lx->pos + 1;
    if (P) {
        if (c < 0x20 || c == 0x7f) {
            return fail_tok(P, t, "unexpected byte 0x%02x", c);
        }
        return fail_tok(P, t, "unexpected character '%c'", c);
    }
    return -1;
}

static int peek(parser *P, tok *t)
{
    lexer save = P->lx;
    int rc = next(P, &P->lx, t);
    P->lx = save;
    return rc;
}

static int tok_is(const lexer *lx, const tok *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == T_IDENT && t->end - t->start == n && memcmp(lx->s + t->start, word, n) == 0;
}

static int is_punct(const tok *t, char c)
{
    return t->kind == T_PUNCT && t->punct == c;
}

static int expect_punct(parser *P, char c, const char *after)
{
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (!is_punct(&t, c)) {
        char buf[48];
        return fail_tok(P, &t, "expected '%c' %s, found '%s'", c, after, tok_text(&P->lx, &t, buf, sizeof buf));
    }
    return 0;
}

static int enter(parser *P, const tok *t)
{
    if (++P->depth > USD_MAX_DEPTH) {
        return fail_tok(P, t, "nesting too deep (more than %u levels)", USD_MAX_DEPTH);
    }
    return 0;
}

/* ---- values: skipping and spans --------------------------------------- */

/* Skips one value starting with token t (already read): a scalar token,
 * or a bracketed tuple/list/dictionary with anything balanced inside. An
 * asset may be followed by a path (a reference) and a parenthesised layer
 * offset. Sets *end to the byte after the value. */
static int skip_value(parser *P, const tok *t, size_t *end)
{
    char buf[48];
    if (t->kind == T_PUNCT && (t->punct == '(' || t->punct == '[' || t->punct == '{')) {
        char stack[USD_MAX_DEPTH + 1];
        unsigned sp = 0;
        unsigned base = P->depth;
        if (enter(P, t) != 0) {
            return -1;
        }
        stack[sp++] = (char)(t->punct == '(' ? ')' : t->punct == '[' ? ']' : '}');
        while (sp) {
            tok u;
            if (next(P, &P->lx, &u) != 0) {
                return -1;
            }
            if (u.kind == T_EOF) {
                return fail_tok(P, t, "unterminated '%c'", t->punct);
            }
            if (u.kind != T_PUNCT) {
                continue;
            }
            if (u.punct == '(' || u.punct == '[' || u.punct == '{') {
                if (enter(P, &u) != 0) {
                    return -1;
                }
                stack[sp++] = (char)(u.punct == '(' ? ')' : u.punct == '[' ? ']' : '}');
            } else if (u.punct == ')' || u.punct == ']' || u.punct == '}') {
                if (u.punct != stack[sp - 1]) {
                    return fail_tok(P, &u, "unexpected '%c' (expected '%c')", u.punct, stack[sp - 1]);
                }
                sp--;
                P->depth--;
            }
        }
        P->depth = base;
        *end = P->lx.pos;
        return 0;
    }
    if (t->kind == T_NUMBER || t->kind == T_STRING || t->kind == T_PATH || t->kind == T_IDENT) {
        *end = t->end;
        return 0;
    }
    if (t->kind == T_ASSET) {
        *end = t->end;
        tok u;
        if (peek(P, &u) != 0) {
            return -1;
        }
        if (u.kind == T_PATH) {
            next(P, &P->lx, &u);
            *end = u.end;
        }
        return 0;
    }
    return fail_tok(P, t, "expected a value, found '%s'", tok_text(&P->lx, t, buf, sizeof buf));
}

/* Reads a value after '=': None gives a NONE ref; anything else its span. */
static int read_value_ref(parser *P, usd_value_ref *v)
{
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    memset(v, 0, sizeof *v);
    v->c = t.line;
    v->a = t.start;
    if (tok_is(&P->lx, &t, "None")) {
        v->flags = USD_VALUE_NONE;
        v->b = t.end;
        return 0;
    }
    size_t end = 0;
    if (skip_value(P, &t, &end) != 0) {
        return -1;
    }
    v->b = end;
    return 0;
}

/* ---- small value parsers used while building -------------------------- */

/* Decodes a string token's escapes into out (cap bytes incl. NUL). Returns
 * the decoded length, or SIZE_MAX when it does not fit. */
static size_t decode_string(const char *s, size_t n, int asset, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (asset) {
            if (c == '\\' && i + 3 < n && memcmp(s + i + 1, "@@@", 3) == 0) {
                i += 3;
                if (o + 3 >= cap) {
                    return SIZE_MAX;
                }
                memcpy(out + o, "@@@", 3);
                o += 3;
                continue;
            }
        } else if (c == '\\' && i + 1 < n) {
            char e = s[++i];
            switch (e) {
            case 'n':
                c = '\n';
                break;
            case 't':
                c = '\t';
                break;
            case 'r':
                c = '\r';
                break;
            case 'a':
                c = '\a';
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case 'v':
                c = '\v';
                break;
            case '\n':
                continue; /* a line continuation */
            case 'x': {
                unsigned v = 0, k = 0;
                while (k < 2 && i + 1 < n) {
                    char h = s[i + 1];
                    unsigned dgt = is_digit((unsigned char)h)               ? (unsigned)(h - '0')
                                   : (h | 0x20) >= 'a' && (h | 0x20) <= 'f' ? (unsigned)((h | 0x20) - 'a' + 10)
                                                                            : 99u;
                    if (dgt > 15) {
                        break;
                    }
                    v = v * 16u + dgt;
                    i++;
                    k++;
                }
                c = (char)v;
                break;
            }
            default:
                if (e >= '0' && e <= '7') {
                    unsigned v = (unsigned)(e - '0'), k = 1;
                    while (k < 3 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7') {
                        v = v * 8u + (unsigned)(s[++i] - '0');
                        k++;
                    }
                    c = (char)v;
                } else {
                    c = e; /* \\ \" \' and anything else: the character */
                }
            }
        }
        if (o + 1 >= cap) {
            return SIZE_MAX;
        }
        out[o++] = c;
    }
    if (cap) {
        out[o] = '\0';
    }
    return o;
}

/* A string/asset token's decoded text, interned. */
static const char *intern_tok(parser *P, const tok *t, size_t *len)
{
    char buf[USD_MAX_PATH + 1];
    const char *body = P->lx.s + t->body;
    if (t->kind == T_STRING || t->kind == T_ASSET) {
        size_t n = decode_string(body, t->body_len, t->kind == T_ASSET, buf, sizeof buf);
        if (n == SIZE_MAX) {
            fail_tok(P, t, "string too long (more than %u bytes)", USD_MAX_PATH);
            return NULL;
        }
        const char *r = usd_layer_intern(P->L, buf, n);
        if (!r) {
            oom(P);
        }
        if (len) {
            *len = n;
        }
        return r;
    }
    const char *r = usd_layer_intern(P->L, body, t->body_len);
    if (!r) {
        oom(P);
    }
    if (len) {
        *len = t->body_len;
    }
    return r;
}

static int parse_number_tok(const lexer *lx, const tok *t, double *out)
{
    char buf[64];
    size_t n = t->end - t->start;
    if (n >= sizeof buf) {
        return -1;
    }
    memcpy(buf, lx->s + t->start, n);
    buf[n] = '\0';
    const char *b = buf;
    int neg = 0;
    if (*b == '-' || *b == '+') {
        neg = *b == '-';
        b++;
    }
    if (strcmp(b, "inf") == 0) {
        *out = neg ? -INFINITY : INFINITY;
        return 0;
    }
    if (strcmp(b, "nan") == 0) {
        *out = NAN;
        return 0;
    }
    char *e = NULL;
    *out = strtod(buf, &e);
    return e && *e == '\0' ? 0 : -1;
}

/* A value token as a number: numbers, inf/nan identifiers, true/false. */
static int number_value(const lexer *lx, const tok *t, double *out)
{
    if (t->kind == T_NUMBER) {
        return parse_number_tok(lx, t, out);
    }
    if (tok_is(lx, t, "inf")) {
        *out = INFINITY;
        return 0;
    }
    if (tok_is(lx, t, "nan")) {
        *out = NAN;
        return 0;
    }
    if (tok_is(lx, t, "true")) {
        *out = 1;
        return 0;
    }
    if (tok_is(lx, t, "false")) {
        *out = 0;
        return 0;
    }
    return -1;
}

static int parse_bool(parser *P, int8_t *out)
{
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    double v;
    if ((t.kind == T_NUMBER || tok_is(&P->lx, &t, "true") || tok_is(&P->lx, &t, "false")) &&
        number_value(&P->lx, &t, &v) == 0 && (v == 0 || v == 1)) {
        *out = (int8_t)(v != 0);
        return 0;
    }
    char buf[48];
    return fail_tok(P, &t, "expected a bool, found '%s'", tok_text(&P->lx, &t, buf, sizeof buf));
}

static int parse_string(parser *P, const char **out, size_t *len)
{
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (t.kind != T_STRING) {
        char buf[48];
        return fail_tok(P, &t, "expected a string, found '%s'", tok_text(&P->lx, &t, buf, sizeof buf));
    }
    *out = intern_tok(P, &t, len);
    return *out ? 0 : -1;
}

/* ---- list ops --------------------------------------------------------- */

static int qualifier(const lexer *lx, const tok *t, usd_listop_part *part)
{
    if (tok_is(lx, t, "prepend")) {
        *part = USD_LISTOP_PREPEND;
    } else if (tok_is(lx, t, "append")) {
        *part = USD_LISTOP_APPEND;
    } else if (tok_is(lx, t, "delete")) {
        *part = USD_LISTOP_DELETE;
    } else if (tok_is(lx, t, "add")) {
        *part = USD_LISTOP_ADD;
    } else if (tok_is(lx, t, "reorder")) {
        *part = USD_LISTOP_REORDER;
    } else {
        return 0;
    }
    return 1;
}

/* (offset = 1; scale = 2; customData = {...}) after a reference. */
static int parse_ref_meta(parser *P, double *offset, double *scale)
{
    for (;;) {
        tok t;
        if (next(P, &P->lx, &t) != 0) {
            return -1;
        }
        if (is_punct(&t, ')')) {
            return 0;
        }
        if (is_punct(&t, ';')) {
            continue;
        }
        if (t.kind != T_IDENT) {
            char buf[48];
            return fail_tok(P, &t, "expected a reference field, found '%s'", tok_text(&P->lx, &t, buf, sizeof buf));
        }
        int is_off = tok_is(&P->lx, &t, "offset"), is_scale = tok_is(&P->lx, &t, "scale");
        if (expect_punct(P, '=', "after a reference field") != 0) {
            return -1;
        }
        tok v;
        if (next(P, &P->lx, &v) != 0) {
            return -1;
        }
        if (is_off || is_scale) {
            double x;
            if (v.kind != T_NUMBER || parse_number_tok(&P->lx, &v, &x) != 0) {
                return fail_tok(P, &v, "expected a number for the layer %s", is_off ? "offset" : "scale");
            }
            *(is_off ? offset : scale) = x;
        } else {
            size_t end = 0;
            if (skip_value(P, &v, &end) != 0) {
                return -1;
            }
        }
    }
}

typedef enum item_kind { ITEM_REF, ITEM_PATH, ITEM_TOKEN } item_kind;

static int parse_one_item(parser *P, usd_prim *prim, usd_field field, usd_listop_part part, item_kind kind,
                          const tok *t)
{
    char buf[48];
    const char *asset = "", *path = "";
    size_t alen = 0, plen = 0;
    double offset = 0, scale = 1;
    if (kind == ITEM_TOKEN) {
        if (t->kind != T_STRING && t->kind != T_IDENT) {
            return fail_tok(P, t, "expected a string, found '%s'", tok_text(&P->lx, t, buf, sizeof buf));
        }
        if (t->kind == T_IDENT) {
            path = P->lx.s + t->start;
            plen = t->end - t->start;
        } else if (!(path = intern_tok(P, t, &plen))) {
            return -1;
        }
    } else if (kind == ITEM_PATH) {
        if (t->kind != T_PATH) {
            return fail_tok(P, t, "expected a path, found '%s'", tok_text(&P->lx, t, buf, sizeof buf));
        }
        path = P->lx.s + t->body;
        plen = t->body_len;
    } else {
        if (t->kind == T_ASSET) {
            if (!(asset = intern_tok(P, t, &alen))) {
                return -1;
            }
            tok u;
            if (peek(P, &u) != 0) {
                return -1;
            }
            if (u.kind == T_PATH) {
                next(P, &P->lx, &u);
                path = P->lx.s + u.body;
                plen = u.body_len;
            }
        } else if (t->kind == T_PATH) {
            path = P->lx.s + t->body;
            plen = t->body_len;
        } else {
            return fail_tok(P, t, "expected an asset path or a path, found '%s'", tok_text(&P->lx, t, buf, sizeof buf));
        }
        tok u;
        if (peek(P, &u) != 0) {
            return -1;
        }
        if (is_punct(&u, '(')) {
            next(P, &P->lx, &u);
            if (enter(P, &u) != 0 || parse_ref_meta(P, &offset, &scale) != 0) {
                return -1;
            }
            P->depth--;
        }
    }
    if (usd_build_listop_item(P->L, prim, field, part, asset, alen, path, plen, offset, scale) != 0) {
        return oom(P);
    }
    return 0;
}

/* The value of a list-op field: None, one item, or [items]. */
static int parse_items(parser *P, usd_prim *prim, usd_field field, usd_listop_part part, item_kind kind)
{
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (part == USD_LISTOP_EXPLICIT) {
        usd_build_listop_explicit(prim, field);
    }
    if (tok_is(&P->lx, &t, "None")) {
        return 0;
    }
    if (!is_punct(&t, '[')) {
        return parse_one_item(P, prim, field, part, kind, &t);
    }
    if (enter(P, &t) != 0) {
        return -1;
    }
    for (;;) {
        tok u;
        if (next(P, &P->lx, &u) != 0) {
            return -1;
        }
        if (is_punct(&u, ']')) {
            break;
        }
        if (parse_one_item(P, prim, field, part, kind, &u) != 0) {
            return -1;
        }
        if (next(P, &P->lx, &u) != 0) {
            return -1;
        }
        if (is_punct(&u, ']')) {
            break;
        }
        if (!is_punct(&u, ',')) {
            char buf[48];
            return fail_tok(P, &u, "expected ',' or ']' in a list, found '%s'", tok_text(&P->lx, &u, buf, sizeof buf));
        }
    }
    P->depth--;
    return 0;
}

/* variants = { string set = "variant" ... } */
static int parse_selections(parser *P, usd_prim *prim)
{
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (!is_punct(&t, '{')) {
        return fail_tok(P, &t, "expected '{' for the variants dictionary");
    }
    if (enter(P, &t) != 0) {
        return -1;
    }
    for (;;) {
        tok u;
        if (next(P, &P->lx, &u) != 0) {
            return -1;
        }
        if (is_punct(&u, '}')) {
            break;
        }
        if (is_punct(&u, ';') || is_punct(&u, ',')) {
            continue;
        }
        char buf[48];
        if (u.kind != T_IDENT) {
            return fail_tok(P, &u, "expected a type in the variants dictionary, found '%s'",
                            tok_text(&P->lx, &u, buf, sizeof buf));
        }
        tok key;
        if (next(P, &P->lx, &key) != 0) {
            return -1;
        }
        if (key.kind != T_IDENT && key.kind != T_STRING) {
            return fail_tok(P, &key, "expected a variant set name, found '%s'",
                            tok_text(&P->lx, &key, buf, sizeof buf));
        }
        size_t kl = 0;
        const char *k = key.kind == T_STRING ? intern_tok(P, &key, &kl) : P->lx.s + key.start;
        if (!k) {
            return -1;
        }
        if (key.kind == T_IDENT) {
            kl = key.end - key.start;
        }
        if (expect_punct(P, '=', "after a variant set name") != 0) {
            return -1;
        }
        const char *v = NULL;
        size_t vl = 0;
        if (parse_string(P, &v, &vl) != 0) {
            return -1;
        }
        if (usd_build_selection(P->L, prim, k, kl, v, vl) != 0) {
            return oom(P);
        }
    }
    P->depth--;
    return 0;
}

/* ---- metadata blocks -------------------------------------------------- */

/* The list-op metadata of a prim: key, the field it fills and what its items are. */
static const struct {
    const char *key;
    usd_field field;
    item_kind kind;
} prim_list_meta[] = {
    {"references", USD_FIELD_REFERENCES, ITEM_REF},    {"payload", USD_FIELD_PAYLOAD, ITEM_REF},
    {"inherits", USD_FIELD_INHERITS, ITEM_PATH},       {"specializes", USD_FIELD_SPECIALIZES, ITEM_PATH},
    {"apiSchemas", USD_FIELD_API_SCHEMAS, ITEM_TOKEN}, {"variantSets", USD_FIELD_VARIANT_SET_NAMES, ITEM_TOKEN},
};

/* A prim's metadata value after "KEY =": 1 read, 0 not a prim key (the value is left unread), -1 failed. */
static int prim_meta(parser *P, usd_prim *prim, const tok *key, usd_listop_part part)
{
    const lexer *lx = &P->lx;
    for (size_t i = 0; i < sizeof prim_list_meta / sizeof prim_list_meta[0]; i++) {
        if (tok_is(lx, key, prim_list_meta[i].key)) {
            return parse_items(P, prim, prim_list_meta[i].field, part, prim_list_meta[i].kind) == 0 ? 1 : -1;
        }
    }
    if (tok_is(lx, key, "variants")) {
        return parse_selections(P, prim) == 0 ? 1 : -1;
    }
    if (tok_is(lx, key, "instanceable")) {
        return parse_bool(P, &prim->instanceable) == 0 ? 1 : -1;
    }
    if (tok_is(lx, key, "active")) {
        return parse_bool(P, &prim->active) == 0 ? 1 : -1;
    }
    if (tok_is(lx, key, "hidden")) {
        return parse_bool(P, &prim->hidden) == 0 ? 1 : -1;
    }
    if (tok_is(lx, key, "kind")) {
        const char *k = NULL;
        size_t kl = 0;
        int handled = parse_string(P, &k, &kl) == 0 ? 1 : -1;
        if (handled > 0) {
            prim->kind = k;
        }
        return handled;
    }
    return 0;
}

/* A property's metadata value after "KEY =": 1 read, 0 not a property key, -1 failed. */
static int prop_meta(parser *P, usd_prop *prop, const tok *key)
{
    const lexer *lx = &P->lx;
    if (tok_is(lx, key, "interpolation")) {
        const char *k = NULL;
        size_t kl = 0;
        int handled = parse_string(P, &k, &kl) == 0 ? 1 : -1;
        if (handled > 0) {
            prop->interpolation = k;
        }
        return handled;
    }
    if (tok_is(lx, key, "elementSize")) {
        char buf[48];
        tok v;
        double x;
        if (next(P, &P->lx, &v) != 0) {
            return -1;
        }
        if (v.kind != T_NUMBER || parse_number_tok(&P->lx, &v, &x) != 0 || !(x >= 1 && x <= 1e9) || x != floor(x)) {
            return fail_tok(P, &v, "elementSize must be a positive integer, found '%s'",
                            tok_text(&P->lx, &v, buf, sizeof buf));
        }
        prop->element_size = (uint32_t)x;
        return 1;
    }
    return 0;
}

/* One entry of a layer's subLayers list after its opening '[' (or a ','): the asset path and its optional
 * (offset, scale), then ',' or ']'. 1 at the closing ']', 0 after a ',', -1 failed. */
static int sublayer_item(parser *P, tok *u)
{
    char buf[48];
    if (next(P, &P->lx, u) != 0) {
        return -1;
    }
    if (is_punct(u, ']')) {
        return 1;
    }
    if (u->kind != T_ASSET) {
        return fail_tok(P, u, "expected an asset path in subLayers, found '%s'", tok_text(&P->lx, u, buf, sizeof buf));
    }
    size_t al;
    const char *a = intern_tok(P, u, &al);
    if (!a) {
        return -1;
    }
    if (usd_build_sublayer(P->L, a, al) != 0) {
        return oom(P);
    }
    if (next(P, &P->lx, u) != 0) {
        return -1;
    }
    if (is_punct(u, '(')) {
        double off = 0, sc = 1;
        if (enter(P, u) != 0 || parse_ref_meta(P, &off, &sc) != 0) {
            return -1;
        }
        P->depth--;
        if (next(P, &P->lx, u) != 0) {
            return -1;
        }
    }
    if (is_punct(u, ']')) {
        return 1;
    }
    if (!is_punct(u, ',')) {
        return fail_tok(P, u, "expected ',' or ']' in subLayers, found '%s'", tok_text(&P->lx, u, buf, sizeof buf));
    }
    return 0;
}

/* A layer's subLayers value: a list of asset paths, each with an optional (offset, scale). 0 or -1. */
static int parse_sublayers(parser *P)
{
    tok v;
    if (next(P, &P->lx, &v) != 0) {
        return -1;
    }
    if (!is_punct(&v, '[')) {
        return fail_tok(P, &v, "expected '[' for subLayers");
    }
    if (enter(P, &v) != 0) {
        return -1;
    }
    for (;;) {
        tok u;
        int rc = sublayer_item(P, &u);
        if (rc < 0) {
            return -1;
        }
        if (rc > 0) {
            break;
        }
    }
    P->depth--;
    return 0;
}

/* After "relocates =": { <source>: <target>, ... } into the layer's
 * relocates. */
static int parse_relocates(parser *P)
{
    char buf[48];
    tok open;
    if (next(P, &P->lx, &open) != 0) {
        return -1;
    }
    if (!is_punct(&open, '{')) {
        return fail_tok(P, &open, "expected '{' after relocates =, found '%s'",
                        tok_text(&P->lx, &open, buf, sizeof buf));
    }
    for (;;) {
        tok src, dst;
        if (next(P, &P->lx, &src) != 0) {
            return -1;
        }
        if (is_punct(&src, '}')) {
            return 0;
        }
        if (src.kind != T_PATH) {
            return fail_tok(P, &src, "expected a source path in relocates, found '%s'",
                            tok_text(&P->lx, &src, buf, sizeof buf));
        }
        if (expect_punct(P, ':', "after a relocate's source path") != 0 || next(P, &P->lx, &dst) != 0) {
            return -1;
        }
        if (dst.kind != T_PATH) {
            return fail_tok(P, &dst, "expected a target path in relocates, found '%s'",
                            tok_text(&P->lx, &dst, buf, sizeof buf));
        }
        if (usd_build_relocate(P->L, P->lx.s + src.body, src.body_len, P->lx.s + dst.body, dst.body_len) != 0) {
            return oom(P);
        }
        tok sep;
        if (next(P, &P->lx, &sep) != 0) {
            return -1;
        }
        if (is_punct(&sep, '}')) {
            return 0;
        }
        if (!is_punct(&sep, ',')) {
            return fail_tok(P, &sep, "expected ',' or '}' in relocates, found '%s'",
                            tok_text(&P->lx, &sep, buf, sizeof buf));
        }
    }
}

/* A layer's metadata value after "KEY =": 1 read, 0 not a layer key, -1 failed. */
static int layer_meta(parser *P, const tok *key)
{
    const lexer *lx = &P->lx;
    if (tok_is(lx, key, "defaultPrim")) {
        const char *k = NULL;
        size_t kl = 0;
        return parse_string(P, &k, &kl) == 0 && usd_build_default_prim(P->L, k, kl) == 0 ? 1 : -1;
    }
    if (tok_is(lx, key, "upAxis")) {
        const char *k = NULL;
        size_t kl = 0;
        return parse_string(P, &k, &kl) == 0 && usd_build_up_axis(P->L, k, kl) == 0 ? 1 : -1;
    }
    if (tok_is(lx, key, "metersPerUnit")) {
        char buf[48];
        tok v;
        double x;
        if (next(P, &P->lx, &v) != 0) {
            return -1;
        }
        if (v.kind != T_NUMBER || parse_number_tok(&P->lx, &v, &x) != 0 || !(x > 0) || isinf(x)) {
            return fail_tok(P, &v, "metersPerUnit must be a positive number, found '%s'",
                            tok_text(&P->lx, &v, buf, sizeof buf));
        }
        usd_build_meters_per_unit(P->L, x);
        return 1;
    }
    if (tok_is(lx, key, "subLayers")) {
        /* parsed as references into a scratch prim-less list */
        return parse_sublayers(P) == 0 ? 1 : -1;
    }
    if (tok_is(lx, key, "relocates")) {
        return parse_relocates(P) == 0 ? 1 : -1;
    }
    return 0;
}

typedef enum meta_owner { META_LAYER, META_PRIM, META_PROP } meta_owner;

/* After '(': items until ')'. */
static int parse_meta(parser *P, meta_owner owner, usd_prim *prim, usd_prop *prop, const tok *open)
{
    if (enter(P, open) != 0) {
        return -1;
    }
    char buf[48];
    for (;;) {
        tok t;
        if (next(P, &P->lx, &t) != 0) {
            return -1;
        }
        if (is_punct(&t, ')')) {
            break;
        }
        if (is_punct(&t, ';')) {
            continue;
        }
        if (t.kind == T_EOF) {
            return fail_tok(P, open, "unterminated '('");
        }
        if (t.kind == T_STRING) {
            continue; /* doc */
        }
        usd_listop_part part = USD_LISTOP_EXPLICIT;
        tok key = t;
        if (t.kind == T_IDENT && qualifier(&P->lx, &t, &part)) {
            if (next(P, &P->lx, &key) != 0) {
                return -1;
            }
        }
        if (key.kind != T_IDENT) {
            return fail_tok(P, &key, "expected a metadata name, found '%s'", tok_text(&P->lx, &key, buf, sizeof buf));
        }
        if (expect_punct(P, '=', "after a metadata name") != 0) {
            return -1;
        }
        int handled;
        if (owner == META_PRIM) {
            handled = prim_meta(P, prim, &key, part);
        } else if (owner == META_PROP) {
            handled = prop_meta(P, prop, &key);
        } else {
            handled = layer_meta(P, &key);
        }
        if (handled < 0) {
            return -1;
        }
        if (!handled) {
            tok v;
            size_t end = 0;
            if (next(P, &P->lx, &v) != 0 || skip_value(P, &v, &end) != 0) {
                return -1;
            }
        }
    }
    P->depth--;
    return 0;
}

/* ---- prims and properties --------------------------------------------- */

static int parse_body(parser *P, usd_prim *prim, const tok *open);

static int valid_name(const char *s, size_t n)
{
    if (n == 0 || !is_ident_start((unsigned char)s[0])) {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if (!is_ident_start((unsigned char)s[i]) && !is_digit((unsigned char)s[i])) {
            return 0;
        }
    }
    return 1;
}

/* A property name: identifiers joined by ':' (no empty part). */
static int valid_prop_name(const char *s, size_t n)
{
    size_t part = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == ':') {
            if (!valid_name(s + i - part, part)) {
                return 0;
            }
            part = 0;
        } else {
            part++;
        }
    }
    return 1;
}

static int parse_prim(parser *P, usd_prim *parent, usd_specifier spec, const tok *spec_tok)
{
    char buf[48];
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    const char *type = NULL;
    size_t type_len = 0;
    if (t.kind == T_IDENT) {
        type = P->lx.s + t.start;
        type_len = t.end - t.start;
        if (next(P, &P->lx, &t) != 0) {
            return -1;
        }
    }
    if (t.kind != T_STRING) {
        return fail_tok(P, &t, "expected a prim name in quotes, found '%s'", tok_text(&P->lx, &t, buf, sizeof buf));
    }
    const char *name = P->lx.s + t.body;
    size_t name_len = t.body_len;
    if (name_len > USD_MAX_IDENTIFIER) {
        return fail_tok(P, &t, "identifier too long (%zu bytes, at most %u)", name_len, USD_MAX_IDENTIFIER);
    }
    if (!valid_name(name, name_len)) {
        return fail_tok(P, &t, "bad prim name '%.*s'", (int)(name_len > 64 ? 64 : name_len), name);
    }
    if (usd_build_find_child(parent, name, name_len)) {
        return fail_tok(P, &t, "prim '%.*s' defined twice", (int)name_len, name);
    }
    if (enter(P, spec_tok) != 0) {
        return -1;
    }
    usd_prim *prim = usd_build_prim(P->L, parent, name, name_len, spec, type, type_len);
    if (!prim) {
        return oom(P);
    }
    prim->line = spec_tok->line;
    const usd_prim *saved = P->prim;
    P->prim = prim;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (is_punct(&t, '(')) {
        if (parse_meta(P, META_PRIM, prim, NULL, &t) != 0) {
            return -1;
        }
        if (next(P, &P->lx, &t) != 0) {
            return -1;
        }
    }
    if (!is_punct(&t, '{')) {
        return fail_tok(P, &t, "expected '{' to open prim '%.*s', found '%s'", (int)name_len, name,
                        tok_text(&P->lx, &t, buf, sizeof buf));
    }
    if (parse_body(P, prim, &t) != 0) {
        return -1;
    }
    P->prim = saved;
    P->depth--;
    return 0;
}

/* variantSet "name" = { "a" (meta) { body } ... } */
static int parse_variant_set(parser *P, usd_prim *prim, const tok *kw)
{
    char buf[48];
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (t.kind != T_STRING) {
        return fail_tok(P, &t, "expected a variant set name in quotes, found '%s'",
                        tok_text(&P->lx, &t, buf, sizeof buf));
    }
    const char *set = P->lx.s + t.body;
    size_t set_len = t.body_len;
    if (!valid_name(set, set_len)) {
        return fail_tok(P, &t, "bad variant set name '%.*s'", (int)(set_len > 64 ? 64 : set_len), set);
    }
    if (expect_punct(P, '=', "after the variant set name") != 0 ||
        expect_punct(P, '{', "to open the variant set") != 0) {
        return -1;
    }
    if (enter(P, kw) != 0) {
        return -1;
    }
    if (usd_build_variant_set(P->L, prim, set, set_len) != 0) {
        return oom(P);
    }
    for (;;) {
        if (next(P, &P->lx, &t) != 0) {
            return -1;
        }
        if (is_punct(&t, '}')) {
            break;
        }
        if (t.kind != T_STRING) {
            return fail_tok(P, &t, "expected a variant name in quotes, found '%s'",
                            tok_text(&P->lx, &t, buf, sizeof buf));
        }
        if (t.body_len == 0 || t.body_len > USD_MAX_IDENTIFIER) {
            return fail_tok(P, &t, "bad variant name (%zu bytes)", t.body_len);
        }
        if (usd_build_find_variant(prim, set, set_len, P->lx.s + t.body, t.body_len)) {
            return fail_tok(P, &t, "variant '%.*s' defined twice", (int)t.body_len, P->lx.s + t.body);
        }
        usd_prim *v = usd_build_variant(P->L, prim, set, set_len, P->lx.s + t.body, t.body_len);
        if (!v) {
            return oom(P);
        }
        v->line = t.line;
        const usd_prim *saved = P->prim;
        P->prim = v;
        tok u;
        if (next(P, &P->lx, &u) != 0) {
            return -1;
        }
        if (is_punct(&u, '(')) {
            if (parse_meta(P, META_PRIM, v, NULL, &u) != 0) {
                return -1;
            }
            if (next(P, &P->lx, &u) != 0) {
                return -1;
            }
        }
        if (!is_punct(&u, '{')) {
            return fail_tok(P, &u, "expected '{' to open variant '%.*s', found '%s'", (int)t.body_len, P->lx.s + t.body,
                            tok_text(&P->lx, &u, buf, sizeof buf));
        }
        if (parse_body(P, v, &u) != 0) {
            return -1;
        }
        P->prim = saved;
    }
    P->depth--;
    return 0;
}

/* .timeSamples = { t: v, ... } */
static int parse_samples(parser *P, usd_prop *prop)
{
    tok t;
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (!is_punct(&t, '{')) {
        return fail_tok(P, &t, "expected '{' for timeSamples");
    }
    if (enter(P, &t) != 0) {
        return -1;
    }
    char buf[48];
    for (;;) {
        tok u;
        if (next(P, &P->lx, &u) != 0) {
            return -1;
        }
        if (is_punct(&u, '}')) {
            break;
        }
        if (is_punct(&u, ',')) {
            continue;
        }
        double time;
        if (u.kind != T_NUMBER || parse_number_tok(&P->lx, &u, &time) != 0 || time != time) {
            return fail_tok(P, &u, "expected a time code, found '%s'", tok_text(&P->lx, &u, buf, sizeof buf));
        }
        if (expect_punct(P, ':', "after a time code") != 0) {
            return -1;
        }
        usd_value_ref v;
        if (read_value_ref(P, &v) != 0) {
            return -1;
        }
        if (usd_build_sample(P->L, prop, time, &v) != 0) {
            return oom(P);
        }
    }
    P->depth--;
    return 0;
}

/* Targets after '=': None, a path, or [paths]. */
static int parse_targets(parser *P, usd_prop *prop, int keep)
{
    tok t;
    char buf[48];
    if (next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (tok_is(&P->lx, &t, "None")) {
        return 0;
    }
    int list = is_punct(&t, '[');
    if (list && enter(P, &t) != 0) {
        return -1;
    }
    for (;;) {
        tok u = t;
        if (list && next(P, &P->lx, &u) != 0) {
            return -1;
        }
        if (list && is_punct(&u, ']')) {
            break;
        }
        if (u.kind != T_PATH) {
            return fail_tok(P, &u, "expected a target path, found '%s'", tok_text(&P->lx, &u, buf, sizeof buf));
        }
        if (keep && usd_build_target(P->L, prop, P->lx.s + u.body, u.body_len) != 0) {
            return oom(P);
        }
        if (!list) {
            return 0;
        }
        if (next(P, &P->lx, &u) != 0) {
            return -1;
        }
        if (is_punct(&u, ']')) {
            break;
        }
        if (!is_punct(&u, ',')) {
            return fail_tok(P, &u, "expected ',' or ']' in targets, found '%s'", tok_text(&P->lx, &u, buf, sizeof buf));
        }
    }
    P->depth--;
    return 0;
}

/* Which of a property's fields a statement sets: .default (also the plain form), .timeSamples, .connect or
 * .spline. */
typedef enum prop_field { F_DEFAULT, F_SAMPLES, F_CONNECT, F_SPLINE } prop_field;

/* The ".field" after a property name NT, if any (the '.' must touch the name); F_DEFAULT without one.
 * 0, or -1 with a message (a field that is unknown, or not one a relationship has). */
static int parse_prop_field(parser *P, const tok *nt, int rel, prop_field *field)
{
    char buf[48];
    tok u;
    *field = F_DEFAULT;
    if (peek(P, &u) != 0) {
        return -1;
    }
    if (is_punct(&u, '.') && u.start == nt->end) {
        next(P, &P->lx, &u);
        tok f;
        if (next(P, &P->lx, &f) != 0) {
            return -1;
        }
        if (tok_is(&P->lx, &f, "timeSamples") && !rel) {
            *field = F_SAMPLES;
        } else if (tok_is(&P->lx, &f, "connect") && !rel) {
            *field = F_CONNECT;
        } else if (tok_is(&P->lx, &f, "default")) {
            *field = F_DEFAULT;
        } else if (tok_is(&P->lx, &f, "spline") && !rel) {
            *field = F_SPLINE;
        } else {
            return fail_tok(P, &f, "unknown property field '%s'", tok_text(&P->lx, &f, buf, sizeof buf));
        }
    }
    return 0;
}

/* The property NAME of PRIM, made on first sight (TYPE is NULL for a relationship); a second declaration must
 * agree in kind and type. NULL with a message on a mismatch or out of memory. */
static usd_prop *declare_prop(parser *P, usd_prim *prim, const tok *nt, int rel, const char *type, size_t type_len,
                              uint32_t line)
{
    const char *name = P->lx.s + nt->start;
    size_t name_len = nt->end - nt->start;
    usd_prop *prop = usd_build_find_prop(prim, name, name_len);
    if (prop) {
        if ((prop->kind == USD_PROP_RELATIONSHIP) != rel ||
            (!rel && (strlen(prop->type_name) != type_len || memcmp(prop->type_name, type, type_len) != 0))) {
            fail_tok(P, nt, "property '%.*s' declared again with another type", (int)name_len, name);
            return NULL;
        }
    } else {
        prop = usd_build_prop(P->L, prim, name, name_len, rel ? USD_PROP_RELATIONSHIP : USD_PROP_ATTRIBUTE, type,
                              type_len);
        if (!prop) {
            oom(P);
            return NULL;
        }
        prop->line = line;
    }
    return prop;
}

/* The value after "NAME =" for FIELD of PROP (NT names it in messages): time samples, targets (a relationship
 * or .connect; PART delete lists them without adding), a spline (skipped) or the one default value. 0 or -1. */
static int parse_prop_value(parser *P, usd_prop *prop, prop_field field, int rel, usd_listop_part part, const tok *nt)
{
    if (field == F_SAMPLES) {
        if (parse_samples(P, prop) != 0) {
            return -1;
        }
    } else if (rel || field == F_CONNECT) {
        if (parse_targets(P, prop, part != USD_LISTOP_DELETE) != 0) {
            return -1;
        }
    } else if (field == F_SPLINE) {
        tok v;
        size_t end = 0;
        if (next(P, &P->lx, &v) != 0 || skip_value(P, &v, &end) != 0) {
            return -1;
        }
    } else {
        usd_value_ref v;
        if (read_value_ref(P, &v) != 0) {
            return -1;
        }
        if (prop->has_default) {
            return fail_tok(P, nt, "property '%.*s' has two default values", (int)(nt->end - nt->start),
                            P->lx.s + nt->start);
        }
        usd_build_default(prop, &v);
    }
    return 0;
}

static int parse_property(parser *P, usd_prim *prim, tok t)
{
    char buf[48];
    usd_listop_part part = USD_LISTOP_EXPLICIT;
    int custom = 0, uniform = 0;
    uint32_t line = t.line;
    const tok qual = t;
    if (qualifier(&P->lx, &t, &part) && next(P, &P->lx, &t) != 0) {
        return -1;
    }
    if (tok_is(&P->lx, &t, "custom")) {
        custom = 1;
        if (next(P, &P->lx, &t) != 0) {
            return -1;
        }
    }
    if (tok_is(&P->lx, &t, "uniform") || tok_is(&P->lx, &t, "varying") || tok_is(&P->lx, &t, "config")) {
        uniform = tok_is(&P->lx, &t, "uniform");
        if (next(P, &P->lx, &t) != 0) {
            return -1;
        }
    }
    if (t.kind != T_IDENT) {
        return fail_tok(P, &t, "expected a property, prim or variantSet, found '%s'",
                        tok_text(&P->lx, &t, buf, sizeof buf));
    }
    int rel = tok_is(&P->lx, &t, "rel");
    const char *type = NULL;
    size_t type_len = 0;
    if (!rel) {
        type = P->lx.s + t.start;
        type_len = t.end - t.start;
        /* "[]" right after the type name */
        if (P->lx.pos + 1 < P->lx.n && P->lx.s[P->lx.pos] == '[' && P->lx.s[P->lx.pos + 1] == ']') {
            P->lx.pos += 2;
            type_len += 2;
        }
    }
    tok nt;
    if (next(P, &P->lx, &nt) != 0) {
        return -1;
    }
    if (nt.kind != T_IDENT) {
        return fail_tok(P, &nt, "expected a property name, found '%s'", tok_text(&P->lx, &nt, buf, sizeof buf));
    }
    const char *name = P->lx.s + nt.start;
    size_t name_len = nt.end - nt.start;
    if (!valid_prop_name(name, name_len)) {
        return fail_tok(P, &nt, "bad property name '%.*s'", (int)(name_len > 64 ? 64 : name_len), name);
    }
    prop_field field;
    if (parse_prop_field(P, &nt, rel, &field) != 0) {
        return -1;
    }
    /* Only relationship targets and attribute connections are list-edited
     * (USD's grammar has no qualifier on an attribute's value). */
    if (part != USD_LISTOP_EXPLICIT && !rel && field != F_CONNECT) {
        char q[16];
        return fail_tok(P, &nt,
                        "list-op qualifier '%s' on attribute '%.*s': only relationships and connections take one",
                        tok_text(&P->lx, &qual, q, sizeof q), (int)(name_len > 64 ? 64 : name_len), name);
    }
    usd_prop *prop = declare_prop(P, prim, &nt, rel, type, type_len, line);
    if (!prop) {
        return -1;
    }
    tok u;
    prop->custom |= (uint8_t)custom;
    prop->uniform |= (uint8_t)uniform;
    if (peek(P, &u) != 0) {
        return -1;
    }
    if (is_punct(&u, '=')) {
        next(P, &P->lx, &u);
        if (parse_prop_value(P, prop, field, rel, part, &nt) != 0) {
            return -1;
        }
        if (peek(P, &u) != 0) {
            return -1;
        }
    }
    if (is_punct(&u, '(')) {
        next(P, &P->lx, &u);
        if (parse_meta(P, META_PROP, prim, prop, &u) != 0) {
            return -1;
        }
    }
    return 0;
}

/* After '{': prims, variant sets, properties until '}'. */
static int parse_body(parser *P, usd_prim *prim, const tok *open)
{
    for (;;) {
        tok t;
        if (next(P, &P->lx, &t) != 0) {
            return -1;
        }
        if (is_punct(&t, '}')) {
            return 0;
        }
        if (t.kind == T_EOF) {
            return fail_tok(P, open, "unterminated '{'");
        }
        if (is_punct(&t, ';')) {
            continue;
        }
        const lexer *lx = &P->lx;
        int rc;
        if (tok_is(lx, &t, "def")) {
            rc = parse_prim(P, prim, USD_SPECIFIER_DEF, &t);
        } else if (tok_is(lx, &t, "over")) {
            rc = parse_prim(P, prim, USD_SPECIFIER_OVER, &t);
        } else if (tok_is(lx, &t, "class")) {
            rc = parse_prim(P, prim, USD_SPECIFIER_CLASS, &t);
        } else if (tok_is(lx, &t, "variantSet")) {
            rc = parse_variant_set(P, prim, &t);
        } else if (tok_is(lx, &t, "reorder") && peek(P, &t) == 0 &&
                   (tok_is(lx, &t, "nameChildren") || tok_is(lx, &t, "properties"))) {
            next(P, &P->lx, &t);
            tok v;
            size_t end = 0;
            rc = expect_punct(P, '=', "after reorder") != 0 || next(P, &P->lx, &v) != 0 || skip_value(P, &v, &end) != 0
                     ? -1
                     : 0;
        } else {
            if (tok_is(lx, &t, "reorder")) {
                /* a reorder that is not of names: restore t */
                P->lx.pos = t.start;
                next(P, &P->lx, &t);
            }
            rc = parse_property(P, prim, t);
        }
        if (rc != 0) {
            return -1;
        }
    }
}

/* ---- the layer -------------------------------------------------------- */

static int parse_layer(parser *P)
{
    lexer *lx = &P->lx;
    if (lx->n < 9 || memcmp(lx->s, "#usda 1.", 8) != 0 || !is_digit((unsigned char)lx->s[8])) {
        return fail_at(P, 1, 1, "not a USDA file (the first line is not '#usda 1.0')");
    }
    while (lx->pos < lx->n && lx->s[lx->pos] != '\n') {
        lx->pos++;
    }
    tok t;
    if (next(P, lx, &t) != 0) {
        return -1;
    }
    if (is_punct(&t, '(')) {
        if (parse_meta(P, META_LAYER, NULL, NULL, &t) != 0) {
            return -1;
        }
        if (next(P, lx, &t) != 0) {
            return -1;
        }
    }
    usd_prim *root = usd_build_root(P->L);
    char buf[48];
    for (;;) {
        if (t.kind == T_EOF) {
            return 0;
        }
        int rc;
        if (tok_is(lx, &t, "def")) {
            rc = parse_prim(P, root, USD_SPECIFIER_DEF, &t);
        } else if (tok_is(lx, &t, "over")) {
            rc = parse_prim(P, root, USD_SPECIFIER_OVER, &t);
        } else if (tok_is(lx, &t, "class")) {
            rc = parse_prim(P, root, USD_SPECIFIER_CLASS, &t);
        } else if (tok_is(lx, &t, "reorder")) {
            tok v;
            size_t end = 0;
            rc = next(P, lx, &v) != 0 || !tok_is(lx, &v, "rootPrims")
                     ? fail_tok(P, &v, "expected rootPrims after reorder")
                 : expect_punct(P, '=', "after reorder rootPrims") != 0 || next(P, lx, &v) != 0 ||
                         skip_value(P, &v, &end) != 0
                     ? -1
                     : 0;
        } else {
            rc = fail_tok(P, &t, "expected def, over or class, found '%s'", tok_text(lx, &t, buf, sizeof buf));
        }
        if (rc != 0) {
            return -1;
        }
        if (next(P, lx, &t) != 0) {
            return -1;
        }
    }
}

/* ---- value hooks ------------------------------------------------------ */

static void span_lexer(const usd_layer *L, const usd_value_ref *v, lexer *lx)
{
    size_t size;
    lx->s = usd_layer_data(L, &size);
    lx->n = (size_t)v->b;
    lx->pos = (size_t)v->a;
    lx->line = v->c;
    lx->line_start = lx->pos; /* columns are not reported by readers */
}

/* Where walk_num stands: the property and value it reads, where numbers go, and how many it has read. */
typedef struct num_walk {
    const usd_prop *p;
    pk_diag *d;
    int dst;
    void *out;
    size_t cap;
    size_t idx;     /* numbers read */
    uint64_t elems; /* elements read */
} num_walk;

/* Takes the number X read at LINE: an int32 destination refuses a value that is not one; stored (converted
 * to the destination) while it fits the buffer, counted either way. 0 or -1 with a message. */
static int walk_put(num_walk *w, uint32_t line, double x)
{
    if (w->dst == USD_DST_I32 && (!(x >= -2147483648.0 && x <= 2147483647.0) || x != floor(x))) {
        return usd_value_fail(w->p, line, w->d, "element %llu: %g is not an int32", (unsigned long long)w->elems, x);
    }
    if (w->out && w->idx < w->cap) {
        if (w->dst == USD_DST_F64) {
            ((double *)w->out)[w->idx] = x;
        } else if (w->dst == USD_DST_F32) {
            ((float *)w->out)[w->idx] = (float)x;
        } else {
            ((int32_t *)w->out)[w->idx] = (int32_t)x;
        }
    }
    w->idx++;
    return 0;
}

/* One element of COMPS numbers starting at T: a number when COMPS is 1 (and T is no '('), else a tuple
 * "(a, b, ...)" (nested at most 4 deep) holding exactly COMPS numbers. 0 or -1 with a message. */
static int walk_element(num_walk *w, lexer *lx, tok *t, uint32_t comps)
{
    const usd_prop *p = w->p;
    unsigned long long elems = (unsigned long long)w->elems;
    size_t first = w->idx;
    if (comps == 1 && !is_punct(t, '(')) {
        double x;
        if (number_value(lx, t, &x) != 0) {
            return usd_value_fail(p, t->line, w->d, "element %llu: expected a number", elems);
        }
        return walk_put(w, t->line, x);
    }
    if (!is_punct(t, '(')) {
        return usd_value_fail(p, t->line, w->d, "element %llu: expected a tuple of %u values for type '%s'", elems,
                              comps, p->type_name);
    }
    unsigned depth = 1;
    int need_value = 1;
    while (depth) {
        if (next(NULL, lx, t) != 0 || t->kind == T_EOF) {
            return usd_value_fail(p, lx->line, w->d, "element %llu: unterminated tuple", elems);
        }
        if (is_punct(t, '(')) {
            if (!need_value || ++depth > 4) {
                return usd_value_fail(p, t->line, w->d, "element %llu: malformed tuple", elems);
            }
            continue;
        }
        if (is_punct(t, ')')) {
            depth--;
            need_value = 0;
            continue;
        }
        if (is_punct(t, ',')) {
            if (need_value) {
                return usd_value_fail(p, t->line, w->d, "element %llu: malformed tuple", elems);
            }
            need_value = 1;
            continue;
        }
        double x;
        if (!need_value || number_value(lx, t, &x) != 0) {
            return usd_value_fail(p, t->line, w->d, "element %llu: expected a number", elems);
        }
        need_value = 0;
        if (walk_put(w, t->line, x) != 0) {
            return -1;
        }
    }
    if (w->idx - first != comps) {
        return usd_value_fail(p, t->line, w->d, "element %llu has %zu values, type '%s' has %u", elems, w->idx - first,
                              p->type_name, comps);
    }
    return 0;
}

/* After an array's element: T becomes the start of the next one. 1 at the closing ']' (a trailing comma
 * allowed), 0 with T on the next element, -1 with a message. */
static int walk_separator(num_walk *w, lexer *lx, tok *t)
{
    if (next(NULL, lx, t) != 0) {
        return usd_value_fail(w->p, lx->line, w->d, "malformed value");
    }
    if (is_punct(t, ']')) {
        return 1;
    }
    if (!is_punct(t, ',')) {
        return usd_value_fail(w->p, t->line, w->d, "element %llu: expected ',' or ']'", (unsigned long long)w->elems);
    }
    if (next(NULL, lx, t) != 0) {
        return usd_value_fail(w->p, lx->line, w->d, "malformed value");
    }
    if (is_punct(t, ']')) {
        return 1; /* a trailing comma */
    }
    return 0;
}

/* Walks a numeric value: elements (one for a scalar) of `comps` numbers
 * each, writing them (when out) converted to dst. */
static int walk_num(const usd_prop *p, const usd_value_ref *v, int dst, void *out, size_t cap, size_t *n,
                    uint64_t *elements, pk_diag *d)
{
    uint32_t comps = 0;
    int arr = 0;
    usd_scalar sc = usd_type_scalar(p->type_name, &comps, &arr);
    if (sc == USD_SCALAR_NONE || comps == 0) {
        comps = 1;
    }
    lexer lx;
    span_lexer(p->owner->layer, v, &lx);
    tok t;
    num_walk w = {.p = p, .d = d, .dst = dst, .out = out, .cap = cap};
    if (next(NULL, &lx, &t) != 0) {
        return usd_value_fail(p, lx.line, d, "malformed value");
    }
    if (arr) {
        if (!is_punct(&t, '[')) {
            return usd_value_fail(p, t.line, d, "expected '[' for an array of type '%s'", p->type_name);
        }
        if (next(NULL, &lx, &t) != 0) {
            return usd_value_fail(p, lx.line, d, "malformed value");
        }
        if (is_punct(&t, ']')) {
            goto done;
        }
    }
    for (;;) {
        if (walk_element(&w, &lx, &t, comps) != 0) {
            return -1;
        }
        w.elems++;
        if (!arr) {
            break;
        }
        int rc = walk_separator(&w, &lx, &t);
        if (rc < 0) {
            return -1;
        }
        if (rc > 0) {
            break;
        }
    }
done:
    if (out && w.idx > cap) {
        return usd_value_fail(p, v->c, d, "the value has %zu numbers, the buffer holds %zu", w.idx, cap);
    }
    if (n) {
        *n = w.idx;
    }
    if (elements) {
        *elements = w.elems;
    }
    return 0;
}

static int hook_count(const usd_prop *p, const usd_value_ref *v, uint64_t *count, uint32_t *components, pk_diag *d)
{
    uint32_t comps = 0;
    int arr = 0;
    usd_scalar sc = usd_type_scalar(p->type_name, &comps, &arr);
    if (sc >= USD_SCALAR_TOKEN && sc <= USD_SCALAR_ASSET) {
        lexer lx;
        span_lexer(p->owner->layer, v, &lx);
        tok t;
        uint64_t c = 0;
        if (next(NULL, &lx, &t) != 0) {
            return usd_value_fail(p, v->c, d, "malformed value");
        }
        if (!arr) {
            if (t.kind != T_STRING && t.kind != T_ASSET) {
                return usd_value_fail(p, t.line, d, "expected a string");
            }
            c = 1;
        } else {
            if (!is_punct(&t, '[')) {
                return usd_value_fail(p, t.line, d, "expected '[' for an array of type '%s'", p->type_name);
            }
            for (;;) {
                if (next(NULL, &lx, &t) != 0) {
                    return usd_value_fail(p, lx.line, d, "malformed value");
                }
                if (is_punct(&t, ']')) {
                    break;
                }
                if (t.kind != T_STRING && t.kind != T_ASSET) {
                    return usd_value_fail(p, t.line, d, "element %llu: expected a string", (unsigned long long)c);
                }
                c++;
                if (next(NULL, &lx, &t) != 0) {
                    return usd_value_fail(p, lx.line, d, "malformed value");
                }
                if (is_punct(&t, ']')) {
                    break;
                }
                if (!is_punct(&t, ',')) {
                    return usd_value_fail(p, t.line, d, "element %llu: expected ',' or ']'", (unsigned long long)c);
                }
            }
        }
        *count = c;
        *components = 1;
        return 0;
    }
    if (sc < USD_SCALAR_BOOL || sc > USD_SCALAR_TIMECODE) {
        return usd_value_fail(p, v->c, d, "type '%s' has no countable value", p->type_name);
    }
    size_t n;
    if (walk_num(p, v, USD_DST_F64, NULL, 0, &n, count, d) != 0) {
        return -1;
    }
    *components = comps;
    return 0;
}

static int hook_read_num(const usd_prop *p, const usd_value_ref *v, int dst, void *out, size_t cap, size_t *n,
                         pk_diag *d)
{
    return walk_num(p, v, dst, out, cap, n, NULL, d);
}

static int hook_read_token(const usd_prop *p, const usd_value_ref *v, size_t index, char *buf, size_t cap, pk_diag *d)
{
    lexer lx;
    span_lexer(p->owner->layer, v, &lx);
    tok t;
    if (next(NULL, &lx, &t) != 0) {
        return usd_value_fail(p, v->c, d, "malformed value");
    }
    size_t i = 0;
    if (p->is_array) {
        if (!is_punct(&t, '[')) {
            return usd_value_fail(p, t.line, d, "expected '[' for an array of type '%s'", p->type_name);
        }
        for (;;) {
            if (next(NULL, &lx, &t) != 0) {
                return usd_value_fail(p, lx.line, d, "malformed value");
            }
            if (is_punct(&t, ']')) {
                return usd_value_fail(p, t.line, d, "element %zu out of range (%zu elements)", index, i);
            }
            if (t.kind != T_STRING && t.kind != T_ASSET) {
                return usd_value_fail(p, t.line, d, "element %zu: expected a string", i);
            }
            if (i == index) {
                break;
            }
            i++;
            if (next(NULL, &lx, &t) != 0) {
                return usd_value_fail(p, lx.line, d, "malformed value");
            }
            if (is_punct(&t, ']')) {
                return usd_value_fail(p, t.line, d, "element %zu out of range (%zu elements)", index, i);
            }
            if (!is_punct(&t, ',')) {
                return usd_value_fail(p, t.line, d, "element %zu: expected ',' or ']'", i);
            }
        }
    } else if (t.kind != T_STRING && t.kind != T_ASSET) {
        return usd_value_fail(p, t.line, d, "expected a string");
    }
    size_t len = decode_string(lx.s + t.body, t.body_len, t.kind == T_ASSET, buf, cap);
    if (len == SIZE_MAX) {
        if (cap) {
            buf[0] = '\0';
        }
        return usd_value_fail(p, t.line, d, "a string of %zu bytes does not fit a buffer of %zu", t.body_len, cap);
    }
    return 0;
}

static const usd_value_hooks k_usda_hooks = {hook_count, hook_read_num, hook_read_token};

int usd_usda_parse(usd_layer *layer, pk_diag *d)
{
    parser P;
    memset(&P, 0, sizeof P);
    size_t size;
    P.lx.s = usd_layer_data(layer, &size);
    P.lx.n = size;
    P.lx.line = 1;
    P.L = layer;
    P.file = usd_layer_get_info(layer)->name;
    P.d = d;
    usd_layer_set_hooks(layer, &k_usda_hooks);
    if (parse_layer(&P) != 0) {
        return -1;
    }
    return usd_layer_finish(layer, d);
}

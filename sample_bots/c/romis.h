/* romis bot helper for C (protocol v1): the read-decide-write loop for a callback, and a minimal JSON reader
 * that finds values inside the referee's lines. Header only, libc only (C99 plus POSIX getline).
 *
 *     static void decide(romis_json request, FILE *out, void *ctx) {
 *         romis_json options = romis_get(romis_get(request, "decision"), "options");
 *         romis_write(out, romis_item(options, 0));       // every listed option is a legal play
 *     }
 *     int main(void) { romis_bot bot = {.name = "first-option", .decide = decide}; return romis_run(&bot); }
 *
 * A romis_json is a span of the current line: valid until the callback returns. decide writes the ops of its
 * play to `out`, separated by commas; the helper writes the rest of the `play` line and flushes. */
#ifndef ROMIS_H
#define ROMIS_H
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p; /* the value's first byte; NULL when absent */
    size_t n;      /* its length in bytes */
} romis_json;

typedef struct {
    const char *name, *version; /* sent in `ready`: plain ASCII, no quotes or backslashes */
    void (*hello)(romis_json hello, void *ctx);                /* optional */
    void (*decide)(romis_json request, FILE *out, void *ctx); /* required: write the play's ops */
    void (*other)(romis_json msg, void *ctx);                  /* optional: rejected, deal_over, match_over */
    void *ctx;
} romis_bot;

static const char *romis__ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* The end of the JSON value that starts at p (after blanks), or NULL if there is none. */
static const char *romis__skip(const char *p, const char *e) {
    p = romis__ws(p, e);
    if (p >= e) return NULL;
    if (*p == '"') {
        for (p++; p < e; p++) {
            if (*p == '\\') p++;
            else if (*p == '"') return p + 1;
        }
        return NULL;
    }
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = romis__ws(p + 1, e);
        if (p < e && *p == close) return p + 1;
        for (;;) {
            if (close == '}') { /* a key, then a colon */
                if (!(p = romis__skip(p, e))) return NULL;
                p = romis__ws(p, e);
                if (p >= e || *p != ':') return NULL;
                p++;
            }
            if (!(p = romis__skip(p, e))) return NULL;
            p = romis__ws(p, e);
            if (p >= e) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p++;
        }
    }
    const char *s = p; /* a number, true, false or null */
    while (p < e && !strchr(",:]} \t\r\n\"{[", *p)) p++;
    return p > s ? p : NULL;
}

/* The value of member `key` of object `obj` (absent if obj is not an object or has no such key). */
static romis_json romis_get(romis_json obj, const char *key) {
    romis_json none = {NULL, 0};
    const char *p = obj.p, *e = obj.p + obj.n;
    size_t k = strlen(key);
    if (!p || *p != '{') return none;
    for (p++;;) {
        const char *ks = romis__ws(p, e), *ke = romis__skip(ks, e), *vs, *ve;
        if (!ke || *ks != '"') return none;
        vs = romis__ws(ke, e);
        if (vs >= e || *vs != ':') return none;
        vs = romis__ws(vs + 1, e);
        if (!(ve = romis__skip(vs, e))) return none;
        if ((size_t)(ke - ks) == k + 2 && memcmp(ks + 1, key, k) == 0) return (romis_json){vs, (size_t)(ve - vs)};
        p = romis__ws(ve, e);
        if (p >= e || *p != ',') return none;
        p++;
    }
}

/* The number of items of array `arr` (0 if it is not an array). */
static size_t romis_len(romis_json arr) {
    const char *p = arr.p, *e = arr.p + arr.n;
    size_t n = 0;
    if (!p || *p != '[' || *romis__ws(p + 1, e) == ']') return 0;
    for (p++; (p = romis__skip(p, e)); n++) {
        p = romis__ws(p, e);
        if (*p != ',') return n + 1;
        p++;
    }
    return n;
}

/* Item k (0-based) of array `arr`, or absent. */
static romis_json romis_item(romis_json arr, size_t k) {
    romis_json none = {NULL, 0};
    const char *p = arr.p, *e = arr.p + arr.n, *end;
    if (!p || *p != '[' || k >= romis_len(arr)) return none;
    for (p++;; k--) {
        const char *s = romis__ws(p, e);
        end = romis__skip(s, e);
        if (k == 0) return (romis_json){s, (size_t)(end - s)};
        p = romis__ws(end, e) + 1; /* past the comma */
    }
}

/* Whether `v` is the JSON string `s` (plain ASCII, no escapes). */
static int romis_is(romis_json v, const char *s) {
    size_t k = strlen(s);
    return v.p && v.n == k + 2 && v.p[0] == '"' && memcmp(v.p + 1, s, k) == 0;
}

/* The integer `v`, or `otherwise` when it is absent. */
static long long romis_int(romis_json v, long long otherwise) {
    return v.p ? strtoll(v.p, NULL, 10) : otherwise;
}

/* Write `v` as it came (an op taken from `options` is a whole, legal op). */
static void romis_write(FILE *out, romis_json v) {
    if (v.p) fwrite(v.p, 1, v.n, out);
}

static int romis__fail(const romis_bot *bot, const char *why) {
    fprintf(stderr, "%s: %s\n", bot->name ? bot->name : "bot", why);
    return 1;
}

/* Answer the referee on stdin/stdout until `shutdown` or the end of input; returns the exit code (0, or 1 after
 * one line on stderr for a line that is not a JSON object, an unknown message type or a request before hello). */
static int romis_run(const romis_bot *bot) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int greeted = 0, code = 0;
    while (code == 0 && (len = getline(&line, &cap, stdin)) > 0) {
        const char *s = romis__ws(line, line + len), *end = romis__skip(s, line + len);
        romis_json msg = {s, end ? (size_t)(end - s) : 0}, type = romis_get(msg, "type");
        if (!end || *s != '{') code = romis__fail(bot, "cannot read a line from the referee");
        else if (romis_is(type, "shutdown")) break;
        else if (romis_is(type, "hello")) {
            greeted = 1;
            if (bot->hello) bot->hello(msg, bot->ctx);
            printf("{\"type\":\"ready\",\"name\":\"%s\",\"version\":\"%s\"}\n", bot->name ? bot->name : "",
                   bot->version ? bot->version : "1");
        } else if (romis_is(type, "request")) {
            if (!greeted) code = romis__fail(bot, "a request came before hello");
            else {
                printf("{\"type\":\"play\",\"id\":%lld,\"ops\":[", romis_int(romis_get(msg, "id"), -1));
                bot->decide(msg, stdout, bot->ctx);
                fputs("]}\n", stdout);
            }
        } else if (romis_is(type, "rejected") || romis_is(type, "deal_over") || romis_is(type, "match_over")) {
            if (bot->other) bot->other(msg, bot->ctx);
        } else code = romis__fail(bot, "unknown message type (this helper speaks protocol v1)");
        fflush(stdout); /* the referee waits for the whole line */
    }
    free(line);
    return code;
}
#endif

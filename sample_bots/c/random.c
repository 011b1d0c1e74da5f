/* romis sample bot in C: answers every request with a random legal option, on the helper romis.h. */
#include "romis.h" /* first: it asks for POSIX getline */

#include <stdint.h>

static uint32_t state = 1;

/* mulberry32 (as in sample_bots/js/random.js), seeded from hello.seed so that a seeded match replays the same */
static uint32_t next(void) {
    uint32_t t = state += 0x6d2b79f5u;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return t ^ (t >> 14);
}

static void hello(romis_json msg, void *ctx) {
    (void)ctx;
    state = (uint32_t)romis_int(romis_get(msg, "seed"), 1);
}

static void decide(romis_json request, FILE *out, void *ctx) {
    romis_json options = romis_get(romis_get(request, "decision"), "options");
    size_t n = romis_len(options);
    (void)ctx;
    if (n == 0) fputs("{\"op\":\"pass\"}", out); /* every decision lists options; pass is the usual fallback */
    else romis_write(out, romis_item(options, next() % n));
}

int main(void) {
    romis_bot bot = {.name = "random-c", .version = "1", .hello = hello, .decide = decide};
    return romis_run(&bot);
}

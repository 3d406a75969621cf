/*
 * png_pixels.c — a minimal PNG decoder for the browser test (see
 * png_pixels.h): chunks, zlib inflate of the IDAT stream, and the five
 * PNG row filters undone.
 */
#include "png_pixels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int fail(char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s", why);
    return -1;
}

static uint8_t paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* Undo the filters of raw (rows of 1 filter byte + stride bytes) into px. */
static int unfilter(const uint8_t *raw, png_pixels *p)
{
    size_t stride = (size_t)p->width * p->channels, bpp = p->channels;
    for (uint32_t y = 0; y < p->height; y++) {
        const uint8_t *in = raw + y * (stride + 1) + 1;
        uint8_t *row = p->px + y * stride, *prev = y ? row - stride : NULL;
        uint8_t filter = in[-1];
        for (size_t x = 0; x < stride; x++) {
            int a = x >= bpp ? row[x - bpp] : 0, b = prev ? prev[x] : 0, c = prev && x >= bpp ? prev[x - bpp] : 0;
            switch (filter) {
            case 0: row[x] = in[x]; break;
            case 1: row[x] = (uint8_t)(in[x] + a); break;
            case 2: row[x] = (uint8_t)(in[x] + b); break;
            case 3: row[x] = (uint8_t)(in[x] + (a + b) / 2); break;
            case 4: row[x] = (uint8_t)(in[x] + paeth(a, b, c)); break;
            default: return -1;
            }
        }
    }
    return 0;
}

/* All IDAT data concatenated. */
static uint8_t *idat(const uint8_t *data, size_t len, size_t *n)
{
    uint8_t *z = malloc(len);
    *n = 0;
    for (size_t at = 8; z && at + 12 <= len;) {
        uint32_t clen = be32(data + at);
        if (clen > len - at - 12) break;
        if (!memcmp(data + at + 4, "IDAT", 4)) {
            memcpy(z + *n, data + at + 8, clen);
            *n += clen;
        }
        at += (size_t)clen + 12;
    }
    return z;
}

int png_decode(const uint8_t *data, size_t len, png_pixels *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len < 33 || memcmp(data, "\x89PNG\r\n\x1a\n", 8) || memcmp(data + 12, "IHDR", 4))
        return fail(err, errlen, "not a PNG");
    out->width = be32(data + 16), out->height = be32(data + 20);
    uint8_t depth = data[24], type = data[25], interlace = data[28];
    if (depth != 8 || (type != 2 && type != 6) || interlace)
        return fail(err, errlen, "unsupported PNG (want 8-bit RGB/RGBA, not interlaced)");
    if (!out->width || !out->height || out->width > 20000 || out->height > 40000)
        return fail(err, errlen, "bad PNG size");
    out->channels = type == 6 ? 4 : 3;
    size_t stride = (size_t)out->width * out->channels, rawlen = (stride + 1) * out->height, zn;
    uint8_t *z = idat(data, len, &zn), *raw = malloc(rawlen);
    out->px = malloc(stride * out->height);
    uLongf got = rawlen;
    int ok = z && raw && out->px && uncompress(raw, &got, z, zn) == Z_OK && got == rawlen && unfilter(raw, out) == 0;
    free(z);
    free(raw);
    if (!ok) {
        png_free(out);
        return fail(err, errlen, "corrupt PNG data");
    }
    return 0;
}

void png_free(png_pixels *p)
{
    free(p->px);
    memset(p, 0, sizeof *p);
}

size_t png_colours(const png_pixels *p, size_t max)
{
    uint32_t *seen = malloc((max ? max : 1) * sizeof *seen);
    size_t n = 0, npx = (size_t)p->width * p->height;
    for (size_t i = 0; seen && i < npx && n < max; i++) {
        const uint8_t *c = p->px + i * p->channels;
        uint32_t v = (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
        size_t k = 0;
        while (k < n && seen[k] != v) k++;
        if (k == n) seen[n++] = v;
    }
    free(seen);
    return n;
}

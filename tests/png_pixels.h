/*
 * png_pixels.h — decoding a PNG (8-bit RGB/RGBA, non-interlaced: what
 * Chromium's --screenshot writes) to pixels with zlib, so the browser test
 * can tell a rendered page from a blank one.
 */
#ifndef KT_PNG_PIXELS_H
#define KT_PNG_PIXELS_H

#include <stddef.h>
#include <stdint.h>

typedef struct png_pixels {
    uint32_t width, height;
    unsigned channels; /* 3 (RGB) or 4 (RGBA) */
    uint8_t *px;       /* width * height * channels bytes */
} png_pixels;

/* 0, or -1 with why in err (not a PNG, unsupported format, corrupt). */
int png_decode(const uint8_t *data, size_t len, png_pixels *out, char *err, size_t errlen);
void png_free(png_pixels *p);
/* Distinct colours among the pixels, counting at most max. */
size_t png_colours(const png_pixels *p, size_t max);

#endif

/*
 * json_writer.c — the output buffer of a trace or truth file: flushed in large blocks
 * to a file or a gzip stream, and the JSON pieces too rare or long to inline
 * (shortest round-trip floats, escaped strings).
 */
#include "synth.h"

static void die_write(const Writer *w, const char *detail)
{
    fprintf(stderr, "kineta-synth: cannot write %s: %s\n", w->path, detail);
    exit(1);
}

void w_flush(Writer *w)
{
    if (w->len && !w->discard) {
        if (w->gz) {
            if (gzwrite(w->gz, w->buf, (unsigned)w->len) != (int)w->len) {
                int err;
                const char *msg = gzerror(w->gz, &err);
                die_write(w, err == Z_ERRNO ? strerror(errno) : msg);
            }
        } else if (fwrite(w->buf, 1, w->len, w->fp) != w->len) {
            die_write(w, strerror(errno));
        }
    }
    w->bytes += w->len;
    w->len = 0;
}

/* Python prints floats with the shortest text that reads back exactly; Kineto's
 * bandwidth values look like that, so mimic it (rare events: snprintf is fine). */
void put_double(Writer *w, double v)
{
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    if (!strpbrk(tmp, ".e"))
        strcat(tmp, ".0");
    put_str(w, tmp);
}

void put_json_string(Writer *w, const char *s)
{
    PUT(w, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            put(w, esc, 2);
        } else if (c < 0x20) {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put_str(w, esc);
        } else {
            put(w, (const char *)&c, 1);
        }
    }
    PUT(w, "\"");
}

void w_open(Writer *w, const char *path, bool gzip, bool ns_times)
{
    *w = (Writer){.path = path, .ns_times = ns_times};
    w->buf = malloc(OUT_BUFFER);
    if (!w->buf) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    if (!path) {
        w->discard = true;
        return;
    }
    if (gzip) {
        /* Level 1: the trace is highly repetitive, so the fastest level still compresses
         * ~10x and keeps the generator close to disk speed. */
        w->gz = gzopen(path, "wb1");
        if (!w->gz || gzbuffer(w->gz, 1u << 20) != 0)
            die_write(w, strerror(errno));
    } else {
        w->fp = fopen(path, "wb");
        if (!w->fp)
            die_write(w, strerror(errno));
    }
}

void w_close(Writer *w)
{
    w_flush(w);
    if (w->gz) {
        int rc = gzclose(w->gz);
        if (rc != Z_OK)
            die_write(w, rc == Z_ERRNO ? strerror(errno) : "gzip stream could not be finished");
    }
    if (w->fp && fclose(w->fp) != 0)
        die_write(w, strerror(errno));
    free(w->buf);
    w->buf = NULL;
}

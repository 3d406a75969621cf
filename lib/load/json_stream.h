/*
 * json_stream.h — the walks of json_doc.h over a JSON document streamed
 * through a reused window (read_input.c), for a reader whose document is
 * mostly one long list of records (rocprofv3 JSON).
 *
 * Why: holding a large file whole means reading it into fresh memory,
 * and faulting in fresh pages costs more than walking them (on the
 * benchmark VM, half a reader's time).  The window is reused, so its
 * pages are faulted once.  A walk hands over a value as kt_jv_walk
 * does; a container it hands over is the caller's to walk (through its
 * own kt_jiter), to take whole (kt_js_whole) or to skip (kt_js_skip).
 * Spans stay valid until the next call that may read more.  A held
 * document is a window that holds it all, walked by the same code.
 */
#ifndef KT_JSON_STREAM_H
#define KT_JSON_STREAM_H

#include "json_doc.h"

typedef struct kt_jstream {
    kt_window w;
    kt_src *src;       /* NULL: w holds the whole document               */
    bool broke;        /* a walk stopped where the JSON breaks or ends    */
    bool read_error;
} kt_jstream;

/* Where a walk of one container is: its first byte until the first step,
 * then after the last item or member (or past its closing bracket).    */
typedef struct kt_jiter {
    const char *at;
    bool started;
} kt_jiter;

/* A document held whole (followed by KT_WIN_PAD zero bytes). */
void kt_js_held(kt_jstream *s, const char *data, size_t len);
/* A document read from src (a plain file or buffer: kt_src_pread reads
 * back what the window dropped), at most read_max bytes a read (0: the
 * window's own).  False on OOM.                                       */
bool kt_js_open(kt_jstream *s, kt_src *src, size_t read_max);
void kt_js_close(kt_jstream *s);
/* The iterator of the top value ('{' or '['; at NULL when neither). */
kt_jiter kt_js_root(kt_jstream *s);
/* kt_jv_walk and kt_jv_walk_member over the container of it. */
bool kt_js_walk(kt_jstream *s, kt_jiter *it, kt_jv *item);
bool kt_js_walk_member(kt_jstream *s, kt_jiter *it, kt_pair *pr, kt_jv *val);
/* The container parent's walk just handed over, whole in the window (*v:
 * its span; cut short or broken: the rest of the window, the walks stop
 * after it); the parent's walk goes on after it.                       */
void kt_js_whole(kt_jstream *s, kt_jiter *parent, kt_jv *v);
/* Past the container parent's walk just handed over, its items walked
 * in turn (never held whole unless nested deeper than a limit).       */
void kt_js_skip(kt_jstream *s, kt_jiter *parent, kt_jv v);
/* The end of the text in the window (one byte past it at the document's
 * end, as kt_jv_walk_root's span): a value's span for fast paths that
 * check their own bounds.                                             */
static inline const char *kt_js_end(const kt_jstream *s) { return s->w.data + s->w.len + (s->w.eof ? 1 : 0); }
/* The document offset of q in the window. */
static inline uint64_t kt_js_offset(const kt_jstream *s, const char *q) { return s->w.base + (uint64_t)(q - s->w.data); }
/* The document's length (read to its end, else the source's size). */
uint64_t kt_js_length(const kt_jstream *s);
/* n bytes of the document at offset off, KT_WIN_PAD zero bytes after them:
 * in the window when still there, else read back into *buf (grown; free
 * it); fewer where the document ends (the rest zero).  NULL on OOM or
 * when they cannot be read back.                                     */
const char *kt_js_at(const kt_jstream *s, uint64_t off, size_t n, char **buf, size_t *cap);

#endif

/*
 * overlay.h — what an analysis marks in a copy of its rank's trace file
 * (the overlays of `kineta critical-path` and `kineta patterns`, the
 * counter tracks of `kineta counters` and `kineta memory`): members put
 * first into chosen events' args, new names, complete events left out,
 * and flow arrows and counter samples appended to traceEvents.
 *
 * It is plain data, made from the model: the analysis fills it, the one
 * writer of trace copies (output/overlay_write.h) copies the file's bytes
 * through and applies it, and the entry point above both hands the one to
 * the other (kt_overlay_write_fn).  Events are named by the offset of
 * their args object in the file (kt_args_off), which the loader recorded
 * and which survives --hta-compat's filtering.
 */
#ifndef KT_OVERLAY_H
#define KT_OVERLAY_H

#include "../kineta.h"
#include "model/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One edited event; text spans index kt_overlay.text. */
typedef struct kt_overlay_edit {
    uint64_t args_off;        /* '{' of its args object                     */
    size_t args, args_len;    /* members put first into args (len 0: none)  */
    size_t name, name_len;    /* its new name, JSON string text without the
                                 quotes (rename false: the name is kept)    */
    bool rename;
} kt_overlay_edit;

/* Where an arrow starts or ends: at an event's start, or at its end less
 * up to inset_us (so the arrow lands inside a GPU slice), in µs as the
 * file writes them, truncated (HTA's int()); ts_us when the file has no
 * numbers for the event.                                                 */
typedef struct kt_overlay_point {
    uint64_t args_off;        /* the event's args object; 0: none           */
    int64_t ts_us;
    bool at_end;
    int64_t inset_us;
    int64_t pid, tid;         /* model ids (strings are written as strings) */
} kt_overlay_point;

/* A flow arrow in HTA's format: an "s" and an "f" event with one id,
 * cat and name kt_overlay.arrow_cat, args weight, critical, type.       */
typedef struct kt_overlay_arrow {
    kt_overlay_point from, to;
    int64_t weight_us;
    bool critical;
    const char *type;         /* a string literal                            */
} kt_overlay_arrow;

/* A counter track ("ph": "C" events of one name) and its samples. */
typedef struct kt_counter_track {
    size_t name, name_len;    /* in kt_overlay.text, written as it is       */
    const char *keys[2];      /* the args' members (literals); keys[1] NULL:
                                 one value                                  */
    bool floats;              /* values are doubles (shortest round trip),
                                 else integers                              */
    bool with_id;             /* the sample's id is written                  */
    bool ts_decimals;         /* ts always with 3 decimals, else only when
                                 not whole µs                               */
} kt_counter_track;

typedef union kt_counter_value {
    int64_t i;
    double f;
} kt_counter_value;

typedef struct kt_counter_sample {
    int64_t ts;               /* ns                                          */
    int64_t pid;              /* model id                                    */
    int64_t id;
    kt_counter_value v[2];
    uint32_t track;
} kt_counter_sample;

typedef struct kt_overlay {
    kt_overlay_edit *edits;   /* ascending args_off, each event once         */
    size_t nedits, cap_edits;
    char *text;               /* the edits' and tracks' text                 */
    size_t ntext, cap_text;
    bool only_marked;         /* leave out complete events ("ph": "X") that
                                 are not edited, except keep_cats'          */
    const char *const *keep_cats; /* NULL-terminated literals, or NULL       */
    const char *arrow_cat;    /* the arrows' cat and name                    */
    kt_overlay_arrow *arrows;
    size_t narrows, cap_arrows;
    kt_counter_track *tracks;
    size_t ntracks, cap_tracks;
    kt_counter_sample *samples; /* appended in this order, right before the
                                 ']' (arrows: right after the last event) */
    size_t nsamples, cap_samples;
    bool failed;              /* out of memory in a builder below            */
} kt_overlay;

/* The builders append; on failure they set o->failed (checked once). */
/* Text kept in o->text; returns where it starts.                          */
size_t kt_overlay_text(kt_overlay *o, const char *s, size_t n);
kt_overlay_edit *kt_overlay_add_edit(kt_overlay *o, uint64_t args_off);
/* Room for n more edits, faulted in (a patterns overlay makes ~250 k:
 * grown by doubling, their pages were faulted in one at a time).         */
void kt_overlay_reserve_edits(kt_overlay *o, size_t n);
kt_overlay_arrow *kt_overlay_add_arrow(kt_overlay *o);
/* A track named name[0..n); returns its index.                           */
uint32_t kt_overlay_add_track(kt_overlay *o, const char *name, size_t n, kt_counter_track how);
/* Room for n more samples (spares regrowth when the count is known).     */
void kt_overlay_reserve_samples(kt_overlay *o, size_t n);
kt_counter_sample *kt_overlay_add_sample(kt_overlay *o);
void kt_overlay_free(kt_overlay *o);

/* What writing a copy did. */
typedef struct kt_overlay_written {
    size_t edited;            /* events edited                               */
    uint64_t json_bytes;      /* uncompressed bytes written                  */
} kt_overlay_written;

/* Writes the copy of r's file with o applied to out_path (gzip iff the
 * input is): output/overlay_write.h's kt_write_overlay, handed to an
 * analysis by the entry point that runs it.                              */
typedef kt_status (*kt_overlay_write_fn)(const kt_trace *t, const kt_rank *r, const kt_overlay *o,
                                         const char *out_path, kt_overlay_written *res, char *err, size_t errlen);

#endif

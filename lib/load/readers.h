/*
 * readers.h — the readers of other profilers' output and how the loader
 * picks one.
 *
 * The format of an input is decided once, by content (foreign.c): the first
 * bytes of the decompressed file (SQLite's magic, rocprofv3's top-level
 * key, a CSV header, a protobuf XSpace, XLA's plane names in a Chrome
 * trace), never its name.  Each reader turns
 * its format into a rank through the model builder (model/model_build.h)
 * only, so every analysis sees what it would see for a Kineto trace of the
 * same run.
 */
#ifndef KT_READERS_H
#define KT_READERS_H

#include "load_internal.h"
#include "model/model_build.h"

typedef enum kt_format {
    KT_FMT_KINETO = 0,    /* anything else: the Kineto parser decides        */
    KT_FMT_ROCPROF_JSON,  /* {"rocprofiler-sdk-tool": [...]}                 */
    KT_FMT_ROCPROF_CSV,   /* a rocprofv3 *_trace.csv, or a directory of them */
    KT_FMT_SQLITE,        /* Nsight Systems export or rocpd database         */
    KT_FMT_XPLANE,        /* XSpace protobuf (JAX / XLA)                     */
    KT_FMT_XLA_TRACE,     /* JAX's Chrome trace: pids named /device:GPU:N    */
} kt_format;

/* The format of a file from its first decompressed bytes. */
kt_format kt_format_of(const char *head, size_t n);

/* One input as a reader gets it. */
typedef struct kt_reader_in {
    const char *path;  /* file or directory (messages name it)               */
    const char *data;  /* whole decompressed content, KT_WIN_PAD zero bytes
                          after it; NULL for a directory                     */
    size_t len;
    kt_src *src;       /* or the file streamed (data NULL: a plain file,
                          for the readers that stream, rocprofv3 JSON)   */
    size_t read_max;   /* streamed: bytes a read at most (0: the window's
                          own; tests cut values at every byte)           */
    bool is_file;      /* path is the file data came from (SQLite opens it)  */
    kt_diags *diags;   /* the input's warnings and errors                    */
    bool *not_trace;   /* set: the input is of this kind but holds no profile
                          (a directory skips it, as Kineto's non-traces)     */
} kt_reader_in;

/* Each reader: KT_OK with the rank filled (warnings in diags for what was
 * damaged and what was recovered), KT_EINPUT with an error in diags when
 * nothing usable is there, KT_ENOMEM.                                     */
kt_status kt_read_rocprof_json(const kt_reader_in *in, kt_build *b);
kt_status kt_read_rocprof_csv(const kt_reader_in *in, kt_build *b);
kt_status kt_read_sqlite(const kt_reader_in *in, kt_build *b);
kt_status kt_read_xplane(const kt_reader_in *in, kt_build *b);
kt_status kt_read_xla_trace_json(const kt_reader_in *in, kt_build *b);

/* The loader's hook: reads job j when its input is not Kineto JSON (true:
 * handled, j->status and j->rank set).                                   */
bool kt_foreign_job(kt_load_ctx *ctx, kt_file_job *j);

#endif

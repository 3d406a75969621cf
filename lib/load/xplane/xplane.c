/*
 * xplane.c — JAX/XLA XSpace protobuf (.xplane.pb): recognised, not read yet.
 */
#include "load/readers.h"

kt_status kt_read_xplane(const kt_reader_in *in, kt_build *b)
{
    (void)b;
    kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1,
                 "an XSpace protobuf (JAX/XLA .xplane.pb): this format is recognised but not read yet");
    return KT_EINPUT;
}

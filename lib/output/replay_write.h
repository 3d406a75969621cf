/*
 * replay_write.h — `kineta replay -o DIR`: the replay IR (kt_replay_ir's
 * tables) rendered as DIR/replay_ir.json and as standalone PyTorch
 * scripts, one per op (replay_<id>_<op>.py) and one for all
 * (replay_all.py), that rebuild each op's inputs from the recorded shapes,
 * strides and dtypes, call it through torch.ops and time it.
 */
#ifndef KT_REPLAY_WRITE_H
#define KT_REPLAY_WRITE_H

#include "kineta.h"

#include <stddef.h>

/* Write ir's files into the existing directory dir, each beside its name
 * and renamed over it once whole; source names the trace in them.  The
 * number of files written in *nfiles.  KT_EINPUT (err) when one cannot be
 * written, KT_EUSAGE (err) when ir is not kt_replay_ir's, KT_ENOMEM.     */
kt_status kt_replay_write(const kt_tables *ir, const char *source, const char *dir, size_t *nfiles, char *err,
                          size_t errlen);

/* The scripts' common part (replay_runtime.c): the Python that builds the
 * inputs, picks the overload, times the call and prints; main(OPS).      */
extern const char kt_replay_runtime[];

#endif

/*
 * type_differences.h — where kineta's default communication rule and a
 * reference tool's disagree on this trace, as a footnote on the table
 * whose figures depend on it (docs/differences.md).
 *
 * kineta counts every NCCL/RCCL/HCCL kernel and vLLM's and symmetric
 * memory's all-reduce kernels (cross_device_reduce, multimem_all_reduce)
 * as communication; HTA only names starting nccl/hip/hccl or holding
 * ncclKernel, TraceLens names holding nccl, rccl or cross_device_reduce.
 * On a vLLM trace that moves a fifth of the GPU time between compute and
 * communication: the table says so, with how much and which kernel.
 */
#ifndef KT_TYPE_DIFFERENCES_H
#define KT_TYPE_DIFFERENCES_H

#include "model/model.h"
#include "table/table.h"

typedef enum { KT_REF_HTA, KT_REF_TRACELENS } kt_reference;

/* Adds to tb one footnote per direction in which the rules disagree on
 * the selected ranks' GPU kernels (none when they agree).  ref_rules: the
 * table was computed with the reference's rule (--hta-compat, --tracelens)
 * rather than kineta's.  KT_ENOMEM on allocation failure.                */
kt_status kt_note_comm_differences(kt_table *tb, const kt_trace *t, const kt_rank_sel *sel, kt_reference ref,
                                   bool ref_rules);

#endif

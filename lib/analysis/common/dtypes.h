/*
 * dtypes.h — PyTorch element types, one table for every analysis that
 * turns element counts into bytes.
 *
 * Traces spell a dtype two ways: NCCL's record_param_comms metadata writes
 * the ScalarType name ("BFloat16", "Float"), op input types the C++ type
 * ("c10::BFloat16", "float").  Both names live in one row so the two uses
 * (collectives' message sizes, perf's bytes moved) never disagree.
 */
#ifndef KT_DTYPES_H
#define KT_DTYPES_H

/* Bytes per element of a ScalarType name as NCCL metadata writes it
 * ("Float", "BFloat16", "Bool", ...), 0 when unknown.                      */
int kt_scalar_type_bytes(const char *name);
/* Bytes per element of an op input's C++ type ("float", "c10::BFloat16",
 * "c10::Float8_e4m3fn", ...), 0 when unknown.                             */
int kt_dtype_bytes(const char *type);
/* The short precision name TraceLens's Compute Spec uses ("fp32", "bf16",
 * "fp16", "fp8", "fp64", "int8"), NULL when unknown.                      */
const char *kt_dtype_precision(const char *type);

#endif

/*
 * device_peak.h — a GPU's peak FP32 (non-tensor-core) throughput from its
 * name, for "% of peak" figures.
 *
 * Kineto's deviceProperties give the name, SM count and compute capability
 * but no clock, so the peak cannot be derived; a short table of common
 * data-centre GPUs stands in, and callers can always pass their own peak.
 */
#ifndef KT_DEVICE_PEAK_H
#define KT_DEVICE_PEAK_H

/* Peak FP32 TFLOP/s of a device by name ("NVIDIA A100-SXM4-80GB"), or 0
 * when the device is not in the table.                                    */
double kt_device_peak_fp32_tflops(const char *device_name);

#endif

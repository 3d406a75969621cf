/*
 * device_peak.c — see device_peak.h.  Vendor datasheet figures for FP32
 * without tensor cores / matrix cores (dense); the first matching row
 * wins, so more specific names come first.
 */
#include "analysis/attribute/device_peak.h"

#include <stddef.h>
#include <string.h>

typedef struct peak_row {
    const char *name_part;
    double tflops;
} peak_row;

static const peak_row peaks[] = {
    { "H100 PCIe", 51.2 }, { "H100 NVL", 60.0 }, { "H100", 66.9 }, { "H200", 66.9 },
    { "A100", 19.5 },      { "A10G", 31.2 },     { "A10", 31.2 },  { "L40S", 91.6 },
    { "L4", 30.3 },        { "V100", 15.7 },     { "T4", 8.1 },    { "MI300X", 163.4 },
    { "MI250X", 47.9 },    { "MI250", 45.3 },    { "MI210", 22.6 }, { "MI100", 23.1 },
};

double kt_device_peak_fp32_tflops(const char *device_name)
{
    if (!device_name) return 0;
    for (size_t i = 0; i < sizeof peaks / sizeof peaks[0]; i++)
        if (strstr(device_name, peaks[i].name_part)) return peaks[i].tflops;
    return 0;
}

/*
 * report_sections.c — the sections of `kineta report`, in page order.
 * One line per section; an analysis's section is one line here and a
 * builder in a report_sec_<family>.c of its own (docs/report.md).
 */
#include "report/report_sections.h"

const rp_section rp_sections[] = {
    { "overview", "Overview", "Files, ranks, devices, GPU streams, steps and loader warnings.", rp_sec_overview, NULL },
    { "temporal", "Temporal breakdown",
      "Where GPU time goes: idle, compute and non-compute (HTA temporal breakdown), per rank and per step.",
      rp_sec_temporal, NULL },
    { "kernel-types", "Kernel types",
      "GPU kernel time by HTA kernel type (communication, computation, memory and their overlaps).",
      rp_sec_kernel_types, NULL },
    { "top-kernels", "Top kernels per type",
      "The kernels taking most time in each type, per rank; the tail is folded into \"others\" (HTA).",
      rp_sec_top_kernels, NULL },
    { "distribution", "Kernel duration across ranks",
      "Mean duration of each top kernel on every rank, whiskers from min to max (HTA).", rp_sec_distribution, NULL },
    { "categories", "Kernel categories",
      "Kernel time by category (GEMM, attention, elementwise, ...) and by the CPU op that launched it.",
      rp_sec_categories, NULL },
    { "idle", "Idle time per stream",
      "Why each GPU stream is idle: waiting on the host, between back-to-back kernels, or other (HTA).",
      rp_sec_idle, NULL },
    { "gaps", "Gaps and transitions",
      "Idle gaps between consecutive GPU events of a stream, and the kernel pairs they sit between.",
      rp_sec_gaps, NULL },
    { "launch", "Kernel launches",
      "Launch delay (GPU start minus end of the launch call) and the outliers HTA flags.", rp_sec_launch, NULL },
    { "queue", "Launch queue length",
      "Launches issued but not yet started on each GPU stream, over time (HTA queue length).", rp_sec_queue, NULL },
    { "memcpy-bw", "Memory bandwidth",
      "Memcpy/memset bandwidth over time per copy kind (HTA memory bandwidth).", rp_sec_memcpy_bw, NULL },
    { "overlap", "Communication / computation overlap",
      "Kernel time in communication and computation, and the share of communication overlapped by "
      "computation (HTA).",
      rp_sec_overlap, NULL },
    { "memory", "Device memory",
      "Memory allocated and reserved over time from the profiler's [memory] events, the peak, and the ops "
      "holding memory at the peak (kineta memory).",
      rp_sec_memory, rp_has_memory },
    { "critical-path", "Critical path",
      "What bounds each step: the longest path through CPU ops, launches, kernels and their dependencies, by "
      "what bounds its edges (HTA critical path analysis, kineta critical-path).",
      rp_sec_critical_path, rp_has_critical_path },
    { "patterns", "Repeated kernel sequences",
      "Fusion candidates: kernel sequences repeating on a stream, ranked by the launch gaps fusing them would save "
      "(kineta patterns --mine).",
      rp_sec_patterns, rp_has_patterns },
    { "collectives", "Collectives and stragglers",
      "Communication across ranks: time in collectives, how far apart ranks start them, who waits and who "
      "holds the others back (kineta collectives, stragglers).",
      rp_sec_collectives, rp_has_collectives },
    { "perf", "Performance model",
      "How close each op came to the hardware: FLOPs per byte against achieved TFLOP/s from the recorded shapes "
      "(TraceLens perf model, kineta perf).",
      rp_sec_perf, rp_has_perf },
    { "diff", "Against the baseline",
      "What changed from the baseline run (--baseline): GPU time by kernel and by op, and op names added, deleted "
      "or called more or less often (kineta diff).",
      rp_sec_diff, rp_has_baseline },
};
const size_t rp_nsections = sizeof rp_sections / sizeof *rp_sections;

size_t rp_nsections_always(void)
{
    size_t n = 0;
    for (size_t i = 0; i < rp_nsections; i++) n += rp_sections[i].shown == NULL;
    return n;
}

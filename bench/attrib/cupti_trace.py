#!/usr/bin/env python3
"""cupti_trace.py — writes a CUPTI range-profiler-mode Kineto trace of about
SIZE bytes for benchmarking `kineta cupti` (the synthesizer writes normal
kernel traces only).  Per kernel: an aten::linear op around aten::addmm, its
cudaLaunchKernel call, and a cuda_profiler_range event with the nine SASS
instruction counters, as PyTorch writes them with profiler_measure_per_kernel.

usage: cupti_trace.py OUT.json [SIZE_MB]   (default 100)
"""
import sys

COUNTERS = ["smsp__sass_thread_inst_executed_op_%s_pred_on.sum" % op
            for op in ("dadd", "dfma", "dmul", "hadd", "hfma", "hmul", "fadd", "ffma", "fmul")]
KERNELS = ["ampere_sgemm_128x64_tn", "void at::native::vectorized_elementwise_kernel<4, "
           "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, "
           "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"]


def main():
    out = sys.argv[1]
    target = int(float(sys.argv[2]) * 1e6) if len(sys.argv) > 2 else 100_000_000
    written = 0
    with open(out, "w") as f:
        head = ('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}],\n'
                '"traceEvents": [\n')
        f.write(head)
        written += len(head)
        i, ts, rts = 0, 1_000_000, 2_000_000
        first = True
        while written < target:
            corr = 1000 + i
            k = KERNELS[i % 2]
            counters = ", ".join('"%s": %d' % (c, (i * 7919 + j * 104729) % 100000000 if j >= 6 else 0)
                                 for j, c in enumerate(COUNTERS))
            ev = [
                '{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": %d, "dur": 40}' % ts,
                '{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": %d, "dur": 30}' % (ts + 5),
                '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, '
                '"dur": 10, "args": {"External id": %d, "cbid": 211, "correlation": %d}}' % (ts + 10, corr, corr),
                '{"ph": "X", "cat": "cuda_profiler_range", "name": "%s", "pid": 0, "tid": 0, "ts": %d, '
                '"dur": 1000, "args": {%s}}' % (k, rts, counters),
            ]
            text = ("" if first else ",\n") + ",\n".join(ev)
            first = False
            f.write(text)
            written += len(text)
            i += 1
            ts += 100
            rts += 1000
        f.write("\n]}\n")
    print(out, i, "ranges")


if __name__ == "__main__":
    main()

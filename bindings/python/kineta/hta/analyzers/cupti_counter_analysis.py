"""HTA's hta.analyzers.cupti_counter_analysis constants: the SASS
instruction counters a notebook sums into FLOPs, with each one's FLOPs per
instruction (a fused multiply-add counts two)."""

CUDA_SASS_INSTRUCTION_COUNTER_FLOPS = {
    f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum": 2 if "fma" in op else 1
    for op in ("ffma", "fmul", "fadd", "hfma", "hmul", "hadd", "dfma", "dmul", "dadd")
}

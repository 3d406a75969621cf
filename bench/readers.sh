#!/bin/sh
# bench/readers.sh — load speed of the other profilers' readers against the
# Kineto loader, per event loaded: large files of each format generated from
# the shared samples (../shared/traces/other), a Kineto file of similar size
# from kineta-synth.  Prints format, events loaded, CPU seconds, ns per event.
#   sh bench/readers.sh [BUILD]     (default build/, release)
set -e
build=${1:-build}
dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}/readers
other=../shared/traces/other
mkdir -p "$dir"
make -s PGO=0 BUILD="$build" "$build/kineta" "$build/kineta-synth"

# rocprofv3 JSON: the MI350X sample's dispatches repeated 6 times, later in time
[ -f "$dir/big_results.json" ] || python3 - "$other/rocprofv3/908_results.json.gz" "$dir/big_results.json" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
t = d["rocprofiler-sdk-tool"][0]
k = t["buffer_records"]["kernel_dispatch"]
span = max(r["end_timestamp"] for r in k) - min(r["start_timestamp"] for r in k) + 1
out = []
for i in range(6):
    for r in k:
        r2 = dict(r, start_timestamp=r["start_timestamp"] + i * span, end_timestamp=r["end_timestamp"] + i * span)
        out.append(r2)
t["buffer_records"]["kernel_dispatch"] = out
json.dump(d, open(sys.argv[2], "w"))
PY

# rocprofv3 CSV: 300,000 dispatches and as many HIP calls launching them
[ -f "$dir/csv/big_kernel_trace.csv" ] || { mkdir -p "$dir/csv"; python3 - "$dir/csv" <<'PY'
import sys
d = sys.argv[1]
with open(d + "/big_kernel_trace.csv", "w") as k, open(d + "/big_hip_api_trace.csv", "w") as h:
    k.write('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
            '"Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count",'
            '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
    h.write('"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n')
    for i in range(300000):
        t = 1550151853029637 + i * 20000
        k.write('"KERNEL_DISPATCH","Agent %d",1,%d,834304,%d,10,"void addition_kernel<float>(float*, float const*, float const*, int, int)",%d,%d,%d,0,0,8,0,16,64,1,1,1024,1024,1\n'
                % (4 + i % 2, i % 4, i, i + 1, t + 5000, t + 15000))
        h.write('"HIP_RUNTIME_API","hipLaunchKernel",834304,834304,%d,%d,%d\n' % (i + 1, t, t + 3000))
PY
}

# Nsight Systems: the CloverLeaf export's kernels and runtime calls repeated 100 times
[ -f "$dir/big.sqlite" ] || {
    cp "$other/nsys/cloverleaf/perlmutter-cloverleaf-cuda.sqlite" "$dir/big.sqlite"
    sqlite3 "$dir/big.sqlite" "
      CREATE TEMP TABLE k AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL;
      CREATE TEMP TABLE r AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME;
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT k.start + i * 700000000, k.end + i * 700000000, deviceId, contextId,
        greenContextId, streamId, correlationId + i * 100000, globalPid, demangledName, shortName, mangledName, launchType,
        cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory,
        localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId, sharedMemoryLimitConfig FROM k, n;
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT r.start + i * 700000000, r.end + i * 700000000, eventClass, globalTid,
        correlationId + i * 100000, nameId, returnValue, callchainId FROM r, n;"
}

# JAX's trace.json: the JAX 0.8 profile written as its trace.json, its events 300 times over
[ -f "$dir/big.trace.json" ] || {
    python3 tests/xplane_to_trace_json.py "$other/jax/jax_conv_minimal_08/tw003.xplane.pb" "$dir/jax.trace.json.gz"
    python3 - "$dir/jax.trace.json.gz" "$dir/big.trace.json" <<'PY'
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
meta = [e for e in ev if e.get("ph") == "M"]
x = [e for e in ev if e.get("ph") == "X"]
span = max(e["ts"] + e["dur"] for e in x) - min(e["ts"] for e in x) + 1
out = list(meta)
for i in range(300):
    for e in x:
        e2 = dict(e, ts=round(e["ts"] + i * span, 6))
        if "correlation_id" in e.get("args", {}):
            e2["args"] = dict(e["args"], correlation_id=str(int(e["args"]["correlation_id"]) + i * 1000000))
        out.append(e2)
json.dump({"displayTimeUnit": "ns", "traceEvents": out + [{}]}, open(sys.argv[2], "w"), separators=(",", ":"))
PY
}

# Kineto: a synthesized trace of about the size of the rocprofv3 file
[ -f "$dir/kineto.json" ] || "$build/kineta-synth" --size 200M -o "$dir/kineto.json" >/dev/null

# Per event: CPU seconds (user + sys, summed over threads: the host is
# shared, wall time measures the other jobs) of `kineta info`, best of 3.
run() { # format, path
    best=
    for _ in 1 2 3; do
        n=$(python3 -c '
import resource, subprocess, sys
out = subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout.splitlines()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(out[1].split(",")[6], r.ru_utime + r.ru_stime)' "$build/kineta" info --format csv "$2")
        t=${n#* }
        events=${n% *}
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    printf '%-24s %10s events %8.3f s CPU %8.1f ns/event\n' "$1" "$events" "$best" "$(echo "$best * 1000000000 / $events" | bc -l)"
}
run "Kineto JSON" "$dir/kineto.json"
run "rocprofv3 JSON" "$dir/big_results.json"
run "rocprofv3 CSV" "$dir/csv"
run "Nsight Systems SQLite" "$dir/big.sqlite"
run "JAX trace.json" "$dir/big.trace.json"

#!/bin/sh
# bench/readers.sh — load speed of the other profilers' readers against the
# Kineto loader, per event loaded: large files of each format generated from
# the shared samples (../shared/traces/other) and ROCm's rocpd schema
# (../shared/spec/rocpd), a Kineto file of similar size from kineta-synth.
# Prints format, file size, events loaded, CPU seconds, ns per event and the
# ratio to the Kineto loader's ns per event in the same run.
#   sh bench/readers.sh [BUILD]     (default build/, release)
# Needs python3 and the sqlite3 program (Debian package sqlite3).
set -e
build=${1:-build}
dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}/readers
other=../shared/traces/other
spec=../shared/spec/rocpd
mkdir -p "$dir"
make -s PGO=0 BUILD="$build" "$build/kineta" "$build/kineta-synth"

# rocprofv3 JSON: the MI350X sample's dispatches repeated 6 times, later in
# time, written compact as rocprofv3 writes it
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
json.dump(d, open(sys.argv[2], "w"), separators=(",", ":"))
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

# rocpd: ROCm's schema with 300,000 dispatches and as many HIP calls
# launching them (correlated through their events), 8 kernels on 2 GPUs
[ -f "$dir/big_results.db" ] || {
    n=300000
    sed -e 's/{{uuid}}/_0a1b2c/g' -e 's/{{guid}}/g0/g' "$spec/rocpd_tables.sql" "$spec/rocpd_views.sql" \
        "$spec/data_views.sql" > "$dir/rocpd_schema.sql"
    rm -f "$dir/big_results.db.tmp"
    sqlite3 "$dir/big_results.db.tmp" ".read $dir/rocpd_schema.sql" "
      BEGIN;
      INSERT INTO rocpd_string_0a1b2c(id, string) VALUES (1, 'HIP_RUNTIME_API'), (2, 'hipLaunchKernel'), (3, 'KERNEL_DISPATCH');
      INSERT INTO rocpd_info_node_0a1b2c(id, hash, machine_id) VALUES (1, 1, 'm');
      INSERT INTO rocpd_info_process_0a1b2c(id, nid, pid) VALUES (1, 1, 4242);
      INSERT INTO rocpd_info_thread_0a1b2c(id, nid, pid, tid) VALUES (1, 1, 1, 4243);
      INSERT INTO rocpd_info_agent_0a1b2c(id, nid, pid, type, absolute_index, logical_index, type_index, name, product_name)
        VALUES (1, 1, 1, 'CPU', 0, 0, 0, 'cpu', NULL), (2, 1, 1, 'GPU', 2, 1, 0, 'gfx942', 'AMD Instinct MI300X'),
               (3, 1, 1, 'GPU', 3, 2, 1, 'gfx942', 'AMD Instinct MI300X');
      INSERT INTO rocpd_info_queue_0a1b2c(id, nid, pid, name) VALUES (1, 1, 1, 'q');
      INSERT INTO rocpd_info_stream_0a1b2c(id, nid, pid, name) VALUES (5, 1, 1, 'stream 5');
      INSERT INTO rocpd_info_code_object_0a1b2c(id, nid, pid, agent_id) VALUES (1, 1, 1, 2);
      WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 8)
      INSERT INTO rocpd_info_kernel_symbol_0a1b2c(id, nid, pid, code_object_id, kernel_name, display_name)
        SELECT i, 1, 1, 1, '_Z6kernelILi' || i || 'EEvPf.kd', 'void kernel<' || i || '>(float*)' FROM k;
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $n)
      INSERT INTO rocpd_event_0a1b2c(id, category_id, correlation_id) SELECT 2 * i - 1 + j, 1 + 2 * j, i FROM n, (SELECT 0 AS j UNION ALL SELECT 1);
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $n)
      INSERT INTO rocpd_region_0a1b2c(id, nid, pid, tid, start, end, name_id, event_id)
        SELECT i, 1, 1, 1, 1000000 + i * 20000, 1003000 + i * 20000, 2, 2 * i - 1 FROM n;
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $n)
      INSERT INTO rocpd_kernel_dispatch_0a1b2c(id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id,
          start, end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z,
          grid_size_x, grid_size_y, grid_size_z, event_id)
        SELECT i, 1, 1, 1, 2 + i % 2, 1 + i % 8, i, 1, 5, 1005000 + i * 20000, 1015000 + i * 20000, 0, 256, 64, 1, 1,
          1024, 1, 1, 2 * i FROM n;
      COMMIT;" >/dev/null
    mv "$dir/big_results.db.tmp" "$dir/big_results.db"
}

# XLA: the JAX sample's events repeated 150 times, later in time
[ -f "$dir/big.xplane.pb" ] || {
    python3 bench/xplane_scale.py "$other/jax/jax_conv_minimal_08/tw003.xplane.pb" "$dir/big.xplane.pb.tmp" 150
    mv "$dir/big.xplane.pb.tmp" "$dir/big.xplane.pb"
}

# Kineto: a synthesized trace of about the size of the rocprofv3 file
[ -f "$dir/kineto.json" ] || "$build/kineta-synth" --size 200M -o "$dir/kineto.json" >/dev/null

# Per event: CPU seconds (user + sys, summed over threads: the host is
# shared, wall time measures the other jobs) of `kineta info`, best of 3,
# counted from before the run (a python3 started through a shim, as
# pyenv's, has its launcher's children counted already: ~0.35 s);
# the ratio to the Kineto loader's ns per event (the first run).
kineto_ns=
run() { # format, path
    best=
    for _ in 1 2 3; do
        n=$(python3 -c '
import resource, subprocess, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
before = cpu()
out = subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout.splitlines()
print(out[1].split(",")[6], cpu() - before)' "$build/kineta" info --format csv "$2")
        t=${n#* }
        events=${n% *}
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    ns=$(echo "$best * 1000000000 / $events" | bc -l)
    [ -n "$kineto_ns" ] || kineto_ns=$ns
    printf '%-24s %6s MB %9s events %7.3f s CPU %7.1f ns/event %5.2fx Kineto\n' "$1" \
        "$(du -smL "$2" | cut -f1)" "$events" "$best" "$ns" "$(echo "$ns / $kineto_ns" | bc -l)"
}
run "Kineto JSON" "$dir/kineto.json"
run "rocprofv3 JSON" "$dir/big_results.json"
run "rocprofv3 CSV" "$dir/csv"
run "rocpd SQLite" "$dir/big_results.db"
run "Nsight Systems SQLite" "$dir/big.sqlite"
run "XLA XSpace protobuf" "$dir/big.xplane.pb"
run "JAX trace.json" "$dir/big.trace.json"

/*
 * test_read_rocprof_csv.c — rocprofv3 CSV files into the model: both column
 * sets of the shared samples (directory and single file), hand-written
 * files with known rows (agents as devices, calls linked by correlation,
 * rows in several files of one run), and damaged rows.
 */
#include "test.h"
#include "read_check.h"
#include "model/index.h"
#include "model/model_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Both shared column sets: every kernel row, times exact. */
TEST(rocprof_csv_samples_both_column_sets)
{
    static const struct { const char *dir; size_t kernels, copies; int64_t kernel_ns; } s[] = {
        /* independent: rows of kernel_trace.csv and memory_copy_trace.csv,
         * End - Start summed by Python's csv module over the files */
        { "traces/other/rocprofv3/csv_sdk_docs", 7, 2, 795453 },
        { "traces/other/rocprofv3/csv_rocm_systems", 9, 4, 96160 },
    };
    for (size_t i = 0; i < 2; i++) {
        const char *p = kt_test_shared_path(s[i].dir);
        if (!p) {
            kt_test_skip("../shared/traces/other/rocprofv3 absent");
            return;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s", p);
        kt_status st;
        kt_trace *t = rd_load_path(path, &st, NULL);
        CHECK_INT(st, KT_OK);
        if (!t) continue;
        const kt_rank *r = t->ranks[0];
        int64_t total, copy_total;
        CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &total), s[i].kernels);
        CHECK_INT(total, s[i].kernel_ns);
        CHECK_INT(rd_count_kind(r, KT_K_MEMCPY, &copy_total), s[i].copies);
        CHECK_INT(r->device_type, KT_DEV_ROCM);
        char buf[32];
        CHECK_STR(kt_rank_source(r, "kineta_format", buf, sizeof buf), "rocprofv3 CSV");
        kt_trace_free(t);
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* One run in three files with a prefix: a kernel file names the sibling
 * API and copy files; agents 8 and 4 become devices 1 and 0.          */
TEST(rocprof_csv_run_files_by_prefix)
{
    char dir[] = "/tmp/kt_rocprof_csv_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char k[256], h[256], m[256], other[256];
    snprintf(k, sizeof k, "%s/run7_kernel_trace.csv", dir);
    snprintf(h, sizeof h, "%s/run7_hip_api_trace.csv", dir);
    snprintf(m, sizeof m, "%s/run7_memory_copy_trace.csv", dir);
    snprintf(other, sizeof other, "%s/run8_kernel_trace.csv", dir);
    write_file(k, "\"Guid\",\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
                  "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Lds_Block_Size\","
                  "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\r\n"
                  "\"g\",\"KERNEL_DISPATCH\",\"Agent 8\",1,3,11,1,5,\"void k<int, \"\"a\"\">(int)\",21,1000,1500,128,64,1,1,256,1,1\r\n"
                  "\"g\",\"KERNEL_DISPATCH\",\"Agent 4\",1,0,11,2,5,\"b\",22,2000,2250,0,64,1,1,256,1,1\r\n");
    write_file(h, "Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp\n"
                  "HIP_RUNTIME_API,hipLaunchKernel,10,11,21,900,990\n"
                  "HIP_RUNTIME_API,hipMemcpyAsync,10,11,23,2400,2410\n");
    write_file(m, "Kind,Direction,Source_Agent_Id,Destination_Agent_Id,Correlation_Id,Start_Timestamp,End_Timestamp\n"
                  "MEMORY_COPY,MEMORY_COPY_HOST_TO_DEVICE,Agent 0,Agent 8,23,2500,2700\n");
    write_file(other, "Kind,Agent_Id,Kernel_Name,Start_Timestamp,End_Timestamp\nKERNEL_DISPATCH,1,zzz,1,2\n");
    kt_status st;
    kt_trace *t = rd_load_path(k, &st, NULL);
    CHECK_INT(st, KT_OK);
    if (t) {
        const kt_rank *r = t->ranks[0];
        int64_t total;
        CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &total), 2); /* run8's file is another run */
        CHECK_INT(total, 750);
        CHECK_INT(rd_count_kind(r, KT_K_MEMCPY, &total), 1);
        CHECK_INT(rd_count_kind(r, KT_K_RUNTIME, &total), 2);
        for (uint32_t i = 0; i < r->ev.n; i++) {
            const char *name = r->ev.name[i] == KT_NONE ? "" : kt_strtab_get(t->strs, r->ev.name[i]);
            if (!strcmp(name, "void k<int, \"a\">(int)")) {
                CHECK_INT(kt_event_pid(r, i), 1); /* Agent 8: the second of agents 4, 8 */
                CHECK_INT(kt_ev_stream(&r->ev, i), 3);
                CHECK_INT(kt_event_arg_int(r, i, KT_ARG_SHARED_MEMORY, -1), 128);
            }
            if (!strcmp(name, "b")) CHECK_INT(kt_event_pid(r, i), 0);
            if (r->ev.kind[i] == KT_K_MEMCPY) {
                CHECK_STR(name, "Memcpy HtoD (Host -> Device)");
                CHECK_INT(kt_event_pid(r, i), 1);
            }
        }
        CHECK_INT(r->by_ph['s'], 2); /* both calls reach their GPU work */
        kt_trace_free(t);
    }
    unlink(k), unlink(h), unlink(m), unlink(other);
    rmdir(dir);
}

/* Rows that are not numbers, short rows, an unterminated quote: read what
 * can be, no crash, the bad rows reported. */
TEST(rocprof_csv_damaged_rows)
{
    static const char text[] = "Kind,Agent_Id,Kernel_Name,Start_Timestamp,End_Timestamp\n"
                               "KERNEL_DISPATCH,1,a,10,20\n"
                               "KERNEL_DISPATCH,1,b,x,20\n"
                               "KERNEL_DISPATCH,1\n"
                               "KERNEL_DISPATCH,1,c,30,25\n"
                               "KERNEL_DISPATCH,99999999999999999999999,d,40,50\n"
                               "KERNEL_DISPATCH,1,\"e,50,60\n";
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("x_kernel_trace.csv", text, sizeof text - 1, NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    if (!t) return;
    int64_t total;
    CHECK_INT(rd_count_kind(t->ranks[0], KT_K_KERNEL, &total), 2);
    bool said = false;
    for (size_t i = 0; i < kt_diags_count(kt_trace_diags(t)); i++)
        said |= strstr(kt_diags_get(kt_trace_diags(t), i)->message, "4 rows without valid") != NULL;
    CHECK(said);
    kt_trace_free(t);
}

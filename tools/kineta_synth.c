/*
 * kineta-synth — writes synthetic PyTorch profiler (Kineto) traces whose answers are known.
 *
 * Why this file exists: the real traces available to kineta are few, small, and their
 * "right answers" are only known through some other tool's interpretation.  kineta needs
 * traces of any size (up to many GiB, to measure parse throughput and memory) and traces
 * whose counts, GPU busy/idle time and communication/computation overlap are known
 * exactly.  This program builds the GPU timeline deliberately (kernels on one stream never
 * overlap, gaps are chosen, every launch precedes its kernel), computes the ground truth
 * while it writes, and formats every event byte-for-byte the way native libkineto does,
 * so kineta's parser sees the same shape it sees in real files.
 *
 * Self-contained C11: libc + zlib only.  Build:
 *   gcc -std=c11 -O2 -Wall -Wextra -Werror -o kineta-synth tools/kineta_synth.c -lz
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* ------------------------------------------------------------------------------------ */
/* Limits and fixed choices                                                             */
/* ------------------------------------------------------------------------------------ */

enum {
    MAX_COMPUTE_STREAMS = 16,
    MAX_STREAMS = MAX_COMPUTE_STREAMS + 1, /* + the NCCL stream */
    MAX_RANKS = 4096,
    MAX_DEPTH = 64,
    DEVICES_PER_NODE = 8,
    FIRST_STEP = 1,
    MAX_STEPS = 100000000, /* ~40 TB per rank; keeps step numbers in an int32 */
};

/* One event never exceeds this many bytes, so a single capacity check per event suffices
 * (the longest are ROCm launches carrying the kernel name and comm ops carrying the
 * "Process Group Ranks" list of up to MAX_RANKS entries). */
#define EVENT_ROOM ((size_t)256 * 1024)
#define OUT_BUFFER ((size_t)16 * 1024 * 1024)

/* Kineto's trace clock is a monotonic µs clock; values this size keep ns precision in a
 * double, exactly as real ns-resolution traces do. */
#define TRACE_BASE_US INT64_C(1700000000000)
#define BASE_TIME_NANOSECONDS "1735689600000000000"

/* ------------------------------------------------------------------------------------ */
/* Command line                                                                         */
/* ------------------------------------------------------------------------------------ */

typedef enum { VENDOR_CUDA, VENDOR_ROCM } Vendor;

typedef struct {
    const char *out;
    int ranks;
    uint64_t size;  /* target uncompressed bytes per rank; 0 when --steps is given */
    uint64_t steps; /* 0 = derive from size */
    Vendor vendor;
    int streams; /* compute streams */
    bool graphs, ns, gzip;
    uint64_t seed;
    /* --collectives and what it enables */
    bool collectives;
    int64_t skew_ns;          /* per-rank clock offsets drawn from [-skew, skew] */
    int straggler_rank;       /* -1 none */
    int64_t straggler_ns;     /* its arrival at every collective is this late */
    int slow_rank;            /* -1 none */
    int slow_pct;             /* its computation kernels take this much longer */
} Options;

static const char USAGE[] =
    "usage: kineta-synth [options] -o OUT\n"
    "\n"
    "Writes realistic PyTorch profiler (Kineto) Chrome traces plus a ground-truth file\n"
    "with exact counts and GPU busy/idle/overlap times.\n"
    "\n"
    "  -o OUT            output directory (OUT/rank-<r>.json[.gz], OUT/truth.json), or, with\n"
    "                    one rank, a file name ending in .json or .json.gz (truth goes to\n"
    "                    OUT.truth.json)\n"
    "  --ranks N         number of ranks / files (default 1, max 4096)\n"
    "  --size SIZE       target uncompressed size per rank: bytes or K/M/G/T suffix\n"
    "                    (binary units; default 10M); met within a few percent\n"
    "  --steps K         number of profiler steps instead of --size\n"
    "  --vendor V        cuda (default) or rocm naming and stream layout\n"
    "  --streams S       compute streams, 1..16 (default 3); one NCCL stream is added\n"
    "  --graphs          replay forward blocks and the optimizer through CUDA/HIP graphs\n"
    "  --ns              ns-resolution timestamps (µs with 3 decimals) instead of integer µs\n"
    "  --gzip            gzip the trace files (zlib level 1)\n"
    "  --seed X          deterministic seed (default 1)\n"
    "  --collectives     collectives with real metadata (PG names, Seq, sizes, dtypes):\n"
    "                    broadcast, allgather, allreduce buckets, reducescatter on half-world\n"
    "                    groups, all-to-all-v, send/recv pairs; every rank leaves a collective\n"
    "                    when the last member has arrived (truth.json: \"collectives\")\n"
    "  --clock-skew US   per-rank clock offsets up to +-US (implies --collectives)\n"
    "  --straggler R:US  rank R arrives US late at every collective (implies --collectives)\n"
    "  --slow-rank R:PCT rank R's computation kernels take PCT% longer (implies --collectives)\n"
    "  -h, --help        this text\n"
    "\n"
    "Exit status: 0 success, 2 usage error, 1 write failure.\n";

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "kineta-synth: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see kineta-synth --help)\n");
    exit(2);
}

static uint64_t parse_u64(const char *s, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-')
        usage_error("invalid number for %s", what);
    return v;
}

/* "200M", "1G", "4GiB", "5000000": binary multiples, so 1G is exactly one GiB. */
static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        usage_error("invalid size '%s'", s);
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && *end == 'i')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v == 0 || v > (UINT64_MAX >> shift))
        usage_error("invalid size '%s'", s);
    return (uint64_t)v << shift;
}

/* "R:N" (rank, amount) for --straggler and --slow-rank. */
static void parse_rank_amount(const char *v, const char *what, int *rank, int64_t *amount)
{
    char *end;
    errno = 0;
    long r = strtol(v, &end, 10);
    if (errno || end == v || *end != ':' || r < 0 || r >= MAX_RANKS)
        usage_error("%s takes RANK:AMOUNT", what);
    *rank = (int)r;
    *amount = (int64_t)parse_u64(end + 1, what);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char *option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        usage_error("option %s needs a value", argv[*i]);
    return argv[++*i];
}

static Options parse_options(int argc, char **argv)
{
    Options o = {.ranks = 1, .vendor = VENDOR_CUDA, .streams = 3, .seed = 1, .straggler_rank = -1, .slow_rank = -1};
    bool size_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            exit(0);
        } else if (!strcmp(a, "-o")) {
            o.out = option_value(argc, argv, &i);
        } else if (!strcmp(a, "--ranks")) {
            o.ranks = (int)parse_u64(option_value(argc, argv, &i), "--ranks");
        } else if (!strcmp(a, "--size")) {
            o.size = parse_size(option_value(argc, argv, &i));
            size_given = true;
        } else if (!strcmp(a, "--steps")) {
            o.steps = parse_u64(option_value(argc, argv, &i), "--steps");
            if (o.steps == 0 || o.steps > MAX_STEPS)
                usage_error("%s must be between 1 and 100000000", "--steps");
        } else if (!strcmp(a, "--vendor")) {
            const char *v = option_value(argc, argv, &i);
            if (!strcmp(v, "cuda"))
                o.vendor = VENDOR_CUDA;
            else if (!strcmp(v, "rocm"))
                o.vendor = VENDOR_ROCM;
            else
                usage_error("unknown vendor '%s' (cuda or rocm)", v);
        } else if (!strcmp(a, "--streams")) {
            o.streams = (int)parse_u64(option_value(argc, argv, &i), "--streams");
        } else if (!strcmp(a, "--graphs")) {
            o.graphs = true;
        } else if (!strcmp(a, "--ns")) {
            o.ns = true;
        } else if (!strcmp(a, "--gzip")) {
            o.gzip = true;
        } else if (!strcmp(a, "--seed")) {
            o.seed = parse_u64(option_value(argc, argv, &i), "--seed");
        } else if (!strcmp(a, "--collectives")) {
            o.collectives = true;
        } else if (!strcmp(a, "--clock-skew")) {
            o.skew_ns = (int64_t)parse_u64(option_value(argc, argv, &i), "--clock-skew") * 1000;
            o.collectives = true;
        } else if (!strcmp(a, "--straggler")) {
            parse_rank_amount(option_value(argc, argv, &i), "--straggler", &o.straggler_rank, &o.straggler_ns);
            o.straggler_ns *= 1000;
            o.collectives = true;
        } else if (!strcmp(a, "--slow-rank")) {
            int64_t pct;
            parse_rank_amount(option_value(argc, argv, &i), "--slow-rank", &o.slow_rank, &pct);
            o.slow_pct = (int)pct;
            o.collectives = true;
        } else {
            usage_error("unknown argument '%s'", a);
        }
    }
    if (!o.out)
        usage_error("%s", "missing -o OUT");
    if (o.ranks < 1 || o.ranks > MAX_RANKS)
        usage_error("%s must be between 1 and 4096", "--ranks");
    if (o.straggler_rank >= o.ranks || o.slow_rank >= o.ranks)
        usage_error("%s", "--straggler / --slow-rank name a rank beyond --ranks");
    if (o.slow_pct > 1000 || o.skew_ns > INT64_C(3600000000000))
        usage_error("%s", "--slow-rank above 1000% or --clock-skew above an hour");
    if (o.streams < 1 || o.streams > MAX_COMPUTE_STREAMS)
        usage_error("%s must be between 1 and 16", "--streams");
    if (size_given && o.steps)
        usage_error("%s", "give either --size or --steps, not both");
    if (!size_given && !o.steps)
        o.size = (uint64_t)10 << 20;
    if (o.ranks == 1 && ends_with(o.out, ".json.gz"))
        o.gzip = true;
    else if (o.ranks == 1 && ends_with(o.out, ".json") && o.gzip)
        usage_error("'%s' names an uncompressed file but --gzip was given", o.out);
    return o;
}

static bool single_file_mode(const Options *o)
{
    return o->ranks == 1 && (ends_with(o->out, ".json") || ends_with(o->out, ".json.gz"));
}

/* ------------------------------------------------------------------------------------ */
/* Deterministic random numbers (splitmix64: tiny, fast, good enough for timings)        */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi] for spans below 2^32 (all timing ranges here); multiply-shift
 * instead of a 64-bit division keeps the hot path cheap. */
static uint64_t rng_range(Rng *r, uint64_t lo, uint64_t hi)
{
    return lo + (((rng_next(r) >> 32) * (hi - lo + 1)) >> 32);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
    Rng r = {a * UINT64_C(0x2545F4914F6CDD1D) ^ b};
    return rng_next(&r);
}

/* ------------------------------------------------------------------------------------ */
/* Output: one big buffer, flushed in large blocks to a file or a gzip stream            */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    char *buf;
    size_t len;
    FILE *fp;
    gzFile gz;
    const char *path;
    uint64_t bytes;  /* uncompressed bytes produced so far */
    bool discard;    /* size estimation: count, write nothing */
    bool ns_times;   /* µs with 3 decimals instead of integer µs */
} Writer;

static void die_write(const Writer *w, const char *detail)
{
    fprintf(stderr, "kineta-synth: cannot write %s: %s\n", w->path, detail);
    exit(1);
}

static void w_flush(Writer *w)
{
    if (w->len && !w->discard) {
        if (w->gz) {
            if (gzwrite(w->gz, w->buf, (unsigned)w->len) != (int)w->len) {
                int err;
                const char *msg = gzerror(w->gz, &err);
                die_write(w, err == Z_ERRNO ? strerror(errno) : msg);
            }
        } else if (fwrite(w->buf, 1, w->len, w->fp) != w->len) {
            die_write(w, strerror(errno));
        }
    }
    w->bytes += w->len;
    w->len = 0;
}

static void w_need(Writer *w, size_t n)
{
    if (OUT_BUFFER - w->len < n)
        w_flush(w);
}

static inline void put(Writer *w, const char *s, size_t n)
{
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

/* Literal text only: the "" concatenation rejects anything but a string literal. */
#define PUT(w, lit) put((w), "" lit "", sizeof(lit) - 1)

static inline void put_str(Writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static inline void put_u64(Writer *w, uint64_t v)
{
    char tmp[20];
    int i = 20;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(w, tmp + i, (size_t)(20 - i));
}

static inline void put_i64(Writer *w, int64_t v)
{
    if (v < 0) {
        PUT(w, "-");
        put_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(w, (uint64_t)v);
    }
}

/* Kineto writes µs; ns-resolution traces carry exactly three decimals. */
static inline void put_time(Writer *w, int64_t ns)
{
    put_u64(w, (uint64_t)(ns / 1000));
    if (w->ns_times) {
        unsigned f = (unsigned)(ns % 1000);
        char t[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};
        put(w, t, 4);
    }
}

/* Python prints floats with the shortest text that reads back exactly; Kineto's
 * bandwidth values look like that, so mimic it (rare events: snprintf is fine). */
static void put_double(Writer *w, double v)
{
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    if (!strpbrk(tmp, ".e"))
        strcat(tmp, ".0");
    put_str(w, tmp);
}

static void put_json_string(Writer *w, const char *s)
{
    PUT(w, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            put(w, esc, 2);
        } else if (c < 0x20) {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put_str(w, esc);
        } else {
            put(w, (const char *)&c, 1);
        }
    }
    PUT(w, "\"");
}

static void w_open(Writer *w, const char *path, bool gzip, bool ns_times)
{
    *w = (Writer){.path = path, .ns_times = ns_times};
    w->buf = malloc(OUT_BUFFER);
    if (!w->buf) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    if (!path) {
        w->discard = true;
        return;
    }
    if (gzip) {
        /* Level 1: the trace is highly repetitive, so the fastest level still compresses
         * ~10x and keeps the generator close to disk speed. */
        w->gz = gzopen(path, "wb1");
        if (!w->gz || gzbuffer(w->gz, 1u << 20) != 0)
            die_write(w, strerror(errno));
    } else {
        w->fp = fopen(path, "wb");
        if (!w->fp)
            die_write(w, strerror(errno));
    }
}

static void w_close(Writer *w)
{
    w_flush(w);
    if (w->gz) {
        int rc = gzclose(w->gz);
        if (rc != Z_OK)
            die_write(w, rc == Z_ERRNO ? strerror(errno) : "gzip stream could not be finished");
    }
    if (w->fp && fclose(w->fp) != 0)
        die_write(w, strerror(errno));
    free(w->buf);
    w->buf = NULL;
}

/* ------------------------------------------------------------------------------------ */
/* GPU operation catalogue (kernels, copies, fills) with vendor-specific names           */
/* ------------------------------------------------------------------------------------ */

typedef enum { GPU_COMPUTE, GPU_COMM, GPU_MEMCPY, GPU_MEMSET } GpuClass;

typedef struct {
    const char *cuda, *rocm;
    GpuClass cls;
    bool ext_launch; /* launched via cudaLaunchKernelExC / hipExtModuleLaunchKernel */
    uint32_t dur_lo, dur_hi; /* ns */
    int grid[3], block[3], regs, smem;
    const char *copy_kind; /* ROCm "kind" of copies/fills */
} GpuOpTpl;

enum {
    K_LN_FWD, K_GEMM_QKV, K_FLASH_FWD, K_GEMM_OUT, K_ADD, K_GEMM_FC1, K_GELU, K_GEMM_FC2,
    K_LOGSOFTMAX, K_NLL, K_NLL_BWD, K_LOGSOFTMAX_BWD, K_GEMM_DGRAD, K_GEMM_WGRAD,
    K_REDUCE_SUM, K_GELU_BWD, K_LN_BWD_INPUT, K_LN_BWD_GAMMA, K_FLASH_BWD, K_FOREACH_ADD,
    K_FUSED_ADAM, K_ALLREDUCE, M_HTOD, M_DTOH, M_FILL,
    K_ALLGATHER, K_REDUCESCATTER, K_SENDRECV, K_BROADCAST, /* --collectives only */
    NUM_GPU_OPS
};

#define ELEMENTWISE(functor, n)                                                                \
    "void at::native::vectorized_elementwise_kernel<4, " functor ", at::detail::Array<char*, " \
    #n "> >(int, " functor ", at::detail::Array<char*, " #n ">)"

#define GELU_FWD_FUNCTOR                                                                       \
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}" \
    "::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}"
#define GELU_BWD_FUNCTOR                                                                       \
    "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"   \
    "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}"
#define SUM_REDUCE_OP                                                                          \
    "at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<"    \
    "float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "         \
    "unsigned int, float, 4>"
#define FOREACH_ADD_ARGS                                                                       \
    "at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "         \
    "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float"
#define FUSED_ADAM_ARGS                                                                        \
    "at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous "         \
    "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, "     \
    "double, double, double, double, double, bool, float*, float*"
#define ROCBLAS_TAIL                                                                           \
    "_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_"      \
    "LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_"     \
    "NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_"     \
    "SVW1_TLDS1_USFGROn1_VSn1_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1"

/* Names must never contain '"' or '\\': they are written verbatim into JSON. */
static const GpuOpTpl GPU_OPS[NUM_GPU_OPS] = {
    [K_LN_FWD] = {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
                  "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
                  GPU_COMPUTE, false, 6000, 14000, {2048, 1, 1}, {128, 1, 1}, 32, 0, NULL},
    [K_GEMM_QKV] = {"ampere_sgemm_128x64_tn",
                    "Cijk_Ailk_Bljk_SB_Bias_AS_SAV_UserArgs_MT128x64x16_MI16x16x1" ROCBLAS_TAIL,
                    GPU_COMPUTE, true, 60000, 180000, {24, 32, 1}, {128, 1, 1}, 122, 16384, NULL},
    [K_FLASH_FWD] = {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 64, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
                     "attn_fwd", GPU_COMPUTE, false, 80000, 220000, {16, 16, 8}, {128, 1, 1}, 255, 24576, NULL},
    [K_GEMM_OUT] = {"ampere_sgemm_64x64_nn",
                    "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x64x16_MI16x16x1" ROCBLAS_TAIL,
                    GPU_COMPUTE, true, 30000, 90000, {16, 32, 1}, {64, 1, 1}, 90, 8192, NULL},
    [K_ADD] = {ELEMENTWISE("at::native::CUDAFunctor_add<float>", 3),
               ELEMENTWISE("at::native::CUDAFunctor_add<float>", 3),
               GPU_COMPUTE, false, 3000, 9000, {1024, 1, 1}, {128, 1, 1}, 24, 0, NULL},
    [K_GEMM_FC1] = {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
                    "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT128x128x16_MI32x32x1" ROCBLAS_TAIL,
                    GPU_COMPUTE, true, 120000, 320000, {32, 16, 1}, {256, 1, 1}, 128, 32768, NULL},
    [K_GELU] = {ELEMENTWISE(GELU_FWD_FUNCTOR, 2), ELEMENTWISE(GELU_FWD_FUNCTOR, 2),
                GPU_COMPUTE, false, 8000, 20000, {4096, 1, 1}, {128, 1, 1}, 26, 0, NULL},
    [K_GEMM_FC2] = {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align4::Params)",
                    "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT128x128x32_MI32x32x1" ROCBLAS_TAIL,
                    GPU_COMPUTE, true, 110000, 300000, {16, 32, 1}, {128, 1, 1}, 230, 73728, NULL},
    [K_LOGSOFTMAX] = {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
                      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
                      GPU_COMPUTE, false, 20000, 50000, {512, 1, 1}, {1024, 1, 1}, 38, 64, NULL},
    [K_NLL] = {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
               "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
               GPU_COMPUTE, false, 4000, 9000, {1, 1, 1}, {32, 1, 1}, 30, 256, NULL},
    [K_NLL_BWD] = {"void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
                   "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
                   GPU_COMPUTE, false, 3000, 7000, {1, 1, 1}, {32, 1, 1}, 28, 0, NULL},
    [K_LOGSOFTMAX_BWD] = {"void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, int)",
                          "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, int)",
                          GPU_COMPUTE, false, 20000, 45000, {512, 1, 1}, {1024, 1, 1}, 40, 64, NULL},
    [K_GEMM_DGRAD] = {"ampere_sgemm_128x128_nt",
                      "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT128x128x16_MI16x16x1" ROCBLAS_TAIL,
                      GPU_COMPUTE, true, 90000, 260000, {16, 32, 1}, {256, 1, 1}, 127, 32768, NULL},
    [K_GEMM_WGRAD] = {"ampere_sgemm_64x64_tn",
                      "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1" ROCBLAS_TAIL,
                      GPU_COMPUTE, true, 90000, 260000, {32, 32, 1}, {64, 1, 1}, 90, 8192, NULL},
    [K_REDUCE_SUM] = {"void at::native::reduce_kernel<128, 4, " SUM_REDUCE_OP " >(" SUM_REDUCE_OP ")",
                      "void at::native::reduce_kernel<128, 4, " SUM_REDUCE_OP " >(" SUM_REDUCE_OP ")",
                      GPU_COMPUTE, false, 5000, 15000, {64, 1, 1}, {32, 16, 1}, 32, 16, NULL},
    [K_GELU_BWD] = {ELEMENTWISE(GELU_BWD_FUNCTOR, 3), ELEMENTWISE(GELU_BWD_FUNCTOR, 3),
                    GPU_COMPUTE, false, 10000, 26000, {4096, 1, 1}, {128, 1, 1}, 30, 0, NULL},
    [K_LN_BWD_INPUT] = {"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
                        "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
                        GPU_COMPUTE, false, 8000, 18000, {2048, 1, 1}, {128, 1, 1}, 40, 1024, NULL},
    [K_LN_BWD_GAMMA] = {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)",
                        "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)",
                        GPU_COMPUTE, false, 6000, 16000, {24, 1, 1}, {32, 32, 1}, 48, 8448, NULL},
    [K_FLASH_BWD] = {"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> >, true, false, false, false, false, false, false>(pytorch_flash::Flash_bwd_params)",
                     "bwd_kernel_dk_dv", GPU_COMPUTE, false, 180000, 420000, {8, 16, 8}, {256, 1, 1}, 255, 49152, NULL},
    [K_FOREACH_ADD] = {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" FOREACH_ADD_ARGS ">(" FOREACH_ADD_ARGS ")",
                       "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" FOREACH_ADD_ARGS ">(" FOREACH_ADD_ARGS ")",
                       GPU_COMPUTE, false, 4000, 12000, {320, 1, 1}, {512, 1, 1}, 32, 0, NULL},
    [K_FUSED_ADAM] = {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" FUSED_ADAM_ARGS ">(" FUSED_ADAM_ARGS ")",
                      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" FUSED_ADAM_ARGS ">(" FUSED_ADAM_ARGS ")",
                      GPU_COMPUTE, false, 40000, 120000, {320, 1, 1}, {512, 1, 1}, 64, 0, NULL},
    [K_ALLREDUCE] = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                     "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                     GPU_COMM, false, 200000, 1500000, {8, 1, 1}, {544, 1, 1}, 96, 87568, NULL},
    [M_HTOD] = {"Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Host -> Device)",
                GPU_MEMCPY, false, 20000, 90000, {0, 0, 0}, {0, 0, 0}, 0, 0, "HtoD"},
    [M_DTOH] = {"Memcpy DtoH (Device -> Pageable)", "Memcpy DtoH (Device -> Host)",
                GPU_MEMCPY, false, 2000, 4000, {0, 0, 0}, {0, 0, 0}, 0, 0, "DtoH"},
    [M_FILL] = {"Memset (Device)", "Memset (Device)",
                GPU_MEMSET, false, 2000, 6000, {0, 0, 0}, {0, 0, 0}, 0, 0, "Device"},
    [K_ALLGATHER] = {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                     "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                     GPU_COMM, false, 50000, 400000, {8, 1, 1}, {544, 1, 1}, 96, 87568, NULL},
    [K_REDUCESCATTER] = {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                         "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                         GPU_COMM, false, 50000, 400000, {8, 1, 1}, {544, 1, 1}, 96, 87568, NULL},
    [K_SENDRECV] = {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
                    "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                    GPU_COMM, false, 20000, 200000, {4, 1, 1}, {256, 1, 1}, 96, 87568, NULL},
    [K_BROADCAST] = {"ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                     "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                     GPU_COMM, false, 10000, 60000, {2, 1, 1}, {544, 1, 1}, 96, 87568, NULL},
};

static const char *gpu_op_name(Vendor v, int tpl)
{
    return v == VENDOR_ROCM ? GPU_OPS[tpl].rocm : GPU_OPS[tpl].cuda;
}

static bool is_kernel(int tpl)
{
    return GPU_OPS[tpl].cls == GPU_COMPUTE || GPU_OPS[tpl].cls == GPU_COMM;
}

/* ------------------------------------------------------------------------------------ */
/* Runtime API catalogue                                                                 */
/* ------------------------------------------------------------------------------------ */

typedef enum {
    API_LAUNCH, API_LAUNCH_EXT, API_MEMCPY, API_MEMSET, API_GRAPH, /* enqueue GPU work */
    API_SYNC, API_EVENT_RECORD, API_STREAM_WAIT, NUM_APIS
} Api;

typedef struct {
    const char *name;
    int cbid; /* CUDA "cbid" / ROCm "cid" callback id */
} ApiName;

/* CUDA cbids are the ones in real CUPTI traces; ROCm cids for hipLaunchKernel,
 * hipExtModuleLaunchKernel and hipMemsetAsync are the ones seen in ROCm 6.2 traces, the
 * other ROCm cids are plausible stand-ins. */
static const ApiName API_NAMES[2][NUM_APIS] = {
    [VENDOR_CUDA] = {{"cudaLaunchKernel", 211}, {"cudaLaunchKernelExC", 430},
                     {"cudaMemcpyAsync", 41}, {"cudaMemsetAsync", 51},
                     {"cudaGraphLaunch", 311}, {"cudaStreamSynchronize", 131},
                     {"cudaEventRecord", 135}, {"cudaStreamWaitEvent", 147}},
    [VENDOR_ROCM] = {{"hipLaunchKernel", 107}, {"hipExtModuleLaunchKernel", 65},
                     {"hipMemcpyAsync", 126}, {"hipMemsetAsync", 159},
                     {"hipGraphLaunch", 85}, {"hipStreamSynchronize", 296},
                     {"hipEventRecord", 56}, {"hipStreamWaitEvent", 301}},
};

/* Only calls that enqueue GPU work get an ac2g flow (and have GPU activities). */
static bool api_has_flow(Api a)
{
    return a <= API_GRAPH;
}

/* ------------------------------------------------------------------------------------ */
/* Event records: one profiler step is built in memory, then written by several passes  */
/* ------------------------------------------------------------------------------------ */

typedef enum { EV_CPU_OP, EV_USER_ANN, EV_PYTHON, EV_MEM_INSTANT, EV_RUNTIME, EV_GPU } EvKind;
typedef enum { THREAD_MAIN, THREAD_AUTOGRAD } Thread;
typedef enum { ARGS_PLAIN, ARGS_FWD_SEQ, ARGS_BWD_SEQ, ARGS_COMMS } ArgsStyle;

typedef struct {
    int64_t ts, dur;  /* ns */
    const char *name; /* CPU-side names; GPU and runtime names come from the catalogues */
    uint64_t ext_id;  /* External id */
    uint64_t id;      /* Record function id | Python id | correlation | allocation address */
    uint64_t aux;     /* Python parent id | sequence number | message elements | bytes */
    int64_t val;      /* [memory]: bytes allocated (negative when freed) */
    uint32_t flow;    /* fwdbwd flow id, 0 = none */
    int32_t suffix;   /* number appended to the name, -1 = none */
    uint8_t kind, thread, style, stream, tpl, api;
} Ev;

/* Static shape of the synthetic model, identical on every rank (as in data parallelism). */
typedef struct {
    Vendor vendor;
    int streams; /* compute streams; index `streams` is the NCCL stream */
    bool graphs;
    int64_t quantum; /* 1000 ns for integer-µs traces, 1 ns otherwise */
    int layers;
    int world_size;
    bool collectives; /* --collectives: the schedule of coll_kind_at() */
    uint64_t seed;
} Model;

/* --collectives: collectives are coordinated across ranks.  A rank's collective kernel
 * starts when the rank gets there (its "arrival") and ends when the last member of its
 * group has arrived plus the collective's latency.  The ends need every rank's arrivals,
 * so resolve_collectives() first runs all ranks step by step in lock-step and records
 * them here; the writing passes then read the ends.  Times are true time (a rank's own
 * clock minus its offset).  Index: slot * nranks + rank. */
typedef struct CollPlan {
    int nranks;
    size_t nslots, cap;
    int64_t *arrive; /* INT64_MIN: not a member / not yet known */
    int64_t *end;
    bool recording;
} CollPlan;

/* The per-rank generator.  Everything that survives from one step to the next lives
 * here, so regenerating from a copy of the initial state reproduces the same events. */
typedef struct {
    const Model *m;
    Rng rng;
    int64_t now; /* CPU cursor, ns */
    uint64_t ext_id, rf_id, py_id, corr, seq, fwdbwd;
    int64_t stream_free[MAX_STREAMS];
    int64_t total_alloc;
    /* step-local */
    int64_t step_alloc;
    Ev *ev;
    size_t n, cap;
    size_t stack[MAX_DEPTH];
    int depth;
    Thread thread;
    int64_t gpu_first, gpu_last;
    uint64_t step_ext_id;
    /* --collectives */
    int rank;
    int64_t clock_offset, straggle_ns;
    int slow_pct;
    CollPlan *plan; /* NULL: each collective ends at its own arrival + latency */
    uint64_t coll_n; /* collective slots run so far */
} Gen;

/* fwdbwd bookkeeping: forward ops remember their sequence number and flow id so the
 * backward node of the same op can point back at them. */
typedef struct {
    uint64_t seq;
    uint32_t flow;
} FwdLink;

static Ev *ev_push(Gen *g, EvKind kind)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 4096;
        g->ev = realloc(g->ev, g->cap * sizeof *g->ev);
        if (!g->ev) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            exit(1);
        }
    }
    Ev *e = &g->ev[g->n++];
    *e = (Ev){.kind = (uint8_t)kind, .thread = (uint8_t)g->thread, .suffix = -1};
    return e;
}

static int64_t quantize(const Gen *g, int64_t ns)
{
    int64_t q = g->m->quantum;
    return ns < q ? q : ns - ns % q;
}

static int64_t draw(Gen *g, uint64_t lo, uint64_t hi)
{
    return quantize(g, (int64_t)rng_range(&g->rng, lo, hi));
}

/* CPU time between consecutive events; keeps children strictly inside their parents. */
static void cpu_pad(Gen *g)
{
    g->now += draw(g, 200, 1500);
}

static void cpu_busy(Gen *g, uint64_t lo, uint64_t hi)
{
    g->now += draw(g, lo, hi);
}

/* Innermost open event matching a kind filter, or NULL. */
static const Ev *open_ancestor(const Gen *g, bool python)
{
    for (int i = g->depth - 1; i >= 0; i--) {
        const Ev *e = &g->ev[g->stack[i]];
        if (python ? e->kind == EV_PYTHON : (e->kind == EV_CPU_OP || e->kind == EV_USER_ANN))
            return e;
    }
    return NULL;
}

static Ev *cpu_open(Gen *g, EvKind kind, const char *name)
{
    cpu_pad(g);
    uint64_t parent_py = 0;
    if (kind == EV_PYTHON) {
        const Ev *p = open_ancestor(g, true);
        parent_py = p ? p->id : 0;
    }
    if (g->depth == MAX_DEPTH) {
        fprintf(stderr, "kineta-synth: internal error: nesting too deep\n");
        exit(1);
    }
    g->stack[g->depth++] = g->n;
    Ev *e = ev_push(g, kind);
    e->ts = g->now;
    e->name = name;
    if (kind == EV_PYTHON) {
        e->id = ++g->py_id;
        e->aux = parent_py;
    } else {
        e->ext_id = ++g->ext_id;
        e->id = ++g->rf_id;
    }
    return e;
}

static void cpu_close(Gen *g)
{
    cpu_pad(g);
    Ev *e = &g->ev[g->stack[--g->depth]];
    e->dur = g->now - e->ts;
}

static void cpu_leaf(Gen *g, EvKind kind, const char *name, uint64_t lo, uint64_t hi)
{
    cpu_open(g, kind, name);
    cpu_busy(g, lo, hi);
    cpu_close(g);
}

static void py_noise(Gen *g, int n)
{
    static const char *const NOISE[] = {
        "torch/nn/modules/module.py(1950): __getattr__",
        "<built-in function isinstance>",
        "<built-in method size of Tensor object at 0x7f3b2c1d9e50>",
        "<built-in function _has_torch_function_unary>",
        "torch/_jit_internal.py(503): fn",
        "<built-in method dim of Tensor object at 0x7f3b2c1d9e50>",
        "typing.py(2187): cast",
        "<built-in method _get_tracing_state of PyCapsule object at 0x7f3b61d9a2e0>",
    };
    for (int i = 0; i < n; i++)
        cpu_leaf(g, EV_PYTHON, NOISE[rng_next(&g->rng) % (sizeof NOISE / sizeof *NOISE)], 300, 3000);
}

static void mem_instant(Gen *g, int64_t bytes)
{
    cpu_pad(g);
    Ev *e = ev_push(g, EV_MEM_INSTANT);
    e->ts = g->now;
    e->name = "[memory]";
    e->id = UINT64_C(0x7f2a00000000) + (rng_next(&g->rng) % 0x40000000) * 512;
    g->total_alloc += bytes;
    g->step_alloc += bytes;
    e->val = bytes;
    e->aux = (uint64_t)g->total_alloc;
}

/* ------------------------------------------------------------------------------------ */
/* GPU timeline: every activity starts no earlier than its launch, its dependencies and */
/* the end of the previous activity on its stream plus a chosen gap                      */
/* ------------------------------------------------------------------------------------ */

static int comm_stream(const Gen *g)
{
    return g->m->streams;
}

/* Stream roles: 0 runs the main chain; with 3+ streams the last one is a copy stream
 * for input batches; the ones in between are side streams that take weight gradients
 * and bias reductions (creating compute/compute overlap). */
static int copy_stream(const Gen *g)
{
    return g->m->streams >= 3 ? g->m->streams - 1 : 0;
}

static int side_streams(const Gen *g)
{
    return g->m->streams >= 3 ? g->m->streams - 2 : g->m->streams - 1;
}

static int side_stream(const Gen *g, int k)
{
    return side_streams(g) ? 1 + k % side_streams(g) : 0;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t stream_gap(Gen *g)
{
    /* back-to-back (0) is the common case when the GPU is the bottleneck */
    static const uint32_t GAPS_NS[] = {0, 0, 0, 1000, 2000, 3000, 5000, 12000};
    int64_t gap = GAPS_NS[rng_next(&g->rng) % (sizeof GAPS_NS / sizeof *GAPS_NS)];
    return gap ? quantize(g, gap) : 0;
}

static Ev *gpu_activity(Gen *g, int tpl, int stream, int64_t ready, uint64_t corr, uint64_t ext)
{
    const GpuOpTpl *t = &GPU_OPS[tpl];
    Ev *e = ev_push(g, EV_GPU);
    e->tpl = (uint8_t)tpl;
    e->stream = (uint8_t)stream;
    e->id = corr;
    e->ext_id = ext;
    e->ts = max64(ready, g->stream_free[stream] + stream_gap(g));
    e->dur = draw(g, t->dur_lo, t->dur_hi);
    if (g->slow_pct && t->cls == GPU_COMPUTE)
        e->dur = quantize(g, e->dur + e->dur * g->slow_pct / 100);
    g->stream_free[stream] = e->ts + e->dur;
    if (e->ts < g->gpu_first)
        g->gpu_first = e->ts;
    if (e->ts + e->dur > g->gpu_last)
        g->gpu_last = e->ts + e->dur;
    return e;
}

static Ev *runtime_call(Gen *g, Api api, int stream, int tpl, uint64_t lo, uint64_t hi)
{
    cpu_pad(g);
    Ev *r = ev_push(g, EV_RUNTIME);
    const Ev *op = open_ancestor(g, false);
    r->api = (uint8_t)api;
    r->stream = (uint8_t)stream;
    r->tpl = (uint8_t)tpl;
    r->ts = g->now;
    r->dur = draw(g, lo, hi);
    r->id = ++g->corr;
    r->ext_id = op ? op->ext_id : 0;
    return r;
}

static int64_t launch_latency(Gen *g)
{
    return draw(g, 2000, 9000);
}

/* One runtime call and the single GPU activity it enqueues. */
static Ev *launch(Gen *g, int tpl, int stream)
{
    Api api = GPU_OPS[tpl].cls == GPU_MEMCPY ? API_MEMCPY
            : GPU_OPS[tpl].cls == GPU_MEMSET ? API_MEMSET
            : GPU_OPS[tpl].ext_launch        ? API_LAUNCH_EXT
                                             : API_LAUNCH;
    Ev *r = runtime_call(g, api, stream, tpl, 3000, 16000);
    int64_t rts = r->ts, rdur = r->dur;
    uint64_t corr = r->id, ext = r->ext_id;
    Ev *k = gpu_activity(g, tpl, stream, rts + launch_latency(g), corr, ext);
    g->now = rts + rdur;
    return k;
}

/* A graph replay: one runtime call, several kernels sharing its correlation id. */
static void graph_launch(Gen *g, const int *tpls, int n, int stream)
{
    Ev *r = runtime_call(g, API_GRAPH, stream, tpls[0], 8000, 30000);
    int64_t rts = r->ts, rdur = r->dur;
    uint64_t corr = r->id, ext = r->ext_id;
    int64_t ready = rts + launch_latency(g);
    for (int i = 0; i < n; i++)
        gpu_activity(g, tpls[i], stream, ready, corr, ext);
    g->now = rts + rdur;
}

/* cudaEventRecord on `src` + cudaStreamWaitEvent on `dst`: work enqueued on `dst` from
 * now on starts only after everything already enqueued on `src` has finished. */
static void stream_wait(Gen *g, int dst, int src)
{
    runtime_call(g, API_EVENT_RECORD, src, 0, 1000, 4000);
    g->now += g->ev[g->n - 1].dur;
    runtime_call(g, API_STREAM_WAIT, dst, 0, 1000, 4000);
    g->now += g->ev[g->n - 1].dur;
    g->stream_free[dst] = max64(g->stream_free[dst], g->stream_free[src]);
}

static void stream_sync(Gen *g, int stream)
{
    Ev *r = runtime_call(g, API_SYNC, stream, 0, 2000, 6000);
    int64_t done = g->stream_free[stream] + quantize(g, 1500);
    if (r->ts + r->dur < done)
        r->dur = done - r->ts;
    g->now = r->ts + r->dur;
}

/* ------------------------------------------------------------------------------------ */
/* The model: one training step of a small transformer under DDP                         */
/* ------------------------------------------------------------------------------------ */

typedef enum { FWD_LN, FWD_LINEAR, FWD_ATTN, FWD_ADD, FWD_GELU } FwdKind;

typedef struct {
    FwdKind kind;
    const char *module; /* "nn.Module: Linear_" + instance number, NULL for inline code */
    int ordinal, per_block; /* instance = layer * per_block + ordinal, as Kineto numbers them */
    const char *forward_py;
    int tpl;
} FwdOp;

static const FwdOp BLOCK[] = {
    {FWD_LN, "nn.Module: LayerNorm_", 0, 2, "torch/nn/modules/normalization.py(217): forward", K_LN_FWD},
    {FWD_LINEAR, "nn.Module: Linear_", 0, 4, "torch/nn/modules/linear.py(125): forward", K_GEMM_QKV},
    {FWD_ATTN, "nn.Module: SelfAttention_", 0, 1, "model.py(88): forward", K_FLASH_FWD},
    {FWD_LINEAR, "nn.Module: Linear_", 1, 4, "torch/nn/modules/linear.py(125): forward", K_GEMM_OUT},
    {FWD_ADD, NULL, 0, 1, "model.py(141): forward", K_ADD},
    {FWD_LN, "nn.Module: LayerNorm_", 1, 2, "torch/nn/modules/normalization.py(217): forward", K_LN_FWD},
    {FWD_LINEAR, "nn.Module: Linear_", 2, 4, "torch/nn/modules/linear.py(125): forward", K_GEMM_FC1},
    {FWD_GELU, "nn.Module: GELU_", 0, 1, "torch/nn/modules/activation.py(734): forward", K_GELU},
    {FWD_LINEAR, "nn.Module: Linear_", 3, 4, "torch/nn/modules/linear.py(125): forward", K_GEMM_FC2},
    {FWD_ADD, NULL, 0, 1, "model.py(143): forward", K_ADD},
};
enum { BLOCK_OPS = sizeof BLOCK / sizeof *BLOCK, MAX_LAYERS = 8 };

static void set_fwd_seq(Gen *g, Ev *op, FwdLink *link)
{
    link->seq = ++g->seq;
    link->flow = (uint32_t)++g->fwdbwd;
    op->style = ARGS_FWD_SEQ;
    op->aux = link->seq;
    op->flow = link->flow;
}

/* Python frames Kineto records around every nn.Module call (with_stack=True). */
static void module_enter(Gen *g, const char *module, int instance, const char *forward_py)
{
    cpu_open(g, EV_PYTHON, "torch/nn/modules/module.py(1736): _wrapped_call_impl");
    cpu_open(g, EV_PYTHON, "torch/nn/modules/module.py(1747): _call_impl");
    if (module)
        cpu_open(g, EV_PYTHON, module)->suffix = instance;
    py_noise(g, 3);
    cpu_open(g, EV_PYTHON, forward_py);
    py_noise(g, 5 + (int)(rng_next(&g->rng) % 5));
}

static void module_exit(Gen *g, const char *module)
{
    cpu_close(g); /* forward */
    if (module)
        cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void fwd_linear(Gen *g, int tpl, FwdLink *link)
{
    cpu_open(g, EV_PYTHON, "<built-in function linear>");
    cpu_open(g, EV_CPU_OP, "aten::linear");
    cpu_open(g, EV_CPU_OP, "aten::t");
    cpu_open(g, EV_CPU_OP, "aten::transpose");
    cpu_leaf(g, EV_CPU_OP, "aten::as_strided", 1000, 4000);
    cpu_close(g);
    cpu_close(g);
    Ev *mm = cpu_open(g, EV_CPU_OP, "aten::addmm");
    set_fwd_seq(g, mm, link);
    cpu_busy(g, 2000, 8000);
    if (tpl == K_GEMM_FC1)
        mem_instant(g, 25165824);
    launch(g, tpl, 0);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void fwd_single(Gen *g, const char *py, const char *outer, const char *inner, int tpl,
                       FwdLink *link)
{
    cpu_open(g, EV_PYTHON, py);
    Ev *op = cpu_open(g, EV_CPU_OP, outer);
    set_fwd_seq(g, op, link);
    if (inner)
        cpu_open(g, EV_CPU_OP, inner);
    cpu_busy(g, 2000, 9000);
    launch(g, tpl, 0);
    if (inner)
        cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void fwd_op(Gen *g, const FwdOp *op, int layer, FwdLink *link)
{
    module_enter(g, op->module, layer * op->per_block + op->ordinal, op->forward_py);
    switch (op->kind) {
    case FWD_LINEAR:
        fwd_linear(g, op->tpl, link);
        break;
    case FWD_LN:
        fwd_single(g, "torch/nn/functional.py(2910): layer_norm", "aten::layer_norm",
                   "aten::native_layer_norm", op->tpl, link);
        break;
    case FWD_ATTN:
        fwd_single(g, "<built-in function scaled_dot_product_attention>",
                   "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
                   op->tpl, link);
        break;
    case FWD_ADD:
        fwd_single(g, "<built-in method add of Tensor object at 0x7f3b2c1d9e50>", "aten::add", NULL,
                   op->tpl, link);
        break;
    case FWD_GELU:
        fwd_single(g, "<built-in function gelu>", "aten::gelu", NULL, op->tpl, link);
        break;
    }
    module_exit(g, op->module);
}

static void fwd_block_graph(Gen *g, int layer)
{
    int tpls[BLOCK_OPS];
    for (int i = 0; i < BLOCK_OPS; i++)
        tpls[i] = BLOCK[i].tpl;
    module_enter(g, "nn.Module: TransformerBlock_", layer, "torch/cuda/graphs.py(94): replay");
    graph_launch(g, tpls, BLOCK_OPS, 0);
    module_exit(g, "nn.Module: TransformerBlock_");
}

static void data_loading(Gen *g)
{
    cpu_open(g, EV_PYTHON, "torch/utils/data/dataloader.py(708): __next__");
    cpu_open(g, EV_PYTHON, "torch/utils/data/dataloader.py(764): _next_data");
    cpu_open(g, EV_PYTHON, "torch/utils/data/_utils/fetch.py(52): fetch");
    for (int i = 0; i < 32; i++) {
        cpu_open(g, EV_PYTHON, "dataset.py(31): __getitem__");
        cpu_open(g, EV_PYTHON, "<built-in method randint of type object at 0x7f3b60a1c8a0>");
        cpu_leaf(g, EV_CPU_OP, "aten::randint", 3000, 9000);
        cpu_close(g);
        py_noise(g, 3);
        cpu_close(g);
    }
    cpu_open(g, EV_PYTHON, "torch/utils/data/_utils/collate.py(398): default_collate");
    cpu_open(g, EV_CPU_OP, "aten::stack");
    cpu_leaf(g, EV_CPU_OP, "aten::cat", 8000, 20000);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void to_device(Gen *g)
{
    cpu_open(g, EV_PYTHON, "<built-in method to of Tensor object at 0x7f3b2c1d9e50>");
    cpu_open(g, EV_CPU_OP, "aten::to");
    cpu_open(g, EV_CPU_OP, "aten::_to_copy");
    cpu_leaf(g, EV_CPU_OP, "aten::empty_strided", 2000, 6000);
    mem_instant(g, 4194304);
    cpu_open(g, EV_CPU_OP, "aten::copy_");
    Ev *m = launch(g, M_HTOD, copy_stream(g));
    m->val = 4194304;
    if (copy_stream(g) != 0)
        stream_wait(g, 0, copy_stream(g)); /* the model reads the copied batch */
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void forward(Gen *g, FwdLink links[MAX_LAYERS][BLOCK_OPS])
{
    cpu_open(g, EV_PYTHON, "nn.Module: Transformer_0");
    cpu_open(g, EV_PYTHON, "model.py(210): forward");
    for (int l = 0; l < g->m->layers; l++) {
        if (g->m->graphs) {
            fwd_block_graph(g, l);
            continue;
        }
        for (int i = 0; i < BLOCK_OPS; i++)
            fwd_op(g, &BLOCK[i], l, &links[l][i]);
    }
    cpu_close(g);
    cpu_close(g);
}

static void loss(Gen *g, FwdLink *lsm, FwdLink *nll)
{
    module_enter(g, "nn.Module: CrossEntropyLoss_", 0, "torch/nn/modules/loss.py(1293): forward");
    cpu_open(g, EV_PYTHON, "torch/nn/functional.py(3479): cross_entropy");
    cpu_open(g, EV_CPU_OP, "aten::cross_entropy_loss");
    Ev *a = cpu_open(g, EV_CPU_OP, "aten::log_softmax");
    set_fwd_seq(g, a, lsm);
    cpu_open(g, EV_CPU_OP, "aten::_log_softmax");
    launch(g, K_LOGSOFTMAX, 0);
    cpu_close(g);
    cpu_close(g);
    Ev *b = cpu_open(g, EV_CPU_OP, "aten::nll_loss_nd");
    set_fwd_seq(g, b, nll);
    cpu_open(g, EV_CPU_OP, "aten::nll_loss_forward");
    launch(g, K_NLL, 0);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    module_exit(g, "nn.Module: CrossEntropyLoss_");
}

/* Backward node: "autograd::engine::evaluate_function: X" wrapping "X". */
static void bwd_node_open(Gen *g, const char *eval_name, const char *node, const FwdLink *link)
{
    size_t eval_index = g->n;
    cpu_open(g, EV_CPU_OP, eval_name);
    Ev *n = cpu_open(g, EV_CPU_OP, node); /* may move the array: index the first one */
    Ev *e = &g->ev[eval_index];
    if (link && link->flow) {
        e->style = n->style = ARGS_BWD_SEQ;
        e->aux = n->aux = link->seq;
        n->flow = link->flow;
    }
}

static void bwd_node_close(Gen *g)
{
    cpu_close(g);
    cpu_close(g);
}

static void bwd_launch_op(Gen *g, const char *op, int tpl, int stream)
{
    cpu_open(g, EV_CPU_OP, op);
    cpu_busy(g, 1000, 5000);
    launch(g, tpl, stream);
    cpu_close(g);
}

static void accumulate_grad(Gen *g)
{
    cpu_open(g, EV_CPU_OP, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
    cpu_open(g, EV_CPU_OP, "torch::autograd::AccumulateGrad");
    cpu_open(g, EV_CPU_OP, "aten::detach");
    cpu_leaf(g, EV_CPU_OP, "detach", 500, 2000);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void bwd_linear(Gen *g, int k, const FwdLink *link)
{
    bwd_node_open(g, "autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0", link);
    bwd_launch_op(g, "aten::mm", K_GEMM_DGRAD, 0);
    /* side-stream work consumes what stream 0 has produced so far */
    int wgrad = side_stream(g, k), bgrad = side_stream(g, k + 1);
    if (wgrad != 0)
        stream_wait(g, wgrad, 0);
    bwd_launch_op(g, "aten::mm", K_GEMM_WGRAD, wgrad);
    if (bgrad != 0 && bgrad != wgrad)
        stream_wait(g, bgrad, 0);
    bwd_launch_op(g, "aten::sum", K_REDUCE_SUM, bgrad);
    bwd_node_close(g);
    accumulate_grad(g);
    accumulate_grad(g);
}

static void bwd_attention(Gen *g, const FwdLink *link)
{
    bwd_node_open(g, "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
                  "ScaledDotProductFlashAttentionBackward0", link);
    cpu_open(g, EV_CPU_OP, "aten::_scaled_dot_product_flash_attention_backward");
    cpu_open(g, EV_CPU_OP, "aten::_flash_attention_backward");
    cpu_open(g, EV_CPU_OP, "aten::zeros");
    cpu_leaf(g, EV_CPU_OP, "aten::empty", 1000, 4000);
    cpu_open(g, EV_CPU_OP, "aten::zero_");
    Ev *m = launch(g, M_FILL, 0);
    m->val = 8388608;
    cpu_close(g);
    cpu_close(g);
    launch(g, K_FLASH_BWD, 0);
    cpu_close(g);
    cpu_close(g);
    bwd_node_close(g);
}

static void bwd_op(Gen *g, const FwdOp *op, int k, const FwdLink *link)
{
    switch (op->kind) {
    case FWD_LINEAR:
        bwd_linear(g, k, link);
        break;
    case FWD_LN:
        bwd_node_open(g, "autograd::engine::evaluate_function: NativeLayerNormBackward0",
                      "NativeLayerNormBackward0", link);
        cpu_open(g, EV_CPU_OP, "aten::native_layer_norm_backward");
        launch(g, K_LN_BWD_INPUT, 0);
        launch(g, K_LN_BWD_GAMMA, 0);
        cpu_close(g);
        bwd_node_close(g);
        accumulate_grad(g);
        break;
    case FWD_ATTN:
        bwd_attention(g, link);
        break;
    case FWD_ADD:
        bwd_node_open(g, "autograd::engine::evaluate_function: AddBackward0", "AddBackward0", link);
        cpu_busy(g, 1000, 3000);
        bwd_node_close(g);
        break;
    case FWD_GELU:
        bwd_node_open(g, "autograd::engine::evaluate_function: GeluBackward0", "GeluBackward0", link);
        bwd_launch_op(g, "aten::gelu_backward", K_GELU_BWD, 0);
        bwd_node_close(g);
        break;
    }
}

/* DDP gradient bucket: the collective waits for the gradients, then runs on the NCCL
 * stream while the remaining backward kernels keep the compute streams busy. */
static void allreduce_bucket(Gen *g)
{
    cpu_open(g, EV_CPU_OP, "c10d::allreduce_");
    Ev *c = cpu_open(g, EV_CPU_OP, "record_param_comms");
    c->style = ARGS_COMMS;
    c->aux = 4194304 + (rng_next(&g->rng) % 8) * 524288;
    uint64_t nelems = c->aux;
    cpu_open(g, EV_USER_ANN, "nccl:all_reduce");
    cpu_busy(g, 3000, 12000);
    /* gradients made on side streams are joined into stream 0, which the NCCL stream
     * then waits for */
    for (int s = 1; s <= side_streams(g); s++)
        stream_wait(g, 0, s);
    stream_wait(g, comm_stream(g), 0);
    Ev *k = launch(g, K_ALLREDUCE, comm_stream(g));
    k->aux = nelems;
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

/* ---- --collectives: the schedule ------------------------------------------------------ */

typedef enum { C_BROADCAST, C_ALLGATHER, C_ALLREDUCE, C_REDUCESCATTER, C_ALLTOALLV, C_SENDRECV } CollKind;
typedef enum { PG_WORLD, PG_HALF, PG_PAIR } PgClass;

typedef struct {
    const char *coll_name, *op, *annotation, *dtype;
    int tpl, dtype_bytes;
    PgClass pg;
} CollKindInfo;

static const CollKindInfo COLL_KINDS[] = {
    [C_BROADCAST] = {"broadcast", "c10d::broadcast_", "nccl:broadcast", "Float", K_BROADCAST, 4, PG_WORLD},
    [C_ALLGATHER] = {"_allgather_base", "c10d::_allgather_base_", "nccl:_all_gather_base", "BFloat16",
                     K_ALLGATHER, 2, PG_WORLD},
    [C_ALLREDUCE] = {"allreduce", "c10d::allreduce_", "nccl:all_reduce", "Float", K_ALLREDUCE, 4, PG_WORLD},
    [C_REDUCESCATTER] = {"_reduce_scatter_base", "c10d::_reduce_scatter_base_", "nccl:_reduce_scatter_base",
                         "Float", K_REDUCESCATTER, 4, PG_HALF},
    [C_ALLTOALLV] = {"all_to_allv", "c10d::alltoall_base_", "nccl:all_to_all", "BFloat16", K_SENDRECV, 2, PG_WORLD},
    [C_SENDRECV] = {"send", "c10d::send", "nccl:send", "BFloat16", K_SENDRECV, 2, PG_PAIR},
};

/* Per step: broadcast, allgather, one allreduce per gradient bucket, reducescatter,
 * all-to-all-v, send/recv. */
static int coll_buckets(const Model *m)
{
    return (m->layers + 1) / 2;
}

static int coll_slots_per_step(const Model *m)
{
    return 5 + coll_buckets(m);
}

static CollKind coll_kind_at(const Model *m, uint64_t slot)
{
    int j = (int)(slot % (uint64_t)coll_slots_per_step(m)), b = coll_buckets(m);
    return j == 0 ? C_BROADCAST : j == 1 ? C_ALLGATHER : j < 2 + b ? C_ALLREDUCE
         : j == 2 + b ? C_REDUCESCATTER : j == 3 + b ? C_ALLTOALLV : C_SENDRECV;
}

/* Group of a rank in a slot's process group (-1: not a member: the odd rank out of the
 * send/recv pairs) and the group's first rank and size. */
static int coll_group(const Model *m, PgClass pg, int rank, int *first, int *size)
{
    int w = m->world_size;
    if (pg == PG_HALF && w >= 2) {
        int half = w / 2, gid = rank < half ? 0 : 1;
        *first = gid ? half : 0;
        *size = gid ? w - half : half;
        return gid;
    }
    if (pg == PG_PAIR) {
        if (rank / 2 * 2 + 1 >= w)
            return -1;
        *first = rank / 2 * 2;
        *size = 2;
        return rank / 2;
    }
    *first = 0;
    *size = w;
    return 0;
}

/* Process Group Name: "0" the world, "1"/"2" the halves, "3"... the pairs (PyTorch numbers
 * groups in creation order, the same on every rank). */
static int coll_pg_number(PgClass pg, int gid)
{
    return pg == PG_WORLD ? 0 : pg == PG_HALF ? 1 + gid : 3 + gid;
}

/* Seq: the group's collectives so far, this one included (ProcessGroupNCCL's seq_). */
static uint64_t coll_seq(const Model *m, uint64_t slot)
{
    uint64_t step = slot / (uint64_t)coll_slots_per_step(m);
    int j = (int)(slot % (uint64_t)coll_slots_per_step(m)), b = coll_buckets(m);
    CollKind k = coll_kind_at(m, slot);
    if (COLL_KINDS[k].pg != PG_WORLD)
        return step + 1;
    uint64_t per_step = 3 + (uint64_t)b; /* broadcast, allgather, buckets, all-to-all-v */
    uint64_t idx = k == C_ALLTOALLV ? per_step - 1 : (uint64_t)j;
    return step * per_step + idx + 1;
}

static uint64_t coll_nelems(const Model *m, uint64_t slot)
{
    static const uint64_t BASE[] = {[C_BROADCAST] = 262144, [C_ALLGATHER] = 1048576, [C_ALLREDUCE] = 4194304,
                                    [C_REDUCESCATTER] = 2097152, [C_ALLTOALLV] = 65536, [C_SENDRECV] = 524288};
    CollKind k = coll_kind_at(m, slot);
    return BASE[k] + (mix(m->seed, slot + 1000) % 8) * (BASE[k] / 8);
}

/* All-to-all-v: elements rank `from` sends to rank `to`. */
static uint64_t a2a_split(const Model *m, uint64_t slot, int from, int to)
{
    return coll_nelems(m, slot) * (1 + (uint64_t)(3 * from + to + (int)(slot % 5)) % 5);
}

static int64_t coll_latency(const Model *m, uint64_t slot)
{
    CollKind k = coll_kind_at(m, slot);
    uint64_t bytes = coll_nelems(m, slot) * (uint64_t)COLL_KINDS[k].dtype_bytes;
    int64_t ns = 15000 + (int64_t)(bytes / 80) + (int64_t)(mix(m->seed, slot + 7) % 20000);
    return ns - ns % m->quantum;
}

static CollPlan *plan_new(int nranks)
{
    CollPlan *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    p->nranks = nranks;
    return p;
}

static void plan_reserve(CollPlan *p, uint64_t slot)
{
    if (slot < p->nslots)
        return;
    size_t want = (size_t)slot + 1, cap = p->cap;
    while (cap < want)
        cap = cap ? 2 * cap : 1024;
    if (cap != p->cap) {
        int64_t *a = realloc(p->arrive, cap * (size_t)p->nranks * sizeof *a);
        int64_t *e = a ? realloc(p->end, cap * (size_t)p->nranks * sizeof *e) : NULL;
        if (!a || !e) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            exit(1);
        }
        p->arrive = a;
        p->end = e;
        p->cap = cap;
    }
    for (size_t i = p->nslots * (size_t)p->nranks; i < want * (size_t)p->nranks; i++)
        p->arrive[i] = p->end[i] = INT64_MIN;
    p->nslots = want;
}

static void plan_free(CollPlan *p)
{
    if (p) {
        free(p->arrive);
        free(p->end);
        free(p);
    }
}

/* One collective slot: record_param_comms + the NCCL annotation + the kernel on the NCCL
 * stream, which starts at the rank's arrival and ends with its group. */
static void coll_slot(Gen *g)
{
    const Model *m = g->m;
    uint64_t slot = g->coll_n++;
    CollKind k = coll_kind_at(m, slot);
    const CollKindInfo *ki = &COLL_KINDS[k];
    int first, size;
    if (coll_group(m, ki->pg, g->rank, &first, &size) < 0)
        return;
    bool recv = k == C_SENDRECV && g->rank % 2 == 1;
    cpu_open(g, EV_CPU_OP, recv ? "c10d::recv_" : ki->op);
    Ev *c = cpu_open(g, EV_CPU_OP, "record_param_comms");
    c->style = ARGS_COMMS;
    c->aux = slot;
    cpu_open(g, EV_USER_ANN, recv ? "nccl:recv" : ki->annotation);
    cpu_busy(g, 3000, 12000);
    for (int s = 1; s <= side_streams(g); s++)
        stream_wait(g, 0, s);
    stream_wait(g, comm_stream(g), 0);
    int64_t gpu_last = g->gpu_last;
    Ev *kern = launch(g, ki->tpl, comm_stream(g));
    g->gpu_last = gpu_last; /* set below from the coordinated end */
    kern->aux = slot;
    int64_t lat = coll_latency(m, slot);
    int64_t arrive = kern->ts + g->straggle_ns, truth_arrive = arrive - g->clock_offset;
    int64_t end = INT64_MIN;
    if (g->plan) {
        plan_reserve(g->plan, slot);
        size_t at = (size_t)slot * (size_t)g->plan->nranks + (size_t)g->rank;
        if (g->plan->recording)
            g->plan->arrive[at] = truth_arrive;
        end = g->plan->end[at];
    }
    if (end < truth_arrive + lat)
        end = truth_arrive + lat;
    kern->ts = arrive;
    kern->dur = end + g->clock_offset - arrive;
    g->stream_free[comm_stream(g)] = kern->ts + kern->dur;
    if (kern->ts + kern->dur > g->gpu_last)
        g->gpu_last = kern->ts + kern->dur;
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void backward(Gen *g, FwdLink links[MAX_LAYERS][BLOCK_OPS], const FwdLink *lsm,
                     const FwdLink *nll)
{
    cpu_open(g, EV_PYTHON, "torch/_tensor.py(626): backward");
    cpu_open(g, EV_PYTHON, "torch/autograd/__init__.py(347): backward");
    cpu_open(g, EV_PYTHON, "torch/autograd/graph.py(823): _engine_run_backward");
    cpu_open(g, EV_PYTHON, "<built-in method run_backward of torch._C._EngineBase object at 0x7f3b5e8c1a40>");
    g->thread = THREAD_AUTOGRAD;
    bwd_node_open(g, "autograd::engine::evaluate_function: NllLossBackward0", "NllLossBackward0", nll);
    cpu_open(g, EV_CPU_OP, "aten::nll_loss_backward");
    launch(g, K_NLL_BWD, 0);
    cpu_close(g);
    bwd_node_close(g);
    bwd_node_open(g, "autograd::engine::evaluate_function: LogSoftmaxBackward0", "LogSoftmaxBackward0", lsm);
    bwd_launch_op(g, "aten::_log_softmax_backward_data", K_LOGSOFTMAX_BWD, 0);
    bwd_node_close(g);
    for (int l = g->m->layers - 1; l >= 0; l--) {
        for (int i = BLOCK_OPS - 1; i >= 0; i--)
            bwd_op(g, &BLOCK[i], l * BLOCK_OPS + i, g->m->graphs ? NULL : &links[l][i]);
        if (l % 2 == 0) {
            if (g->m->collectives)
                coll_slot(g);
            else
                allreduce_bucket(g);
        }
    }
    g->thread = THREAD_MAIN;
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

/* Parameters per transformer block: 4 Linear and 2 LayerNorm modules, weight + bias. */
static int parameter_count(const Gen *g)
{
    return g->m->layers * 12;
}

/* Optimizers walk their parameter list in Python; with with_stack=True every visit
 * leaves python_function events, which is why real traces are mostly Python. */
static void per_parameter_python(Gen *g, const char *loop_frame, const char *const *calls, int ncalls)
{
    cpu_open(g, EV_PYTHON, loop_frame);
    for (int p = 0; p < parameter_count(g); p++)
        for (int c = 0; c < ncalls; c++)
            cpu_leaf(g, EV_PYTHON, calls[c], 200, 1500);
    cpu_close(g);
}

static void zero_grad(Gen *g)
{
    static const char *const CALLS[] = {"torch/_tensor.py(1443): grad"};
    cpu_open(g, EV_PYTHON, "torch/optim/optimizer.py(957): zero_grad");
    cpu_open(g, EV_USER_ANN, "Optimizer.zero_grad#AdamW.zero_grad");
    per_parameter_python(g, "torch/optim/optimizer.py(979): zero_grad", CALLS, 1);
    cpu_close(g);
    cpu_close(g);
}

static void optimizer_step(Gen *g)
{
    static const char *const INIT_GROUP_CALLS[] = {
        "<built-in method append of list object at 0x7f3b2a7e1c80>",
        "<built-in method append of list object at 0x7f3b2a7e1d40>",
        "<built-in method append of list object at 0x7f3b2a7e1e00>",
        "<built-in method append of list object at 0x7f3b2a7e1ec0>",
        "torch/_tensor.py(1443): grad",
        "torch/optim/optimizer.py(101): _get_value",
    };
    cpu_open(g, EV_PYTHON, "torch/optim/optimizer.py(487): wrapper");
    cpu_open(g, EV_USER_ANN, "Optimizer.step#AdamW.step");
    cpu_open(g, EV_PYTHON, "torch/optim/adamw.py(209): step");
    py_noise(g, 3);
    per_parameter_python(g, "torch/optim/adamw.py(129): _init_group", INIT_GROUP_CALLS, 6);
    /* the update must wait for the allreduced gradients */
    stream_wait(g, 0, comm_stream(g));
    if (g->m->graphs) {
        static const int OPT_GRAPH[] = {K_FOREACH_ADD, K_FUSED_ADAM, K_FUSED_ADAM, K_FUSED_ADAM};
        cpu_open(g, EV_PYTHON, "torch/cuda/graphs.py(94): replay");
        graph_launch(g, OPT_GRAPH, 4, 0);
        cpu_close(g);
    } else {
        cpu_open(g, EV_PYTHON, "torch/optim/adamw.py(680): _fused_adamw");
        cpu_open(g, EV_CPU_OP, "aten::_foreach_add_");
        launch(g, K_FOREACH_ADD, 0);
        cpu_close(g);
        cpu_open(g, EV_CPU_OP, "aten::_fused_adamw_");
        for (int i = 0; i < 3; i++)
            launch(g, K_FUSED_ADAM, 0);
        cpu_close(g);
        cpu_close(g);
    }
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

/* loss.item(): a device-to-host copy and a stream synchronize, which bounds how far
 * the CPU can run ahead of the GPU (and produces realistic GPU idle gaps). */
static void item_sync(Gen *g)
{
    cpu_open(g, EV_PYTHON, "<built-in method item of Tensor object at 0x7f3b2c1d9e50>");
    cpu_open(g, EV_CPU_OP, "aten::item");
    cpu_open(g, EV_CPU_OP, "aten::_local_scalar_dense");
    Ev *m = launch(g, M_DTOH, 0);
    m->val = 4;
    stream_sync(g, 0);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void build_step(Gen *g, uint64_t step)
{
    FwdLink links[MAX_LAYERS][BLOCK_OPS] = {{{0, 0}}};
    FwdLink lsm = {0, 0}, nll = {0, 0};
    g->n = 0;
    g->depth = 0;
    g->thread = THREAD_MAIN;
    g->gpu_first = INT64_MAX;
    g->gpu_last = 0;
    g->step_alloc = 0;
    Ev *ps = cpu_open(g, EV_USER_ANN, "ProfilerStep#");
    ps->suffix = (int32_t)step;
    g->step_ext_id = ps->ext_id;
    cpu_open(g, EV_PYTHON, "train.py(57): train_step");
    data_loading(g);
    zero_grad(g);
    to_device(g);
    if (g->m->collectives) {
        coll_slot(g); /* broadcast */
        coll_slot(g); /* allgather */
    }
    forward(g, links);
    loss(g, &lsm, &nll);
    backward(g, links, &lsm, &nll);
    if (g->m->collectives) {
        coll_slot(g); /* reducescatter */
        coll_slot(g); /* all-to-all-v */
        coll_slot(g); /* send/recv */
    }
    optimizer_step(g);
    mem_instant(g, -g->step_alloc); /* activations and the input batch are released */
    item_sync(g);
    cpu_close(g);
    cpu_close(g);
    cpu_busy(g, 20000, 80000); /* Python work between profiler steps */
}

/* ------------------------------------------------------------------------------------ */
/* Ground truth                                                                          */
/* ------------------------------------------------------------------------------------ */

typedef enum {
    CAT_CPU_OP, CAT_USER_ANN, CAT_PYTHON, CAT_RUNTIME, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET,
    CAT_GPU_USER_ANN, CAT_TRACE, NUM_CATS
} Cat;

static const char *const CAT_NAMES[NUM_CATS] = {
    "cpu_op", "user_annotation", "python_function", "cuda_runtime", "kernel",
    "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "Trace",
};

typedef enum { PH_X, PH_S, PH_F, PH_I, PH_M, NUM_PH } Ph;
static const char *const PH_NAMES[NUM_PH] = {"X", "s", "f", "i", "M"};

/* Length of the union of intervals fed in start order. */
typedef struct {
    int64_t start, end, total;
    bool open;
} Union;

static void union_add(Union *u, int64_t s, int64_t e)
{
    if (u->open && s <= u->end) {
        if (e > u->end)
            u->end = e;
        return;
    }
    if (u->open)
        u->total += u->end - u->start;
    u->start = s;
    u->end = e;
    u->open = true;
}

static int64_t union_length(const Union *u)
{
    return u->total + (u->open ? u->end - u->start : 0);
}

typedef struct {
    int64_t ts, end;
    uint8_t cls;
} Interval;

typedef struct {
    uint64_t events, ph[NUM_PH], cat[NUM_CATS];
    uint64_t by_stream[MAX_STREAMS];
    uint64_t graph_launches, graph_kernels;
    uint64_t kcount[NUM_GPU_OPS];
    int64_t ktime[NUM_GPU_OPS];
    Union all, kernels, compute, comm;
    int64_t first_start, last_end;
    Interval *pending;
    size_t npending, cap;
} Truth;

static void truth_pending(Truth *t, int64_t ts, int64_t end, GpuClass cls)
{
    if (t->npending == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->pending = realloc(t->pending, t->cap * sizeof *t->pending);
        if (!t->pending) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            exit(1);
        }
    }
    t->pending[t->npending++] = (Interval){ts, end, (uint8_t)cls};
}

static int interval_cmp(const void *a, const void *b)
{
    const Interval *x = a, *y = b;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

static void truth_absorb(Truth *t, const Interval *iv)
{
    if (t->first_start < 0 || iv->ts < t->first_start)
        t->first_start = iv->ts;
    if (iv->end > t->last_end)
        t->last_end = iv->end;
    union_add(&t->all, iv->ts, iv->end);
    if (iv->cls == GPU_COMPUTE || iv->cls == GPU_COMM)
        union_add(&t->kernels, iv->ts, iv->end);
    if (iv->cls == GPU_COMPUTE)
        union_add(&t->compute, iv->ts, iv->end);
    if (iv->cls == GPU_COMM)
        union_add(&t->comm, iv->ts, iv->end);
}

/* Unions need intervals in start order, but streams run independently.  No future
 * activity can start before `watermark` (see gen_watermark), so everything that starts
 * at or before it can be merged now; the rest waits for a later step. */
static void truth_flush(Truth *t, int64_t watermark)
{
    if (t->npending == 0)
        return;
    qsort(t->pending, t->npending, sizeof *t->pending, interval_cmp);
    size_t i = 0;
    for (; i < t->npending && t->pending[i].ts <= watermark; i++)
        truth_absorb(t, &t->pending[i]);
    memmove(t->pending, t->pending + i, (t->npending - i) * sizeof *t->pending);
    t->npending -= i;
}

/* A future activity on stream s starts no earlier than both the stream's current end and
 * its launch, which happens after the CPU cursor. */
static int64_t gen_watermark(const Gen *g)
{
    int64_t w = INT64_MAX;
    for (int s = 0; s <= g->m->streams; s++) {
        int64_t t = max64(g->stream_free[s], g->now);
        if (t < w)
            w = t;
    }
    return w;
}

/* ------------------------------------------------------------------------------------ */
/* Emitting events in native libkineto layout                                            */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    Writer *w;
    Truth *t;
    const Model *m;
    int device;
    uint64_t pid, autograd_tid;
    int stream_ids[MAX_STREAMS];
    char rocm_stream_ptr[MAX_STREAMS][24];
    char *pg_ranks; /* "[0, 1, ...]" */
    char *kernel_tail[NUM_GPU_OPS];
    uint64_t ev_idx;
    int rank;
} Emitter;

static void begin_event(Emitter *e, Ph ph)
{
    w_need(e->w, EVENT_ROOM);
    if (e->t->events)
        PUT(e->w, ",\n  {");
    else
        PUT(e->w, "\n  {");
    e->t->events++;
    e->t->ph[ph]++;
}

static void put_pid_tid(Emitter *e, uint64_t pid, uint64_t tid)
{
    PUT(e->w, "\"pid\": ");
    put_u64(e->w, pid);
    PUT(e->w, ", \"tid\": ");
    put_u64(e->w, tid);
}

static void put_name(Writer *w, const Ev *ev)
{
    put_str(w, ev->name);
    if (ev->suffix >= 0)
        put_u64(w, (uint64_t)ev->suffix);
}

/* A complete event is written as complete_begin, the name, complete_rest, the args,
 * end_args:
 *   "ph": "X", "cat": C, "name": "NAME", "pid": P, "tid": T,
 *   "ts": TS, "dur": DUR,
 *   "args": { ... } */
static void complete_begin(Emitter *e, Cat cat)
{
    Writer *w = e->w;
    e->t->cat[cat]++;
    PUT(w, "\n    \"ph\": \"X\", \"cat\": \"");
    put_str(w, CAT_NAMES[cat]);
    PUT(w, "\", \"name\": \"");
}

static void complete_rest(Emitter *e, uint64_t pid, uint64_t tid, int64_t ts, int64_t dur)
{
    Writer *w = e->w;
    PUT(w, "\", ");
    put_pid_tid(e, pid, tid);
    PUT(w, ",\n    \"ts\": ");
    put_time(w, ts);
    PUT(w, ", \"dur\": ");
    put_time(w, dur);
    PUT(w, ",\n    \"args\": {\n      ");
}

static void end_args(Writer *w)
{
    PUT(w, "\n    }\n  }");
}

static void flow_event(Emitter *e, bool start, const char *cat, uint64_t id, uint64_t pid,
                       uint64_t tid, int64_t ts)
{
    Writer *w = e->w;
    begin_event(e, start ? PH_S : PH_F);
    put_str(w, start ? "\n    \"ph\": \"s\", \"id\": " : "\n    \"ph\": \"f\", \"id\": ");
    put_u64(w, id);
    PUT(w, ", ");
    put_pid_tid(e, pid, tid);
    PUT(w, ", \"ts\": ");
    put_time(w, ts);
    PUT(w, ",\n    \"cat\": \"");
    put_str(w, cat);
    PUT(w, "\", \"name\": \"");
    put_str(w, cat);
    put_str(w, start ? "\"\n  }" : "\", \"bp\": \"e\"\n  }");
}

static uint64_t thread_tid(const Emitter *e, const Ev *ev)
{
    return ev->thread == THREAD_MAIN ? e->pid : e->autograd_tid;
}

/* "[first, first+1, ...]" */
static void put_rank_range(Writer *w, int first, int size)
{
    PUT(w, "[");
    for (int r = 0; r < size; r++) {
        put_str(w, r ? ", " : "");
        put_u64(w, (uint64_t)(first + r));
    }
    PUT(w, "]");
}

/* --collectives: the metadata PyTorch writes on record_param_comms and (newer versions)
 * on the NCCL kernel, for one slot of this rank. */
static void put_coll_args(Emitter *e, uint64_t slot, bool cpu_op)
{
    Writer *w = e->w;
    const Model *m = e->m;
    CollKind k = coll_kind_at(m, slot);
    const CollKindInfo *ki = &COLL_KINDS[k];
    int first, size;
    int gid = coll_group(m, ki->pg, e->rank, &first, &size);
    uint64_t n = coll_nelems(m, slot), in = n, out = n;
    if (k == C_ALLGATHER)
        out = n * (uint64_t)size;
    if (k == C_REDUCESCATTER)
        out = n / (uint64_t)size;
    if (k == C_ALLTOALLV) {
        in = out = 0;
        for (int j = 0; j < size; j++) {
            in += a2a_split(m, slot, e->rank, first + j);
            out += a2a_split(m, slot, first + j, e->rank);
        }
    }
    PUT(w, "\"Collective name\": \"");
    put_str(w, k == C_SENDRECV && e->rank % 2 ? "recv" : ki->coll_name);
    PUT(w, "\", \"In msg nelems\": ");
    put_u64(w, in);
    PUT(w, ", \"Out msg nelems\": ");
    put_u64(w, out);
    PUT(w, ", \"Group size\": ");
    put_u64(w, (uint64_t)size);
    PUT(w, ", \"dtype\": \"");
    put_str(w, ki->dtype);
    PUT(w, "\", \"In split size\": \"[");
    for (int j = 0; k == C_ALLTOALLV && j < size; j++) {
        put_str(w, j ? ", " : "");
        put_u64(w, a2a_split(m, slot, e->rank, first + j));
    }
    PUT(w, "]\", \"Out split size\": \"[");
    for (int j = 0; k == C_ALLTOALLV && j < size; j++) {
        put_str(w, j ? ", " : "");
        put_u64(w, a2a_split(m, slot, first + j, e->rank));
    }
    PUT(w, "]\", \"Process Group Name\": \"");
    put_u64(w, (uint64_t)coll_pg_number(ki->pg, gid));
    PUT(w, "\", \"Process Group Description\": \"");
    put_str(w, ki->pg == PG_WORLD ? "default_pg" : ki->pg == PG_HALF ? "tp" : "pp");
    PUT(w, "\", \"Process Group Ranks\": \"");
    put_rank_range(w, first, size);
    PUT(w, "\", \"Seq\": ");
    put_u64(w, coll_seq(m, slot));
    if (cpu_op) {
        PUT(w, ", \"Rank\": ");
        put_u64(w, (uint64_t)e->rank);
        PUT(w, ", \"Ev Idx\": ");
        put_u64(w, e->ev_idx++);
    }
}

static void put_comms_args(Emitter *e, uint64_t nelems)
{
    Writer *w = e->w;
    if (e->m->collectives) {
        put_coll_args(e, nelems, true);
        return;
    }
    PUT(w, "\"Process Group Name\": \"0\", \"Global rank stride\": 1, \"Out msg nelems\": ");
    put_u64(w, nelems);
    PUT(w, ", \"Process Group Ranks\": \"");
    put_str(w, e->pg_ranks);
    PUT(w, "\", \"Group size\": ");
    put_u64(w, (uint64_t)e->m->world_size);
    PUT(w, ", \"Global rank start\": 0, \"Ev Idx\": ");
    put_u64(w, e->ev_idx++);
    PUT(w, ", \"In msg nelems\": ");
    put_u64(w, nelems);
    PUT(w, ", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"dtype\": \"Float\", "
           "\"Process Group Description\": \"default_pg\", \"Collective name\": \"allreduce\"");
}

static void emit_cpu_op(Emitter *e, const Ev *ev)
{
    Writer *w = e->w;
    uint64_t tid = thread_tid(e, ev);
    begin_event(e, PH_X);
    complete_begin(e, ev->kind == EV_USER_ANN ? CAT_USER_ANN : CAT_CPU_OP);
    put_name(w, ev);
    complete_rest(e, e->pid, tid, ev->ts, ev->dur);
    PUT(w, "\"External id\": ");
    put_u64(w, ev->ext_id);
    PUT(w, ",\"Record function id\": ");
    put_u64(w, ev->id);
    PUT(w, ", ");
    if (ev->style == ARGS_COMMS) {
        put_comms_args(e, ev->aux);
    } else {
        if (ev->style == ARGS_FWD_SEQ || ev->style == ARGS_BWD_SEQ) {
            PUT(w, "\"Sequence number\": ");
            put_u64(w, ev->aux);
            put_str(w, ev->style == ARGS_FWD_SEQ ? ", \"Fwd thread id\": 0, " : ", \"Fwd thread id\": 1, ");
        }
        PUT(w, "\"Ev Idx\": ");
        put_u64(w, e->ev_idx++);
    }
    end_args(w);
    if (ev->flow)
        flow_event(e, ev->style == ARGS_FWD_SEQ, "fwdbwd", ev->flow, e->pid, tid, ev->ts);
}

static void emit_python(Emitter *e, const Ev *ev)
{
    Writer *w = e->w;
    begin_event(e, PH_X);
    complete_begin(e, CAT_PYTHON);
    put_name(w, ev);
    complete_rest(e, e->pid, e->pid, ev->ts, ev->dur);
    PUT(w, "\"Python parent id\": ");
    if (ev->aux)
        put_u64(w, ev->aux);
    else
        PUT(w, "null");
    PUT(w, ", \"Python id\": ");
    put_u64(w, ev->id);
    PUT(w, ", \"Ev Idx\": ");
    put_u64(w, e->ev_idx++);
    end_args(w);
}

static void emit_mem_instant(Emitter *e, const Ev *ev)
{
    Writer *w = e->w;
    begin_event(e, PH_I);
    PUT(w, "\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n    ");
    put_pid_tid(e, e->pid, thread_tid(e, ev));
    PUT(w, ",\n    \"ts\": ");
    put_time(w, ev->ts);
    PUT(w, ",\n    \"args\": {\n      \"Ev Idx\": ");
    put_u64(w, e->ev_idx++);
    PUT(w, ", \"Device Type\": 1, \"Device Id\": ");
    put_u64(w, (uint64_t)e->device);
    PUT(w, ", \"Addr\": ");
    put_u64(w, ev->id);
    PUT(w, ", \"Bytes\": ");
    put_i64(w, ev->val);
    PUT(w, ", \"Total Allocated\": ");
    put_u64(w, ev->aux);
    PUT(w, ", \"Total Reserved\": ");
    put_u64(w, ev->aux + (UINT64_C(1) << 31));
    end_args(w);
}

static void put_geometry(Writer *w, const char *sep, const int v[3])
{
    put_str(w, sep);
    PUT(w, "[");
    put_u64(w, (uint64_t)v[0]);
    PUT(w, ", ");
    put_u64(w, (uint64_t)v[1]);
    PUT(w, ", ");
    put_u64(w, (uint64_t)v[2]);
    PUT(w, "]");
}

static void emit_runtime_args_rocm(Emitter *e, const Ev *ev, const Ev *gpu, int cid)
{
    Writer *w = e->w;
    const GpuOpTpl *t = &GPU_OPS[ev->tpl];
    PUT(w, "\"External id\": ");
    put_u64(w, ev->ext_id);
    if (ev->api == API_LAUNCH || ev->api == API_LAUNCH_EXT) {
        PUT(w, ",          \"kernel\": \"");
        put_str(w, gpu_op_name(VENDOR_ROCM, ev->tpl));
        PUT(w, "\", \"cid\": ");
        put_u64(w, (uint64_t)cid);
        PUT(w, ", \"correlation\": ");
        put_u64(w, ev->id);
        PUT(w, ",      \"stream\": \"");
        put_str(w, e->rocm_stream_ptr[ev->stream]);
        PUT(w, "\",      \"grid\": ");
        put_geometry(w, "", t->grid);
        put_geometry(w, ",      \"block\": ", t->block);
        PUT(w, ",      \"shared memory\": ");
        put_u64(w, (uint64_t)t->smem);
    } else if (ev->api == API_MEMCPY) {
        PUT(w, ",          \"stream\": \"");
        put_str(w, e->rocm_stream_ptr[ev->stream]);
        PUT(w, "\", \"cid\": ");
        put_u64(w, (uint64_t)cid);
        PUT(w, ", \"correlation\": ");
        put_u64(w, ev->id);
        PUT(w, ", \"src\": \"0x55674ecd4180\", \"dst\": \"0x7fda0e810200\", \"size\": \"");
        put_u64(w, gpu ? (uint64_t)gpu->val : 0);
        put_str(w, ev->tpl == M_HTOD ? "\", \"kind\": \"1\"" : "\", \"kind\": \"2\"");
    } else {
        PUT(w, ",      \"cid\": ");
        put_u64(w, (uint64_t)cid);
        PUT(w, ", \"correlation\": ");
        put_u64(w, ev->id);
    }
}

static void emit_runtime(Emitter *e, const Ev *ev, const Ev *gpu)
{
    Writer *w = e->w;
    const ApiName *api = &API_NAMES[e->m->vendor][ev->api];
    uint64_t tid = thread_tid(e, ev);
    begin_event(e, PH_X);
    complete_begin(e, CAT_RUNTIME);
    put_str(w, api->name);
    complete_rest(e, e->pid, tid, ev->ts, ev->dur);
    if (e->m->vendor == VENDOR_ROCM) {
        emit_runtime_args_rocm(e, ev, gpu, api->cbid);
    } else {
        PUT(w, "\"External id\": ");
        put_u64(w, ev->ext_id);
        PUT(w, ",      \"cbid\": ");
        put_u64(w, (uint64_t)api->cbid);
        PUT(w, ", \"correlation\": ");
        put_u64(w, ev->id);
    }
    end_args(w);
    if (api_has_flow((Api)ev->api))
        flow_event(e, true, "ac2g", ev->id, e->pid, tid, ev->ts);
    if (ev->api == API_GRAPH)
        e->t->graph_launches++;
}

/* Kernel geometry never changes for a given kernel, so its args tail is formatted once. */
static char *format_kernel_tail(Vendor v, int tpl)
{
    const GpuOpTpl *t = &GPU_OPS[tpl];
    char *s = malloc(512);
    if (!s) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    if (v == VENDOR_ROCM) {
        snprintf(s, 512, ", \"kind\": \"Dispatch Kernel\",      \"grid\":     [%d, %d, %d], \"block\":     [%d, %d, %d]",
                 t->grid[0], t->grid[1], t->grid[2], t->block[0], t->block[1], t->block[2]);
        return s;
    }
    /* CUPTI-style occupancy figures for a 108-SM A100 */
    double blocks = (double)t->grid[0] * t->grid[1] * t->grid[2] / 108.0;
    int warps = (t->block[0] * t->block[1] * t->block[2] + 31) / 32;
    int occupancy = (int)(blocks * warps > 64 ? 100 : blocks * warps * 100 / 64);
    snprintf(s, 512,
             ",      \"registers per thread\": %d,      \"shared memory\": %d,      \"blocks per SM\": %.6f,"
             "      \"warps per SM\": %.6f,      \"grid\": [%d, %d, %d],      \"block\": [%d, %d, %d],"
             "      \"est. achieved occupancy %%\": %d",
             t->regs, t->smem, blocks, blocks * warps, t->grid[0], t->grid[1], t->grid[2], t->block[0],
             t->block[1], t->block[2], occupancy);
    return s;
}

static void put_nccl_kernel_args(Emitter *e, uint64_t nelems)
{
    Writer *w = e->w;
    if (e->m->collectives) {
        PUT(w, ", ");
        put_coll_args(e, nelems, false);
        return;
    }
    PUT(w, ", \"Collective name\": \"allreduce\", \"In msg nelems\": ");
    put_u64(w, nelems);
    PUT(w, ", \"Out msg nelems\": ");
    put_u64(w, nelems);
    PUT(w, ", \"Group size\": ");
    put_u64(w, (uint64_t)e->m->world_size);
    PUT(w, ", \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", "
           "\"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
           "\"Process Group Ranks\": \"");
    put_str(w, e->pg_ranks);
    PUT(w, "\"");
}

static void put_copy_args(Emitter *e, const Ev *ev)
{
    Writer *w = e->w;
    const GpuOpTpl *t = &GPU_OPS[ev->tpl];
    if (e->m->vendor == VENDOR_ROCM) {
        PUT(w, ", \"kind\": \"");
        put_str(w, t->copy_kind);
        PUT(w, "\"");
        return;
    }
    PUT(w, ",      \"bytes\": ");
    put_u64(w, (uint64_t)ev->val);
    PUT(w, ", \"memory bandwidth (GB/s)\": ");
    put_double(w, (double)ev->val / (double)ev->dur); /* bytes per ns == GB/s */
}

static Cat gpu_cat(int tpl)
{
    switch (GPU_OPS[tpl].cls) {
    case GPU_MEMCPY: return CAT_MEMCPY;
    case GPU_MEMSET: return CAT_MEMSET;
    default: return CAT_KERNEL;
    }
}

static void emit_gpu(Emitter *e, const Ev *ev, bool from_graph)
{
    Writer *w = e->w;
    Truth *t = e->t;
    int stream = e->stream_ids[ev->stream];
    bool rocm = e->m->vendor == VENDOR_ROCM;
    begin_event(e, PH_X);
    complete_begin(e, gpu_cat(ev->tpl));
    put_str(w, gpu_op_name(e->m->vendor, ev->tpl));
    complete_rest(e, (uint64_t)e->device, (uint64_t)stream, ev->ts, ev->dur);
    PUT(w, "\"External id\": ");
    put_u64(w, ev->ext_id);
    if (is_kernel(ev->tpl) && !rocm)
        PUT(w, ",      \"queued\": 0, \"device\": ");
    else
        PUT(w, ",      \"device\": ");
    put_u64(w, (uint64_t)e->device);
    put_str(w, rocm ? ", \"stream\": " : ", \"context\": 1,      \"stream\": ");
    put_u64(w, (uint64_t)stream);
    put_str(w, rocm ? ",      \"correlation\": " : ", \"correlation\": ");
    put_u64(w, ev->id);
    if (is_kernel(ev->tpl)) {
        put_str(w, e->kernel_tail[ev->tpl]);
        if (GPU_OPS[ev->tpl].cls == GPU_COMM)
            put_nccl_kernel_args(e, ev->aux);
        t->kcount[ev->tpl]++;
        t->ktime[ev->tpl] += ev->dur;
        t->graph_kernels += from_graph;
    } else {
        put_copy_args(e, ev);
    }
    end_args(w);
    flow_event(e, false, "ac2g", ev->id, (uint64_t)e->device, (uint64_t)stream, ev->ts);
    t->by_stream[ev->stream]++;
    truth_pending(t, ev->ts, ev->ts + ev->dur, GPU_OPS[ev->tpl].cls);
}

typedef enum { PASS_MAIN_THREAD, PASS_AUTOGRAD_THREAD, PASS_PYTHON, PASS_GPU, NUM_PASSES } Pass;

/* Native Kineto writes CPU ops thread by thread, then the Python tracer's events, then
 * the CUPTI/roctracer activity buffers (runtime calls interleaved with GPU activities).
 * Each pass writes one of those groups for one step. */
static void emit_step(Emitter *e, const Gen *g, Pass pass)
{
    bool graph_run = false;
    for (size_t i = 0; i < g->n; i++) {
        const Ev *ev = &g->ev[i];
        switch ((EvKind)ev->kind) {
        case EV_CPU_OP:
        case EV_USER_ANN:
        case EV_MEM_INSTANT:
            if ((pass == PASS_MAIN_THREAD && ev->thread == THREAD_MAIN) ||
                (pass == PASS_AUTOGRAD_THREAD && ev->thread == THREAD_AUTOGRAD)) {
                if (ev->kind == EV_MEM_INSTANT)
                    emit_mem_instant(e, ev);
                else
                    emit_cpu_op(e, ev);
            }
            break;
        case EV_PYTHON:
            if (pass == PASS_PYTHON)
                emit_python(e, ev);
            break;
        case EV_RUNTIME:
            graph_run = ev->api == API_GRAPH;
            if (pass == PASS_GPU)
                emit_runtime(e, ev, i + 1 < g->n && g->ev[i + 1].kind == EV_GPU ? &g->ev[i + 1] : NULL);
            break;
        case EV_GPU:
            if (pass == PASS_GPU)
                emit_gpu(e, ev, graph_run);
            break;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* Whole files                                                                           */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    uint64_t step;
    int64_t ts, dur;
    uint64_t ext_id;
} GpuStepSpan;

typedef struct {
    const Options *o;
    Model model;
    int rank;
    uint64_t steps;
    int64_t start_ns; /* profiler start */
    Gen initial;      /* generator state before step 1; every pass starts from a copy */
    GpuStepSpan *spans;
    int64_t cpu_end;
    int64_t clock_offset; /* --clock-skew */
} RankPlan;

static void put_device_properties(Writer *w, Vendor v)
{
    PUT(w, "  \"deviceProperties\": [");
    for (int d = 0; d < DEVICES_PER_NODE; d++) {
        char buf[1024];
        if (v == VENDOR_ROCM)
            snprintf(buf, sizeof buf,
                     "%s\n    {\n      \"id\": %d, \"name\": \"AMD Instinct MI300X\", \"totalGlobalMem\": 206141652992,\n"
                     "      \"computeMajor\": 9, \"computeMinor\": 4,\n"
                     "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                     "      \"regsPerBlock\": 65536, \"warpSize\": 64,\n"
                     "      \"sharedMemPerBlock\": 65536, \"numSms\": 304\n"
                     "    , \"maxSharedMemoryPerMultiProcessor\": 65536\n    }",
                     d ? "," : "", d);
        else
            snprintf(buf, sizeof buf,
                     "%s\n    {\n      \"id\": %d, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85096972288,\n"
                     "      \"computeMajor\": 8, \"computeMinor\": 0,\n"
                     "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                     "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
                     "      \"sharedMemPerBlock\": 49152, \"numSms\": 108\n"
                     "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 166912, "
                     "\"sharedMemPerMultiprocessor\": 167936\n    }",
                     d ? "," : "", d);
        put_str(w, buf);
    }
    PUT(w, "\n  ],\n");
}

static void put_rank_list(Writer *w, int world)
{
    PUT(w, "[");
    for (int r = 0; r < world; r++) {
        if (r)
            PUT(w, ", ");
        put_u64(w, (uint64_t)r);
    }
    PUT(w, "]");
}

static void write_header(Writer *w, const RankPlan *p)
{
    int world = p->model.world_size;
    PUT(w, "\n{\n  \"schemaVersion\": 1,\n");
    put_device_properties(w, p->model.vendor);
    PUT(w, "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
    put_u64(w, (uint64_t)p->rank);
    PUT(w, ", \"world_size\": ");
    put_u64(w, (uint64_t)world);
    PUT(w, ", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
           "\"backend_config\": \"cuda:nccl\", \"pg_size\": ");
    put_u64(w, (uint64_t)world);
    PUT(w, ", \"ranks\": ");
    put_rank_list(w, world);
    PUT(w, "}], \"nccl_version\": \"2.21.5\"},\n  \"traceEvents\": [");
}

static void metadata_event(Emitter *e, const char *what, const char *pid_text, uint64_t pid,
                           uint64_t tid, int64_t ts, const char *key, const char *str_val,
                           uint64_t num_val)
{
    Writer *w = e->w;
    begin_event(e, PH_M);
    PUT(w, "\n    \"name\": \"");
    put_str(w, what);
    PUT(w, "\", \"ph\": \"M\", \"ts\": ");
    put_time(w, ts);
    if (pid_text) {
        PUT(w, ",\n    \"pid\": \"");
        put_str(w, pid_text);
        PUT(w, "\", \"tid\": ");
        put_u64(w, tid);
    } else {
        PUT(w, ", ");
        put_pid_tid(e, pid, tid);
    }
    PUT(w, ",\n    \"args\": {\n      \"");
    put_str(w, key);
    PUT(w, "\": ");
    if (str_val) {
        put_json_string(w, str_val);
    } else {
        put_u64(w, num_val);
    }
    end_args(w);
}

static void emit_gpu_step_annotations(Emitter *e, const RankPlan *p)
{
    Writer *w = e->w;
    for (uint64_t i = 0; i < p->steps; i++) {
        const GpuStepSpan *s = &p->spans[i];
        begin_event(e, PH_X);
        complete_begin(e, CAT_GPU_USER_ANN);
        PUT(w, "ProfilerStep#");
        put_u64(w, s->step);
        complete_rest(e, (uint64_t)e->device, (uint64_t)e->stream_ids[0], s->ts, s->dur);
        PUT(w, "\"External id\": ");
        put_u64(w, s->ext_id);
        end_args(w);
    }
}

static void emit_metadata(Emitter *e, const RankPlan *p)
{
    bool rocm = p->model.vendor == VENDOR_ROCM;
    const char *proc = rocm ? "python3" : "python3.10";
    int64_t ts = p->start_ns;
    char label[64];
    metadata_event(e, "process_name", NULL, e->pid, 0, ts, "name", proc, 0);
    metadata_event(e, "process_labels", NULL, e->pid, 0, ts, "labels", "CPU", 0);
    metadata_event(e, "process_sort_index", NULL, e->pid, 0, ts, "sort_index", NULL, e->pid);
    for (int d = 0; d < DEVICES_PER_NODE; d++) {
        snprintf(label, sizeof label, "GPU %d", d);
        metadata_event(e, "process_name", NULL, (uint64_t)d, 0, ts, "name", proc, 0);
        metadata_event(e, "process_labels", NULL, (uint64_t)d, 0, ts, "labels", label, 0);
        metadata_event(e, "process_sort_index", NULL, (uint64_t)d, 0, ts, "sort_index", NULL,
                       (rocm ? 5000000u : 16777216u) + (uint64_t)d);
    }
    for (int s = 0; s <= p->model.streams; s++) {
        uint64_t id = (uint64_t)e->stream_ids[s];
        snprintf(label, sizeof label, "stream %d ", e->stream_ids[s]);
        metadata_event(e, "thread_name", NULL, (uint64_t)e->device, id, ts, "name", label, 0);
        metadata_event(e, "thread_sort_index", NULL, (uint64_t)e->device, id, ts, "sort_index", NULL, id);
    }
    const uint64_t tids[2] = {e->pid, e->autograd_tid};
    const char *const roles[2] = {"pt_main_thread", "pt_autograd_0"};
    for (int i = 0; i < 2; i++) {
        snprintf(label, sizeof label, "thread %" PRIu64 " (%s)", tids[i], roles[i]);
        metadata_event(e, "thread_name", NULL, e->pid, tids[i], ts, "name", label, 0);
        metadata_event(e, "thread_sort_index", NULL, e->pid, tids[i], ts, "sort_index", NULL, tids[i]);
    }
}

static void global_instant(Emitter *e, const char *name, const char *pid, const char *tid, int64_t ts)
{
    Writer *w = e->w;
    begin_event(e, PH_I);
    PUT(w, "\n    \"name\": \"");
    put_str(w, name);
    PUT(w, "\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"");
    put_str(w, pid);
    PUT(w, "\", \"tid\": \"");
    put_str(w, tid);
    PUT(w, "\", \"ts\": ");
    put_time(w, ts);
    PUT(w, "\n  }");
}

static void emit_profiler_span(Emitter *e, const RankPlan *p)
{
    Writer *w = e->w;
    int64_t end = max64(p->cpu_end, e->t->last_end) + 1000;
    begin_event(e, PH_X);
    e->t->cat[CAT_TRACE]++;
    PUT(w, "\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
    put_time(w, p->start_ns);
    PUT(w, ", \"dur\": ");
    put_time(w, end - p->start_ns);
    PUT(w, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\","
           "\n    \"args\": {\n      \"Op count\": 0");
    end_args(w);
    metadata_event(e, "process_sort_index", "Spans", 0, 0, p->start_ns, "sort_index", NULL, 536870912);
    global_instant(e, "Iteration Start: PyTorch Profiler", "Traces", "Trace PyTorch Profiler", p->start_ns);
    global_instant(e, "Record Window End", "", "", end);
}

static void write_footer(Writer *w, const char *trace_name)
{
    w_need(w, EVENT_ROOM);
    PUT(w, "\n  ],\n  \"traceName\": ");
    put_json_string(w, trace_name);
    PUT(w, ",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": " BASE_TIME_NANOSECONDS "\n}");
}

static void gen_init(Gen *g, const Model *m, uint64_t seed, int rank, int64_t start_ns)
{
    *g = (Gen){.m = m, .rng = {mix(seed, (uint64_t)rank + 1)}, .now = start_ns};
    g->total_alloc = INT64_C(1) << 30;
}

/* CUDA: default stream 7, created streams 20, 24, ...; ROCm: stream 0 as roctracer
 * reports it, then small ids for the extra streams. */
static int stream_id(const Model *m, int s)
{
    if (m->vendor == VENDOR_ROCM)
        return s;
    return s == 0 ? 7 : 16 + 4 * s;
}

static void emitter_init(Emitter *e, Writer *w, Truth *t, const RankPlan *p)
{
    const Model *m = &p->model;
    *e = (Emitter){.w = w, .t = t, .m = m, .device = p->rank % DEVICES_PER_NODE, .rank = p->rank};
    uint64_t h = mix(p->o->seed, (uint64_t)p->rank + 7);
    e->pid = 100000 + h % 3000000;
    e->autograd_tid = e->pid + 1 + (h >> 32) % 9000;
    for (int s = 0; s <= m->streams; s++) {
        e->stream_ids[s] = stream_id(m, s);
        if (m->vendor == VENDOR_ROCM && s == 0)
            snprintf(e->rocm_stream_ptr[s], sizeof e->rocm_stream_ptr[s], "0x0");
        else
            snprintf(e->rocm_stream_ptr[s], sizeof e->rocm_stream_ptr[s], "0x%" PRIx64,
                     UINT64_C(0x55d7a4e3c000) + (uint64_t)s * 0x1000);
    }
    size_t cap = (size_t)m->world_size * 8 + 8;
    e->pg_ranks = malloc(cap);
    if (!e->pg_ranks) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    size_t len = (size_t)snprintf(e->pg_ranks, cap, "[");
    for (int r = 0; r < m->world_size; r++)
        len += (size_t)snprintf(e->pg_ranks + len, cap - len, r ? ", %d" : "%d", r);
    snprintf(e->pg_ranks + len, cap - len, "]");
    for (int k = 0; k < NUM_GPU_OPS; k++)
        e->kernel_tail[k] = is_kernel(k) ? format_kernel_tail(m->vendor, k) : NULL;
}

static void emitter_free(Emitter *e)
{
    free(e->pg_ranks);
    for (int k = 0; k < NUM_GPU_OPS; k++)
        free(e->kernel_tail[k]);
}

/* Writes one rank's trace (to `path`, or nowhere when path is NULL: size estimation) and
 * returns its uncompressed size. */
static uint64_t write_rank(RankPlan *p, const char *path, const char *trace_name, Truth *t)
{
    Writer w;
    Emitter e;
    Gen g;
    w_open(&w, path, p->o->gzip, p->o->ns);
    *t = (Truth){.first_start = -1};
    emitter_init(&e, &w, t, p);
    p->spans = calloc(p->steps, sizeof *p->spans);
    if (!p->spans) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    write_header(&w, p);
    for (Pass pass = 0; pass < NUM_PASSES; pass++) {
        g = p->initial;
        g.ev = NULL;
        g.n = g.cap = 0;
        for (uint64_t s = 0; s < p->steps; s++) {
            build_step(&g, FIRST_STEP + s);
            emit_step(&e, &g, pass);
            if (pass == PASS_GPU) {
                truth_flush(t, gen_watermark(&g));
                p->spans[s] = (GpuStepSpan){FIRST_STEP + s, g.gpu_first, g.gpu_last - g.gpu_first, g.step_ext_id};
            }
        }
        p->cpu_end = g.now;
        free(g.ev);
    }
    truth_flush(t, INT64_MAX);
    emit_gpu_step_annotations(&e, p);
    emit_metadata(&e, p);
    emit_profiler_span(&e, p);
    write_footer(&w, trace_name);
    w_close(&w);
    emitter_free(&e);
    free(p->spans);
    p->spans = NULL;
    free(t->pending);
    t->pending = NULL;
    return w.bytes;
}

/* --clock-skew: the rank's clock runs this far ahead of true time (0 without it). */
static int64_t clock_offset(const Options *o, int rank)
{
    if (!o->skew_ns)
        return 0;
    int64_t v = (int64_t)(mix(o->seed, (uint64_t)rank + 500) % (uint64_t)(2 * o->skew_ns + 1)) - o->skew_ns;
    int64_t q = o->ns ? 1 : 1000;
    return v - v % q;
}

static void plan_rank(RankPlan *p, const Options *o, int rank)
{
    *p = (RankPlan){.o = o, .rank = rank};
    p->model = (Model){
        .vendor = o->vendor,
        .streams = o->streams,
        .graphs = o->graphs,
        .quantum = o->ns ? 1 : 1000,
        .layers = 4 + (int)(mix(o->seed, 0) % 5),
        .world_size = o->ranks,
        .collectives = o->collectives,
        .seed = o->seed,
    };
    /* ranks start a few µs apart, like real unsynchronised clocks */
    p->start_ns = TRACE_BASE_US * 1000 + (int64_t)(mix(o->seed, (uint64_t)rank + 99) % 5000) * 1000;
    p->clock_offset = clock_offset(o, rank);
    p->start_ns += p->clock_offset;
    gen_init(&p->initial, &p->model, o->seed, rank, p->start_ns + 50000);
    p->initial.rank = rank;
    p->initial.clock_offset = p->clock_offset;
    p->initial.straggle_ns = rank == o->straggler_rank ? o->straggler_ns : 0;
    p->initial.slow_pct = rank == o->slow_rank ? o->slow_pct : 0;
}

static uint64_t rank_bytes(const Options *o, int rank, uint64_t steps)
{
    RankPlan p;
    Truth t;
    plan_rank(&p, o, rank);
    p.steps = steps;
    return write_rank(&p, NULL, "", &t);
}

/* Steps are statistically identical, so two short dry runs give the per-step size and
 * the fixed overhead; the step count then follows from the target size. */
static uint64_t steps_for_size(const Options *o)
{
    uint64_t b2 = rank_bytes(o, 0, 2), b4 = rank_bytes(o, 0, 4);
    uint64_t per_step = (b4 - b2) / 2;
    uint64_t fixed = b2 > 2 * per_step ? b2 - 2 * per_step : 0;
    if (o->size <= fixed + per_step)
        return 1;
    return (o->size - fixed + per_step / 2) / per_step;
}

/* ------------------------------------------------------------------------------------ */
/* Ground-truth file                                                                     */
/* ------------------------------------------------------------------------------------ */

static void put_key(Writer *w, const char *key)
{
    PUT(w, "\n      ");
    put_json_string(w, key);
    PUT(w, ": ");
}

static void put_u64_field(Writer *w, const char *key, uint64_t v)
{
    put_key(w, key);
    put_u64(w, v);
    PUT(w, ",");
}

static void put_kernel_map(Writer *w, const char *key, const Truth *t, Vendor v, bool time,
                           const char *after)
{
    put_key(w, key);
    PUT(w, "{");
    bool first = true;
    for (int k = 0; k < NUM_GPU_OPS; k++) {
        if (!is_kernel(k) || !t->kcount[k])
            continue;
        bool seen = false; /* several templates may share a vendor name: report once, summed */
        for (int j = 0; j < k; j++)
            seen |= is_kernel(j) && t->kcount[j] && !strcmp(gpu_op_name(v, j), gpu_op_name(v, k));
        if (seen)
            continue;
        uint64_t sum = 0;
        for (int j = k; j < NUM_GPU_OPS; j++)
            if (is_kernel(j) && !strcmp(gpu_op_name(v, j), gpu_op_name(v, k)))
                sum += time ? (uint64_t)t->ktime[j] : t->kcount[j];
        put_str(w, first ? "\n        " : ",\n        ");
        first = false;
        put_json_string(w, gpu_op_name(v, k));
        PUT(w, ": ");
        put_u64(w, sum);
    }
    PUT(w, "\n      }");
    put_str(w, after);
}

static void write_truth_rank(Writer *w, const RankPlan *p, const Truth *t, const char *file,
                             uint64_t bytes, bool first)
{
    Vendor v = p->model.vendor;
    int64_t busy = union_length(&t->all);
    int64_t compute = union_length(&t->compute), comm = union_length(&t->comm);
    int64_t kernels = union_length(&t->kernels);
    w_need(w, EVENT_ROOM);
    put_str(w, first ? "\n    {" : ",\n    {");
    put_u64_field(w, "rank", (uint64_t)p->rank);
    put_key(w, "file");
    put_json_string(w, file);
    PUT(w, ",");
    put_u64_field(w, "bytes", bytes);
    put_u64_field(w, "total_events", t->events);
    put_key(w, "by_ph");
    PUT(w, "{");
    for (int i = 0; i < NUM_PH; i++) {
        put_str(w, i ? ", " : "");
        put_json_string(w, PH_NAMES[i]);
        PUT(w, ": ");
        put_u64(w, t->ph[i]);
    }
    PUT(w, "},");
    put_key(w, "complete_by_cat");
    PUT(w, "{");
    for (int i = 0; i < NUM_CATS; i++) {
        put_str(w, i ? ", " : "");
        put_json_string(w, CAT_NAMES[i]);
        PUT(w, ": ");
        put_u64(w, t->cat[i]);
    }
    PUT(w, "},");
    put_u64_field(w, "kernels", t->cat[CAT_KERNEL]);
    put_u64_field(w, "memcpy", t->cat[CAT_MEMCPY]);
    put_u64_field(w, "memset", t->cat[CAT_MEMSET]);
    put_key(w, "gpu_events_by_stream");
    PUT(w, "{");
    for (int s = 0; s <= p->model.streams; s++) {
        put_str(w, s ? ", \"" : "\"");
        put_u64(w, (uint64_t)stream_id(&p->model, s));
        PUT(w, "\": ");
        put_u64(w, t->by_stream[s]);
    }
    PUT(w, "},");
    put_u64_field(w, "comm_stream", (uint64_t)stream_id(&p->model, p->model.streams));
    put_key(w, "steps");
    PUT(w, "[");
    for (uint64_t s = 0; s < p->steps; s++) {
        put_str(w, s ? ", " : "");
        put_u64(w, FIRST_STEP + s);
        w_need(w, 64);
    }
    PUT(w, "],");
    put_u64_field(w, "gpu_busy_ns", (uint64_t)busy);
    put_u64_field(w, "gpu_idle_ns", (uint64_t)(t->last_end - t->first_start - busy));
    put_key(w, "gpu_span_ns");
    PUT(w, "[");
    put_u64(w, (uint64_t)t->first_start);
    PUT(w, ", ");
    put_u64(w, (uint64_t)t->last_end);
    PUT(w, "],");
    put_u64_field(w, "compute_busy_ns", (uint64_t)compute);
    put_u64_field(w, "comm_busy_ns", (uint64_t)comm);
    put_u64_field(w, "comm_compute_overlap_ns", (uint64_t)(compute + comm - kernels));
    put_u64_field(w, "graph_launches", t->graph_launches);
    put_u64_field(w, "graph_kernels", t->graph_kernels);
    if (p->model.collectives) {
        int64_t compute_kernels = 0;
        for (int k = 0; k < NUM_GPU_OPS; k++)
            compute_kernels += GPU_OPS[k].cls == GPU_COMPUTE ? t->ktime[k] : 0;
        put_u64_field(w, "compute_kernel_ns", (uint64_t)compute_kernels);
    }
    put_kernel_map(w, "kernel_time_by_name_ns", t, v, true, ",");
    put_kernel_map(w, "kernel_count_by_name", t, v, false, "\n    }");
}

/* ------------------------------------------------------------------------------------ */
/* Driver                                                                                */
/* ------------------------------------------------------------------------------------ */

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *s = malloc(n);
    if (!s) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    snprintf(s, n, "%s/%s", dir, name);
    return s;
}

/* mkdir -p: every missing directory of dir's path, then dir. */
static void make_output_dir(const char *dir)
{
    char *parent = strdup(dir);
    for (char *s = parent ? parent + 1 : NULL; s && *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(parent, 0777); /* errors show at dir itself below */
            *s = '/';
        }
    free(parent);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kineta-synth: cannot create directory %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "kineta-synth: %s exists and is not a directory\n", dir);
        exit(1);
    }
}

static void write_truth_head(Writer *w, const Options *o, uint64_t steps, int layers)
{
    PUT(w, "{\n  \"generator\": \"kineta-synth\",\n  \"vendor\": ");
    put_json_string(w, o->vendor == VENDOR_ROCM ? "rocm" : "cuda");
    PUT(w, ",\n  \"seed\": ");
    put_u64(w, o->seed);
    PUT(w, ",\n  \"world_size\": ");
    put_u64(w, (uint64_t)o->ranks);
    PUT(w, ",\n  \"steps_per_rank\": ");
    put_u64(w, steps);
    PUT(w, ",\n  \"layers\": ");
    put_u64(w, (uint64_t)layers);
    PUT(w, ",\n  \"compute_streams\": ");
    put_u64(w, (uint64_t)o->streams);
    put_str(w, o->ns ? ",\n  \"ns_timestamps\": true" : ",\n  \"ns_timestamps\": false");
    put_str(w, o->graphs ? ",\n  \"graphs\": true" : ",\n  \"graphs\": false");
    put_str(w, o->gzip ? ",\n  \"gzip\": true" : ",\n  \"gzip\": false");
    PUT(w, ",\n  \"ranks\": [");
}

/* ---- --collectives: lock-step resolution and truth ---------------------------------- */

/* Every member of a group leaves at the group's last arrival + the latency; returns
 * whether any end changed. */
static bool update_ends(CollPlan *plan, const Model *m, uint64_t slot0, int nslots, int64_t *scratch)
{
    bool changed = false;
    int n = plan->nranks;
    for (uint64_t slot = slot0; slot < slot0 + (uint64_t)nslots; slot++) {
        PgClass pg = COLL_KINDS[coll_kind_at(m, slot)].pg;
        int64_t lat = coll_latency(m, slot), *a = plan->arrive + slot * (uint64_t)n, *e = plan->end + slot * (uint64_t)n;
        int first, size;
        for (int r = 0; r < n; r++)
            scratch[r] = INT64_MIN;
        for (int r = 0; r < n; r++) {
            int gid = coll_group(m, pg, r, &first, &size);
            if (gid >= 0 && a[r] > scratch[gid])
                scratch[gid] = a[r];
        }
        for (int r = 0; r < n; r++) {
            int gid = coll_group(m, pg, r, &first, &size);
            int64_t end = gid >= 0 ? scratch[gid] + lat : INT64_MIN;
            changed |= e[r] != end;
            e[r] = end;
        }
    }
    return changed;
}

/* Runs every rank step by step, each step until the collectives' ends stop moving (an
 * end can only move later arrivals of the same step, so this takes at most one round per
 * collective of the step). */
static void resolve_collectives(RankPlan *plans, int nranks, uint64_t steps, CollPlan *plan)
{
    const Model *m = &plans[0].model;
    int per_step = coll_slots_per_step(m);
    Gen *state = calloc((size_t)nranks, sizeof *state), *next = calloc((size_t)nranks, sizeof *next);
    int64_t *scratch = calloc((size_t)nranks, sizeof *scratch);
    if (!state || !next || !scratch) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    for (int r = 0; r < nranks; r++) {
        state[r] = plans[r].initial;
        state[r].plan = plan;
        next[r] = state[r];
    }
    plan->recording = true;
    for (uint64_t s = 0; s < steps; s++) {
        plan_reserve(plan, (s + 1) * (uint64_t)per_step - 1);
        for (int round = 0;; round++) {
            if (round > per_step + 2) {
                fprintf(stderr, "kineta-synth: internal error: collectives do not settle\n");
                exit(1);
            }
            for (int r = 0; r < nranks; r++) {
                Ev *buf = next[r].ev;
                size_t cap = next[r].cap;
                next[r] = state[r];
                next[r].ev = buf;
                next[r].cap = cap;
                build_step(&next[r], FIRST_STEP + s);
            }
            if (!update_ends(plan, m, s * (uint64_t)per_step, per_step, scratch))
                break;
        }
        for (int r = 0; r < nranks; r++) {
            Ev *buf = state[r].ev;
            size_t cap = state[r].cap;
            state[r] = next[r];
            next[r].ev = buf;
            next[r].cap = cap;
        }
    }
    plan->recording = false;
    for (int r = 0; r < nranks; r++) {
        free(state[r].ev);
        free(next[r].ev);
    }
    free(state);
    free(next);
    free(scratch);
}

static void put_i64_list(Writer *w, const int64_t *v, const int *idx, int n)
{
    PUT(w, "[");
    for (int i = 0; i < n; i++) {
        w_need(w, 64);
        put_str(w, i ? ", " : "");
        put_i64(w, v[idx[i]]);
    }
    PUT(w, "]");
}

typedef struct {
    int64_t wait;
    uint64_t last, first, count;
} RankArrivals;

static bool coll_implicit_sync(CollKind k)
{
    return k == C_ALLGATHER || k == C_ALLREDUCE || k == C_REDUCESCATTER;
}

/* One group instance of a slot: its members' true arrivals and end. */
static void write_truth_instance(Writer *w, const Model *m, const CollPlan *plan, uint64_t slot, const int *members,
                                 int n, bool first_entry, RankArrivals *ra)
{
    CollKind k = coll_kind_at(m, slot);
    const int64_t *a = plan->arrive + slot * (uint64_t)plan->nranks;
    int gfirst, size, gid = coll_group(m, COLL_KINDS[k].pg, members[0], &gfirst, &size);
    int last = 0, firsta = 0;
    for (int i = 1; i < n; i++) {
        if (a[members[i]] > a[members[last]])
            last = i;
        if (a[members[i]] < a[members[firsta]])
            firsta = i;
    }
    w_need(w, EVENT_ROOM);
    put_str(w, first_entry ? "\n    {" : ",\n    {");
    PUT(w, "\"slot\": ");
    put_u64(w, slot);
    PUT(w, ", \"step\": ");
    put_u64(w, FIRST_STEP + slot / (uint64_t)coll_slots_per_step(m));
    PUT(w, ", \"kind\": \"");
    put_str(w, COLL_KINDS[k].coll_name);
    PUT(w, "\", \"pg\": \"");
    put_u64(w, (uint64_t)coll_pg_number(COLL_KINDS[k].pg, gid));
    PUT(w, "\", \"seq\": ");
    put_u64(w, coll_seq(m, slot));
    PUT(w, ", \"implicit_sync\": ");
    put_str(w, coll_implicit_sync(k) ? "true" : "false");
    PUT(w, ", \"latency_ns\": ");
    put_i64(w, coll_latency(m, slot));
    PUT(w, ", \"end_ns\": ");
    put_i64(w, plan->end[slot * (uint64_t)plan->nranks + (uint64_t)members[0]]);
    PUT(w, ", \"last_rank\": ");
    put_u64(w, (uint64_t)members[last]);
    PUT(w, ", \"first_rank\": ");
    put_u64(w, (uint64_t)members[firsta]);
    PUT(w, ", \"ranks\": ");
    PUT(w, "[");
    for (int i = 0; i < n; i++) {
        w_need(w, 64);
        put_str(w, i ? ", " : "");
        put_u64(w, (uint64_t)members[i]);
    }
    PUT(w, "], \"start_ns\": ");
    put_i64_list(w, a, members, n);
    PUT(w, "}");
    if (!coll_implicit_sync(k))
        return;
    for (int i = 0; i < n; i++) {
        ra[members[i]].wait += a[members[last]] - a[members[i]];
        ra[members[i]].count++;
    }
    ra[members[last]].last++;
    ra[members[firsta]].first++;
}

static void write_truth_collectives(Writer *w, const Options *o, const RankPlan *plans, const CollPlan *plan)
{
    const Model *m = &plans[0].model;
    int n = plan->nranks, *members = malloc((size_t)n * sizeof *members);
    RankArrivals *ra = calloc((size_t)n, sizeof *ra);
    if (!members || !ra) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    PUT(w, ",\n  \"collectives\": {\n    \"clock_offset_ns\": [");
    for (int r = 0; r < n; r++) {
        w_need(w, 64);
        put_str(w, r ? ", " : "");
        put_i64(w, plans[r].clock_offset - plans[0].clock_offset);
    }
    PUT(w, "],\n    \"straggler_rank\": ");
    put_i64(w, o->straggler_rank);
    PUT(w, ", \"straggler_ns\": ");
    put_i64(w, o->straggler_rank >= 0 ? o->straggler_ns : 0);
    PUT(w, ", \"slow_rank\": ");
    put_i64(w, o->slow_rank);
    PUT(w, ", \"slow_pct\": ");
    put_i64(w, o->slow_rank >= 0 ? o->slow_pct : 0);
    PUT(w, ",\n    \"instances\": [");
    bool first_entry = true;
    for (uint64_t slot = 0; slot < plan->nslots; slot++) {
        PgClass pg = COLL_KINDS[coll_kind_at(m, slot)].pg;
        for (int g0 = 0; g0 < n; g0++) { /* each group once, at its first rank */
            int first, size, k = 0;
            if (coll_group(m, pg, g0, &first, &size) < 0 || first != g0)
                continue;
            for (int r = first; r < first + size; r++)
                members[k++] = r;
            write_truth_instance(w, m, plan, slot, members, k, first_entry, ra);
            first_entry = false;
        }
    }
    PUT(w, "\n    ],\n    \"per_rank\": [");
    for (int r = 0; r < n; r++) {
        w_need(w, 256);
        put_str(w, r ? ",\n      {\"rank\": " : "\n      {\"rank\": ");
        put_u64(w, (uint64_t)r);
        PUT(w, ", \"implicit_sync\": ");
        put_u64(w, ra[r].count);
        PUT(w, ", \"total_wait_ns\": ");
        put_i64(w, ra[r].wait);
        PUT(w, ", \"arrived_last\": ");
        put_u64(w, ra[r].last);
        PUT(w, ", \"arrived_first\": ");
        put_u64(w, ra[r].first);
        PUT(w, "}");
    }
    PUT(w, "\n    ]\n  }");
    free(members);
    free(ra);
}

int main(int argc, char **argv)
{
    Options o = parse_options(argc, argv);
    bool single = single_file_mode(&o);
    uint64_t steps = o.steps ? o.steps : steps_for_size(&o);
    char *truth_path;
    if (single) {
        const char *slash = strrchr(o.out, '/');
        char *dir = slash && slash != o.out ? strndup(o.out, (size_t)(slash - o.out)) : NULL;
        if (dir) make_output_dir(dir);
        free(dir);
        size_t n = strlen(o.out) + sizeof ".truth.json";
        truth_path = malloc(n);
        if (!truth_path) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            return 1;
        }
        snprintf(truth_path, n, "%s.truth.json", o.out);
    } else {
        make_output_dir(o.out);
        truth_path = path_join(o.out, "truth.json");
    }
    Writer tw;
    w_open(&tw, truth_path, false, false);
    RankPlan first;
    plan_rank(&first, &o, 0);
    write_truth_head(&tw, &o, steps, first.model.layers);
    RankPlan *plans = NULL;
    CollPlan *cplan = NULL;
    if (o.collectives) {
        plans = calloc((size_t)o.ranks, sizeof *plans);
        if (!plans) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            return 1;
        }
        for (int r = 0; r < o.ranks; r++) {
            plan_rank(&plans[r], &o, r);
            plans[r].steps = steps;
        }
        cplan = plan_new(o.ranks);
        resolve_collectives(plans, o.ranks, steps, cplan);
    }
    for (int r = 0; r < o.ranks; r++) {
        char name[64];
        snprintf(name, sizeof name, "rank-%d.json%s", r, o.gzip ? ".gz" : "");
        char *path = single ? strdup(o.out) : path_join(o.out, name);
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        RankPlan p;
        Truth t;
        plan_rank(&p, &o, r);
        p.steps = steps;
        p.initial.plan = cplan;
        uint64_t bytes = write_rank(&p, path, path, &t);
        write_truth_rank(&tw, &p, &t, base, bytes, r == 0);
        free(path);
    }
    PUT(&tw, "\n  ]");
    if (cplan)
        write_truth_collectives(&tw, &o, plans, cplan);
    PUT(&tw, "\n}\n");
    plan_free(cplan);
    free(plans);
    w_close(&tw);
    free(truth_path);
    return 0;
}

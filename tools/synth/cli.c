/*
 * cli.c — kineta-synth's command line: the options, their checks and the usage text.
 */
#include "synth.h"

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

Options parse_options(int argc, char **argv)
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

bool single_file_mode(const Options *o)
{
    return o->ranks == 1 && (ends_with(o->out, ".json") || ends_with(o->out, ".json.gz"));
}

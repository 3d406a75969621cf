/*
 * cli.h — what a `kineta <command>` needs to plug into the shared driver.
 *
 * The driver owns everything commands have in common (common options,
 * loading with a progress bar, printing diagnostics, formatting tables,
 * exit codes), so a command is just its own options plus one library call.
 */
#ifndef KT_CLI_H
#define KT_CLI_H

#include "kineta.h"
#include <stdbool.h>
#include <stdio.h>

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } out_format;

typedef struct cli_ctx {
    out_format format;
    bool format_given;
    const char *out_path;   /* -o FILE (NULL = stdout)                      */
    const char *table;      /* --table NAME (csv: which table)              */
    long long top;          /* --top N: rows of long tables in table format,
                               0 = all, -1 = the default (tables_shown.c)    */
    const char **exclude;   /* --exclude GLOB (repeatable): files of a
                               directory PATH not loaded                     */
    size_t nexclude;
    kt_rank_sel sel;
    int *file_ranks;        /* --file-ranks: rank of each PATH, or NULL      */
    size_t nfile_ranks;
    int jobs;
    bool hta_compat;
    bool cache;             /* --cache[=DIR]                                 */
    const char *cache_dir;  /* its DIR, NULL for the default                 */
    bool quiet;
    bool verbose;
    bool stream_ranks;      /* --stream-ranks: map ranks one by one (cli_stream.h) */
    bool timings;           /* --timings: phases' times on stderr (cli_timings.h) */
    const char **paths;
    size_t npaths;
} cli_ctx;

typedef struct cli_option {
    const char *name;   /* long name without "--" */
    const char *arg;    /* metavariable, or NULL for a flag */
    const char *help;
} cli_option;

typedef struct cli_command {
    const char *name;
    const char *summary;
    const char *description;      /* longer text for `--help`, may be NULL */
    const cli_option *options;    /* terminated by {NULL}; NULL = none     */
    const char *const *tables;    /* names of the tables it prints, NULL-terminated */
    /* Those of them holding one row per item (an event, an edge, a sample):
     * in table format printed after the others, their first rows only
     * (tables_shown.c); NULL-terminated, NULL = none.                     */
    const char *const *raw_tables;
    size_t state_size;            /* bytes of per-run option state         */
    void (*init)(void *state);    /* defaults, may be NULL                 */
    /* Parse one command option (NULL when it has none); return 0, or print
     * a message and return 2, or return -1 when the option did all there
     * is to do (exit 0).                                                   */
    int (*parse)(void *state, const char *name, const char *value);
    /* Run on the loaded trace; return a kt_status.  Commands that write
     * files themselves may return tables describing what they wrote.      */
    kt_status (*run)(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out);
    /* -o names a directory the command writes its files into (counters),
     * required; its tables then go to stdout.                             */
    bool output_dir;
    /* With output_dir: -o DIR may be left out (the command then writes no
     * files, only its tables).                                            */
    bool output_dir_optional;
    /* Optional: runs before loading; returns true when it handled the
     * PATHs itself (inputs that are not Kineto traces, e.g. a memory
     * timeline file), *status and *out then being its result.             */
    bool (*preload)(const cli_ctx *ctx, void *state, kt_tables **out, kt_status *status);
    /* Optional custom printer (e.g. info's nested JSON); NULL = generic.   */
    int (*print)(const cli_ctx *ctx, const kt_tables *ts, FILE *f);
    /* Optional, for the generic printer in table format: draws the first
     * nrows rows of table t its own way (diff's tree, gaps' histogram)
     * and returns true, or returns false for the usual text table.        */
    bool (*print_text)(const kt_table *t, size_t nrows, FILE *f);
    /* Commands comparing two runs (diff) set this instead of run: exactly
     * two PATHs, CONTROL and TEST, each loaded on its own (two files with
     * the same rank are two runs) and as written — --hta-compat is passed
     * in ctx for the command to apply, because HTA's TraceDiff parses its
     * traces without the load-time step filtering.                       */
    kt_status (*run_pair)(const cli_ctx *ctx, const kt_trace *control, const kt_trace *test, void *state,
                          kt_tables **out);
    /* Optional: the ProfilerStep the options select (--pstep), or -1; the
     * driver checks it exists before run (exit 1 naming the steps there). */
    int64_t (*selected_step)(const void *state);
    /* Optional, for commands whose rows aggregate over ranks: run as map
     * (the selected ranks of t to partial tables) and reduce (the partials
     * of every rank, in rank order, to run's tables), so --stream-ranks and
     * MPI hold one rank at a time (cli_stream.c).                         */
    kt_status (*map)(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **partial);
    kt_status (*reduce)(const cli_ctx *ctx, void *state, const kt_tables *const *partials, size_t n,
                        kt_tables **out);
} cli_command;

/* The command list (programs/commands.c). */
extern const cli_command *const kt_commands[];

int cli_run_command(const cli_command *cmd, int argc, char **argv);
/* The whole command line (programs/cli_main.c): argv[1] names the command;
 * returns the exit code.  main() of kineta and of `python3 -m kineta`.   */
int kt_cli_main(int argc, char **argv);
/* The options every command takes, as --help lists them. */
void cli_print_common_options(FILE *f);

/* Bindings (programs/cli_embed.c): the commands by index, and one command
 * run on a loaded trace (two for commands that compare runs: test is the
 * second, NULL otherwise) with options as name/value pairs (value NULL for
 * a flag; names without "--"), machine format (every row), quiet;
 * hta_compat -1: HTA's rules if t was loaded with them.  The CLI's checks
 * apply (-o's directory, the ranks and step asked for); on failure message
 * (cap bytes) holds what the command said, as the CLI prints it.  A
 * command's options by index: the name (NULL past the last), its
 * metavariable (NULL for a flag) and help text.                          */
size_t kt_cli_ncommands(void);
const char *kt_cli_command_name(size_t i);
const char *kt_cli_command_summary(size_t i);
int kt_cli_command_is_pair(size_t i);
const char *kt_cli_command_description(size_t i);
const char *kt_cli_command_option(size_t i, size_t j, const char **arg, const char **help);
kt_status kt_cli_run(const kt_trace *t, const kt_trace *test, const char *name, const char *const *names,
                     const char *const *values, size_t nopts, const int *ranks, size_t nranks, const char *out_path,
                     int verbose, int hta_compat, kt_tables **out, char *message, size_t cap);

/* Generic table printing (programs/print_tables.c).  Numbers get the
 * decimals their unit needs in text, every digit in CSV and JSON; JSON keys
 * are snake_case with the unit (total_us), HTA's names under --hta-compat;
 * --table selects one table in every format.  docs/output.md.             */
/* Returns 0, or 2 when --table names no table. */
int print_tables(const cli_ctx *ctx, const cli_command *cmd, const kt_tables *ts, FILE *f);
/* Table format (programs/tables_shown.c): summaries first, then the
 * command's raw_tables cut to --top rows (default 10) with a line naming
 * how to get the rest; tables with no rows, or only zeros, are named on
 * one line instead of printed (unless --table names them).              */
void print_tables_text(const cli_ctx *ctx, const cli_command *cmd, const kt_tables *ts, FILE *f);
/* csv without --table prints one table: which ones it left out, on
 * stderr (unless -q).                                                   */
void note_tables_left_out(const cli_ctx *ctx, const cli_command *cmd, const kt_tables *ts,
                          const kt_table *shown);
/* Text fitted to f's terminal width (COLUMNS, else the tty's, else 100). */
void print_table_text(const kt_table *t, FILE *f);
void print_table_csv(const kt_table *t, FILE *f);
/* Keys snake_case (print_table_json_keys(t, false, f)). */
void print_table_json(const kt_table *t, FILE *f);
void print_table_json_keys(const kt_table *t, bool hta_names, FILE *f);
void print_json_string(const char *s, FILE *f);
void print_cell(const kt_table *t, size_t row, size_t col, FILE *f, bool json);
/* A cell as text shows it (malloc'd; NULL when out of memory);
 * decimals: unit_decimals(column_unit(t, col)) (column_labels.h).        */
char *cell_display(const kt_table *t, size_t row, size_t col, int decimals);

/* Text tables (programs/text_table.c). */
typedef struct text_style {
    size_t width;    /* columns to fit in; 0 = no limit                   */
    bool full_names; /* never cut strings (--verbose, full reports)       */
    size_t max_rows; /* print the first max_rows rows only; 0 = all       */
} text_style;
/* COLUMNS if set, else the terminal's width when f is one, else 100. */
size_t terminal_width(FILE *f);
/* The style of the command line: --verbose = full names, no width limit. */
text_style text_style_for(const cli_ctx *ctx, FILE *f);
void print_table_text_styled(const kt_table *t, const text_style *st, FILE *f);

/* A categorizer with the rules of file rules added (NULL rules: *out = NULL,
 * meaning the built-in rules); prints why on a bad file (KT_EUSAGE).     */
kt_status cli_load_categorizer(const char *rules, kt_categorizer **out);
/* A second run named by an option (report --baseline, perf --compare),
 * loaded as `kineta diff` loads CONTROL: on its own, as written; why it
 * failed said as "kineta COMMAND: --OPTION PATH: ..." (cli_load_run.c).  */
kt_status cli_load_run(const char *command, const char *option, const char *path, kt_trace **out);

/* The whole file a --device-spec option names, NUL-terminated (free()),
 * or NULL with why said as "kineta COMMAND: ..." (cli_device_spec.c).   */
char *cli_read_device_spec(const char *command, const char *path);

/* A failure the command explains: "kineta COMMAND: message" (COMMAND NULL:
 * "kineta: message") on stderr; the driver then adds no generic status
 * line.  cli_failure_explained: whether this thread said one since it
 * last asked (cli_fail.c).                                                */
void cli_fail(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cli_failure_explained(void);
/* A library call's reasons (its kt_diags, docs/api.md) said as cli_fail
 * lines, each message after prefix (NULL: none); frees d (may be NULL).  */
void cli_fail_diags(const char *command, const char *prefix, kt_diags *d);
/* The driver's generic line for a failed command ("kineta COMMAND: input
 * unreadable"), unless the command explained the failure itself.         */
void cli_say_status(const char *command, kt_status st);

/* Option value helpers: print a usage message and return false on error. */
bool cli_parse_int(const char *opt, const char *v, long long lo, long long hi, long long *out);
bool cli_parse_double(const char *opt, const char *v, double *out);
/* "A,B" (two non-empty names) copied to buf, *a and *b pointing in it. */
bool cli_parse_pair(const char *opt, const char *v, char *buf, size_t cap, const char **a, const char **b);

#endif

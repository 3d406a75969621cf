/*
 * test_replay_torch.c — the replay scripts `kineta replay -o` writes, run
 * with Debian's python3-torch (tests/replay_check.py, one python process):
 * for every roofline row TraceLens wrote for the five shared h100 traces,
 * a replayed op whose rebuilt inputs have the row's recorded shapes,
 * strides and dtypes, each op run once on the CPU at its recorded size
 * (about a minute of CPU for the 173 ops, docs/perf.md) or reported
 * unsupported in this torch.
 */
#include "cli_run.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Debian's python3 (pyenv's, first on PATH, lacks Debian's packages). */
static const char *python(void)
{
    const char *p = getenv("KINETA_PYTHON");
    return p && *p ? p : "/usr/bin/python3";
}

static bool have_torch(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s -c 'import torch' >/dev/null 2>&1", python());
    if (system(cmd) == 0) return true;
    kt_test_skip("python3 with torch not found (apt-get install python3-torch)");
    return false;
}

static void check(const char *const *models, size_t n)
{
    char dir[64], cmd[8192];
    snprintf(dir, sizeof dir, "/tmp/kineta-replay-torch-%d", (int)getpid());
    int k = snprintf(cmd, sizeof cmd, "%s tests/replay_check.py %s %s %s cpu", python(), kt_cli_bin(), dir,
                     kt_test_shared_path("oracle/tracelens/h100"));
    for (size_t i = 0; i < n; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "traces/tracelens/h100/%s.json.gz", models[i]);
        k += snprintf(cmd + k, sizeof cmd - (size_t)k, " %s", kt_test_shared_path(rel));
    }
    snprintf(cmd + k, sizeof cmd - (size_t)k, " >&2; s=$?; rm -rf %s; exit $s", dir);
    CHECK_INT(system(cmd), 0);
}

TEST(replay_scripts_run_every_roofline_row_on_cpu)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    if (!have_torch()) return;
    static const char *const models[] = {
        "Falconsai_nsfw_image_detection__1016002", "Qwen_Qwen1.5-0.5B-Chat__1016005",
        "facebook_timesformer-base-finetuned-k400__1016002", "gaunernst_bert-small-uncased__1016001",
        "google_owlv2-large-patch14-ensemble__1016001",
    };
    check(models, 5);
}

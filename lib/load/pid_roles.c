/*
 * pid_roles.c — GPU events on CPU pids and CPU events on GPU pids.
 *
 * Kineto keeps CPU and GPU work apart by pid (process id / device id); a
 * trace that mixes them (merged by a script, edited by hand) still loads,
 * and the analyses take a GPU event's pid as its device.  That recovery
 * must not be silent: the parser tallies, per pid, the CPU and GPU events
 * it stores (load_internal.h: kt_pid_roles_add, inline), and at the end of
 * the file the misplaced side of each mixed pid becomes a warning.
 */
#include "load_internal.h"

#include <stdio.h>
#include <string.h>

kt_pid_role *kt_pid_roles_slot(kt_pid_roles *t, int64_t pid)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->e[i].pid == pid) {
            t->last = i;
            return &t->e[i];
        }
    if (t->n == KT_PID_ROLES) return NULL;
    t->last = t->n;
    kt_pid_role *s = &t->e[t->n++];
    memset(s, 0, sizeof *s);
    s->pid = pid;
    return s;
}

void kt_pid_roles_merge(kt_pid_roles *dst, const kt_pid_roles *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const kt_pid_role *from = &src->e[i];
        kt_pid_role *to = kt_pid_roles_slot(dst, from->pid);
        for (int r = 0; to && r < 2; r++) {
            if (!from->n[r]) continue;
            if (!to->n[r] || from->first_off[r] < to->first_off[r]) {
                to->first_off[r] = from->first_off[r];
                to->first_name[r] = from->first_name[r];
            }
            to->n[r] += from->n[r];
        }
    }
}

/* A pid as the file wrote it ("Spans" for a string pid). */
static void pid_text(const kt_parser *p, int64_t pid, char *buf, size_t cap)
{
    if (kt_id_is_str(pid)) snprintf(buf, cap, "\"%.40s\"", kt_strtab_get(p->strs, kt_id_str(pid)));
    else snprintf(buf, cap, "%lld", (long long)pid);
}

void kt_pid_roles_report(kt_parser *p)
{
    static const char *const what[2] = { "CPU op", "GPU event" };
    static const char *const holds[2] = { [KT_ROLE_CPU] = "GPU events: kept as CPU work of pid",
                                          [KT_ROLE_GPU] = "CPU ops: taken as the work of device" };
    for (size_t i = 0; i < p->roles.n; i++) {
        const kt_pid_role *s = &p->roles.e[i];
        if (!s->n[KT_ROLE_CPU] || !s->n[KT_ROLE_GPU]) continue;
        int odd = s->n[KT_ROLE_GPU] <= s->n[KT_ROLE_CPU] ? KT_ROLE_GPU : KT_ROLE_CPU;
        char pid[64];
        pid_text(p, s->pid, pid, sizeof pid);
        uint32_t name = s->first_name[odd];
        kt_pdiag_note_n(p, odd == KT_ROLE_GPU ? KT_PD_GPU_ON_CPU_PID : KT_PD_CPU_ON_GPU_PID, s->n[odd],
                        s->first_off[odd], "%s \"%.80s\" at byte %lld is on pid %s, which holds %s %s",
                        what[odd], name == KT_NONE ? "" : kt_strtab_get(p->strs, name),
                        (long long)s->first_off[odd], pid, holds[odd], pid);
    }
}

/*
 * critical_path_what_if.h — what-if scenarios for the critical path: "what
 * if launches cost nothing (launch=0), CPU ops ran twice as fast (cpu=0.5),
 * communication were free (comm=0)?"  Each scenario rescales classes of
 * edges and the longest path is found again: the answer to "it is
 * cpu_bound — how much would fixing that buy?".
 */
#ifndef KT_CRITICAL_PATH_WHAT_IF_H
#define KT_CRITICAL_PATH_WHAT_IF_H

#include "analysis/structure/critical_path_longest.h"

#define CP_MAX_SCENARIOS 16

typedef struct cp_scenario {
    char text[64];               /* as given, e.g. "launch=0+cpu=0.5" */
    double scale[CP__NCLASSES];  /* factor per edge class              */
} cp_scenario;

/* Parse "SCENARIO[,SCENARIO...]", SCENARIO = CLASS=FACTOR[+CLASS=FACTOR...],
 * CLASS one of launch, kernel_gap, cpu, gpu, comm; FACTOR >= 0.  NULL text:
 * no scenarios.  KT_EUSAGE with why in err.                               */
kt_status cp_parse_what_if(const char *text, cp_scenario *out, size_t *n, char *err, size_t errlen);

#endif

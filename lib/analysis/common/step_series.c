/* step_series.c — see step_series.h. */
#include "analysis/common/step_series.h"

#include <stdbool.h>

size_t kt_merge_steps(const kt_rank *r, kt_step_point *p, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        /* times and values, which mostly differ, tested before the series */
        if (m > 0 && p[m - 1].ts == p[i].ts && kt_step_same_series(r, &p[m - 1], &p[i]))
            p[m - 1].value = p[i].value;
        else
            p[m++] = p[i];
        if (m >= 2 && p[m - 2].value == p[m - 1].value && kt_step_same_series(r, &p[m - 2], &p[m - 1])) m--;
    }
    return m;
}

/* info.c — placeholder (the foundation work replaces it). */
#include "model/model.h"
#include "output/table.h"
kt_status kt_info(const kt_trace *t, const kt_rank_sel *sel, kt_tables **out)
{
    (void)t; (void)sel;
    *out = kt_tables_new();
    return *out ? KT_OK : KT_ENOMEM;
}

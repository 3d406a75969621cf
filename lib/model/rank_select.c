/*
 * rank_select.c — which ranks an analysis was asked to look at.
 */
#include "model.h"

bool kt_rank_selected(const kt_rank_sel *sel, int rank)
{
    if (!sel || !sel->ranks || sel->nranks == 0) return true;
    for (size_t i = 0; i < sel->nranks; i++)
        if (sel->ranks[i] == rank) return true;
    return false;
}

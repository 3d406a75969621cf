/*
 * run_pair.c — one function on two halves of a job, on two threads at once.
 *
 * The model's serial passes over a big rank (HTA's rows, their filter, the
 * compaction) split into two halves whose results join in file order, so
 * the answer never depends on whether the second thread ran; the cache
 * reader checks two bins of sections the same way.  This is the one place
 * that starts and joins that thread.
 */
#include "model.h"

#include <pthread.h>

void kt_run_pair(void *(*fn)(void *), void *a, void *b, bool two)
{
    pthread_t th;
    two = two && pthread_create(&th, NULL, fn, b) == 0;
    fn(a);
    if (two) pthread_join(th, NULL);
    else fn(b);
}

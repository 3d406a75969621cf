/*
 * write_behind.c — see write_behind.h.
 */
#include "write_behind.h"
#include "load/load_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct kt_write_behind {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t posted, written;
    int fd;
    struct iovec *v;    /* the batch in flight, NULL: none           */
    int n;
    uint64_t off;
    kt_read_job read;   /* to read before it                         */
    bool reading;       /* read not done yet                         */
    bool read_kept;     /* read done, its count not taken yet        */
    size_t got;         /* its count                                 */
    int err;            /* errno of the first batch that failed, 0  */
    bool stop;
};

int kt_write_all_at(int fd, struct iovec *v, int n, uint64_t off)
{
    while (n > 0) {
        ssize_t w = pwritev(fd, v, n, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : EIO;
        off += (uint64_t)w;
        size_t done = (size_t)w;
        for (; n > 0 && done >= v->iov_len; v++, n--) done -= v->iov_len;
        if (n > 0) v->iov_base = (char *)v->iov_base + done, v->iov_len -= done;
    }
    return 0;
}

static void *writer(void *arg)
{
    kt_write_behind *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->v && !w->reading && !w->stop) pthread_cond_wait(&w->posted, &w->lock);
        if (!w->v && !w->reading) break;
        if (w->reading) {
            kt_read_job r = w->read;
            pthread_mutex_unlock(&w->lock);
            size_t got = kt_pread_full(r.fd, r.p, r.n, r.off, NULL);
            pthread_mutex_lock(&w->lock);
            w->got = got, w->reading = false, w->read_kept = true;
            pthread_cond_signal(&w->written);
            if (!w->v) continue;
        }
        struct iovec *v = w->v;
        int n = w->n, err = w->err;
        uint64_t off = w->off;
        pthread_mutex_unlock(&w->lock);
        if (!err) err = kt_write_all_at(w->fd, v, n, off);
        pthread_mutex_lock(&w->lock);
        w->err = err;
        w->v = NULL;
        pthread_cond_signal(&w->written);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

kt_write_behind *kt_write_behind_start(int fd)
{
    kt_write_behind *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->fd = fd;
    bool ok = pthread_mutex_init(&w->lock, NULL) == 0;
    ok = ok && pthread_cond_init(&w->posted, NULL) == 0;
    ok = ok && pthread_cond_init(&w->written, NULL) == 0;
    if (ok && pthread_create(&w->thread, NULL, writer, w) == 0) return w;
    free(w); /* a failed init leaves nothing to destroy on Linux */
    return NULL;
}

/* Called with the lock held: until no batch is in flight nor read. */
static bool idle(kt_write_behind *w, int *err)
{
    while (w->v || w->reading) pthread_cond_wait(&w->written, &w->lock);
    *err = w->err;
    return !w->err;
}

bool kt_write_behind_post(kt_write_behind *w, struct iovec *v, int n, uint64_t off, const kt_read_job *read,
                          int *err)
{
    pthread_mutex_lock(&w->lock);
    bool ok = idle(w, err);
    w->read_kept = false;
    if (ok && read) w->read = *read, w->reading = true;
    if (ok && n > 0) w->v = v, w->n = n, w->off = off;
    if (ok && (read || n > 0)) pthread_cond_signal(&w->posted);
    pthread_mutex_unlock(&w->lock);
    return ok;
}

size_t kt_write_behind_read(kt_write_behind *w)
{
    pthread_mutex_lock(&w->lock);
    while (w->reading) pthread_cond_wait(&w->written, &w->lock);
    size_t got = w->read_kept ? w->got : 0;
    w->read_kept = false;
    pthread_mutex_unlock(&w->lock);
    return got;
}

bool kt_write_behind_wait(kt_write_behind *w, int *err)
{
    pthread_mutex_lock(&w->lock);
    bool ok = idle(w, err);
    pthread_mutex_unlock(&w->lock);
    return ok;
}

void kt_write_behind_stop(kt_write_behind *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    int err;
    idle(w, &err);
    w->stop = true;
    pthread_cond_signal(&w->posted);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->posted);
    pthread_cond_destroy(&w->written);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

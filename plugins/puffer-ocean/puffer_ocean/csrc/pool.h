/* pool.h: a persistent thread pool that splits the copies of one vector across cores.
 *
 * A step is cut into chunks of copies that the calling thread and the workers take from
 * a shared counter, so a worker that the OS has not scheduled yet costs nothing: the
 * caller takes its chunks. Workers spin briefly for the next step, then sleep on a
 * condition variable, so an idle env costs no CPU.
 */
#ifndef OCEAN_POOL_H
#define OCEAN_POOL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define OCEAN_POOL_SPIN 20000

typedef struct {
    int num_threads;                   /* including the caller */
    pthread_t* threads;                /* [1, num_threads): the workers */
    void (*fn)(void*, int, int);
    void* envs;
    int num_envs;
    int chunk, num_chunks;
    atomic_int generation;
    atomic_int next;                   /* next chunk to take */
    atomic_int done;                   /* chunks finished this step */
    atomic_int stop;
    int sleeping;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} OceanPool;

/* Take and run chunks until none are left. A worker that wakes late may take chunks of the
 * next step: they are work of that step, whose actions are already in place. */
static void ocean_pool_work(OceanPool* p) {
    int c;
    while ((c = atomic_fetch_add(&p->next, 1)) < p->num_chunks) {
        int start = c * p->chunk, stop = start + p->chunk;
        p->fn(p->envs, start, stop < p->num_envs ? stop : p->num_envs);
        atomic_fetch_add(&p->done, 1);
    }
}

static void* ocean_pool_main(void* arg) {
    OceanPool* p = (OceanPool*)arg;
    int seen = 0;
    for (;;) {
        int g = atomic_load(&p->generation);
        for (int spin = 0; g == seen && spin < OCEAN_POOL_SPIN; spin++) {
            if (spin % 64 == 63) sched_yield();
            g = atomic_load(&p->generation);
        }
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            while ((g = atomic_load(&p->generation)) == seen) {
                p->sleeping++;
                pthread_cond_wait(&p->cv, &p->mu);
                p->sleeping--;
            }
            pthread_mutex_unlock(&p->mu);
        }
        seen = g;
        if (atomic_load(&p->stop)) return NULL;
        ocean_pool_work(p);
    }
}

static void ocean_pool_kick(OceanPool* p) {
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->generation, 1);
    if (p->sleeping) pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* A pool of num_threads (>= 2) over `num_envs` copies at `envs`; NULL on failure. */
static OceanPool* ocean_pool_new(int num_threads, void (*fn)(void*, int, int), void* envs, int num_envs) {
    OceanPool* p = (OceanPool*)calloc(1, sizeof(OceanPool));
    if (!p) return NULL;
    p->num_threads = num_threads;
    p->fn = fn;
    p->envs = envs;
    p->num_envs = num_envs;
    p->chunk = num_envs / (4 * num_threads);
    if (p->chunk < 16) p->chunk = 16;
    p->num_chunks = (num_envs + p->chunk - 1) / p->chunk;
    atomic_store(&p->next, p->num_chunks);  /* nothing to take before the first step */
    p->threads = (pthread_t*)calloc((size_t)num_threads, sizeof(pthread_t));
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (!p->threads) goto fail;
    for (int i = 1; i < num_threads; i++) {
        if (pthread_create(&p->threads[i], NULL, ocean_pool_main, p) != 0) {
            p->num_threads = i;  /* join only those started */
            goto fail;
        }
    }
    return p;
fail:
    atomic_store(&p->stop, 1);
    ocean_pool_kick(p);
    for (int i = 1; i < p->num_threads; i++) pthread_join(p->threads[i], NULL);
    free(p->threads);
    free(p);
    return NULL;
}

/* Run fn over every copy, split across the pool; returns when all chunks are done. */
static void ocean_pool_run(OceanPool* p) {
    atomic_store(&p->done, 0);
    atomic_store(&p->next, 0);
    ocean_pool_kick(p);
    ocean_pool_work(p);
    for (int spin = 0; atomic_load(&p->done) < p->num_chunks; spin++)
        if (spin % 64 == 63) sched_yield();
}

static void ocean_pool_free(OceanPool* p) {
    if (!p) return;
    atomic_store(&p->stop, 1);
    ocean_pool_kick(p);
    for (int i = 1; i < p->num_threads; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->threads);
    free(p);
}

#endif

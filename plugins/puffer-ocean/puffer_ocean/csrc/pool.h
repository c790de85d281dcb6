/* pool.h: a persistent thread pool that splits the copies of one vector across cores.
 *
 * The calling thread runs the first chunk itself; workers spin briefly for the next
 * step, then sleep on a condition variable, so an idle env costs no CPU.
 */
#ifndef OCEAN_POOL_H
#define OCEAN_POOL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define OCEAN_POOL_SPIN 20000

typedef struct OceanPool OceanPool;

typedef struct {
    OceanPool* pool;
    int rank;
} OceanWorker;

struct OceanPool {
    int num_threads;                   /* including the caller */
    pthread_t* threads;
    OceanWorker* workers;
    void (*fn)(void*, int, int);
    void* envs;
    int num_envs;
    atomic_int generation;
    atomic_int done;
    atomic_int stop;
    int sleeping;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static void ocean_pool_chunk(OceanPool* p, int rank, int* start, int* stop) {
    *start = (int)((long)p->num_envs * rank / p->num_threads);
    *stop = (int)((long)p->num_envs * (rank + 1) / p->num_threads);
}

static void* ocean_pool_main(void* arg) {
    OceanWorker* w = (OceanWorker*)arg;
    OceanPool* p = w->pool;
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
        int start, stop;
        ocean_pool_chunk(p, w->rank, &start, &stop);
        p->fn(p->envs, start, stop);
        atomic_fetch_add(&p->done, 1);
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
    p->threads = (pthread_t*)calloc((size_t)num_threads, sizeof(pthread_t));
    p->workers = (OceanWorker*)calloc((size_t)num_threads, sizeof(OceanWorker));
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (!p->threads || !p->workers) goto fail;
    for (int i = 1; i < num_threads; i++) {
        p->workers[i].pool = p;
        p->workers[i].rank = i;
        if (pthread_create(&p->threads[i], NULL, ocean_pool_main, &p->workers[i]) != 0) {
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
    free(p->workers);
    free(p);
    return NULL;
}

/* Run fn over every copy, split across the pool; returns when all chunks are done. */
static void ocean_pool_run(OceanPool* p) {
    atomic_store(&p->done, 0);
    ocean_pool_kick(p);
    int start, stop;
    ocean_pool_chunk(p, 0, &start, &stop);
    p->fn(p->envs, start, stop);
    for (int spin = 0; atomic_load(&p->done) < p->num_threads - 1; spin++)
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
    free(p->workers);
    free(p);
}

#endif

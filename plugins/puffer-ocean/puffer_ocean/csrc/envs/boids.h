/* boids: every bird is an agent that learns to flock (Reynolds' boids, 1987, as a reward).
 *
 * `num_agents` birds in a unit square, each with a heading and a speed. Actions: 0 keep,
 * 1 turn left and 2 turn right (by `turn` radians), 3 speed up and 4 slow down (by 0.001,
 * within [0.002, 0.01] per step). Birds move after all have acted; one that would leave the
 * square stops at its edge and turns to head inward. Reward per bird and step, with its
 * neighbours the birds within `radius`: alignment (the mean cosine between its heading and
 * theirs, 0 alone), minus `crowding` per neighbour closer than radius / 4, minus 0.5 when it
 * touched an edge. Observation (6 + 5 * 4 floats): own position (x, y), heading (cos, sin),
 * speed / 0.01 and the number of neighbours / 8, then the 4 nearest birds within `radius`
 * (dx / radius, dy / radius, heading cos, sin, 1), zeros where fewer. Episodes are truncated
 * after `max_steps` for all birds. score: the mean alignment of a bird over the episode.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define BOIDS_MAX 64
#define BOIDS_SEEN 4
#define PARAMS(P) P(int, num_agents, 16, 2, BOIDS_MAX) P(float, radius, 0.2, 0.01, 1) P(float, turn, 0.15, 0.01, 1.6) \
    P(float, crowding, 0.25, 0, 10) P(int, max_steps, 500, 1, 10000000)
#define FIELDS(F) F(float, x[0]) F(float, y[0]) F(float, a[0]) F(float, v[0]) F(float, x[1]) F(float, y[1]) \
    F(float, a[1]) F(float, v[1]) F(float, x[2]) F(float, y[2]) F(float, a[2]) F(int, tick)
#include "../puffer.h"

#define BOIDS_VMIN 0.002f
#define BOIDS_VMAX 0.01f

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float x[BOIDS_MAX], y[BOIDS_MAX], a[BOIDS_MAX], v[BOIDS_MAX];  /* position, heading, speed */
    float hc[BOIDS_MAX], hs[BOIDS_MAX];                            /* cos, sin of the headings */
    float ret[BOIDS_MAX], aligned[BOIDS_MAX];                      /* episode sums per bird */
    int tick;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    s->num_agents = env->num_agents;
    ocean_obs_flat(s, 6 + 5 * BOIDS_SEEN, -1, 1);
    ocean_act_discrete(s, 5);
    ocean_render_size(s, 256, 256);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* Bird i's reward terms (alignment; neighbours too close), its observation written when `obs`. */
static void boids_sense(Env* env, int i, float* align, int* close, float* obs) {
    int n = env->num_agents, seen[BOIDS_SEEN], count = 0, neighbours = 0;
    float dist[BOIDS_SEEN], r2 = env->radius * env->radius, near2 = r2 / 16, cos_sum = 0;
    float d2[BOIDS_MAX];
    int within[BOIDS_MAX], m = 0;
    *close = 0;
    for (int j = 0; j < n; j++) {  /* every distance, then the birds within the radius listed without a branch */
        float dx = env->x[j] - env->x[i], dy = env->y[j] - env->y[i];
        d2[j] = dx * dx + dy * dy;
    }
    for (int j = 0; j < n; j++) {
        within[m] = j;
        m += (d2[j] <= r2) & (j != i);
    }
    for (int w = 0; w < m; w++) {
        int j = within[w];
        float d = d2[j];
        neighbours++;
        cos_sum += env->hc[j] * env->hc[i] + env->hs[j] * env->hs[i];  /* cos(a_j - a_i) */
        *close += d < near2;
        int k;  /* keep the BOIDS_SEEN nearest, nearest first */
        if (count < BOIDS_SEEN) k = count++;
        else if (d < dist[BOIDS_SEEN - 1]) k = BOIDS_SEEN - 1;
        else continue;
        while (k > 0 && dist[k - 1] > d) { dist[k] = dist[k - 1]; seen[k] = seen[k - 1]; k--; }
        dist[k] = d;
        seen[k] = j;
    }
    *align = neighbours ? cos_sum / (float)neighbours : 0;
    if (!obs) return;
    obs[0] = 2 * env->x[i] - 1;
    obs[1] = 2 * env->y[i] - 1;
    obs[2] = env->hc[i];
    obs[3] = env->hs[i];
    obs[4] = env->v[i] / BOIDS_VMAX;
    obs[5] = neighbours > 8 ? 1 : (float)neighbours / 8;
    for (int k = 0; k < BOIDS_SEEN; k++) {
        float* o = obs + 6 + 5 * k;
        if (k >= count) { o[0] = o[1] = o[2] = o[3] = o[4] = 0; continue; }
        int j = seen[k];
        o[0] = (env->x[j] - env->x[i]) / env->radius;
        o[1] = (env->y[j] - env->y[i]) / env->radius;
        o[2] = env->hc[j];
        o[3] = env->hs[j];
        o[4] = 1;
    }
}

static void boids_headings(Env* env) {
    for (int i = 0; i < env->num_agents; i++) fast_sincosf(env->a[i], &env->hs[i], &env->hc[i]);
}

static void boids_observe(Env* env) {
    boids_headings(env);
    float align;
    int close;
    for (int i = 0; i < env->num_agents; i++)
        boids_sense(env, i, &align, &close, (float*)env->p.observations + (size_t)i * (6 + 5 * BOIDS_SEEN));
}

static void c_reset(Env* env) {
    for (int i = 0; i < env->num_agents; i++) {
        env->x[i] = 0.1f + 0.8f * rng_float(&env->p.rng);
        env->y[i] = 0.1f + 0.8f * rng_float(&env->p.rng);
        env->a[i] = 6.2831853f * rng_float(&env->p.rng);
        env->v[i] = 0.5f * (BOIDS_VMIN + BOIDS_VMAX);
        env->ret[i] = env->aligned[i] = 0;
    }
    env->tick = 0;
    boids_observe(env);
}

static void c_step(Env* env) {
    int n = env->num_agents;
    uint8_t edge[BOIDS_MAX];
    env->tick++;
    for (int i = 0; i < n; i++) {
        int action = env->p.actions[i];
        if (action == 1) env->a[i] += env->turn;
        else if (action == 2) env->a[i] -= env->turn;
        else if (action == 3 && (env->v[i] += 0.001f) > BOIDS_VMAX) env->v[i] = BOIDS_VMAX;
        else if (action == 4 && (env->v[i] -= 0.001f) < BOIDS_VMIN) env->v[i] = BOIDS_VMIN;
        env->a[i] += env->a[i] < 0 ? 6.2831853f : env->a[i] >= 6.2831853f ? -6.2831853f : 0;  /* kept in [0, 2 pi) */
    }
    boids_headings(env);
    for (int i = 0; i < n; i++) {
        float x = env->x[i] + env->v[i] * env->hc[i], y = env->y[i] + env->v[i] * env->hs[i];
        edge[i] = x < 0 || x > 1 || y < 0 || y > 1;
        if (edge[i]) {  /* stop at the edge and head to the centre */
            x = x < 0 ? 0 : x > 1 ? 1 : x;
            y = y < 0 ? 0 : y > 1 ? 1 : y;
            env->a[i] = atan2f(0.5f - y, 0.5f - x);
            if (env->a[i] < 0) env->a[i] += 6.2831853f;
            fast_sincosf(env->a[i], &env->hs[i], &env->hc[i]);
        }
        env->x[i] = x;
        env->y[i] = y;
    }
    for (int i = 0; i < n; i++) {
        float align;
        int close;
        boids_sense(env, i, &align, &close, (float*)env->p.observations + (size_t)i * (6 + 5 * BOIDS_SEEN));
        float reward = align - env->crowding * (float)close - (edge[i] ? 0.5f : 0);
        env->p.rewards[i] = reward;
        env->ret[i] += reward;
        env->aligned[i] += align;
    }
    int truncated = env->tick >= env->max_steps;
    memset(env->p.terminals, 0, (size_t)n);
    memset(env->p.truncations, truncated, (size_t)n);
    if (truncated) {
        for (int i = 0; i < n; i++) {
            LOG_EPISODE(&env->log, .score = env->aligned[i] / (float)env->tick, .episode_return = env->ret[i],
                        .episode_length = env->tick);
            ocean_keep_final(&env->p, i);
        }
        c_reset(env);
    }
}

/* 16 x 16 cells of the square: a bird's heading as one of > v < ^ (the last bird in a cell). */
static int c_render_ansi(Env* env, char* buf, int cap) {
    char cells[16][16];
    memset(cells, '.', sizeof(cells));
    for (int i = 0; i < env->num_agents; i++) {
        int cx = (int)(env->x[i] * 15.99f), cy = (int)(env->y[i] * 15.99f);
        int q = (int)((env->a[i] + 0.7853982f) / 1.5707963f) % 4;
        cells[15 - cy][cx] = ">^<v"[q];
    }
    int len = 0;
    for (int r = 0; r < 16; r++) ANSI_APPEND(buf, cap, len, "%.16s\n", cells[r]);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < env->num_agents; i++) {
        int x = (int)(env->x[i] * (w - 6)), y = (int)((1 - env->y[i]) * (h - 6));
        draw_rect(px, w, h, x, y, 6, 6, PUFFER_CYAN);
        int hx = x + 2 + (int)(5 * cosf(env->a[i])), hy = y + 2 - (int)(5 * sinf(env->a[i]));
        draw_rect(px, w, h, hx, hy, 2, 2, PUFFER_YELLOW);
    }
}

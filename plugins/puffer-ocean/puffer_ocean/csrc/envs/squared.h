/* squared: walk to a target on a grid. Sanity check for basic credit assignment.
 *
 * The agent starts in the centre of a size x size grid; the target sits on a random
 * border cell. Observation: the whole grid (uint8: 0 empty, 1 agent, 2 target).
 * Actions: 0 stay, 1 down, 2 up, 3 left, 4 right. Reward 1 on reaching the target
 * (terminal); the episode is truncated after 3 * size steps with reward 0.
 *
 * squared_continuous.h defines SQ_CONTINUOUS and includes this file: the same env with a
 * Box action (dx, dy) in [-1, 1]^2, the step taken along the axis of the larger magnitude
 * in its direction, or no step when both are below 0.25 (see sq_action).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define SQ_MAX_SIZE 63
#define PARAMS(P) P(int, size, 11, 3, SQ_MAX_SIZE)
#define FIELDS(F) F(int, x) F(int, y) F(int, tx) F(int, ty) F(int, tick)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    PUFFER_FIELDS
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (env->size % 2 == 0) {
        snprintf(err, OCEAN_ERR_LEN, "size must be odd so that the agent starts in the centre, got %d.", env->size);
        return 1;
    }
    ocean_obs_grid(s, env->size, env->size, 0, 2);  /* one agent per copy: the default */
#ifdef SQ_CONTINUOUS
    ocean_act_box(s, 2, -1, 1);
#else
    ocean_act_discrete(s, 5);
#endif
    ocean_render_size(s, 32 * env->size, 32 * env->size);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void c_reset(Env* env) {
    int n = env->size;
    uint8_t* obs = (uint8_t*)env->p.observations;
    memset(obs, 0, (size_t)n * n);
    env->x = env->y = n / 2;
    env->tick = 0;
    int k = rng_int(&env->p.rng, 4 * (n - 1));  /* a border cell, walking the border clockwise */
    int side = k / (n - 1), off = k % (n - 1);
    if (side == 0) { env->tx = off; env->ty = 0; }
    else if (side == 1) { env->tx = n - 1; env->ty = off; }
    else if (side == 2) { env->tx = n - 1 - off; env->ty = n - 1; }
    else { env->tx = 0; env->ty = n - 1 - off; }
    obs[env->ty * n + env->tx] = 2;
    obs[env->y * n + env->x] = 1;
}

/* The move of this step: 0 stay, 1 down, 2 up, 3 left, 4 right (a Box action: the larger
 * component's axis and sign; no move when both are below 0.25 in magnitude). */
static inline int sq_action(Env* env) {
#ifdef SQ_CONTINUOUS
    float dx = env->p.cont_actions[0], dy = env->p.cont_actions[1];
    if (fabsf(dx) < 0.25f && fabsf(dy) < 0.25f) return 0;
    if (fabsf(dx) >= fabsf(dy)) return dx > 0 ? 4 : 3;
    return dy > 0 ? 1 : 2;
#else
    return env->p.actions[0];
#endif
}

static void c_step(Env* env) {
    static const int DX[5] = {0, 0, 0, -1, 1}, DY[5] = {0, 1, -1, 0, 0};
    int n = env->size;
    uint8_t* obs = (uint8_t*)env->p.observations;
    int a = sq_action(env);
    int x = env->x + DX[a], y = env->y + DY[a];
    if (x < 0) x = 0; else if (x >= n) x = n - 1;
    if (y < 0) y = 0; else if (y >= n) y = n - 1;
    obs[env->y * n + env->x] = 0;
    obs[y * n + x] = 1;
    env->x = x;
    env->y = y;
    env->tick++;
    int hit = x == env->tx && y == env->ty;
    int timeout = !hit && env->tick >= 3 * n;
    env->p.rewards[0] = (float)hit;
    env->p.terminals[0] = (uint8_t)hit;
    env->p.truncations[0] = (uint8_t)timeout;
    if (hit || timeout) {
        LOG_EPISODE(&env->log, .score = hit, .episode_return = hit, .episode_length = env->tick);  /* n += 1 */
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, n = env->size;
    for (int y = 0; y < n; y++) {
        for (int x = 0; x < n; x++) {
            char c = (x == env->x && y == env->y) ? '@' : (x == env->tx && y == env->ty) ? '*' : '.';
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int n = env->size;
    uint8_t cells[SQ_MAX_SIZE * SQ_MAX_SIZE] = {0};
    cells[env->ty * n + env->tx] = 2;
    cells[env->y * n + env->x] = 1;
    draw_tiles(px, w, h, cells, n, n, 32);
}

/* stochastic: the optimal policy is stochastic. The observation is always 0.
 *
 * Over an episode of `horizon` steps the agent should pick action 0 with probability
 * p = `p_percent` / 100. At the end it earns 1 - |fraction of 0s - p| / max(p, 1 - p):
 * any deterministic policy scores at most 1 - min(p, 1 - p) / max(p, 1 - p) (1/3 for
 * p = 0.75), while sampling with probability p scores close to 1.
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(fraction)
#define PARAMS(P) P(int, p_percent, 75, 1, 99) P(int, horizon, 64, 1, 100000)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick, zeros;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 1, 0, 1);
    ocean_act_discrete(s, 2);
    ocean_render_size(s, 256, 64);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void c_reset(Env* env) {
    env->tick = 0;
    env->zeros = 0;
    ((float*)env->p.observations)[0] = 0.0f;
}

static void c_step(Env* env) {
    env->zeros += env->p.actions[0] == 0;
    env->tick++;
    int done = env->tick == env->horizon;
    float r = 0;
    if (done) {
        float p = (float)env->p_percent / 100.0f, frac = (float)env->zeros / (float)env->tick;
        r = 1.0f - fabsf(frac - p) / (p > 0.5f ? p : 1.0f - p);
        LOG_EPISODE(&env->log, .score = r, .episode_return = r, .episode_length = env->tick, .fraction = frac);
    }
    env->p.rewards[0] = r;
    env->p.terminals[0] = (uint8_t)done;
    env->p.truncations[0] = 0;
    if (done) c_reset(env);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    ANSI_APPEND(buf, cap, len, "step %d of %d: %d zeros (target %d%%)\n", env->tick, env->horizon, env->zeros,
                env->p_percent);
    return len;
}

/* A bar: the fraction of 0s so far (cyan) against the target (yellow tick). */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    int filled = env->tick ? (w * env->zeros) / env->tick : 0;
    draw_rect(px, w, h, 0, 16, filled, 32, PUFFER_CYAN);
    draw_rect(px, w, h, w * env->p_percent / 100 - 1, 8, 3, 48, PUFFER_YELLOW);
}

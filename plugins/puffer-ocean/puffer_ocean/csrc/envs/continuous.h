/* continuous: Box actions. Output the target shown in the observation.
 *
 * Each one-step episode shows `dims` random targets in [-1, 1]; the action (clipped to
 * [-1, 1]) earns 1 - mean |action - target|. Tests continuous action heads.
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, dims, 1, 1, 16)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float target[16], last[16];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, env->dims, -1, 1);
    ocean_act_box(s, env->dims, -1, 1);
    ocean_render_size(s, 256, 32 * env->dims);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void c_reset(Env* env) {
    float* obs = (float*)env->p.observations;
    for (int i = 0; i < env->dims; i++) obs[i] = env->target[i] = 2.0f * rng_float(&env->p.rng) - 1.0f;
}

static void c_step(Env* env) {
    float err = 0;
    for (int i = 0; i < env->dims; i++) {
        float a = env->p.cont_actions[i];
        a = a < -1.0f ? -1.0f : a > 1.0f ? 1.0f : a;
        env->last[i] = a;
        err += fabsf(a - env->target[i]);
    }
    float r = 1.0f - err / (float)env->dims;
    env->p.rewards[0] = r;
    env->p.terminals[0] = 1;
    env->p.truncations[0] = 0;
    LOG_EPISODE(&env->log, .score = r, .episode_return = r, .episode_length = 1);
    c_reset(env);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int i = 0; i < env->dims; i++)
        ANSI_APPEND(buf, cap, len, "target %+.3f  last action %+.3f\n", env->target[i], env->last[i]);
    return len;
}

/* One track per dimension: the target (yellow) and the last action (cyan) on [-1, 1]. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < env->dims; i++) {
        int tx = (int)((env->target[i] + 1.0f) * 0.5f * (float)(w - 8));
        int ax = (int)((env->last[i] + 1.0f) * 0.5f * (float)(w - 8));
        draw_rect(px, w, h, tx, 32 * i + 4, 8, 12, PUFFER_YELLOW);
        draw_rect(px, w, h, ax, 32 * i + 16, 8, 12, PUFFER_CYAN);
    }
}

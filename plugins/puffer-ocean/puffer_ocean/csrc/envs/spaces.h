/* spaces: a dict observation and a multi-discrete action.
 *
 * Observation {"flat": 5 values in [-1, 1], "image": 5x5 values in [-1, 1]}, laid out
 * flat (flat first, then image: the sorted key order of gymnasium's Dict) as 30 floats;
 * the Python class exposes the Dict through its obs_layout. Action (2, 2): the first
 * sub-action should say whether the image sums above 0, the second whether the flat part
 * does; each right one earns 0.5 (one-step episodes).
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    int image_sign, flat_sign, last[2];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 30, -1, 1);
    ocean_act_multidiscrete(s, 2, (const int[]){2, 2});
    ocean_render_size(s, 320, 192);
    return 0;
}

static int c_init(Env* env, char* err) { env->last[0] = env->last[1] = -1; return 0; }
static void c_close(Env* env) {}

static void c_reset(Env* env) {
    float* obs = (float*)env->p.observations;
    float flat = 0, image = 0;
    for (int i = 0; i < 30; i++) {
        obs[i] = 2.0f * rng_float(&env->p.rng) - 1.0f;
        if (i < 5) flat += obs[i]; else image += obs[i];
    }
    env->flat_sign = flat > 0;
    env->image_sign = image > 0;
}

static void c_step(Env* env) {
    int a0 = env->p.actions[0], a1 = env->p.actions[1];
    float r = 0.5f * (float)(a0 == env->image_sign) + 0.5f * (float)(a1 == env->flat_sign);
    env->last[0] = a0;
    env->last[1] = a1;
    env->p.rewards[0] = r;
    env->p.terminals[0] = 1;
    env->p.truncations[0] = 0;
    LOG_EPISODE(&env->log, .score = r, .episode_return = r, .episode_length = 1);
    c_reset(env);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    ANSI_APPEND(buf, cap, len, "image sum > 0: %d  flat sum > 0: %d  last action: [%d, %d]\n", env->image_sign,
                env->flat_sign, env->last[0], env->last[1]);
    return len;
}

/* The current observation as grey tiles: the 5x5 image, the flat row beside it. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    const float* obs = (const float*)env->p.observations;
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < 30; i++) {
        uint8_t g = (uint8_t)((obs[i] + 1.0f) * 127.5f);
        int x = i < 5 ? 224 : 32 * ((i - 5) % 5) + 8, y = i < 5 ? 32 * i + 8 : 32 * ((i - 5) / 5) + 8;
        draw_rect(px, w, h, x, y, 30, 30, g, g, g);
    }
}

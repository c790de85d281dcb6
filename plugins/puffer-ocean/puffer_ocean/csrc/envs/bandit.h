/* bandit: pick the paying arm. One-step episodes; the observation is a constant 1.
 *
 * Arm `solution` pays 1, every other arm 0. Tests that a policy can learn from
 * reward alone, with no observation to go on.
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, num_actions, 4, 2, 64) P(int, solution, 0, 0, 63)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int last_action;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (env->solution >= env->num_actions) {
        snprintf(err, OCEAN_ERR_LEN, "solution=%d must be below num_actions=%d.", env->solution, env->num_actions);
        return 1;
    }
    ocean_obs_flat(s, 1, 0, 1);
    ocean_act_discrete(s, env->num_actions);
    ocean_render_size(s, 32 * env->num_actions, 64);
    return 0;
}

static int c_init(Env* env, char* err) { env->last_action = -1; return 0; }
static void c_close(Env* env) {}

static void c_reset(Env* env) { ((float*)env->p.observations)[0] = 1.0f; }

static void c_step(Env* env) {
    int a = env->p.actions[0];
    float r = (float)(a == env->solution);
    env->last_action = a;
    env->p.rewards[0] = r;
    env->p.terminals[0] = 1;
    env->p.truncations[0] = 0;
    LOG_EPISODE(&env->log, .score = r, .episode_return = r, .episode_length = 1);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int i = 0; i < env->num_actions; i++)
        ANSI_APPEND(buf, cap, len, "%c", i == env->last_action ? (i == env->solution ? '+' : 'x') : '.');
    ANSI_APPEND(buf, cap, len, "\n");
    return len;
}

/* One column per arm: the paying arm in cyan, the last pull green (paid) or red (did not). */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < env->num_actions; i++) {
        const uint8_t* c = PUFFER_PALETTE[i == env->solution ? 1 : 6];
        draw_rect(px, w, h, 32 * i + 4, 36, 24, 24, c[0], c[1], c[2]);
        if (i == env->last_action) {
            const uint8_t* m = PUFFER_PALETTE[i == env->solution ? 7 : 2];
            draw_rect(px, w, h, 32 * i + 4, 4, 24, 24, m[0], m[1], m[2]);
        }
    }
}

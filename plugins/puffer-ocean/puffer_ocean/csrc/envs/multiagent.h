/* multiagent: two agents per copy, each rewarded for a different action.
 *
 * Agent k observes the one-hot of k and earns 1 for action k (one-step episodes).
 * Tests that a shared policy tells agents apart by their observation.
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    int last[2];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    s->num_agents = 2;
    ocean_obs_flat(s, 2, 0, 1);
    ocean_act_discrete(s, 2);
    ocean_render_size(s, 128, 64);
    return 0;
}

static int c_init(Env* env, char* err) { env->last[0] = env->last[1] = -1; return 0; }
static void c_close(Env* env) {}

static void c_reset(Env* env) {
    float* obs = (float*)env->p.observations;
    obs[0] = 1; obs[1] = 0;
    obs[2] = 0; obs[3] = 1;
}

static void c_step(Env* env) {
    for (int k = 0; k < 2; k++) {
        int a = env->p.actions[k];
        float r = (float)(a == k);
        env->last[k] = a;
        env->p.rewards[k] = r;
        env->p.terminals[k] = 1;
        env->p.truncations[k] = 0;
        LOG_EPISODE(&env->log, .score = r, .episode_return = r, .episode_length = 1);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int k = 0; k < 2; k++)
        ANSI_APPEND(buf, cap, len, "agent %d: action %d %s\n", k, env->last[k], env->last[k] == k ? "(right)" : "");
    return len;
}

/* One square per agent: green when its last action was the right one, red otherwise. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int k = 0; k < 2; k++) {
        const uint8_t* c = PUFFER_PALETTE[env->last[k] < 0 ? 6 : env->last[k] == k ? 7 : 2];
        draw_rect(px, w, h, 64 * k + 8, 8, 48, 48, c[0], c[1], c[2]);
    }
}

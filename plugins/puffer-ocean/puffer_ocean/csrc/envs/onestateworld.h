/* onestateworld: one state, two actions, one step: does the agent weigh a noisy reward by its mean?
 *
 * Every episode is one step from the same state (observation: one float, 1). Action 0 pays
 * `sure_reward` (0.5) for certain; action 1 pays 1 with probability `chance` (0.75), else 0:
 * a higher mean (0.75) behind more noise. Every step ends its episode (terminal). The best
 * policy always takes action 1; a learner misled by noise, or a value estimate that is not an
 * average, settles elsewhere. score: the share of episodes that took action 1 (random 0.5).
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(float, sure_reward, 0.5, 0, 1) P(float, chance, 0.75, 0, 1)
#define FIELDS(F) F(int, last_action)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    PUFFER_FIELDS
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 1, 0, 1);
    ocean_act_discrete(s, 2);
    ocean_render_size(s, 64, 32);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void c_reset(Env* env) {
    ((float*)env->p.observations)[0] = 1.0f;
    env->last_action = -1;
}

static void c_step(Env* env) {
    int action = env->p.actions[0];
    float reward = action == 0 ? env->sure_reward : (rng_float(&env->p.rng) < env->chance ? 1.0f : 0.0f);
    env->p.rewards[0] = reward;
    env->p.terminals[0] = 1;
    env->p.truncations[0] = 0;
    LOG_EPISODE(&env->log, .score = action == 1, .episode_return = reward, .episode_length = 1);
    c_reset(env);  /* the one state again; the final observation equals it */
    env->last_action = action;
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    ANSI_APPEND(buf, cap, len, "[sure %.2f] [%.0f%% of 1]  last action: %d\n", env->sure_reward,
                100 * env->chance, env->last_action);
    return len;
}

/* The two actions as two squares; the one taken last step lit. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    draw_rect(px, w, h, 4, 4, 24, 24, env->last_action == 0 ? 255 : 60, env->last_action == 0 ? 220 : 60, 60);
    draw_rect(px, w, h, 36, 4, 24, 24, 60, env->last_action == 1 ? 220 : 60, env->last_action == 1 ? 255 : 60);
}

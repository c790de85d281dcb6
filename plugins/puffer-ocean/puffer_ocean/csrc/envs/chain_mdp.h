/* chain_mdp: deep exploration along a chain (the n-chain of the exploration literature).
 *
 * `length` states in a row; the agent starts at the left end, state 0. Action 0 (left) at
 * state 0 takes the small sure reward `small_reward` and ends the episode; elsewhere it moves
 * one state left. Action 1 (right) moves one state right; at the right end it takes the
 * reward 1 and ends the episode. Every other step pays 0. The best policy walks right
 * (return 1 after `length` steps); the first reward a dithering policy meets is the small
 * one at the start, so finding the far end needs exploration. Episodes are truncated after
 * `max_steps` steps (final observation kept). With `slip` > 0 an action is replaced by the
 * other one with that probability (the stochastic chain); by default the chain is
 * deterministic. Observation: the position one-hot (`length` floats). score: 1 when the episode reached the right end, else 0 (the success rate).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, length, 10, 2, 64) P(float, small_reward, 0.1, 0, 1) P(int, max_steps, 100, 1, 10000000) \
    P(float, slip, 0, 0, 1)
#define FIELDS(F) F(int, position) F(int, tick)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    PUFFER_FIELDS
    float ret;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, env->length, 0, 1);
    ocean_act_discrete(s, 2);
    ocean_render_size(s, 32 * env->length, 32);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void chain_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    memset(obs, 0, sizeof(float) * env->length);
    obs[env->position] = 1.0f;
}

static void c_reset(Env* env) {
    env->position = 0;
    env->tick = 0;
    env->ret = 0;
    chain_observe(env);
}

static void chain_end(Env* env, float reward, int reached, int truncated) {
    env->p.rewards[0] = reward;
    env->p.terminals[0] = !truncated;
    env->p.truncations[0] = (uint8_t)truncated;
    env->ret += reward;
    LOG_EPISODE(&env->log, .score = reached, .episode_return = env->ret, .episode_length = env->tick);
    ocean_keep_final(&env->p, 0);
    c_reset(env);
}

static void c_step(Env* env) {
    env->tick++;
    env->p.rewards[0] = 0;
    env->p.terminals[0] = 0;
    env->p.truncations[0] = 0;
    int action = env->p.actions[0];
    if (env->slip > 0 && rng_float(&env->p.rng) < env->slip) action = 1 - action;
    if (action == 0) {
        if (env->position == 0) { chain_end(env, env->small_reward, 0, 0); return; }
        env->position--;
    } else {
        if (env->position == env->length - 1) { chain_end(env, 1.0f, 1, 0); return; }
        env->position++;
    }
    chain_observe(env);
    if (env->tick >= env->max_steps) chain_end(env, 0.0f, 0, 1);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int i = 0; i < env->length; i++)
        ANSI_APPEND(buf, cap, len, "%c", i == env->position ? 'A' : i == env->length - 1 ? 'G' : '.');
    ANSI_APPEND(buf, cap, len, "\n");
    return len;
}

/* One square per state: the agent green, the far end cyan, the rest grey. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < env->length; i++) {
        const uint8_t* c = PUFFER_PALETTE[i == env->position ? 7 : i == env->length - 1 ? 1 : 6];
        draw_rect(px, w, h, 32 * i + 4, 4, 24, 24, c[0], c[1], c[2]);
    }
}

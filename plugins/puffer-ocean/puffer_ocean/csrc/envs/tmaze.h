/* tmaze: the T-maze memory task. A cue at the start tells which way to turn at the end.
 *
 * The agent starts at the foot of a corridor of `length` cells that ends in a junction.
 * Only at the start does the observation show the cue (left or right, drawn per episode);
 * along the corridor it shows "corridor", at the junction "junction". Actions: 0 turn left,
 * 1 turn right, 2 go forward. Forward moves one cell (at the junction it does nothing);
 * turning in the corridor does nothing. Turning at the junction ends the episode: reward 1
 * for the cued side, -1 for the other. Every step costs `step_cost`. Episodes are truncated
 * after `max_steps` steps (final observation kept). A policy without memory wins half the
 * turns at best; one with memory (the shipped config has an LSTM) wins them all.
 * Observation (4 floats in [0, 1]): cue left, cue right (both 0 after the start), in the
 * corridor, at the junction. score: 1 for a turn to the cued side, else 0 (success rate).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, length, 5, 1, 1000) P(float, step_cost, 0, 0, 1) P(int, max_steps, 50, 1, 10000000)
#define FIELDS(F) F(int, position) F(int, cue) F(int, tick)
#include "../puffer.h"

#define TM_LEFT 0
#define TM_RIGHT 1
#define TM_FORWARD 2

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    PUFFER_FIELDS
    float ret;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 4, 0, 1);
    ocean_act_discrete(s, 3);
    ocean_render_size(s, 32 * 3, 32 * (env->length + 1));
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void tm_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    obs[0] = (float)(env->position == 0 && env->cue == TM_LEFT);
    obs[1] = (float)(env->position == 0 && env->cue == TM_RIGHT);
    obs[2] = (float)(env->position > 0 && env->position < env->length);
    obs[3] = (float)(env->position == env->length);
}

static void c_reset(Env* env) {
    env->position = 0;
    env->cue = rng_int(&env->p.rng, 2);
    env->tick = 0;
    env->ret = 0;
    tm_observe(env);
}

static void tm_end(Env* env, float reward, int correct, int truncated) {
    env->p.rewards[0] = reward;
    env->p.terminals[0] = !truncated;
    env->p.truncations[0] = (uint8_t)truncated;
    env->ret += reward;
    LOG_EPISODE(&env->log, .score = correct, .episode_return = env->ret, .episode_length = env->tick);
    ocean_keep_final(&env->p, 0);
    c_reset(env);
}

static void c_step(Env* env) {
    int a = env->p.actions[0];
    float reward = -env->step_cost;
    env->tick++;
    env->p.terminals[0] = 0;
    env->p.truncations[0] = 0;
    if (env->position == env->length && a != TM_FORWARD) {
        int correct = a == env->cue;
        tm_end(env, reward + (correct ? 1.0f : -1.0f), correct, 0);
        return;
    }
    if (a == TM_FORWARD && env->position < env->length) env->position++;
    tm_observe(env);
    if (env->tick >= env->max_steps) { tm_end(env, reward, 0, 1); return; }
    env->p.rewards[0] = reward;
    env->ret += reward;
}

/* The corridor bottom to top, the junction on top with its two arms; the cued arm marked. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    ANSI_APPEND(buf, cap, len, "%c%c%c\n", env->cue == TM_LEFT ? '*' : '-',
                env->position == env->length ? 'A' : '+', env->cue == TM_RIGHT ? '*' : '-');
    for (int i = env->length - 1; i >= 0; i--)
        ANSI_APPEND(buf, cap, len, " %c \n", i == env->position ? 'A' : '|');
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i <= env->length; i++) {  /* row 0 is the junction, the last row the start */
        const uint8_t* c = PUFFER_PALETTE[i == env->position ? 7 : 6];
        draw_rect(px, w, h, 36, 32 * (env->length - i) + 4, 24, 24, c[0], c[1], c[2]);
    }
    for (int side = 0; side < 2; side++) {
        const uint8_t* c = PUFFER_PALETTE[side == env->cue ? 1 : 6];
        draw_rect(px, w, h, side ? 68 : 4, 4, 24, 24, c[0], c[1], c[2]);
    }
}

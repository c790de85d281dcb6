/* memory: recall bits seen earlier. Needs a recurrent policy (LSTM).
 *
 * An episode shows `length` random bits (observation [bit: -1 or +1, 0]), then waits
 * `delay` steps (observation [0, 0]), then asks for the bits back in order (observation
 * [0, 1]): each correct action (0 for -1, 1 for +1) in the recall phase earns 1 / length.
 * Actions outside the recall phase are ignored. Score: the fraction recalled.
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, length, 1, 1, 32) P(int, delay, 0, 0, 64)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick;
    float ret;
    uint8_t bits[32];
    uint8_t answers[32];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 2, -1, 1);
    ocean_act_discrete(s, 2);
    ocean_render_size(s, 32 * (2 * env->length + env->delay), 64);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void memory_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    int t = env->tick, n = env->length;
    obs[0] = t < n ? (env->bits[t] ? 1.0f : -1.0f) : 0.0f;
    obs[1] = t >= n + env->delay ? 1.0f : 0.0f;
}

static void c_reset(Env* env) {
    env->tick = 0;
    env->ret = 0;
    for (int i = 0; i < env->length; i++) {
        env->bits[i] = (uint8_t)rng_int(&env->p.rng, 2);
        env->answers[i] = 2;
    }
    memory_observe(env);
}

static void c_step(Env* env) {
    int n = env->length, recall = env->tick - n - env->delay;
    float r = 0;
    if (recall >= 0) {
        int a = env->p.actions[0];
        env->answers[recall] = (uint8_t)a;
        r = (a == env->bits[recall]) ? 1.0f / (float)n : 0.0f;
    }
    env->ret += r;
    env->tick++;
    int done = env->tick == 2 * n + env->delay;
    env->p.rewards[0] = r;
    env->p.terminals[0] = (uint8_t)done;
    env->p.truncations[0] = 0;
    if (done) {
        LOG_EPISODE(&env->log, .score = env->ret, .episode_return = env->ret, .episode_length = env->tick);
        c_reset(env);
    } else {
        memory_observe(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    ANSI_APPEND(buf, cap, len, "bits    ");
    for (int i = 0; i < env->length; i++) ANSI_APPEND(buf, cap, len, "%d", env->bits[i]);
    ANSI_APPEND(buf, cap, len, "\nanswers ");
    for (int i = 0; i < env->length; i++)
        ANSI_APPEND(buf, cap, len, "%c", env->answers[i] == 2 ? '_' : '0' + env->answers[i]);
    ANSI_APPEND(buf, cap, len, "\nstep %d of %d\n", env->tick, 2 * env->length + env->delay);
    return len;
}

/* Top row: the episode's timeline (shown bits, delay, recall slots); bottom: the answers. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int n = env->length;
    draw_fill(px, w, h, PUFFER_BG);
    for (int t = 0; t < 2 * n + env->delay; t++) {
        int idx = t < n ? (env->bits[t] ? 3 : 4) : t < n + env->delay ? 0 : 6;
        if (t == env->tick) idx = 1;
        const uint8_t* c = PUFFER_PALETTE[idx];
        draw_rect(px, w, h, 32 * t + 2, 2, 28, 28, c[0], c[1], c[2]);
        int k = t - n - env->delay;
        if (k >= 0 && env->answers[k] != 2) {
            const uint8_t* m = PUFFER_PALETTE[env->answers[k] ? 3 : 4];
            draw_rect(px, w, h, 32 * t + 2, 34, 28, 28, m[0], m[1], m[2]);
        }
    }
}

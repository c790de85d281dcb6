/* password: type a fixed binary password. Sparse reward: only a fully correct episode pays.
 *
 * Each episode lasts `length` steps; the observation holds the actions typed so far
 * (+1 / -1, 0 for not yet typed). Reward 1 at the end if every bit matched bit i of
 * `password`, else 0. A random policy succeeds once in 2^length episodes.
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, length, 5, 1, 24) P(int, password, 22, 0, 16777215)
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick, correct;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, env->length, -1, 1);
    ocean_act_discrete(s, 2);
    ocean_render_size(s, 32 * env->length, 64);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void c_reset(Env* env) {
    env->tick = 0;
    env->correct = 1;
    memset(env->p.observations, 0, sizeof(float) * (size_t)env->length);
}

static void c_step(Env* env) {
    float* obs = (float*)env->p.observations;
    int a = env->p.actions[0];
    env->correct &= a == ((env->password >> env->tick) & 1);
    obs[env->tick] = a ? 1.0f : -1.0f;
    env->tick++;
    int done = env->tick == env->length;
    float r = done ? (float)env->correct : 0.0f;
    env->p.rewards[0] = r;
    env->p.terminals[0] = (uint8_t)done;
    env->p.truncations[0] = 0;
    if (done) {
        LOG_EPISODE(&env->log, .score = r, .episode_return = r, .episode_length = env->tick);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    const float* obs = (const float*)env->p.observations;
    int len = 0;
    for (int i = 0; i < env->length; i++)
        ANSI_APPEND(buf, cap, len, "%c", i < env->tick ? (obs[i] > 0 ? '1' : '0') : '_');
    ANSI_APPEND(buf, cap, len, "\n");
    return len;
}

/* Top row: the typed bits; bottom row: the password. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    const float* obs = (const float*)env->p.observations;
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < env->length; i++) {
        if (i < env->tick) {
            const uint8_t* c = PUFFER_PALETTE[obs[i] > 0 ? 3 : 4];
            draw_rect(px, w, h, 32 * i + 2, 2, 28, 28, c[0], c[1], c[2]);
        }
        const uint8_t* c = PUFFER_PALETTE[(env->password >> i) & 1 ? 3 : 4];
        draw_rect(px, w, h, 32 * i + 2, 34, 28, 28, c[0], c[1], c[2]);
    }
}

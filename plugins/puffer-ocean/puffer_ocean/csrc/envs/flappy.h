/* flappy: keep a bird in the air and through the gaps of oncoming pipes (Flappy Bird).
 *
 * A 1 x 1 world; the bird stays at x = 0.2 (radius 0.03) and falls: each step its vertical
 * speed drops by `gravity` (capped at -4 flaps' worth), and action 1 (flap) sets it to
 * `flap_speed`; action 0 does nothing. Pipes 0.1 wide, `spacing` apart, scroll left at
 * `speed` per step, each with a gap of height `gap` centred at a random height in
 * [0.3, 0.7]. The episode ends (terminal) when the bird touches a pipe outside its gap, the
 * ground or the ceiling: reward -1. Reward +1 for every pipe the bird passes. It is truncated
 * after `max_steps` steps (final observation kept). Observation (6 floats in [-1, 1]): the
 * bird's height and speed (in flaps), then of the next two pipes: distance ahead / 1.5 and
 * gap centre. score: the pipes passed.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(float, gravity, 0.002, 0.0001, 0.1) P(float, flap_speed, 0.02, 0.001, 0.5) \
    P(float, speed, 0.01, 0.001, 0.1) P(float, gap, 0.3, 0.1, 0.9) P(float, spacing, 0.6, 0.3, 2) \
    P(int, max_steps, 10000, 1, 10000000)
#define FIELDS(F) F(float, y) F(float, vy) F(float, px[0]) F(float, px[1]) F(float, px[2]) F(float, gy[0]) \
    F(float, gy[1]) F(float, gy[2]) F(int, passed) F(int, tick)
#include "../puffer.h"

#define FL_PIPES 3
#define FL_X 0.2f
#define FL_R 0.03f
#define FL_W 0.1f

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float y, vy;
    float px[FL_PIPES], gy[FL_PIPES];  /* each pipe's left edge and gap centre */
    int scored[FL_PIPES];              /* the bird has passed this pipe */
    int passed, tick;
    float ret;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 6, -1, 1);
    ocean_act_discrete(s, 2);
    ocean_render_size(s, 256, 256);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline float fl_clamp(float v) { return v < -1 ? -1 : v > 1 ? 1 : v; }

static void fl_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    int order[FL_PIPES] = {0, 1, 2};  /* pipes ahead of the bird, nearest first */
    for (int i = 0; i < FL_PIPES; i++)
        for (int j = i + 1; j < FL_PIPES; j++)
            if (env->px[order[j]] < env->px[order[i]]) { int t = order[i]; order[i] = order[j]; order[j] = t; }
    int k = 0, ahead[2] = {order[1], order[2]};
    for (int i = 0; i < FL_PIPES && k < 2; i++)
        if (env->px[order[i]] + FL_W >= FL_X - FL_R) ahead[k++] = order[i];
    obs[0] = fl_clamp(env->y);
    obs[1] = fl_clamp(env->vy / (4 * env->flap_speed));
    for (int i = 0; i < 2; i++) {
        obs[2 + 2 * i] = fl_clamp((env->px[ahead[i]] - FL_X) / 1.5f);
        obs[3 + 2 * i] = fl_clamp(env->gy[ahead[i]]);
    }
}

static float fl_gap_centre(Env* env) { return 0.3f + 0.4f * rng_float(&env->p.rng); }

static void c_reset(Env* env) {
    env->y = 0.5f;
    env->vy = 0;
    for (int i = 0; i < FL_PIPES; i++) {
        env->px[i] = 1.0f + i * env->spacing;
        env->gy[i] = fl_gap_centre(env);
        env->scored[i] = 0;
    }
    env->passed = env->tick = 0;
    env->ret = 0;
    fl_observe(env);
}

static int fl_hits(Env* env) {
    if (env->y - FL_R <= 0 || env->y + FL_R >= 1) return 1;
    for (int i = 0; i < FL_PIPES; i++) {
        if (FL_X + FL_R < env->px[i] || FL_X - FL_R > env->px[i] + FL_W) continue;
        if (env->y - FL_R < env->gy[i] - env->gap / 2 || env->y + FL_R > env->gy[i] + env->gap / 2) return 1;
    }
    return 0;
}

static void fl_end(Env* env, int truncated) {
    env->p.terminals[0] = !truncated;
    env->p.truncations[0] = (uint8_t)truncated;
    LOG_EPISODE(&env->log, .score = env->passed, .episode_return = env->ret, .episode_length = env->tick);
    ocean_keep_final(&env->p, 0);
    c_reset(env);
}

static void c_step(Env* env) {
    float reward = 0;
    env->tick++;
    env->p.terminals[0] = 0;
    env->p.truncations[0] = 0;
    if (env->p.actions[0] == 1) env->vy = env->flap_speed;
    else if ((env->vy -= env->gravity) < -4 * env->flap_speed) env->vy = -4 * env->flap_speed;
    env->y += env->vy;
    float last = env->px[0];
    for (int i = 1; i < FL_PIPES; i++) if (env->px[i] > last) last = env->px[i];
    for (int i = 0; i < FL_PIPES; i++) {
        env->px[i] -= env->speed;
        if (!env->scored[i] && env->px[i] + FL_W < FL_X - FL_R) {
            env->scored[i] = 1;
            env->passed++;
            reward += 1.0f;
        }
        if (env->px[i] + FL_W < 0) {  /* off screen: back behind the last pipe */
            env->px[i] = last - env->speed + env->spacing;
            env->gy[i] = fl_gap_centre(env);
            env->scored[i] = 0;
        }
    }
    int hit = fl_hits(env);
    if (hit) reward -= 1.0f;
    env->p.rewards[0] = reward;
    env->ret += reward;
    fl_observe(env);
    if (hit) fl_end(env, 0);
    else if (env->tick >= env->max_steps) fl_end(env, 1);
}

/* 12 rows x 24 columns of the world: '#' pipe, '@' the bird (in the cell that holds its centre). */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, bird_row = (int)((1.0f - env->y) * 12), bird_col = (int)(FL_X * 24);
    for (int r = 0; r < 12; r++) {
        float y = 1.0f - (r + 0.5f) / 12.0f;
        for (int c = 0; c < 24; c++) {
            float x = (c + 0.5f) / 24.0f;
            char ch = ' ';
            for (int i = 0; i < FL_PIPES; i++)
                if (x >= env->px[i] && x <= env->px[i] + FL_W && fabsf(y - env->gy[i]) > env->gap / 2) ch = '#';
            if (r == bird_row && c == bird_col) ch = '@';
            ANSI_APPEND(buf, cap, len, "%c", ch);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < FL_PIPES; i++) {
        int x = (int)(env->px[i] * w), pw = (int)(FL_W * w);
        int top = (int)((1.0f - env->gy[i] - env->gap / 2) * h), bottom = (int)((1.0f - env->gy[i] + env->gap / 2) * h);
        draw_rect(px, w, h, x, 0, pw, top, PUFFER_GREEN);
        draw_rect(px, w, h, x, bottom, pw, h - bottom, PUFFER_GREEN);
    }
    int size = (int)(2 * FL_R * w);
    draw_rect(px, w, h, (int)((FL_X - FL_R) * w), (int)((1.0f - env->y - FL_R) * h), size, size, PUFFER_YELLOW);
}

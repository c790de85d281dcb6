/* target: puffers swim to stars (multi-agent; PufferLib's Ocean "target").
 *
 * `num_agents` puffers and `num_goals` stars share a width x height field. Action
 * MultiDiscrete([9, 5]): turn by (a0 - 4) / 12 radians (heading kept in [0, 2 pi]) and
 * change speed by a1 - 2 (speed kept in [-20, 20]); positions are clamped to the field.
 * A puffer within 32 units of a star earns 1 and the star moves to a random spot (two
 * puffers reaching one star in the same step both earn it). Observation of each puffer
 * (2 * (num_agents + num_goals) + 4 floats): every star's offset (dx / width, dy /
 * height), every puffer's offset (its own is 0), heading / 2 pi, last reward, x / width,
 * y / height. The reference has no episodes and logs one per star eaten; here an episode
 * is `max_steps` steps of the whole copy (then truncated and re-drawn), and `score` is
 * the stars one puffer eats in it.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, width, 1080, 64, 100000) P(int, height, 720, 64, 100000) \
    P(int, num_agents, 8, 1, 64) P(int, num_goals, 4, 1, 64) P(int, max_steps, 512, 1, 10000000)
/* State of puffer 0 and star 0 by name, for tests (the arrays hold every agent and star). */
#define FIELDS(F) F(float, ax[0]) F(float, ay[0]) F(float, heading[0]) F(float, speed[0]) \
    F(float, gx[0]) F(float, gy[0]) F(float, ax[1]) F(float, ay[1]) F(float, speed[1]) F(int, tick)
#include "../puffer.h"

#define TG_MAX 64
#define TG_RADIUS 32.0f
#define TG_TWO_PI 6.2831853f

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick;
    float ax[TG_MAX], ay[TG_MAX], heading[TG_MAX], speed[TG_MAX], eaten[TG_MAX], last_reward[TG_MAX];
    float gx[TG_MAX], gy[TG_MAX];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    s->num_agents = env->num_agents;
    ocean_obs_flat(s, 2 * (env->num_agents + env->num_goals) + 4, -1, 1);
    ocean_act_multidiscrete(s, 2, (const int[]){9, 5});
    int big = env->width > env->height ? env->width : env->height;
    int scale = (big + 539) / 540;  /* at most 540 pixels on the long side */
    int w = env->width / scale, h = env->height / scale;
    ocean_render_size(s, w > 1 ? w : 1, h > 1 ? h : 1);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void target_place_goal(Env* env, int g) {
    env->gx[g] = (float)rng_int(&env->p.rng, env->width);
    env->gy[g] = (float)rng_int(&env->p.rng, env->height);
}

static void target_observe(Env* env) {
    int dim = 2 * (env->num_agents + env->num_goals) + 4;
    float iw = 1.0f / env->width, ih = 1.0f / env->height;
    for (int a = 0; a < env->num_agents; a++) {
        float* restrict obs = (float*)env->p.observations + (size_t)a * dim;  /* aliases no state */
        float x = env->ax[a], y = env->ay[a];
        for (int g = 0; g < env->num_goals; g++) {
            *obs++ = (env->gx[g] - x) * iw;
            *obs++ = (env->gy[g] - y) * ih;
        }
        for (int b = 0; b < env->num_agents; b++) {
            *obs++ = (env->ax[b] - x) * iw;
            *obs++ = (env->ay[b] - y) * ih;
        }
        *obs++ = env->heading[a] * (1.0f / TG_TWO_PI);
        *obs++ = env->last_reward[a];
        *obs++ = x * iw;
        *obs++ = y * ih;
    }
}

static void c_reset(Env* env) {
    env->tick = 0;
    for (int a = 0; a < env->num_agents; a++) {
        env->ax[a] = (float)rng_int(&env->p.rng, env->width);
        env->ay[a] = (float)rng_int(&env->p.rng, env->height);
        env->heading[a] = rng_float(&env->p.rng) * TG_TWO_PI;
        env->speed[a] = 0;
        env->eaten[a] = 0;
        env->last_reward[a] = 0;
    }
    for (int g = 0; g < env->num_goals; g++) target_place_goal(env, g);
    target_observe(env);
}


static void c_step(Env* env) {
    uint64_t moved = 0;  /* bit g: star g was reached this step */
    float* restrict rewards = env->p.rewards;  /* aliases no state */
    int agents = env->num_agents, goals = env->num_goals;
    env->tick++;
    for (int a = 0; a < agents; a++) {
        const int32_t* act = env->p.actions + 2 * a;
        env->heading[a] = clampf(env->heading[a] + (float)(act[0] - 4) * (1.0f / 12.0f), 0, TG_TWO_PI);
        env->speed[a] = clampf(env->speed[a] + (float)(act[1] - 2), -20.0f, 20.0f);
        float sin_h, cos_h;
        fast_sincosf(env->heading[a], &sin_h, &cos_h);
        env->ax[a] = clampf(env->ax[a] + env->speed[a] * cos_h, 0, (float)env->width);
        env->ay[a] = clampf(env->ay[a] + env->speed[a] * sin_h, 0, (float)env->height);
        float reward = 0;
        for (int g = 0; g < goals; g++) {
            float dx = env->gx[g] - env->ax[a], dy = env->gy[g] - env->ay[a];
            if (dx * dx + dy * dy <= TG_RADIUS * TG_RADIUS) {
                reward += 1.0f;
                moved |= 1ull << g;
            }
        }
        rewards[a] = reward;
        env->last_reward[a] = reward > 1.0f ? 1.0f : reward;
        env->eaten[a] += reward;
    }
    for (int g = 0; g < env->num_goals; g++)
        if (moved >> g & 1) target_place_goal(env, g);
    int truncated = env->tick >= env->max_steps;
    memset(env->p.terminals, 0, (size_t)env->num_agents);
    memset(env->p.truncations, truncated, (size_t)env->num_agents);
    target_observe(env);
    if (truncated) {
        for (int a = 0; a < env->num_agents; a++) {
            LOG_EPISODE(&env->log, .score = env->eaten[a], .episode_return = env->eaten[a],
                        .episode_length = env->tick);
            ocean_keep_final(&env->p, a);
        }
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int cols = 54, rows = 18, len = 0;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            char out = '.';
            for (int g = 0; g < env->num_goals; g++)
                if ((int)(env->gx[g] * cols / (env->width + 1)) == c && (int)(env->gy[g] * rows / (env->height + 1)) == r)
                    out = '*';
            for (int a = 0; a < env->num_agents; a++)
                if ((int)(env->ax[a] * cols / (env->width + 1)) == c && (int)(env->ay[a] * rows / (env->height + 1)) == r)
                    out = a < 10 ? (char)('0' + a) : 'p';
            ANSI_APPEND(buf, cap, len, "%c", out);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "tick %d\n", env->tick);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    float sx = (float)w / env->width, sy = (float)h / env->height;
    draw_fill(px, w, h, PUFFER_BG);
    for (int g = 0; g < env->num_goals; g++)
        draw_rect(px, w, h, (int)((env->gx[g] - TG_RADIUS / 2) * sx), (int)((env->gy[g] - TG_RADIUS / 2) * sy),
                  (int)(TG_RADIUS * sx) + 1, (int)(TG_RADIUS * sy) + 1, PUFFER_YELLOW);
    for (int a = 0; a < env->num_agents; a++) {
        const uint8_t* c = PUFFER_PALETTE[1 + a % 7];
        draw_rect(px, w, h, (int)((env->ax[a] - 12) * sx), (int)((env->ay[a] - 12) * sy), (int)(24 * sx) + 1,
                  (int)(24 * sy) + 1, c[0], c[1], c[2]);
    }
}

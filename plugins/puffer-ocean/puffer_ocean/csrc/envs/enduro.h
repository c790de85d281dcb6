/* enduro: the endurance car race of Atari Enduro (PufferLib's Ocean "enduro").
 *
 * A three-lane road seen from behind the player's car. Positions are abstract: lateral
 * x in [0, 1] across the road, depth in [-0.15, 1] ahead of the player (0 the player's
 * bumper, 1 the horizon). Actions (Atari's nine): 0 nothing, 1 accelerate, 2 right,
 * 3 left, 4 brake, 5 brake right, 6 brake left, 7 accelerate right, 8 accelerate left.
 * Speed runs from 0.25 to 1 (it decays slowly without accelerating); rival cars drive at
 * 0.5, so the player closes on them when faster and they come back from behind when
 * slower. A rival enters (at the horizon, or behind when the player is slower than the
 * rivals) every 40 frames at the lowest speed, down to every 20 at full speed on day 1 and
 * every 15 on later days: a day of 6000 frames holds 300 (400) entries at full speed
 * against a quota of 200 (300); one every 40 frames at any speed (150 a day) left day 1
 * unwinnable. Each rival the player overtakes earns 1 and counts off `cars_to_pass` (200
 * on day 1, 300 after); each that overtakes the player costs 1 and counts back. Touching
 * a rival crashes: speed drops to the minimum and steering and throttle are locked for
 * 30 frames. Off the road (the outer tenth on each side) the car slows. Curves push the
 * car sideways in proportion to speed. A day lasts `day_length` frames; reaching 0 cars
 * to pass before it ends starts the next day, else the race ends (terminal). It is
 * truncated after `max_steps`. Score: cars overtaken (net). Observation (68 floats):
 * x, 0 (the player's depth), (speed - 0.25) / 0.75, road edges (0, 1 now and last step),
 * lane / 2; per rival slot (10): x, depth, lateral and depth change per step, same lane
 * as the player (empty slots 0.5, 0.5, 0, 0, 0); curve direction (0 left, 0.5 straight,
 * 1 right), drift direction, drift size, curve factor, time of day, cars to pass / 300,
 * nearest rival ahead per lane (depth, 1 if none), day / 10.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(days_completed) X(crashes)
#define PARAMS(P) P(int, max_enemies, 10, 1, 10) P(int, frameskip, 1, 1, 16) P(int, day_length, 6000, 100, 10000000) \
    P(int, max_steps, 100000, 1, 100000000) P(int, cars_first_day, 200, 1, 100000)
#define FIELDS(F) F(float, px) F(float, speed) F(int, cars_to_pass) F(int, day) F(int, day_frame) F(int, cooldown) \
    F(float, curve) F(int, passed) F(float, ex[0]) F(float, ed[0]) F(int, eon[0]) F(int, tick)
#include "../puffer.h"

#define EN_MAX 10
#define EN_MIN_SPEED 0.25f
#define EN_MAX_SPEED 1.0f
#define EN_RIVAL_SPEED 0.5f
#define EN_DEPTH_RATE 0.02f   /* depth per frame per unit of speed difference */
#define EN_CAR_W 0.16f
#define EN_CAR_D 0.04f
#define EN_BEHIND (-0.15f)
#define EN_COOLDOWN 30
#define EN_SPAWN_SLOW 40      /* frames between rival entries at the lowest speed */
#define EN_SPAWN_FAST_DAY1 20 /* ... at full speed on day 1 */
#define EN_SPAWN_FAST 15      /* ... at full speed from day 2 */

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float px, last_px, speed, curve, target_curve, ret;
    int cars_to_pass, day, day_frame, cooldown, passed, crashes, days_done, tick, curve_left, since_spawn;
    float ex[EN_MAX], ed[EN_MAX], last_ex[EN_MAX], last_ed[EN_MAX];
    int eon[EN_MAX], elane[EN_MAX];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 68, -1, 1);
    ocean_act_discrete(s, 9);
    ocean_render_size(s, 320, 240);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline int en_lane_of(float x) { return x < 1.0f / 3 ? 0 : x < 2.0f / 3 ? 1 : 2; }
static inline float en_lane_x(int lane) { return (2 * lane + 1) / 6.0f; }

static void en_observe(Env* env) {
    float* o = (float*)env->p.observations;
    int lane = en_lane_of(env->px);
    o[0] = env->px;
    o[1] = 0;
    o[2] = (env->speed - EN_MIN_SPEED) / (EN_MAX_SPEED - EN_MIN_SPEED);
    o[3] = 0;
    o[4] = 1;
    o[5] = 0;
    o[6] = 1;
    o[7] = lane * 0.5f;
    float nearest[3] = {1, 1, 1};
    for (int i = 0; i < EN_MAX; i++) {
        float* q = o + 8 + 5 * i;
        if (i >= env->max_enemies || !env->eon[i]) {
            q[0] = q[1] = 0.5f;
            q[2] = q[3] = q[4] = 0;
            continue;
        }
        q[0] = env->ex[i];
        q[1] = env->ed[i] < 1.0f ? env->ed[i] : 1.0f;  /* a rival past the horizon at the race's end: shown at it */
        q[2] = env->ex[i] - env->last_ex[i];
        q[3] = env->ed[i] - env->last_ed[i];
        q[4] = env->elane[i] == lane;
        if (env->ed[i] >= 0 && env->ed[i] < nearest[env->elane[i]]) nearest[env->elane[i]] = env->ed[i];
    }
    o[58] = env->curve < -0.1f ? 0.0f : env->curve > 0.1f ? 1.0f : 0.5f;
    o[59] = env->curve > 0 ? 1.0f : env->curve < 0 ? -1.0f : 0.0f;
    o[60] = fabsf(env->curve) * env->speed;
    o[61] = env->curve;
    o[62] = (float)env->day_frame / env->day_length;
    o[63] = env->cars_to_pass / 300.0f;
    o[64] = nearest[0];
    o[65] = nearest[1];
    o[66] = nearest[2];
    o[67] = env->day >= 10 ? 1.0f : env->day / 10.0f;
}

static void c_reset(Env* env) {
    env->px = env->last_px = 0.5f;
    env->speed = EN_MIN_SPEED;
    env->curve = env->target_curve = 0;
    env->curve_left = 1500 + rng_int(&env->p.rng, 2301);
    env->cars_to_pass = env->cars_first_day;
    env->day = 1;
    env->day_frame = env->cooldown = env->passed = env->crashes = env->days_done = env->tick = env->since_spawn = 0;
    env->ret = 0;
    memset(env->eon, 0, sizeof(env->eon));
    en_observe(env);
}

static void en_spawn(Env* env) {
    for (int i = 0; i < env->max_enemies; i++) {
        if (env->eon[i]) continue;
        int lane = rng_int(&env->p.rng, 3);
        float depth = env->speed >= EN_RIVAL_SPEED ? 1.0f : EN_BEHIND;
        for (int j = 0; j < env->max_enemies; j++)  /* not on top of a car already there */
            if (env->eon[j] && env->elane[j] == lane && fabsf(env->ed[j] - depth) < 0.15f) return;
        env->eon[i] = 1;
        env->elane[i] = lane;
        env->ex[i] = env->last_ex[i] = en_lane_x(lane);
        env->ed[i] = env->last_ed[i] = depth;
        return;
    }
}

/* Frames between rival entries: from EN_SPAWN_SLOW at the lowest speed to the day's full-speed gap. */
static int en_spawn_every(const Env* env) {
    float f = (env->speed - EN_MIN_SPEED) / (EN_MAX_SPEED - EN_MIN_SPEED);
    int fast = env->day == 1 ? EN_SPAWN_FAST_DAY1 : EN_SPAWN_FAST;
    return (int)(EN_SPAWN_SLOW - f * (EN_SPAWN_SLOW - fast) + 0.5f);
}

/* One frame; returns its reward, sets *over when the day ends with cars left. */
static float en_frame(Env* env, int a, int* over) {
    int accel = a == 1 || a == 7 || a == 8, brake = a == 4 || a == 5 || a == 6;
    int right = a == 2 || a == 5 || a == 7, left = a == 3 || a == 6 || a == 8;
    float reward = 0;
    if (env->cooldown > 0) env->cooldown--;
    else {
        if (accel) env->speed += 0.01f;
        else if (brake) env->speed -= 0.03f;
        else env->speed -= 0.002f;
        if (right) env->px += 0.012f;
        if (left) env->px -= 0.012f;
    }
    env->px -= env->curve * 0.006f * env->speed;  /* the curve pushes outward */
    if (env->px < 0.1f || env->px > 0.9f) env->speed -= 0.01f;  /* off the road */
    env->px = env->px < 0 ? 0 : env->px > 1 ? 1 : env->px;
    env->speed = env->speed < EN_MIN_SPEED ? EN_MIN_SPEED : env->speed > EN_MAX_SPEED ? EN_MAX_SPEED : env->speed;
    if (--env->curve_left <= 0) {
        env->target_curve = (float)(rng_int(&env->p.rng, 3) - 1);
        env->curve_left = 1500 + rng_int(&env->p.rng, 2301);
    }
    env->curve += env->curve < env->target_curve ? 0.002f : env->curve > env->target_curve ? -0.002f : 0;
    if (fabsf(env->curve - env->target_curve) < 0.002f) env->curve = env->target_curve;
    for (int i = 0; i < env->max_enemies; i++) {
        if (!env->eon[i]) continue;
        float before = env->ed[i];
        env->ed[i] -= (env->speed - EN_RIVAL_SPEED) * EN_DEPTH_RATE;
        if (before >= 0 && env->ed[i] < 0) {
            env->passed++;
            env->cars_to_pass--;
            reward += 1;
        } else if (before < 0 && env->ed[i] >= 0) {
            env->passed--;
            env->cars_to_pass++;
            reward -= 1;
        }
        if (env->ed[i] > 1.05f || env->ed[i] < EN_BEHIND - 0.01f) {
            env->eon[i] = 0;
            continue;
        }
        if (env->ed[i] >= 0 && env->ed[i] < EN_CAR_D && fabsf(env->ex[i] - env->px) < EN_CAR_W && env->cooldown == 0) {
            env->crashes++;
            env->speed = EN_MIN_SPEED;
            env->cooldown = EN_COOLDOWN;
            env->ed[i] = EN_CAR_D;  /* the rival stays just ahead */
        }
    }
    if (++env->since_spawn >= en_spawn_every(env)) {
        env->since_spawn = 0;
        en_spawn(env);
    }
    if (env->cars_to_pass < 0) env->cars_to_pass = 0;
    if (++env->day_frame >= env->day_length) {
        if (env->cars_to_pass > 0) *over = 1;
        else {
            env->day++;
            env->days_done++;
            env->day_frame = 0;
            env->cars_to_pass = 300;
        }
    }
    return reward;
}

static void c_step(Env* env) {
    int a = env->p.actions[0], over = 0;
    float reward = 0;
    env->tick++;
    env->last_px = env->px;
    for (int i = 0; i < EN_MAX; i++) {
        env->last_ex[i] = env->ex[i];
        env->last_ed[i] = env->ed[i];
    }
    for (int f = 0; f < env->frameskip && !over; f++) reward += en_frame(env, a, &over);
    env->ret += reward;
    int truncated = !over && env->tick >= env->max_steps;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)over;
    env->p.truncations[0] = (uint8_t)truncated;
    en_observe(env);
    if (over || truncated) {
        LOG_EPISODE(&env->log, .score = env->passed, .episode_return = env->ret, .episode_length = env->tick,
                    .days_completed = env->days_done, .crashes = env->crashes);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int rows = 20, cols = 30, len = 0;
    for (int r = 0; r < rows; r++) {  /* top: the horizon (depth 1); bottom: behind the player */
        float d0 = 1.0f - (r + 1) * (1.15f / rows), d1 = 1.0f - r * (1.15f / rows);
        for (int c = 0; c < cols; c++) {
            float x = (c + 0.5f) / cols;
            char out = c == 0 || c == cols - 1 ? '|' : (c == cols / 3 || c == 2 * cols / 3) ? ':' : ' ';
            for (int i = 0; i < env->max_enemies; i++)
                if (env->eon[i] && env->ed[i] >= d0 && env->ed[i] < d1 && fabsf(env->ex[i] - x) < EN_CAR_W / 2) out = 'X';
            if (0 >= d0 && 0 < d1 && fabsf(env->px - x) < EN_CAR_W / 2) out = env->cooldown ? '*' : 'A';
            ANSI_APPEND(buf, cap, len, "%c", out);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "day %d  cars to pass %d  speed %.2f  curve %.2f\n", env->day, env->cars_to_pass, env->speed,
                env->curve);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int horizon = 60, bottom = 220;
    float night = (float)env->day_frame / env->day_length;
    uint8_t sky = (uint8_t)(200 - 170 * night);
    draw_fill(px, w, h, 20, (uint8_t)(90 - 60 * night), 20);
    draw_rect(px, w, h, 0, 0, w, horizon, sky / 3, sky / 2, sky);
    for (int y = horizon; y < h; y++) {  /* the road narrows toward the horizon and bends with the curve */
        float depth = (float)(bottom - y) / (bottom - horizon);
        float half = 20 + 130 * (1 - depth), centre = w / 2 + env->curve * 60 * depth * depth;
        draw_rect(px, w, h, (int)(centre - half), y, (int)(2 * half), 1, 90, 90, 90);
    }
    for (int i = 0; i < env->max_enemies; i++) {
        if (!env->eon[i]) continue;
        float depth = env->ed[i], scale = 1 - 0.8f * (depth < 0 ? 0 : depth);
        int y = (int)(bottom - depth * (bottom - horizon)), half = (int)(130 * scale) + 20;
        int x = (int)(w / 2 + env->curve * 60 * depth * depth + (env->ex[i] - 0.5f) * 2 * half);
        int cw = (int)(24 * scale) + 4;
        draw_rect(px, w, h, x - cw / 2, y - cw / 2, cw, cw / 2 + 2, PUFFER_RED);
    }
    int x = (int)(w / 2 + (env->px - 0.5f) * 300);
    draw_rect(px, w, h, x - 14, bottom - 10, 28, 14, env->cooldown ? 255 : 239, 239, 110);
}

/* rocket_lander: land a rocket upright on a pad under gravity with a main engine and two side
 * thrusters (PufferLib's Ocean "rocket_lander"; the shaping is Gymnasium LunarLander's).
 *
 * World (metres, seconds; +y up, the ground is y = 0 everywhere, the pad spans x in
 * [-pad_half, pad_half], the arena x in [-25, 25] and y below 60): a rigid body of mass 1, a hull
 * 1 m wide and 4 m tall (inertia 17/12) with two legs whose feet sit 1.5 m either side of the
 * axis, 2.6 m below the centre of mass. State: position (x, y) of the centre, velocity, tilt
 * `angle` (radians, counter-clockwise from upright) and angular velocity `omega`. Each step of
 * 0.05 s (semi-implicit Euler) adds gravity (9.8 m/s^2 down), the wind (off by default: with
 * `wind` > 0, a gust along x of amplitude drawn per episode in [-wind, wind], 0.5 + 0.5 sin(...)
 * of it, phase drawn per episode), the main engine (16 m/s^2 along the hull's axis, through the
 * centre: no torque) and a side thruster (1.5 m/s^2 across the hull, applied at its top: a push
 * sideways and an angular acceleration of 2.1 rad/s^2). Feet that reach the ground take contact
 * impulses (no bounce; friction 0.8; the body is lifted out of the ground). Engines burn fuel:
 * `fuel` seconds of the main engine at full throttle, a side thruster a tenth of that; with none
 * left they do nothing.
 *
 * Actions: `continuous` 0 (the default): Discrete(4): 0 nothing, 1 main engine, 2 side thruster
 * turning the rocket counter-clockwise (its nose left), 3 clockwise; `continuous` 1: Box(-1, 1,
 * (2,)) as LunarLanderContinuous: main off below 0, else throttle 0.5 + 0.5 a0; a side thruster
 * fires when |a1| > 0.5 (a1 > 0 counter-clockwise) at throttle |a1|. Discrete is the default as
 * in PufferLib 3.0's rocket_lander (Discrete(4)): the shipped MLP learns it faster on a CPU.
 *
 * An episode ends (terminal) on a crash (a hull corner touches the ground, or a foot lands with
 * a downward speed above `crash_speed`), on leaving the arena (both -100), or on landing: both
 * feet down with speed under 0.25 m/s and |omega| under 0.25 rad/s for 10 steps in a row
 * (+100 when both feet are on the pad; LunarLander pays it anywhere, but its ground off the
 * pad is rough: on this flat ground the agents then landed where they were); it is truncated
 * after `max_steps` steps. Every step pays
 * the change of the shaping -100 |(x / 10, h / 30)| - 10 |v| - 100 |angle| + 10 per foot down
 * (h = y - 2.6, the feet's height when upright), less 0.3 x main throttle and 0.03 x side
 * throttle; all rewards are multiplied by 0.01. Start: x in [-10, 10], y = start_height + [0, 5),
 * velocity in [-3, 3] x [-4, 0], angle and omega in [-0.2, 0.2].
 * Observation (9 floats, each clipped to [-5, 5]): x / 25, h / 30, vx / 10, vy / 10, angle / pi,
 * omega / 4, left foot down, right foot down, fuel left / fuel. score: landed with both feet on
 * the pad (per episode); `landed`: landed anywhere; `crashed`; `out_of_bounds`.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(landed) X(crashed) X(out_of_bounds)
#define PARAMS(P) P(int, continuous, 0, 0, 1) P(int, max_steps, 1000, 1, 10000000) P(float, fuel, 20, 0, 1000) \
    P(float, wind, 0, 0, 10) P(float, pad_half, 4, 1.5, 25) P(float, start_height, 30, 5, 50) \
    P(float, crash_speed, 5, 0.1, 100)
#define FIELDS(F) F(float, x) F(float, y) F(float, vx) F(float, vy) F(float, angle) F(float, omega) \
    F(float, fuel_left) F(float, wind_amp) F(int, leg[0]) F(int, leg[1]) F(int, rest) F(int, tick)
#include "../puffer.h"

#define RL_DT 0.05f
#define RL_G 9.8f
#define RL_HW 0.5f         /* hull half width */
#define RL_HH 2.0f         /* hull half height */
#define RL_LX 1.5f         /* feet: (+-RL_LX, -RL_LY) from the centre of mass */
#define RL_LY 2.6f
#define RL_INERTIA (17.0f / 12.0f)
#define RL_MAIN 16.0f
#define RL_SIDE 1.5f
#define RL_FRICTION 0.8f
#define RL_ARENA 25.0f
#define RL_TOP 60.0f
#define RL_REST_SPEED 0.25f
#define RL_REST_STEPS 10
#define RL_SCALE 0.01f
#define RL_OBS 9
#define RL_PI 3.14159265f

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float x, y, vx, vy, angle, omega, fuel_left, wind_amp, wind_phase, shaping, ret;
    int leg[2], rest, tick;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, RL_OBS, -5, 5);
    if (env->continuous) ocean_act_box(s, 2, -1, 1);
    else ocean_act_discrete(s, 4);
    ocean_render_size(s, 400, 320);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static float rl_shaping(Env* env) {
    float dx = env->x * 0.1f, dh = (env->y - RL_LY) / 30.0f;
    return -100.0f * sqrtf(dx * dx + dh * dh) - 10.0f * sqrtf(env->vx * env->vx + env->vy * env->vy) -
           100.0f * fabsf(env->angle) + 10.0f * (env->leg[0] + env->leg[1]);
}

static void rl_observe(Env* env) {
    float* restrict o = (float*)env->p.observations;
    o[0] = clampf(env->x / RL_ARENA, -5, 5);
    o[1] = clampf((env->y - RL_LY) / 30.0f, -5, 5);
    o[2] = clampf(env->vx * 0.1f, -5, 5);
    o[3] = clampf(env->vy * 0.1f, -5, 5);
    o[4] = env->angle * (1.0f / RL_PI);
    o[5] = clampf(env->omega * 0.25f, -5, 5);
    o[6] = (float)env->leg[0];
    o[7] = (float)env->leg[1];
    o[8] = env->fuel > 0 ? env->fuel_left / env->fuel : 0.0f;
}

static void c_reset(Env* env) {
    uint64_t* r = &env->p.rng;
    env->x = -10.0f + 20.0f * rng_float(r);
    env->y = env->start_height + 5.0f * rng_float(r);
    env->vx = -3.0f + 6.0f * rng_float(r);
    env->vy = -4.0f * rng_float(r);
    env->angle = -0.2f + 0.4f * rng_float(r);
    env->omega = -0.2f + 0.4f * rng_float(r);
    env->wind_amp = env->wind * (2.0f * rng_float(r) - 1.0f);
    env->wind_phase = 2.0f * RL_PI * rng_float(r);
    env->fuel_left = env->fuel;
    env->leg[0] = env->leg[1] = 0;
    env->rest = env->tick = 0;
    env->ret = 0;
    env->shaping = rl_shaping(env);
    rl_observe(env);
}

/* The throttles (main in [0, 1], side in [-1, 1], + counter-clockwise) of this step's action. */
static void rl_throttles(Env* env, float* main, float* side) {
    if (env->continuous) {
        float a0 = env->p.cont_actions[0], a1 = env->p.cont_actions[1];
        *main = a0 > 0 ? 0.5f + 0.5f * clampf(a0, 0, 1) : 0.0f;
        *side = fabsf(a1) > 0.5f ? clampf(a1, -1, 1) : 0.0f;
    } else {
        int a = env->p.actions[0];
        *main = a == 1 ? 1.0f : 0.0f;
        *side = a == 2 ? 1.0f : a == 3 ? -1.0f : 0.0f;
    }
}

/* Integrate one step; returns 1 on a crash (a hard landing or a hull corner in the ground). */
static int rl_physics(Env* env, float main, float side) {
    float burn = main + 0.1f * fabsf(side);
    if (env->fuel_left <= 0) main = side = 0;
    else env->fuel_left = fmaxf(env->fuel_left - burn * RL_DT, 0.0f);
    float s, c;
    fast_sincosf(env->angle, &s, &c);
    float fx = -side * RL_SIDE;  /* across the hull at its top: + side turns counter-clockwise */
    float wind = env->wind_amp * (0.5f + 0.5f * sinf(env->wind_phase + 0.5f * RL_DT * env->tick));
    float ax = main * RL_MAIN * -s + fx * c + wind, ay = main * RL_MAIN * c + fx * s - RL_G;
    env->vx += ax * RL_DT;
    env->vy += ay * RL_DT;
    env->omega += -RL_HH * fx / RL_INERTIA * RL_DT;
    env->x += env->vx * RL_DT;
    env->y += env->vy * RL_DT;
    env->angle += env->omega * RL_DT;
    if (env->angle > RL_PI) env->angle -= 2 * RL_PI;
    if (env->angle < -RL_PI) env->angle += 2 * RL_PI;
    fast_sincosf(env->angle, &s, &c);
    float rx[2], ry[2], jn[2] = {0, 0}, pen = 0;
    int touching[2], crash = 0;
    for (int k = 0; k < 2; k++) {
        float bx = k ? RL_LX : -RL_LX;
        rx[k] = c * bx + s * RL_LY;   /* the foot (bx, -RL_LY) rotated by the angle */
        ry[k] = s * bx - c * RL_LY;
        touching[k] = env->y + ry[k] < 0;
        if (touching[k]) {
            pen = fmaxf(pen, -(env->y + ry[k]));
            if (-(env->vy + env->omega * rx[k]) > env->crash_speed) crash = 1;
        }
    }
    for (int it = 0; it < 6 && (touching[0] || touching[1]); it++)  /* sequential impulses */
        for (int k = 0; k < 2; k++) {
            if (!touching[k]) continue;
            float vn = env->vy + env->omega * rx[k];
            float dj = -vn / (1.0f + rx[k] * rx[k] / RL_INERTIA);
            float total = fmaxf(jn[k] + dj, 0.0f);
            dj = total - jn[k];
            jn[k] = total;
            env->vy += dj;
            env->omega += rx[k] * dj / RL_INERTIA;
            float vt = env->vx - env->omega * ry[k];
            float jt = clampf(-vt / (1.0f + ry[k] * ry[k] / RL_INERTIA), -RL_FRICTION * jn[k], RL_FRICTION * jn[k]);
            env->vx += jt;
            env->omega += -ry[k] * jt / RL_INERTIA;
        }
    env->y += pen;
    for (int k = 0; k < 2; k++) env->leg[k] = env->y + ry[k] < 0.02f;
    for (int i = 0; i < 4; i++) {  /* the hull's corners */
        float bx = i & 1 ? RL_HW : -RL_HW, by = i & 2 ? RL_HH : -RL_HH;
        if (env->y + s * bx + c * by < 0) crash = 1;
    }
    return crash;
}

static void c_step(Env* env) {
    float main, side;
    rl_throttles(env, &main, &side);
    int has_fuel = env->fuel_left > 0;
    int crashed = rl_physics(env, main, side);
    env->tick++;
    int out = !crashed && (fabsf(env->x) > RL_ARENA || env->y > RL_TOP);
    int resting = env->leg[0] && env->leg[1] && env->vx * env->vx + env->vy * env->vy < RL_REST_SPEED * RL_REST_SPEED &&
                  fabsf(env->omega) < RL_REST_SPEED;
    env->rest = resting ? env->rest + 1 : 0;
    int landed = !crashed && !out && env->rest >= RL_REST_STEPS;
    float shaping = rl_shaping(env);
    float reward = shaping - env->shaping - (has_fuel ? 0.3f * main + 0.03f * fabsf(side) : 0.0f);
    env->shaping = shaping;
    if (crashed || out) reward = -100.0f;
    float foot = RL_LX * cosf(env->angle);
    int on_pad = landed && fabsf(env->x) + foot <= env->pad_half;
    if (on_pad) reward += 100.0f;
    reward *= RL_SCALE;
    env->ret += reward;
    int terminal = crashed || out || landed, truncated = !terminal && env->tick >= env->max_steps;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)terminal;
    env->p.truncations[0] = (uint8_t)truncated;
    rl_observe(env);
    if (terminal || truncated) {
        LOG_EPISODE(&env->log, .score = on_pad, .episode_return = env->ret, .episode_length = env->tick,
                    .landed = landed, .crashed = crashed, .out_of_bounds = out);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

/* Side view: 50 columns for the arena's 50 m, 30 rows for 60 m of height. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, cols = 50, rows = 30;
    int cx = (int)((env->x + RL_ARENA) / (2 * RL_ARENA) * cols), cy = (int)(env->y / RL_TOP * rows);
    for (int r = rows - 1; r >= 0; r--) {
        for (int col = 0; col < cols; col++) ANSI_APPEND(buf, cap, len, "%c", col == cx && r == cy ? 'R' : '.');
        ANSI_APPEND(buf, cap, len, "\n");
    }
    for (int col = 0; col < cols; col++) {
        float x = (col + 0.5f) / cols * 2 * RL_ARENA - RL_ARENA;
        ANSI_APPEND(buf, cap, len, "%c", fabsf(x) <= env->pad_half ? '#' : '=');
    }
    ANSI_APPEND(buf, cap, len, "\nrocket (%.1f, %.1f) v (%.1f, %.1f) angle %.2f feet %d%d fuel %.1f step %d\n", env->x,
                env->y, env->vx, env->vy, env->angle, env->leg[0], env->leg[1], env->fuel_left, env->tick);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    float scale = w / (2 * RL_ARENA);  /* 8 px per metre */
    int ground = h - 16;
    draw_fill(px, w, h, PUFFER_BG);
    draw_rect(px, w, h, 0, ground, w, h - ground, PUFFER_GREY);
    int pad = (int)(env->pad_half * scale);
    draw_rect(px, w, h, w / 2 - pad, ground, 2 * pad, 4, PUFFER_YELLOW);
    float s, c;
    fast_sincosf(env->angle, &s, &c);
    for (int i = -8; i <= 8; i++) {  /* the hull's axis, then the feet */
        float by = RL_HH * i / 8.0f;
        int u = (int)((env->x - s * by + RL_ARENA) * scale), v = ground - (int)((env->y + c * by) * scale);
        draw_rect(px, w, h, u - 3, v - 1, 6, 3, PUFFER_CYAN);
    }
    for (int k = 0; k < 2; k++) {
        float bx = k ? RL_LX : -RL_LX;
        int u = (int)((env->x + c * bx + s * RL_LY + RL_ARENA) * scale), v = ground - (int)((env->y + s * bx - c * RL_LY) * scale);
        if (env->leg[k]) draw_rect(px, w, h, u - 2, v - 2, 4, 4, PUFFER_GREEN);
        else draw_rect(px, w, h, u - 2, v - 2, 4, 4, PUFFER_ORANGE);
    }
}

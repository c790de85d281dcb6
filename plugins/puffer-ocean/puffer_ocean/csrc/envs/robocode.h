/* robocode: two tank robots fight in an arena with guns and bullets (PufferLib's Ocean "robocode";
 * the movement, gun and bullet rules follow Robocode's published physics).
 *
 * An 800 x 600 arena (pixels; a step is a tick). A robot is a circle of radius 18 with a body
 * heading, a gun heading (absolute; the body's turn carries it) and energy (100 at the start).
 * Its speed moves toward the driven direction by 1 per tick accelerating and 2 braking, at most
 * 8; its body turns at most 10 - 0.75 |speed| degrees a tick. A wall stops it (damage
 * max(|speed| / 2 - 1, 0)); two robots that touch both stop where they were and lose 0.6. Firing
 * with power p in {1, 2, 3} costs p energy and needs a cold gun (it heats by 1 + p / 5 and cools
 * 0.1 a tick; 3 at the start) and energy above p; the bullet flies 20 - 3p a tick and, hitting the
 * other robot (its path within 18 of the centre), takes 4p + 2 max(p - 1, 0) energy from it and
 * gives 3p back to the shooter. The sensor is a cone of half-angle `cone` (radians) along the gun:
 * a robot sees the other only inside it, and remembers what it saw last. A robot at 0 energy or
 * less is destroyed; the other wins (both at once: a draw); after `max_steps` ticks, a draw.
 *
 * Action: MultiDiscrete([3, 3, 5, 4]): drive (0 backward, 1 brake, 2 forward), turn the body (0
 * left, 1 none, 2 right: left is counter-clockwise), turn the gun relative to the body (-20, -5,
 * 0, 5, 20 degrees), fire (0 none, else the power). Observation (29 floats in [-2, 2]): own x and
 * y (scaled to [-1, 1]), speed / 8, body heading and gun heading (cos, sin each), energy / 100,
 * gun heat / 1.6; then the other robot as last seen: seen this tick, ticks since / 100 (1 if
 * never, clipped), its offset / (800, 600), distance / 1000, its bearing relative to the gun
 * (cos, sin), its energy / 100, heading (cos, sin), speed / 8, its bearing relative to the body
 * (cos, sin); ticks / max_steps; then for aiming (a human aimer's reading of the last sighting):
 * the gun's error to its bearing in cones (bearing - gun heading, / `cone`, clipped to [-2, 2]),
 * its speed across the line of sight / 8 (counter-clockwise around the robot +) and along it / 8
 * (away +), and the gun's error in cones to where a bullet of power 1, 2, 3 meets it if it keeps
 * its course (bearing + asin(speed across / bullet speed) - gun heading). The other robot's
 * entries are zeros where never seen.
 * Rewards: 0.01 per energy point of damage dealt (bullets, rams), minus 0.01 per point taken; +1
 * win, -1 loss, 0 draw; outcomes 1 / 0 / 0.5. With `energy_reward` 1 (the shipped config's) also
 * -0.01 per energy point spent firing and +0.01 per point a hit gives back. `opponent` (pufferlib's names: 0 "none", 1
 * "scripted", the default, 2 "random"): with "none" both robots are agents (a simultaneous game
 * of two rows; either may be a built-in player: self-play's anchors); otherwise the agent's robot
 * fights a built-in one: "scripted" drives forward turning left (circling, away from walls),
 * spins its gun until the sensor sees the other robot, then turns the gun at it and fires (power
 * 3 within 150 pixels, else 2) once its aim is within 0.1 radians; "random" draws each action
 * uniformly. score: games won; `draws`; `shots`, `hits` per game.
 */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either robot may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(draws) X(shots) X(hits)
#define PARAMS(P) P(int, opponent, 1, 0, 2) P(int, max_steps, 2000, 1, 10000000) P(float, cone, 0.35, 0.01, 3.15) \
    P(int, energy_reward, 0, 0, 1)
#define FIELDS(F) F(float, x[0]) F(float, y[0]) F(float, v[0]) F(float, heading[0]) F(float, gun[0]) \
    F(float, energy[0]) F(float, heat[0]) F(float, x[1]) F(float, y[1]) F(float, v[1]) F(float, heading[1]) \
    F(float, gun[1]) F(float, energy[1]) F(float, heat[1]) F(int, agent_robot) F(int, tick)
#include "../puffer.h"

#define RC_NONE 0
#define RC_SCRIPTED 1
#define RC_W 800.0f
#define RC_H 600.0f
#define RC_R 18.0f
#define RC_BULLETS 8   /* live bullets per robot at most */
#define RC_OBS 29
#define RC_PI 3.14159265f
#define RC_DEG (RC_PI / 180.0f)

static const float RC_GUN_TURN[5] = {-20 * RC_DEG, -5 * RC_DEG, 0, 5 * RC_DEG, 20 * RC_DEG};

typedef struct {
    float x, y, dx, dy, power;  /* dx, dy: the move per tick */
    int live;
} RcBullet;

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float x[2], y[2], v[2], heading[2], gun[2], energy[2], heat[2];
    float seen_x[2], seen_y[2], seen_heading[2], seen_v[2], seen_energy[2];  /* robot r's memory of the other */
    int seen_now[2], since[2], ever[2], shots[2], hits[2];
    float pending[2], ret[2];
    RcBullet bullets[2][RC_BULLETS];
    int agent_robot, tick;
} Env;

static inline int rc_rows(Env* env) { return env->opponent == RC_NONE ? 2 : 1; }
static inline int rc_robot_of(Env* env, int k) { return env->opponent == RC_NONE ? k : env->agent_robot; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, rc_rows(env));
    ocean_obs_flat(s, RC_OBS, -2, 2);
    ocean_act_multidiscrete(s, 4, (const int[]){3, 3, 5, 4});
    ocean_render_size(s, 400, 300);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline float rc_wrap(float a) {  /* into [-pi, pi) */
    while (a >= RC_PI) a -= 2 * RC_PI;
    while (a < -RC_PI) a += 2 * RC_PI;
    return a;
}

static void rc_sense(Env* env) {
    for (int r = 0; r < 2; r++) {
        int o = 1 - r;
        float bearing = atan2f(env->y[o] - env->y[r], env->x[o] - env->x[r]);
        env->seen_now[r] = fabsf(rc_wrap(bearing - env->gun[r])) <= env->cone;
        if (env->seen_now[r]) {
            env->seen_x[r] = env->x[o];
            env->seen_y[r] = env->y[o];
            env->seen_heading[r] = env->heading[o];
            env->seen_v[r] = env->v[o];
            env->seen_energy[r] = env->energy[o];
            env->since[r] = 0;
            env->ever[r] = 1;
        } else if (env->since[r] < 1000000) {
            env->since[r]++;
        }
    }
}

static void rc_observe(Env* env) {
    for (int k = 0; k < rc_rows(env); k++) {
        int r = rc_robot_of(env, k);
        float* restrict o = (float*)env->p.observations + k * RC_OBS;
        memset(o, 0, sizeof(float) * RC_OBS);
        o[0] = env->x[r] / RC_W * 2 - 1;
        o[1] = env->y[r] / RC_H * 2 - 1;
        o[2] = env->v[r] * 0.125f;
        fast_sincosf(env->heading[r], &o[4], &o[3]);
        fast_sincosf(env->gun[r], &o[6], &o[5]);
        o[7] = clampf(env->energy[r] * 0.01f, -2, 2);
        o[8] = env->heat[r] / 1.6f;
        o[9] = (float)env->seen_now[r];
        o[10] = env->ever[r] ? clampf(env->since[r] * 0.01f, 0, 1) : 1.0f;
        if (env->ever[r]) {
            float dx = env->seen_x[r] - env->x[r], dy = env->seen_y[r] - env->y[r];
            float bearing = atan2f(dy, dx);
            o[11] = dx / RC_W;
            o[12] = dy / RC_H;
            o[13] = sqrtf(dx * dx + dy * dy) * 0.001f;
            fast_sincosf(rc_wrap(bearing - env->gun[r]), &o[15], &o[14]);
            o[16] = clampf(env->seen_energy[r] * 0.01f, -2, 2);
            fast_sincosf(env->seen_heading[r], &o[18], &o[17]);
            o[19] = env->seen_v[r] * 0.125f;
            fast_sincosf(rc_wrap(bearing - env->heading[r]), &o[21], &o[20]);
        }
        o[22] = (float)env->tick / env->max_steps;
        if (env->ever[r]) {  /* for aiming: the gun's error to it and to where each power's bullet meets it */
            float dx = env->seen_x[r] - env->x[r], dy = env->seen_y[r] - env->y[r];
            float bearing = atan2f(dy, dx), s, c;
            fast_sincosf(env->seen_heading[r] - bearing, &s, &c);
            float lateral = env->seen_v[r] * s;  /* its speed across the line of sight (counter-clockwise +) */
            o[23] = clampf(rc_wrap(bearing - env->gun[r]) / env->cone, -2, 2);
            o[24] = lateral * 0.125f;
            o[25] = env->seen_v[r] * c * 0.125f;  /* along it (away +) */
            for (int p = 1; p <= 3; p++) {
                float lead = asinf(clampf(lateral / (20.0f - 3.0f * p), -1, 1));
                o[25 + p] = clampf(rc_wrap(bearing + lead - env->gun[r]) / env->cone, -2, 2);
            }
        }
    }
}

static void c_reset(Env* env) {
    uint64_t* rng = &env->p.rng;
    for (int r = 0; r < 2; r++) {
        do {
            env->x[r] = 2 * RC_R + (RC_W - 4 * RC_R) * rng_float(rng);
            env->y[r] = 2 * RC_R + (RC_H - 4 * RC_R) * rng_float(rng);
        } while (r == 1 && (env->x[1] - env->x[0]) * (env->x[1] - env->x[0]) +
                                   (env->y[1] - env->y[0]) * (env->y[1] - env->y[0]) < 200.0f * 200.0f);
        env->heading[r] = env->gun[r] = rc_wrap(2 * RC_PI * rng_float(rng));
        env->v[r] = 0;
        env->energy[r] = 100;
        env->heat[r] = 3;
        env->since[r] = env->ever[r] = env->shots[r] = env->hits[r] = 0;
        env->pending[r] = env->ret[r] = 0;
        for (int b = 0; b < RC_BULLETS; b++) env->bullets[r][b].live = 0;
    }
    env->tick = 0;
    if (env->opponent != RC_NONE) env->agent_robot = rng_int(rng, 2);
    rc_sense(env);
    rc_observe(env);
}

/* Built-in player `kind`'s action for robot r (act: 4 ints). */
static void rc_builtin(Env* env, int r, int kind, int* act) {
    if (kind != RC_SCRIPTED) {
        static const int n[4] = {3, 3, 5, 4};
        for (int i = 0; i < 4; i++) act[i] = rng_int(&env->p.rng, n[i]);
        return;
    }
    float x = env->x[r], y = env->y[r], margin = 80;
    act[0] = 2;
    act[1] = 0;  /* circle left; near a wall, turn toward the centre */
    if (x < margin || y < margin || x > RC_W - margin || y > RC_H - margin) {
        float to_centre = rc_wrap(atan2f(RC_H / 2 - y, RC_W / 2 - x) - env->heading[r]);
        act[1] = to_centre > 0.1f ? 0 : to_centre < -0.1f ? 2 : 1;
    }
    act[2] = 4;  /* spin */
    act[3] = 0;
    if (env->seen_now[r]) {
        float dx = env->seen_x[r] - x, dy = env->seen_y[r] - y;
        float error = rc_wrap(atan2f(dy, dx) - env->gun[r]);
        float best = 1e9f;
        for (int a = 0; a < 5; a++) {
            float left = fabsf(error - RC_GUN_TURN[a]);
            if (left < best) { best = left; act[2] = a; }
        }
        if (fabsf(error) < 0.1f) act[3] = dx * dx + dy * dy < 150.0f * 150.0f ? 3 : 2;
    }
}

static void rc_damage(Env* env, int target, float amount, int source) {
    env->energy[target] -= amount;
    env->pending[target] -= 0.01f * amount;
    if (source >= 0) env->pending[source] += 0.01f * amount;
}

static void rc_move(Env* env, int r, const int* act) {
    float turn_max = (10.0f - 0.75f * fabsf(env->v[r])) * RC_DEG;
    float turn = act[1] == 0 ? turn_max : act[1] == 2 ? -turn_max : 0.0f;
    env->heading[r] = rc_wrap(env->heading[r] + turn);
    env->gun[r] = rc_wrap(env->gun[r] + turn + RC_GUN_TURN[act[2]]);
    env->heat[r] = fmaxf(env->heat[r] - 0.1f, 0.0f);
    float power = (float)act[3];
    if (act[3] && env->heat[r] <= 0 && env->energy[r] > power) {
        for (int b = 0; b < RC_BULLETS; b++) {
            RcBullet* bl = &env->bullets[r][b];
            if (bl->live) continue;
            float s, c, speed = 20.0f - 3.0f * power;
            fast_sincosf(env->gun[r], &s, &c);
            *bl = (RcBullet){env->x[r], env->y[r], speed * c, speed * s, power, 1};
            env->energy[r] -= power;
            if (env->energy_reward) env->pending[r] -= 0.01f * power;
            env->heat[r] = 1.0f + power / 5.0f;
            env->shots[r]++;
            break;
        }
    }
    float target = (float)(act[0] - 1) * 8.0f, v = env->v[r];
    /* toward the target speed: 1 a tick speeding up, 2 slowing down (toward 0 or through it) */
    if (v < target) v = v >= 0 ? fminf(v + 1, target) : fminf(v + 2, target);
    else if (v > target) v = v <= 0 ? fmaxf(v - 1, target) : fmaxf(v - 2, target);
    env->v[r] = v;
}

static void rc_bullets(Env* env) {
    for (int r = 0; r < 2; r++)
        for (int b = 0; b < RC_BULLETS; b++) {
            RcBullet* bl = &env->bullets[r][b];
            if (!bl->live) continue;
            int o = 1 - r;
            /* the closest point of this tick's path to the other robot */
            float px = env->x[o] - bl->x, py = env->y[o] - bl->y, len2 = bl->dx * bl->dx + bl->dy * bl->dy;
            float t = clampf((px * bl->dx + py * bl->dy) / len2, 0, 1);
            float ex = px - t * bl->dx, ey = py - t * bl->dy;
            if (ex * ex + ey * ey <= RC_R * RC_R) {
                float p = bl->power;
                rc_damage(env, o, 4 * p + 2 * fmaxf(p - 1, 0), r);
                env->energy[r] += 3 * p;
                if (env->energy_reward) env->pending[r] += 0.03f * p;
                env->hits[r]++;
                bl->live = 0;
                continue;
            }
            bl->x += bl->dx;
            bl->y += bl->dy;
            if (bl->x < 0 || bl->y < 0 || bl->x > RC_W || bl->y > RC_H) bl->live = 0;
        }
}

static void rc_end(Env* env, int winner) {  /* winner 0, 1, or -1: a draw */
    for (int k = 0; k < rc_rows(env); k++) {
        int me = rc_robot_of(env, k);
        float reward = env->pending[me] + (winner < 0 ? 0.0f : winner == me ? 1.0f : -1.0f);
        env->p.rewards[k] = reward;
        env->p.terminals[k] = 1;
        env->ret[me] += reward;
        ocean_outcome(&env->p, k, winner < 0 ? OCEAN_DRAW : winner == me ? OCEAN_WIN : OCEAN_LOSS);
        LOG_EPISODE(&env->log, .score = winner == me, .episode_return = env->ret[me], .episode_length = env->tick,
                    .draws = winner < 0, .shots = env->shots[me], .hits = env->hits[me]);
    }
    c_reset(env);
}

static void c_step(Env* env) {
    int rows = rc_rows(env), acts[2][4];
    env->tick++;
    for (int r = 0; r < 2; r++) {
        int k = rows == 2 ? r : (r == env->agent_robot ? 0 : -1);
        int builtin = k >= 0 ? ocean_player(&env->p, k) : env->opponent;  /* 0: the row's agent */
        if (builtin) rc_builtin(env, r, builtin, acts[r]);
        else for (int i = 0; i < 4; i++) acts[r][i] = env->p.actions[4 * k + i];
    }
    float old_x[2], old_y[2];
    for (int r = 0; r < 2; r++) {
        rc_move(env, r, acts[r]);
        old_x[r] = env->x[r];
        old_y[r] = env->y[r];
        float s, c;
        fast_sincosf(env->heading[r], &s, &c);
        float nx = env->x[r] + env->v[r] * c, ny = env->y[r] + env->v[r] * s;
        if (nx < RC_R || ny < RC_R || nx > RC_W - RC_R || ny > RC_H - RC_R) {
            rc_damage(env, r, fmaxf(fabsf(env->v[r]) * 0.5f - 1.0f, 0.0f), -1);
            nx = clampf(nx, RC_R, RC_W - RC_R);
            ny = clampf(ny, RC_R, RC_H - RC_R);
            env->v[r] = 0;
        }
        env->x[r] = nx;
        env->y[r] = ny;
    }
    float dx = env->x[1] - env->x[0], dy = env->y[1] - env->y[0];
    if (dx * dx + dy * dy < 4 * RC_R * RC_R) {  /* a ram: both stop where they were */
        for (int r = 0; r < 2; r++) {
            env->x[r] = old_x[r];
            env->y[r] = old_y[r];
            env->v[r] = 0;
            rc_damage(env, r, 0.6f, 1 - r);
        }
    }
    rc_bullets(env);
    int dead0 = env->energy[0] <= 0, dead1 = env->energy[1] <= 0;
    if (dead0 || dead1 || env->tick >= env->max_steps) {
        rc_end(env, dead0 == dead1 ? -1 : dead0 ? 1 : 0);
        return;
    }
    for (int k = 0; k < rows; k++) {
        int me = rc_robot_of(env, k);
        env->p.rewards[k] = env->pending[me];
        env->p.terminals[k] = 0;
        env->ret[me] += env->pending[me];
    }
    env->pending[0] = env->pending[1] = 0;
    rc_sense(env);
    rc_observe(env);
}

/* A 40 x 15 top view: 'A' robot 0, 'B' robot 1, '*' bullets; then energies. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, cols = 40, rows = 15;
    char grid[15][41];
    for (int r = 0; r < rows; r++) { memset(grid[r], '.', cols); grid[r][cols] = 0; }
    for (int r = 0; r < 2; r++)
        for (int b = 0; b < RC_BULLETS; b++)
            if (env->bullets[r][b].live) {
                int c = (int)(env->bullets[r][b].x / RC_W * cols), w = (int)(env->bullets[r][b].y / RC_H * rows);
                if (c >= 0 && c < cols && w >= 0 && w < rows) grid[w][c] = '*';
            }
    for (int r = 0; r < 2; r++) {
        int c = (int)(env->x[r] / RC_W * cols), w = (int)(env->y[r] / RC_H * rows);
        grid[w < rows ? w : rows - 1][c < cols ? c : cols - 1] = r ? 'B' : 'A';
    }
    for (int r = 0; r < rows; r++) ANSI_APPEND(buf, cap, len, "%s\n", grid[r]);
    ANSI_APPEND(buf, cap, len, "energy A %.1f B %.1f  tick %d\n", env->energy[0], env->energy[1], env->tick);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    float sx = w / RC_W, sy = h / RC_H;
    for (int r = 0; r < 2; r++) {
        int u = (int)(env->x[r] * sx), v = (int)(env->y[r] * sy), size = (int)(2 * RC_R * sx);
        if (r) draw_rect(px, w, h, u - size / 2, v - size / 2, size, size, PUFFER_RED);
        else draw_rect(px, w, h, u - size / 2, v - size / 2, size, size, PUFFER_CYAN);
        float s, c;
        fast_sincosf(env->gun[r], &s, &c);
        for (int i = 1; i <= 4; i++)
            draw_rect(px, w, h, u + (int)(c * 4 * i) - 1, v + (int)(s * 4 * i) - 1, 2, 2, PUFFER_YELLOW);
        for (int b = 0; b < RC_BULLETS; b++)
            if (env->bullets[r][b].live)
                draw_rect(px, w, h, (int)(env->bullets[r][b].x * sx) - 1, (int)(env->bullets[r][b].y * sy) - 1, 3, 3,
                          PUFFER_ORANGE);
    }
}

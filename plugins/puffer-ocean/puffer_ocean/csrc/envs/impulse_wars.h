/* impulse_wars: drones in a walled arena push each other into death pits with an impulse burst.
 *
 * A square arena `size` units wide (x and y in [0, size], y up) inside solid walls, with `pits`
 * death pits: squares of side 3 placed at random per game, away from the spawn points and each
 * other. `num_drones` drones (2-4), circles of radius 0.5 and mass 1, start on a circle of radius
 * 0.3 size about the centre, evenly spaced from a random angle, at rest. Every step, at once for
 * all living drones: (1) the bursts: a drone that fires while its cooldown is 0 gives every other
 * living drone whose centre is within 3 units of its own a velocity kick straight away from it,
 * 0.7 at contact falling linearly to 0.35 at 3 units, and waits `cooldown` steps to fire again (all
 * bursts of a step see the positions before it); (2) the motion: the move adds 0.03 in its
 * direction to the velocity, the velocity is damped by 0.94 and capped at 1.5, the position moves
 * by it; (3) the contacts, in one pass: two overlapping drones are moved apart along the line of
 * their centres, half each, and if they approach, their velocities along it are exchanged with
 * restitution 0.8; a drone past a wall is put back against it and its velocity across the wall
 * reversed with restitution 0.5; (4) a drone whose circle overlaps a pit or the deadly border
 * dies (it leaves the arena); (5) cooldowns count down. Sudden death: after `sudden_death` steps
 * (default 150; 0 never) a deadly border closes in from the walls, 0.04 units a step, until a
 * square of side 3 is left in the middle (upstream's sudden-death walls, closing smoothly here).
 * The game ends when at most one drone lives: the survivor wins (+1, outcome 1), the others lose
 * (-1, outcome 0); drones that die in the same step as the last rival draw (0, outcome 0.5). It is
 * truncated after `max_steps` steps (reward 0, no outcome). Each step also costs every drone alive
 * at its start `step_cost` (default 0; at 1 / max_steps running out the clock is worth as little as
 * a loss). `push_reward` (default 0) pays a drone, for each rival its burst kicks, push_reward x
 * (the kick / 0.7) x the cosine between the kick and the way to the rival's nearest hazard (when
 * positive): a shaped term for pushing rivals toward a hazard. With sudden death before `max_steps`
 * (the default: the square is left at step 313 of 500) nearly every game is decided.
 *
 * Actions MultiDiscrete([9, 2]): a move (0 none, 1-8 the compass directions counterclockwise from
 * east: 1 east, 3 north, 5 west, 7 south) and fire (1). Observation (45 floats, the row's own
 * view): own x and y (scaled to [-1, 1]), vx, vy, cooldown left / `cooldown`, the nearest hazard
 * point (of a pit or the deadly border) relative to its centre / size (zeros where there is none),
 * how far the border has moved in (2 border / size, in the units of own x), the time to sudden
 * death ((tick - sudden_death) / sudden_death in [-1, 1]; -1 without it); then for the other
 * drones in order after its own (slots past num_drones - 1 zero): their position relative to its
 * own / size, their velocity relative to its own, alive, cooldown left / `cooldown`, and their
 * nearest hazard point relative to their centre / size (can it be pushed into one?); then for
 * each pit slot (4): the nearest point of the pit relative to its own centre / size and 1 (zeros
 * where there is no pit). The walls are at own x and y = -1 and 1.
 *
 * `opponent` (pufferlib's names: 0 "none", 1 "scripted", the default, 2 "random"): with "none"
 * every drone is an agent (a game of num_drones rows; a dead drone's row is masked until the
 * game ends); otherwise the agent flies one drone, drawn per game, against built-in drones:
 * "scripted" goes for the nearest living rival: it flies toward the spot 1.5 units behind the
 * rival as seen from the hazard nearest to the rival (the rival itself once it is lined up between
 * the two, or where there is no hazard), in the one of the 8 directions closest to that spot whose
 * point 2 units ahead (plus 4 steps of its velocity) is clear of the hazards, and fires when the
 * rival is within 2.7 units and lined up (or within 1.5 units);
 * "random" takes random actions. With "none", any drone may be flown by a built-in one instead
 * (the `players` input: self-play's anchors). score: games won; knockouts: rivals that died
 * within 60 steps of this drone's last burst on them.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", any drone may be flown by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(knockouts)
#define IW_MAXD 4
#define IW_MAXP 4
#define PARAMS(P) P(int, num_drones, 2, 2, IW_MAXD) P(int, opponent, 1, 0, 2) P(int, size, 16, 8, 40) \
    P(int, pits, 2, 0, IW_MAXP) P(int, cooldown, 15, 1, 1000) P(int, max_steps, 500, 1, 10000000) \
    P(float, step_cost, 0, 0, 1) P(int, sudden_death, 150, 0, 10000000) \
    P(float, push_reward, 0, 0, 1)
#define IW_DRONE_FIELDS(F, i) F(float, x[i]) F(float, y[i]) F(float, vx[i]) F(float, vy[i]) \
    F(int, cooldown_left[i]) F(int, alive[i])
#define IW_PIT_FIELDS(F, i) F(float, pit_x[i]) F(float, pit_y[i])
#define FIELDS(F) IW_DRONE_FIELDS(F, 0) IW_DRONE_FIELDS(F, 1) IW_DRONE_FIELDS(F, 2) IW_DRONE_FIELDS(F, 3) \
    IW_PIT_FIELDS(F, 0) IW_PIT_FIELDS(F, 1) IW_PIT_FIELDS(F, 2) IW_PIT_FIELDS(F, 3) \
    F(int, num_pits) F(int, agent_player) F(int, tick)
#include "../puffer.h"

#define IW_NONE 0
#define IW_SCRIPTED 1
#define IW_R 0.5f          /* drone radius */
#define IW_ACCEL 0.03f
#define IW_DAMP 0.94f
#define IW_VMAX 1.5f
#define IW_RANGE 3.0f      /* burst reach, centre to centre */
#define IW_KICK 0.7f       /* burst kick at contact; half of it at IW_RANGE */
#define IW_E_DRONE 0.8f
#define IW_E_WALL 0.5f
#define IW_PIT 3.0f        /* pit side */
#define IW_CREDIT 60       /* steps a burst stays the cause of a death (knockouts) */
#define IW_CLOSE 0.04f    /* units a step the deadly border moves in during sudden death */
#define IW_OWN 9           /* own entries of the observation */
#define IW_OTHER 8         /* entries per other drone */
#define IW_OBS (IW_OWN + IW_OTHER * (IW_MAXD - 1) + 3 * IW_MAXP)

static const float IW_DX[9] = {0, 1, 0.70710678f, 0, -0.70710678f, -1, -0.70710678f, 0, 0.70710678f};
static const float IW_DY[9] = {0, 0, 0.70710678f, 1, 0.70710678f, 0, -0.70710678f, -1, -0.70710678f};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float x[IW_MAXD], y[IW_MAXD], vx[IW_MAXD], vy[IW_MAXD];
    int cooldown_left[IW_MAXD], alive[IW_MAXD];
    int hit_by[IW_MAXD], hit_tick[IW_MAXD], knockouts[IW_MAXD];
    float ret[IW_MAXD];  /* each drone's return this game */
    float pit_x[IW_MAXP], pit_y[IW_MAXP];  /* lower-left corners */
    int num_pits, agent_player, tick;
} Env;

static inline int iw_rows(Env* env) { return env->opponent == IW_NONE ? env->num_drones : 1; }
static inline int iw_drone_of(Env* env, int k) { return env->opponent == IW_NONE ? k : env->agent_player; }
static inline int iw_row_of(Env* env, int d) {
    return env->opponent == IW_NONE ? d : d == env->agent_player ? 0 : -1;
}

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, iw_rows(env));
    ocean_obs_flat(s, IW_OBS, -2, 2);
    ocean_act_multidiscrete(s, 2, (const int[]){9, 2});
    ocean_render_size(s, 16 * env->size, 16 * env->size);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* The offset from (x, y) to the nearest point of pit i. */
static inline void iw_pit_offset(Env* env, int i, float x, float y, float* dx, float* dy) {
    float nx = x < env->pit_x[i] ? env->pit_x[i] : x > env->pit_x[i] + IW_PIT ? env->pit_x[i] + IW_PIT : x;
    float ny = y < env->pit_y[i] ? env->pit_y[i] : y > env->pit_y[i] + IW_PIT ? env->pit_y[i] + IW_PIT : y;
    *dx = nx - x;
    *dy = ny - y;
}

/* How far the deadly border has moved in from the walls: 0 until `sudden_death` steps have
 * passed, then IW_CLOSE more a step, until a square of side 3 is left. */
static inline float iw_border(Env* env) {
    if (env->sudden_death <= 0 || env->tick <= env->sudden_death) return 0;
    float m = IW_CLOSE * (float)(env->tick - env->sudden_death), most = 0.5f * (float)env->size - 1.5f;
    return m < most ? m : most;
}

/* The offset from (x, y) to the nearest hazard: the nearest point of any pit or, during sudden
 * death, of the deadly border; (0, 0) where there is none. */
static void iw_hazard_offset(Env* env, float x, float y, float* hx, float* hy) {
    float best = 1e30f, m = iw_border(env), hi = (float)env->size - m;
    *hx = *hy = 0;
    for (int i = 0; i < env->num_pits; i++) {
        float dx, dy;
        iw_pit_offset(env, i, x, y, &dx, &dy);
        if (dx * dx + dy * dy < best) { best = dx * dx + dy * dy; *hx = dx; *hy = dy; }
    }
    if (m <= 0) return;
    const float cand[4][2] = {{m - x, 0}, {hi - x, 0}, {0, m - y}, {0, hi - y}};
    for (int i = 0; i < 4; i++) {
        float d2 = cand[i][0] * cand[i][0] + cand[i][1] * cand[i][1];
        if (d2 < best) { best = d2; *hx = cand[i][0]; *hy = cand[i][1]; }
    }
}

/* Whether a circle of radius r at (x, y) overlaps a pit or, during sudden death, the deadly border. */
static int iw_in_pit(Env* env, float x, float y, float r) {
    for (int i = 0; i < env->num_pits; i++) {
        float dx, dy;
        iw_pit_offset(env, i, x, y, &dx, &dy);
        if (dx * dx + dy * dy < r * r) return 1;
    }
    float m = iw_border(env);
    return m > 0 && (x - r < m || y - r < m || x + r > (float)env->size - m || y + r > (float)env->size - m);
}

static void iw_observe(Env* env) {
    float inv = 1.0f / (float)env->size, cd = 1.0f / (float)env->cooldown, border = iw_border(env), hx, hy;
    for (int k = 0; k < iw_rows(env); k++) {
        int me = iw_drone_of(env, k);
        float* o = (float*)env->p.observations + k * IW_OBS;
        memset(o, 0, sizeof(float) * IW_OBS);
        o[0] = 2 * env->x[me] * inv - 1; o[1] = 2 * env->y[me] * inv - 1;
        o[2] = clampf(env->vx[me], -2, 2); o[3] = clampf(env->vy[me], -2, 2);
        o[4] = env->cooldown_left[me] * cd;
        iw_hazard_offset(env, env->x[me], env->y[me], &hx, &hy);
        o[5] = hx * inv; o[6] = hy * inv;
        o[7] = 2 * border * inv;
        o[8] = env->sudden_death > 0
                   ? clampf((float)(env->tick - env->sudden_death) / (float)env->sudden_death, -1, 1) : -1;
        for (int j = 1; j < env->num_drones; j++) {
            int d = (me + j) % env->num_drones;
            float* s = o + IW_OWN + IW_OTHER * (j - 1);
            if (!env->alive[d]) continue;
            s[0] = (env->x[d] - env->x[me]) * inv; s[1] = (env->y[d] - env->y[me]) * inv;
            s[2] = clampf(env->vx[d] - env->vx[me], -2, 2); s[3] = clampf(env->vy[d] - env->vy[me], -2, 2);
            s[4] = 1; s[5] = env->cooldown_left[d] * cd;
            iw_hazard_offset(env, env->x[d], env->y[d], &hx, &hy);
            s[6] = hx * inv; s[7] = hy * inv;
        }
        for (int i = 0; i < env->num_pits; i++) {
            float* s = o + IW_OWN + IW_OTHER * (IW_MAXD - 1) + 3 * i, dx, dy;
            iw_pit_offset(env, i, env->x[me], env->y[me], &dx, &dy);
            s[0] = dx * inv; s[1] = dy * inv; s[2] = 1;
        }
    }
}

static void c_reset(Env* env) {
    float c = 0.5f * (float)env->size, ring = 0.3f * (float)env->size;
    float a0 = 6.2831853f * rng_float(&env->p.rng);
    for (int d = 0; d < IW_MAXD; d++) {
        float a = a0 + 6.2831853f * (float)d / (float)env->num_drones;
        int on = d < env->num_drones;
        env->x[d] = on ? c + ring * cosf(a) : 0; env->y[d] = on ? c + ring * sinf(a) : 0;
        env->vx[d] = env->vy[d] = 0;
        env->cooldown_left[d] = 0;
        env->alive[d] = on;
        env->hit_by[d] = -1; env->hit_tick[d] = 0; env->knockouts[d] = 0; env->ret[d] = 0;
    }
    env->num_pits = 0;
    for (int i = 0; i < IW_MAXP; i++) env->pit_x[i] = env->pit_y[i] = 0;
    for (int i = 0; i < env->pits; i++) {
        for (int tries = 0; tries < 64; tries++) {  /* bounded: a crowded small arena may get fewer */
            float px = 1 + rng_float(&env->p.rng) * ((float)env->size - 2 - IW_PIT);
            float py = 1 + rng_float(&env->p.rng) * ((float)env->size - 2 - IW_PIT);
            int ok = 1;
            for (int d = 0; d < env->num_drones && ok; d++) {
                float nx = env->x[d] < px ? px : env->x[d] > px + IW_PIT ? px + IW_PIT : env->x[d];
                float ny = env->y[d] < py ? py : env->y[d] > py + IW_PIT ? py + IW_PIT : env->y[d];
                ok = (nx - env->x[d]) * (nx - env->x[d]) + (ny - env->y[d]) * (ny - env->y[d]) > 2.5f * 2.5f;
            }
            for (int j = 0; j < env->num_pits && ok; j++)
                ok = fabsf(px - env->pit_x[j]) > IW_PIT + 1 || fabsf(py - env->pit_y[j]) > IW_PIT + 1;
            if (!ok) continue;
            env->pit_x[env->num_pits] = px; env->pit_y[env->num_pits] = py;
            env->num_pits++;
            break;
        }
    }
    env->tick = 0;
    if (env->opponent != IW_NONE) env->agent_player = rng_int(&env->p.rng, env->num_drones);
    for (int k = 0; k < iw_rows(env); k++) env->p.masks[k] = 1;
    iw_observe(env);
}

/* The action (move, fire) of built-in drone `kind` (IW_SCRIPTED or 2, random) for drone d. */
static void iw_builtin(Env* env, int d, int kind, int* move, int* fire) {
    if (kind != IW_SCRIPTED) {
        *move = rng_int(&env->p.rng, 9);
        *fire = rng_int(&env->p.rng, 2);
        return;
    }
    int target = -1;
    float best = 1e30f;
    for (int o = 0; o < env->num_drones; o++) {
        if (o == d || !env->alive[o]) continue;
        float dx = env->x[o] - env->x[d], dy = env->y[o] - env->y[d], d2 = dx * dx + dy * dy;
        if (d2 < best) { best = d2; target = o; }
    }
    *move = 0;
    *fire = 0;
    if (target < 0) return;
    /* the spot 1.5 units behind the rival, seen from the hazard nearest to it (the rival itself
     * where there is none) */
    float gx = env->x[target], gy = env->y[target], px, py;
    iw_hazard_offset(env, gx, gy, &px, &py);
    float pd = px * px + py * py, aligned = 1;
    if (pd > 1e-6f) {
        float l = sqrtf(pd), ux = px / l, uy = py / l, tx = gx - env->x[d], ty = gy - env->y[d];
        float tl = sqrtf(tx * tx + ty * ty) + 1e-6f;
        aligned = (tx * ux + ty * uy) / tl;  /* 1: the rival is between this drone and the pit */
        if (aligned < 0.7f) { gx -= 1.5f * ux; gy -= 1.5f * uy; }
    }
    float dx = gx - env->x[d], dy = gy - env->y[d], best_dot = -1e30f;
    for (int m = 1; m < 9; m++) {
        float ax = env->x[d] + 2 * IW_DX[m] + 4 * env->vx[d], ay = env->y[d] + 2 * IW_DY[m] + 4 * env->vy[d];
        if (iw_in_pit(env, ax, ay, IW_R)) continue;
        float dot = IW_DX[m] * dx + IW_DY[m] * dy;
        if (dot > best_dot) { best_dot = dot; *move = m; }
    }
    *fire = best < 0.9f * IW_RANGE * 0.9f * IW_RANGE && (aligned >= 0.7f || best < 1.5f * 1.5f);
}

static void iw_collide(Env* env, int a, int b) {
    float dx = env->x[b] - env->x[a], dy = env->y[b] - env->y[a], d2 = dx * dx + dy * dy;
    if (d2 >= 4 * IW_R * IW_R) return;
    float d = sqrtf(d2), nx = 1, ny = 0;
    if (d > 1e-6f) { nx = dx / d; ny = dy / d; }
    float push = 0.5f * (2 * IW_R - d);
    env->x[a] -= push * nx; env->y[a] -= push * ny;
    env->x[b] += push * nx; env->y[b] += push * ny;
    float approach = (env->vx[a] - env->vx[b]) * nx + (env->vy[a] - env->vy[b]) * ny;
    if (approach > 0) {  /* equal masses: each takes half of (1 + e) times the closing speed */
        float j = 0.5f * (1 + IW_E_DRONE) * approach;
        env->vx[a] -= j * nx; env->vy[a] -= j * ny;
        env->vx[b] += j * nx; env->vy[b] += j * ny;
    }
}

static void iw_walls(Env* env, int d) {
    float hi = (float)env->size - IW_R;
    if (env->x[d] < IW_R) { env->x[d] = IW_R; if (env->vx[d] < 0) env->vx[d] *= -IW_E_WALL; }
    if (env->x[d] > hi) { env->x[d] = hi; if (env->vx[d] > 0) env->vx[d] *= -IW_E_WALL; }
    if (env->y[d] < IW_R) { env->y[d] = IW_R; if (env->vy[d] < 0) env->vy[d] *= -IW_E_WALL; }
    if (env->y[d] > hi) { env->y[d] = hi; if (env->vy[d] > 0) env->vy[d] *= -IW_E_WALL; }
}

/* The game ends: `winner` the surviving drone, or -1 (a draw between `died_now`, or truncated). */
static void iw_end(Env* env, int winner, const int* died_now, int truncated) {
    for (int k = 0; k < iw_rows(env); k++) {
        int me = iw_drone_of(env, k);
        float result = winner == me ? OCEAN_WIN : winner < 0 && died_now[me] ? OCEAN_DRAW : OCEAN_LOSS;
        env->p.rewards[k] += truncated ? 0.0f : 2 * result - 1;  /* after this step's step_cost */
        env->ret[me] += env->p.rewards[k];
        env->p.terminals[k] = !truncated;
        env->p.truncations[k] = (uint8_t)truncated;
        env->p.masks[k] = 1;
        ocean_outcome(&env->p, k, truncated ? NAN : result);
        ocean_keep_final(&env->p, k);
        LOG_EPISODE(&env->log, .score = !truncated && winner == me, .episode_return = env->ret[me],
                    .episode_length = env->tick, .knockouts = env->knockouts[me]);
    }
    c_reset(env);
}

static void c_step(Env* env) {
    int rows = iw_rows(env), n = env->num_drones, move[IW_MAXD], fire[IW_MAXD], died_now[IW_MAXD];
    env->tick++;
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    for (int d = 0; d < n; d++) {
        move[d] = fire[d] = died_now[d] = 0;
        if (!env->alive[d]) continue;
        int k = iw_row_of(env, d);
        int builtin = k >= 0 ? ocean_player(&env->p, k) : env->opponent;  /* 0: the row's agent */
        if (builtin) iw_builtin(env, d, builtin, &move[d], &fire[d]);
        else { move[d] = env->p.actions[2 * k]; fire[d] = env->p.actions[2 * k + 1]; }
    }
    float kick_x[IW_MAXD] = {0}, kick_y[IW_MAXD] = {0}, shaped[IW_MAXD] = {0};
    for (int d = 0; d < n; d++) {  /* (1) the bursts, from the positions before the step */
        if (!env->alive[d] || !fire[d] || env->cooldown_left[d] > 0) continue;
        env->cooldown_left[d] = env->cooldown + 1;  /* counted down at the end of this step */
        for (int o = 0; o < n; o++) {
            if (o == d || !env->alive[o]) continue;
            float dx = env->x[o] - env->x[d], dy = env->y[o] - env->y[d], dist = sqrtf(dx * dx + dy * dy);
            if (dist > IW_RANGE) continue;
            float nx = 1, ny = 0;
            if (dist > 1e-6f) { nx = dx / dist; ny = dy / dist; }
            float t = (dist - 2 * IW_R) / (IW_RANGE - 2 * IW_R), kick = IW_KICK * (1 - 0.5f * clampf(t, 0, 1));
            kick_x[o] += kick * nx; kick_y[o] += kick * ny;
            if (env->push_reward > 0) {  /* the kick's share toward the hazard nearest the rival */
                float hx, hy;
                iw_hazard_offset(env, env->x[o], env->y[o], &hx, &hy);
                float hl = sqrtf(hx * hx + hy * hy);
                if (hl > 1e-6f) shaped[d] += env->push_reward * fmaxf(0, (nx * hx + ny * hy) / hl) * kick / IW_KICK;
            }
            env->hit_by[o] = d; env->hit_tick[o] = env->tick;
        }
    }
    for (int d = 0; d < n; d++) {  /* (2) the motion */
        if (!env->alive[d]) continue;
        float vx = (env->vx[d] + kick_x[d] + IW_ACCEL * IW_DX[move[d]]) * IW_DAMP;
        float vy = (env->vy[d] + kick_y[d] + IW_ACCEL * IW_DY[move[d]]) * IW_DAMP;
        float speed = sqrtf(vx * vx + vy * vy);
        if (speed > IW_VMAX) { vx *= IW_VMAX / speed; vy *= IW_VMAX / speed; }
        env->vx[d] = vx; env->vy[d] = vy;
        env->x[d] += vx; env->y[d] += vy;
    }
    for (int a = 0; a < n; a++)  /* (3) the contacts */
        for (int b = a + 1; b < n; b++)
            if (env->alive[a] && env->alive[b]) iw_collide(env, a, b);
    for (int d = 0; d < n; d++) if (env->alive[d]) iw_walls(env, d);
    int living = 0, survivor = -1;
    for (int d = 0; d < n; d++) {  /* (4) the pits; (5) the cooldowns */
        if (!env->alive[d]) continue;
        if (iw_in_pit(env, env->x[d], env->y[d], IW_R)) {
            env->alive[d] = 0;
            died_now[d] = 1;
            env->vx[d] = env->vy[d] = 0;
            int by = env->hit_by[d];
            if (by >= 0 && env->tick - env->hit_tick[d] <= IW_CREDIT) env->knockouts[by]++;
            continue;
        }
        if (env->cooldown_left[d] > 0) env->cooldown_left[d]--;
        living++;
        survivor = d;
    }
    for (int k = 0; k < rows; k++) {  /* the cost of a step to every drone that began it alive */
        int me = iw_drone_of(env, k);
        if (env->alive[me] || died_now[me]) env->p.rewards[k] = shaped[me] - env->step_cost;
    }
    iw_observe(env);
    int agent_dead = env->opponent != IW_NONE && !env->alive[env->agent_player];
    if (living <= 1 || agent_dead) {
        iw_end(env, living >= 1 ? survivor : -1, died_now, 0);  /* a dead agent with rivals left loses */
        return;
    }
    if (env->tick >= env->max_steps) {
        iw_end(env, -1, died_now, 1);
        return;
    }
    for (int k = 0; k < rows; k++) {
        env->p.masks[k] = (uint8_t)env->alive[iw_drone_of(env, k)];
        env->ret[iw_drone_of(env, k)] += env->p.rewards[k];
    }
}

/* One character per unit cell: '#' the walls, 'X' pits, 'A'-'D' the drones ('a'-'d' cooling). */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, n = env->size;
    for (int r = -1; r <= n; r++) {
        for (int c = -1; c <= n; c++) {
            float x = c + 0.5f, y = n - r - 0.5f;
            char ch = r < 0 || c < 0 || r == n || c == n ? '#' : iw_in_pit(env, x, y, 1e-3f) ? 'X' : '.';
            for (int d = 0; d < env->num_drones; d++)
                if (env->alive[d] && (int)floorf(env->x[d]) == c && (int)floorf(env->y[d]) == n - 1 - r)
                    ch = (char)((env->cooldown_left[d] ? 'a' : 'A') + d);
            ANSI_APPEND(buf, cap, len, "%c", ch);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    static const uint8_t colours[IW_MAXD][3] = {{PUFFER_CYAN}, {PUFFER_RED}, {PUFFER_YELLOW}, {PUFFER_GREEN}};
    float s = (float)w / (float)env->size;
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < env->num_pits; i++)
        draw_rect(px, w, h, (int)(env->pit_x[i] * s), h - (int)((env->pit_y[i] + IW_PIT) * s), (int)(IW_PIT * s),
                  (int)(IW_PIT * s), PUFFER_ORANGE);
    for (int d = 0; d < env->num_drones; d++) {
        if (!env->alive[d]) continue;
        const uint8_t* c = colours[d];
        int x = (int)((env->x[d] - IW_R) * s), y = h - (int)((env->y[d] + IW_R) * s);
        draw_rect(px, w, h, x, y, (int)(2 * IW_R * s), (int)(2 * IW_R * s), c[0], c[1], c[2]);
    }
}

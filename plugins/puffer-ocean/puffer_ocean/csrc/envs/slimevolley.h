/* slimevolley: two slimes play volleyball over a net (after Slime Volleyball); first to `points`.
 *
 * A court 2 wide, a net 0.04 wide and 0.25 high at its middle; player 0 on the left, player 1
 * on the right, each a half disc of radius 0.12 kept on its own side. Both act at once (a
 * simultaneous game). Actions, in the player's own frame (forward = toward the net): 0 stay,
 * 1 back, 2 forward, 3 jump, 4 jump and back, 5 jump and forward; a slime runs at 0.02 per
 * step and jumps (only from the ground) at 0.05, under gravity 0.003. The ball (radius 0.04,
 * gravity 0.0015, speed capped at 0.06) bounces off the side walls, the net and the slimes (its
 * velocity relative to the slime reflected, plus the slime's own). A point ends when the ball
 * touches the ground: the other side scores, reward +1 to the scorer and -1 to the other, and
 * the next ball drops above the loser. The game ends when a side has `points` points
 * (outcomes 1 / 0), and is truncated after `max_steps` (no outcome). Observation (14 floats,
 * the row's own frame, x mirrored for player 1): own x - 1, y, vx, vy; the ball's; the other
 * slime's (velocities x 20); own and the other's points / `points`. `opponent` (pufferlib's
 * names: 0 "none", 1 "scripted", the default, 2 "random"): with "none" both slimes are agents
 * (a game of two rows); otherwise the agent plays a side drawn per game against the built-in
 * slime: "scripted" runs under the falling ball on its side (home otherwise) and jumps when it
 * is near and low; "random" takes random actions. With "none", either slime may be played by
 * a built-in slime instead (the `players` input: self-play's anchors). score: games won.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either slime may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(points_won)
#define PARAMS(P) P(int, points, 3, 1, 100) P(int, opponent, 1, 0, 2) P(int, max_steps, 3000, 1, 10000000)
#define FIELDS(F) F(float, px[0]) F(float, py[0]) F(float, px[1]) F(float, py[1]) F(float, bx) F(float, by) \
    F(float, bvx) F(float, bvy) F(int, score[0]) F(int, score[1]) F(int, agent_player) F(int, tick)
#include "../puffer.h"

#define SV_NONE 0
#define SV_SCRIPTED 1
#define SV_R 0.12f        /* slime radius */
#define SV_BALL 0.04f     /* ball radius */
#define SV_NET_H 0.25f
#define SV_NET_W 0.02f    /* half the net's width */
#define SV_RUN 0.02f
#define SV_JUMP 0.05f
#define SV_G 0.003f
#define SV_BALL_G 0.0015f
#define SV_VMAX 0.06f

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float px[2], py[2], pvx[2], pvy[2];
    float bx, by, bvx, bvy;
    int score[2], agent_player, tick;
    float ret[2];
} Env;

static inline int sv_rows(Env* env) { return env->opponent == SV_NONE ? 2 : 1; }
static inline int sv_player_of(Env* env, int k) { return env->opponent == SV_NONE ? k : env->agent_player; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, sv_rows(env));
    ocean_obs_flat(s, 14, -2, 2);
    ocean_act_discrete(s, 6);
    ocean_render_size(s, 256, 160);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* x in player p's frame: its own back wall at 0, the net at 1. */
static inline float sv_x(int p, float x) { return p == 0 ? x : 2 - x; }

static void sv_observe(Env* env) {
    for (int k = 0; k < sv_rows(env); k++) {
        int me = sv_player_of(env, k), other = 1 - me;
        float flip = me == 0 ? 1.0f : -1.0f, *o = (float*)env->p.observations + 14 * k;
        o[0] = sv_x(me, env->px[me]) - 1; o[1] = env->py[me]; o[2] = 20 * flip * env->pvx[me]; o[3] = 20 * env->pvy[me];
        o[4] = sv_x(me, env->bx) - 1; o[5] = env->by; o[6] = 20 * flip * env->bvx; o[7] = 20 * env->bvy;
        o[8] = sv_x(me, env->px[other]) - 1; o[9] = env->py[other];
        o[10] = 20 * flip * env->pvx[other]; o[11] = 20 * env->pvy[other];
        o[12] = (float)env->score[me] / (float)env->points;
        o[13] = (float)env->score[other] / (float)env->points;
    }
}

static void sv_serve(Env* env, int side) {  /* the ball drops above the middle of `side`'s half */
    env->bx = side == 0 ? 0.5f : 1.5f;
    env->by = 0.8f;
    env->bvx = env->bvy = 0;
    env->px[0] = 0.5f; env->px[1] = 1.5f;
    for (int p = 0; p < 2; p++) env->py[p] = env->pvx[p] = env->pvy[p] = 0;
}

static void c_reset(Env* env) {
    env->score[0] = env->score[1] = 0;
    env->ret[0] = env->ret[1] = 0;
    env->tick = 0;
    if (env->opponent != SV_NONE) env->agent_player = rng_int(&env->p.rng, 2);
    sv_serve(env, rng_int(&env->p.rng, 2));
    sv_observe(env);
}

/* The action of built-in slime `kind` (SV_SCRIPTED or 2, random) for player p (in its own frame). */
static int sv_builtin(Env* env, int p, int kind) {
    if (kind != SV_SCRIPTED) return rng_int(&env->p.rng, 6);
    float me = sv_x(p, env->px[p]), ball = sv_x(p, env->bx);
    float target = ball < 1 ? ball - 0.04f : 0.5f;  /* a little behind the ball: it goes forward */
    int move = target < me - 0.01f ? 1 : target > me + 0.01f ? 2 : 0;
    int jump = ball < 1 && fabsf(ball - me) < 0.15f && env->by < 0.45f && env->bvy < 0 && env->py[p] <= 0;
    return move + 3 * jump;
}

static void sv_move(Env* env, int p, int action) {
    int move = action % 3, jump = action >= 3;
    float dir = (move == 1 ? -1.0f : move == 2 ? 1.0f : 0.0f) * (p == 0 ? 1.0f : -1.0f);
    env->pvx[p] = dir * SV_RUN;
    if (jump && env->py[p] <= 0) env->pvy[p] = SV_JUMP;
    env->pvy[p] -= SV_G;
    env->px[p] += env->pvx[p];
    env->py[p] += env->pvy[p];
    if (env->py[p] <= 0) { env->py[p] = 0; env->pvy[p] = 0; }
    float lo = p == 0 ? SV_R : 1 + SV_NET_W + SV_R, hi = p == 0 ? 1 - SV_NET_W - SV_R : 2 - SV_R;
    env->px[p] = env->px[p] < lo ? lo : env->px[p] > hi ? hi : env->px[p];
}

static void sv_bounce_slime(Env* env, int p) {
    float dx = env->bx - env->px[p], dy = env->by - env->py[p], d = sqrtf(dx * dx + dy * dy);
    if (d >= SV_R + SV_BALL || d <= 0 || dy < 0) return;
    float nx = dx / d, ny = dy / d, rvx = env->bvx - env->pvx[p], rvy = env->bvy - env->pvy[p];
    float along = rvx * nx + rvy * ny;
    if (along < 0) {
        env->bvx = rvx - 2 * along * nx + env->pvx[p];
        env->bvy = rvy - 2 * along * ny + env->pvy[p];
    }
    env->bx = env->px[p] + nx * (SV_R + SV_BALL);
    env->by = env->py[p] + ny * (SV_R + SV_BALL);
}

static void sv_ball(Env* env) {
    env->bvy -= SV_BALL_G;
    env->bx += env->bvx;
    env->by += env->bvy;
    if (env->bx < SV_BALL) { env->bx = SV_BALL; env->bvx = fabsf(env->bvx); }
    if (env->bx > 2 - SV_BALL) { env->bx = 2 - SV_BALL; env->bvx = -fabsf(env->bvx); }
    if (fabsf(env->bx - 1) < SV_NET_W + SV_BALL && env->by < SV_NET_H + SV_BALL) {
        if (env->by > SV_NET_H && env->bvy < 0) {  /* on top of the net */
            env->by = SV_NET_H + SV_BALL;
            env->bvy = -env->bvy;
        } else {  /* its side: back to the side it came from */
            int left = env->bx < 1;
            env->bx = left ? 1 - SV_NET_W - SV_BALL : 1 + SV_NET_W + SV_BALL;
            env->bvx = left ? -fabsf(env->bvx) : fabsf(env->bvx);
        }
    }
    for (int p = 0; p < 2; p++) sv_bounce_slime(env, p);
    float speed = sqrtf(env->bvx * env->bvx + env->bvy * env->bvy);
    if (speed > SV_VMAX) { env->bvx *= SV_VMAX / speed; env->bvy *= SV_VMAX / speed; }
}

static void sv_end(Env* env, int winner, int truncated) {
    for (int k = 0; k < sv_rows(env); k++) {
        int me = sv_player_of(env, k);
        env->p.terminals[k] = !truncated;
        env->p.truncations[k] = (uint8_t)truncated;
        ocean_outcome(&env->p, k, truncated ? NAN : winner == me ? OCEAN_WIN : OCEAN_LOSS);
        ocean_keep_final(&env->p, k);
        LOG_EPISODE(&env->log, .score = !truncated && winner == me, .episode_return = env->ret[me],
                    .episode_length = env->tick, .points_won = env->score[me]);
    }
    c_reset(env);
}

static void c_step(Env* env) {
    int rows = sv_rows(env);
    env->tick++;
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    for (int p = 0; p < 2; p++) {
        int k = rows == 2 ? p : (p == env->agent_player ? 0 : -1);
        int builtin = k >= 0 ? ocean_player(&env->p, k) : env->opponent;  /* 0: the row's agent */
        sv_move(env, p, builtin ? sv_builtin(env, p, builtin) : env->p.actions[k]);
    }
    sv_ball(env);
    if (env->by <= SV_BALL) {  /* a point: the side where it landed loses it */
        int scorer = env->bx < 1 ? 1 : 0;
        env->score[scorer]++;
        env->ret[scorer] += 1;
        env->ret[1 - scorer] -= 1;
        for (int k = 0; k < rows; k++) env->p.rewards[k] = sv_player_of(env, k) == scorer ? 1.0f : -1.0f;
        sv_serve(env, 1 - scorer);
        sv_observe(env);
        if (env->score[scorer] >= env->points) sv_end(env, scorer, 0);
        return;
    }
    sv_observe(env);
    if (env->tick >= env->max_steps) sv_end(env, -1, 1);
}

/* 10 rows x 40 columns: 'A'/'B' the slimes, 'o' the ball, '|' the net. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int r = 0; r < 10; r++) {
        float y = (9.5f - r) / 10.0f;
        for (int c = 0; c < 40; c++) {
            float x = (c + 0.5f) / 20.0f;
            char ch = ' ';
            if (fabsf(x - 1) < 0.03f && y < SV_NET_H) ch = '|';
            for (int p = 0; p < 2; p++)
                if (fabsf(x - env->px[p]) < SV_R && y >= env->py[p] && y < env->py[p] + 0.1f) ch = 'A' + p;
            if (fabsf(x - env->bx) < 0.03f && fabsf(y - env->by) < 0.05f) ch = 'o';
            ANSI_APPEND(buf, cap, len, "%c", ch);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "%d : %d (first to %d)\n", env->score[0], env->score[1], env->points);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    float s = w / 2.0f;  /* pixels per unit; the ground at the bottom */
    draw_fill(px, w, h, PUFFER_BG);
    draw_rect(px, w, h, (int)((1 - SV_NET_W) * s), h - (int)(SV_NET_H * s), (int)(2 * SV_NET_W * s) + 1,
              (int)(SV_NET_H * s), 200, 200, 200);
    for (int p = 0; p < 2; p++) {
        int x = (int)((env->px[p] - SV_R) * s), y = h - (int)((env->py[p] + SV_R) * s);
        if (p == 0) draw_rect(px, w, h, x, y, (int)(2 * SV_R * s), (int)(SV_R * s), PUFFER_CYAN);
        else draw_rect(px, w, h, x, y, (int)(2 * SV_R * s), (int)(SV_R * s), PUFFER_RED);
    }
    int b = (int)(2 * SV_BALL * s);
    draw_rect(px, w, h, (int)((env->bx - SV_BALL) * s), h - (int)((env->by + SV_BALL) * s), b, b, PUFFER_YELLOW);
}

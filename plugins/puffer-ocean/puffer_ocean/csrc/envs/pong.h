/* pong: beat a scripted opponent that tracks the ball at a limited speed.
 *
 * A 160 x 192 court; the agent's paddle is on the right, the opponent's on the left.
 * Actions: 0 stay, 1 up, 2 down. Reward +1 when the agent scores, -1 when the opponent
 * does; the episode ends when either reaches `max_score`. Observation (8 floats): agent
 * paddle y, opponent paddle y, ball x, ball y, ball vx, ball vy, both scores (scaled).
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(opponent_score)
#define PARAMS(P) P(int, max_score, 21, 1, 1000) P(float, opponent_speed, 2.0, 0, 16)
#define FIELDS(F) F(float, paddle_y) F(float, opp_y) F(float, ball_x) F(float, ball_y) F(float, ball_vx) \
    F(float, ball_vy) F(int, score) F(int, opp_score) F(int, tick)
#include "../puffer.h"

#define PO_W 160
#define PO_H 192
#define PO_PADDLE_H 24
#define PO_PADDLE_W 4
#define PO_BALL 4
#define PO_SPEED 4.0f
#define PO_BALL_VX 3.0f

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    PUFFER_FIELDS
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 8, -1, 1);
    ocean_act_discrete(s, 3);
    ocean_render_size(s, 2 * PO_W, 2 * PO_H);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void pong_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    float inv_score = 1.0f / (float)env->max_score;
    obs[0] = env->paddle_y * (1.0f / PO_H);
    obs[1] = env->opp_y * (1.0f / PO_H);
    obs[2] = env->ball_x * (1.0f / PO_W);
    obs[3] = env->ball_y * (1.0f / PO_H);
    obs[4] = env->ball_vx * (1.0f / PO_BALL_VX);
    obs[5] = env->ball_vy * (1.0f / PO_BALL_VX);
    obs[6] = (float)env->score * inv_score;
    obs[7] = (float)env->opp_score * inv_score;
}

/* Serve from the centre towards `dir` (+1: towards the agent). */
static void pong_serve(Env* env, int dir) {
    env->ball_x = (PO_W - PO_BALL) / 2.0f;
    env->ball_y = (float)rng_int(&env->p.rng, PO_H - 2 * PO_BALL) + PO_BALL;
    env->ball_vx = PO_BALL_VX * (float)dir;
    env->ball_vy = (rng_float(&env->p.rng) * 2.0f - 1.0f) * 2.0f;
}

static void c_reset(Env* env) {
    env->paddle_y = env->opp_y = (PO_H - PO_PADDLE_H) / 2.0f;
    env->score = env->opp_score = 0;
    env->tick = 0;
    pong_serve(env, rng_int(&env->p.rng, 2) ? 1 : -1);
    pong_observe(env);
}

static float pong_clamp(float y) { return y < 0 ? 0 : y > PO_H - PO_PADDLE_H ? PO_H - PO_PADDLE_H : y; }

/* Bounce off a paddle at `top`: the further from its centre, the steeper. */
static void pong_bounce(Env* env, float top) {
    float off = (env->ball_y + PO_BALL / 2.0f - (top + PO_PADDLE_H / 2.0f)) / (PO_PADDLE_H / 2.0f);
    off = off < -1.0f ? -1.0f : off > 1.0f ? 1.0f : off;
    env->ball_vx = -env->ball_vx;
    env->ball_vy = off * 3.0f;
}

static void c_step(Env* env) {
    int a = env->p.actions[0];
    env->tick++;
    static const float MOVE[3] = {0.0f, -PO_SPEED, PO_SPEED};
    env->paddle_y = pong_clamp(env->paddle_y + MOVE[a]);
    float target = env->ball_y + PO_BALL / 2.0f - PO_PADDLE_H / 2.0f, d = target - env->opp_y;
    float sp = env->opponent_speed;
    env->opp_y = pong_clamp(env->opp_y + (d > sp ? sp : d < -sp ? -sp : d));
    env->ball_x += env->ball_vx;
    env->ball_y += env->ball_vy;
    if (env->ball_y < 0) { env->ball_y = -env->ball_y; env->ball_vy = -env->ball_vy; }
    if (env->ball_y > PO_H - PO_BALL) { env->ball_y = 2 * (PO_H - PO_BALL) - env->ball_y; env->ball_vy = -env->ball_vy; }
    float reward = 0;
    float right = PO_W - PO_PADDLE_W - PO_BALL, left = PO_PADDLE_W;
    if (env->ball_vx > 0 && env->ball_x >= right) {
        if (env->ball_y + PO_BALL >= env->paddle_y && env->ball_y <= env->paddle_y + PO_PADDLE_H) {
            env->ball_x = right;
            pong_bounce(env, env->paddle_y);
        } else {
            env->opp_score++;
            reward = -1;
            pong_serve(env, 1);
        }
    } else if (env->ball_vx < 0 && env->ball_x <= left) {
        if (env->ball_y + PO_BALL >= env->opp_y && env->ball_y <= env->opp_y + PO_PADDLE_H) {
            env->ball_x = left;
            pong_bounce(env, env->opp_y);
        } else {
            env->score++;
            reward = 1;
            pong_serve(env, -1);
        }
    }
    int done = env->score >= env->max_score || env->opp_score >= env->max_score;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)done;
    env->p.truncations[0] = 0;
    if (done) {
        LOG_EPISODE(&env->log, .score = env->score, .opponent_score = env->opp_score,
                    .episode_return = env->score - env->opp_score, .episode_length = env->tick);
        c_reset(env);
    } else {
        pong_observe(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, cw = 4, ch = 8;  /* 40 x 24 characters */
    ANSI_APPEND(buf, cap, len, "opponent %d  agent %d\n", env->opp_score, env->score);
    for (int r = 0; r < PO_H / ch; r++) {
        for (int c = 0; c < PO_W / cw; c++) {
            int y = r * ch + ch / 2;
            char out = ' ';
            if (c == 0 && y >= env->opp_y && y < env->opp_y + PO_PADDLE_H) out = '|';
            if (c == PO_W / cw - 1 && y >= env->paddle_y && y < env->paddle_y + PO_PADDLE_H) out = '|';
            if ((int)(env->ball_x + 2) / cw == c && (int)(env->ball_y + 2) / ch == r) out = 'o';
            ANSI_APPEND(buf, cap, len, "%c", out);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    draw_rect(px, w, h, w / 2 - 1, 0, 2, h, 40, 60, 60);
    draw_rect(px, w, h, 0, (int)(2 * env->opp_y), 2 * PO_PADDLE_W, 2 * PO_PADDLE_H, PUFFER_RED);
    draw_rect(px, w, h, w - 2 * PO_PADDLE_W, (int)(2 * env->paddle_y), 2 * PO_PADDLE_W, 2 * PO_PADDLE_H, PUFFER_CYAN);
    draw_rect(px, w, h, (int)(2 * env->ball_x), (int)(2 * env->ball_y), 2 * PO_BALL, 2 * PO_BALL, PUFFER_YELLOW);
    for (int i = 0; i < env->opp_score && i < 20; i++) draw_rect(px, w, h, 8 + 6 * i, 4, 4, 4, PUFFER_RED);
    for (int i = 0; i < env->score && i < 20; i++) draw_rect(px, w, h, w - 12 - 6 * i, 4, 4, 4, PUFFER_CYAN);
}

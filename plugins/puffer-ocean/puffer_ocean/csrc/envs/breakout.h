/* breakout: clear a wall of bricks with a ball and a paddle.
 *
 * A 576 x 330 court, 6 rows x 18 columns of bricks, 5 balls. Actions: 0 stay, 1 launch
 * the ball, 2 right, 3 left; each step repeats its action for `frameskip` frames (1 by
 * default; the frames stop early at the game's end). Reward +1 per brick, -1 per lost ball,
 * summed over the step's frames. The episode ends when the bricks or the balls run out
 * (terminal) or after `max_steps` steps (truncated); `score` is the bricks broken,
 * `episode_return` the summed reward, `episode_length` the steps. Observation (118 floats): paddle x,
 * paddle y, ball x, ball y (x: centres, y: top edges, both mapped to [-1, 1]), ball vx,
 * ball vy (in [-1, 1]), balls left, bricks broken, ball in play, ball speed (in [0, 1]),
 * then one 0/1 per brick, 1 once it is broken (every brick is 0 at the start).
 *
 * The -1 matters: a lost ball is relaunched from the paddle straight into the wall, where
 * it breaks about as many bricks as a caught one, so without it missing the ball costs
 * nothing within the discount horizon and PPO never learns to follow the ball.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, max_steps, 10000, 1, 10000000) P(int, balls, 5, 1, 99) P(int, frameskip, 1, 1, 16)
#define FIELDS(F) F(float, paddle_x) F(float, ball_x) F(float, ball_y) F(float, ball_vx) F(float, ball_vy) \
    F(int, in_play) F(int, balls_left) F(int, broken) F(int, tick)
#include "../puffer.h"

#define BO_W 576
#define BO_H 330
#define BO_ROWS 6
#define BO_COLS 18
#define BO_BRICKS (BO_ROWS * BO_COLS)
#define BO_BRICK_W 32
#define BO_BRICK_H 12
#define BO_BRICK_TOP 60
#define BO_PADDLE_W 62
#define BO_PADDLE_H 8
#define BO_PADDLE_Y 310
#define BO_PADDLE_SPEED 8.0f
#define BO_BALL 6
#define BO_BALL_SPEED 7.0f
#define BO_SCALARS 10

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    PUFFER_FIELDS
    uint8_t bricks[BO_BRICKS];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, BO_SCALARS + BO_BRICKS, -1, 1);
    ocean_act_discrete(s, 4);
    ocean_render_size(s, BO_W, BO_H);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void breakout_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    /* Centred and on one scale, so that "ball left or right of the paddle" is one difference. */
    obs[0] = (env->paddle_x + BO_PADDLE_W / 2.0f) * (2.0f / BO_W) - 1.0f;
    obs[1] = (float)BO_PADDLE_Y * (2.0f / BO_H) - 1.0f;
    obs[2] = (env->ball_x + BO_BALL / 2.0f) * (2.0f / BO_W) - 1.0f;
    /* ball_y <= BO_H while the ball is in play; past it (the last ball lost) the edge is shown */
    obs[3] = (env->ball_y < BO_H ? env->ball_y : (float)BO_H) * (2.0f / BO_H) - 1.0f;
    obs[4] = env->ball_vx * (1.0f / BO_BALL_SPEED);
    obs[5] = env->ball_vy * (1.0f / BO_BALL_SPEED);
    obs[6] = (float)env->balls_left / (float)env->balls;
    obs[7] = (float)env->broken * (1.0f / BO_BRICKS);
    obs[8] = (float)env->in_play;
    obs[9] = 1.0f;
}

static void breakout_hold_ball(Env* env) {
    env->in_play = 0;
    env->ball_x = env->paddle_x + (BO_PADDLE_W - BO_BALL) / 2.0f;
    env->ball_y = BO_PADDLE_Y - BO_BALL - 1;
    env->ball_vx = env->ball_vy = 0;
}

static void c_reset(Env* env) {
    float* obs = (float*)env->p.observations;
    memset(env->bricks, 1, BO_BRICKS);
    /* 0 = standing: 108 inputs stuck at 1 would swamp the few that say where the ball is. */
    memset(obs + BO_SCALARS, 0, sizeof(float) * BO_BRICKS);
    env->paddle_x = (BO_W - BO_PADDLE_W) / 2.0f;
    env->balls_left = env->balls;
    env->broken = 0;
    env->tick = 0;
    breakout_hold_ball(env);
    breakout_observe(env);
}

static void breakout_launch(Env* env) {
    float angle = (rng_float(&env->p.rng) - 0.5f) * 1.5707964f;  /* within 45 degrees of vertical */
    env->ball_vx = BO_BALL_SPEED * sinf(angle);
    env->ball_vy = -BO_BALL_SPEED * cosf(angle);
    env->in_play = 1;
}

/* Break the brick under (x, y) if any; returns 1 when one broke. */
static int breakout_hit(Env* env, float x, float y) {
    int col = (int)(x / BO_BRICK_W), row = (int)((y - BO_BRICK_TOP) / BO_BRICK_H);
    if (y < BO_BRICK_TOP || row >= BO_ROWS || col < 0 || col >= BO_COLS) return 0;
    int k = row * BO_COLS + col;
    if (!env->bricks[k]) return 0;
    env->bricks[k] = 0;
    ((float*)env->p.observations)[BO_SCALARS + k] = 1.0f;
    env->broken++;
    return 1;
}

/* One frame of the game under action `a`; returns its reward and sets *terminal at the game's end. */
static float breakout_frame(Env* env, int a, int* terminal) {
    float reward = 0;
    if (a == 2) env->paddle_x += BO_PADDLE_SPEED;
    else if (a == 3) env->paddle_x -= BO_PADDLE_SPEED;
    if (env->paddle_x < 0) env->paddle_x = 0;
    if (env->paddle_x > BO_W - BO_PADDLE_W) env->paddle_x = BO_W - BO_PADDLE_W;
    if (!env->in_play) {
        breakout_hold_ball(env);
        if (a == 1) breakout_launch(env);
    } else {
        float nx = env->ball_x + env->ball_vx, ny = env->ball_y + env->ball_vy;
        if (nx < 0) { nx = -nx; env->ball_vx = -env->ball_vx; }
        if (nx > BO_W - BO_BALL) { nx = 2 * (BO_W - BO_BALL) - nx; env->ball_vx = -env->ball_vx; }
        if (ny < 0) { ny = -ny; env->ball_vy = -env->ball_vy; }
        /* Bricks: test the leading corners; a vertical hit flips vy, a side hit flips vx. */
        float cx = env->ball_vx > 0 ? nx + BO_BALL : nx, cy = env->ball_vy > 0 ? ny + BO_BALL : ny;
        float ox = env->ball_vx > 0 ? env->ball_x + BO_BALL : env->ball_x;
        float oy = env->ball_vy > 0 ? env->ball_y + BO_BALL : env->ball_y;
        if (breakout_hit(env, ox, cy)) { env->ball_vy = -env->ball_vy; ny = env->ball_y; reward += 1; }
        else if (breakout_hit(env, cx, oy)) { env->ball_vx = -env->ball_vx; nx = env->ball_x; reward += 1; }
        else if (breakout_hit(env, cx, cy)) { env->ball_vy = -env->ball_vy; ny = env->ball_y; reward += 1; }
        /* Paddle: the bounce angle depends on where the ball lands on it. */
        if (env->ball_vy > 0 && ny + BO_BALL >= BO_PADDLE_Y && env->ball_y + BO_BALL <= BO_PADDLE_Y + BO_PADDLE_H &&
            nx + BO_BALL >= env->paddle_x && nx <= env->paddle_x + BO_PADDLE_W) {
            float off = (nx + BO_BALL / 2.0f - env->paddle_x) / BO_PADDLE_W * 2.0f - 1.0f;  /* -1 .. 1 */
            off = off < -1 ? -1 : off > 1 ? 1 : off;
            float angle = off * 1.0471976f;  /* up to 60 degrees */
            env->ball_vx = BO_BALL_SPEED * sinf(angle);
            env->ball_vy = -BO_BALL_SPEED * cosf(angle);
            ny = BO_PADDLE_Y - BO_BALL;
        }
        env->ball_x = nx;
        env->ball_y = ny;
        if (ny > BO_H) {
            env->balls_left--;
            reward -= 1;
            if (env->balls_left == 0) *terminal = 1;
            else breakout_hold_ball(env);
        }
    }
    if (env->broken == BO_BRICKS) *terminal = 1;
    return reward;
}

static void c_step(Env* env) {
    int a = env->p.actions[0], terminal = 0;
    float reward = 0;
    env->tick++;
    for (int f = 0; f < env->frameskip && !terminal; f++) reward += breakout_frame(env, a, &terminal);
    int truncated = !terminal && env->tick >= env->max_steps;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)terminal;
    env->p.truncations[0] = (uint8_t)truncated;
    breakout_observe(env);
    if (terminal || truncated) {
        LOG_EPISODE(&env->log, .score = env->broken, .episode_return = env->broken - (env->balls - env->balls_left),
                    .episode_length = env->tick);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, cw = 16, ch = 15;  /* 36 x 22 characters */
    for (int r = 0; r < BO_H / ch; r++) {
        for (int c = 0; c < BO_W / cw; c++) {
            int x = c * cw + cw / 2, y = r * ch + ch / 2;
            char out = ' ';
            int row = (y - BO_BRICK_TOP) / BO_BRICK_H, col = x / BO_BRICK_W;
            if (y >= BO_BRICK_TOP && row < BO_ROWS && env->bricks[row * BO_COLS + col]) out = '#';
            if (y / ch == BO_PADDLE_Y / ch && x >= env->paddle_x && x < env->paddle_x + BO_PADDLE_W) out = '=';
            if ((int)(env->ball_x + BO_BALL / 2) / cw == c && (int)(env->ball_y + BO_BALL / 2) / ch == r) out = 'o';
            ANSI_APPEND(buf, cap, len, "%c", out);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "bricks %d  balls %d\n", env->broken, env->balls_left);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    static const uint8_t ROW_COLORS[BO_ROWS][3] = {
        {200, 72, 72}, {198, 108, 58}, {180, 122, 48}, {162, 162, 42}, {72, 160, 72}, {66, 72, 200}};
    draw_fill(px, w, h, PUFFER_BG);
    for (int k = 0; k < BO_BRICKS; k++) {
        if (!env->bricks[k]) continue;
        int row = k / BO_COLS, col = k % BO_COLS;
        const uint8_t* c = ROW_COLORS[row];
        draw_rect(px, w, h, col * BO_BRICK_W + 1, BO_BRICK_TOP + row * BO_BRICK_H + 1, BO_BRICK_W - 2,
                  BO_BRICK_H - 2, c[0], c[1], c[2]);
    }
    draw_rect(px, w, h, (int)env->paddle_x, BO_PADDLE_Y, BO_PADDLE_W, BO_PADDLE_H, PUFFER_CYAN);
    draw_rect(px, w, h, (int)env->ball_x, (int)env->ball_y, BO_BALL, BO_BALL, PUFFER_YELLOW);
}

/* freeway: a chicken crosses ten lanes of traffic (PufferLib's Ocean "freeway", after Atari).
 *
 * The road is `lane_size` x 10 lanes high in a width x height screen; lanes 0-4 (bottom
 * half) drive right, 5-9 left, 1-3 cars or trucks per lane. Actions: 0 wait, 1 up, 2 down.
 * Each step repeats the action for `frameskip` frames of 1/60 s; the game ends (terminal)
 * after `game_seconds` (136) s of game time. Crossing all ten lanes scores 1 and puts the chicken back at
 * the bottom. A car that hits the chicken stuns it for 40 frames: with difficulty 0 it
 * is pushed back 1.5 lanes, with difficulty 1 it goes back to the bottom. Dense rewards
 * (default): +0.1 per lane reached for the first time in a crossing, +1 per crossing,
 * -0.01 per hit; otherwise +1 per crossing only. Every 360 frames each lane's speed may
 * change by one step (within two of its start). `env_randomization` shifts each lane's
 * cars by a random offset at reset. Observation (53 floats in [0, 1]): chicken y / height,
 * furthest lane / 10, score / 100, stunned, then the x / width of the 3 vehicle slots of
 * each lane (0 for an empty slot), each lane's speed / 6 px per frame, then the chicken's
 * own view: where its centre is in its lane (0 bottom edge, 1 top; 0.5 on a sidewalk), and
 * for the lane below that one to two above it (the lanes it can be hit in within a few
 * steps) the frames until the lane's next vehicle reaches the chicken (0 while it overlaps
 * it) and until it has passed it, each over 60 and capped at 1 (a sidewalk: 1, 1). The
 * speeds make the state Markov (they change unseen otherwise); the view puts the traffic
 * that matters into fixed inputs, as times: with the first 34 values only, PPO learned to
 * hold "up" and be hit ~84 times a game (9-10 crossings from 3M to 12M steps); with the
 * lane's distance to go over its wrap length and its speed (a quotient for the network to
 * form) it was hit 42-44 times and crossed 15.8 times at 20M; with the times, 20-22 hits and
 * 20.8-20.9 crossings (README).
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(hits) X(up_action_frac)
#define PARAMS(P) P(int, frameskip, 4, 1, 16) P(int, width, 1216, 256, 8192) P(int, height, 720, 256, 8192) \
    P(int, player_width, 40, 4, 256) P(int, player_height, 40, 4, 256) P(int, car_width, 64, 4, 512) \
    P(int, car_height, 40, 4, 256) P(int, lane_size, 64, 8, 512) P(int, difficulty, 0, 0, 1) \
    P(int, use_dense_rewards, 1, 0, 1) P(int, env_randomization, 1, 0, 1) P(int, speed_randomization, 1, 0, 1) \
    P(int, game_seconds, 136, 1, 100000)
#define FIELDS(F) F(float, chicken_y) F(int, best_lane) F(int, stun) F(int, score) F(int, hits) F(int, tick) \
    F(float, car_x[0]) F(float, car_x[3]) F(float, car_x[6])
#include "../puffer.h"

#define FW_LANES 10
#define FW_SLOTS 3
#define FW_VIEW 4      /* lanes of the chicken's own view: the one below its centre's lane to two above */
#define FW_HORIZON 60  /* frames the view's times are measured in (capped at 1) */
#define FW_OBS (4 + FW_LANES * FW_SLOTS + FW_LANES + 1 + 2 * FW_VIEW)
#define FW_STUN 40
#define FW_SPEED_EVERY 360
#define FW_CHICKEN_SPEED 3.0f  /* pixels per frame */

/* Pixels per frame of the speed steps, the lanes' starting step, cars per lane, trucks. */
static const float FW_SPEEDS[8] = {1.5f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 5.0f, 6.0f};
static const int FW_LANE_SPEED[FW_LANES] = {1, 2, 3, 4, 5, 5, 4, 3, 2, 1};
static const int FW_LANE_CARS[FW_LANES] = {1, 2, 1, 3, 2, 2, 3, 1, 2, 1};
static const int FW_LANE_TRUCK[FW_LANES] = {0, 0, 1, 0, 0, 0, 0, 1, 0, 0};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float chicken_y, ret;
    int best_lane, stun, score, hits, tick, steps, ups;
    float road_start;                 /* y of the bottom edge of lane 0 */
    float car_x[FW_LANES * FW_SLOTS]; /* centres; slots past FW_LANE_CARS are empty */
    int lane_speed[FW_LANES];         /* index into FW_SPEEDS */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (FW_LANES * env->lane_size + 2 * env->player_height > env->height) {
        snprintf(err, OCEAN_ERR_LEN, "10 lanes of lane_size %d plus two sidewalks of player_height %d do not fit "
                 "in height %d.", env->lane_size, env->player_height, env->height);
        return 1;
    }
    if (env->car_height > env->lane_size || env->player_height > env->lane_size * 2) {
        snprintf(err, OCEAN_ERR_LEN, "car_height (%d) must fit in a lane and player_height (%d) in two "
                 "(lane_size %d).", env->car_height, env->player_height, env->lane_size);
        return 1;
    }
    ocean_obs_flat(s, FW_OBS, 0, 1);
    ocean_act_discrete(s, 3);
    ocean_render_size(s, env->width / 2, env->height / 2);
    return 0;
}

static int c_init(Env* env, char* err) {
    env->road_start = env->height / 2.0f + FW_LANES * env->lane_size / 2.0f;
    return 0;
}

static void c_close(Env* env) {}

static inline float fw_lane_y(const Env* env, int lane) { return env->road_start - (lane + 0.5f) * env->lane_size; }
static inline int fw_car_w(const Env* env, int lane) { return FW_LANE_TRUCK[lane] ? 2 * env->car_width : env->car_width; }

/* Lane `lane`'s speed in pixels per frame (the table's, scaled to the screen width), and observed in [0, 1]. */
static inline float fw_speed(const Env* env, int lane) {
    return FW_SPEEDS[env->lane_speed[lane]] * env->width / 1216.0f;
}
static inline float fw_speed_obs(const Env* env, int lane) { return FW_SPEEDS[env->lane_speed[lane]] / FW_SPEEDS[7]; }

/* Lane `lane`'s next vehicle as the chicken sees it: the frames until it reaches the chicken
 * (0 while it overlaps the chicken's column) and until it has passed it (its back edge beyond
 * the chicken's far edge), each over FW_HORIZON frames and capped at 1. */
static void fw_traffic(const Env* env, int lane, float* arrive, float* clear) {
    float half = fw_car_w(env, lane) / 2.0f, period = env->width + 2 * half;
    float px = env->width / 4.0f, reach = env->player_width / 2.0f + half, best = period;
    for (int i = 0; i < FW_LANE_CARS[lane]; i++) {
        float ahead = (px - env->car_x[lane * FW_SLOTS + i]) * (lane < FW_LANES / 2 ? 1.0f : -1.0f) + reach;
        ahead = fmodf(ahead, period);
        if (ahead < 0) ahead += period;
        if (ahead < best) best = ahead;
    }
    float frames = FW_HORIZON * fw_speed(env, lane), to_arrive = best - 2 * reach;
    *arrive = to_arrive <= 0 ? 0.0f : to_arrive >= frames ? 1.0f : to_arrive / frames;
    *clear = best >= frames ? 1.0f : best / frames;
}

static void freeway_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    obs[0] = env->chicken_y / env->height;
    obs[1] = (float)env->best_lane / FW_LANES;
    obs[2] = env->score >= 100 ? 1.0f : env->score / 100.0f;
    obs[3] = env->stun > 0;
    for (int lane = 0; lane < FW_LANES; lane++)
        for (int i = 0; i < FW_SLOTS; i++) {
            float x = env->car_x[lane * FW_SLOTS + i] / env->width;
            obs[4 + lane * FW_SLOTS + i] = i >= FW_LANE_CARS[lane] ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x;
        }
    float* speeds = obs + 4 + FW_LANES * FW_SLOTS;
    for (int lane = 0; lane < FW_LANES; lane++) speeds[lane] = fw_speed_obs(env, lane);
    /* the lane under the chicken's centre: -1 on the near sidewalk, FW_LANES on the far one */
    float below = env->road_start - env->chicken_y;
    int here = below < 0 ? -1 : (int)(below / env->lane_size);
    float* view = speeds + FW_LANES;
    float within = below / env->lane_size - here;  /* 0 at the lane's bottom edge, 1 at its top */
    view[0] = here < 0 || here >= FW_LANES ? 0.5f : within < 0 ? 0.0f : within > 1 ? 1.0f : within;
    for (int k = 0; k < FW_VIEW; k++) {
        int lane = here - 1 + k;
        if (lane >= 0 && lane < FW_LANES) fw_traffic(env, lane, &view[1 + 2 * k], &view[2 + 2 * k]);
        else view[1 + 2 * k] = view[2 + 2 * k] = 1.0f;  /* a sidewalk: nothing ever comes */
    }
}

static void freeway_chicken_home(Env* env) {
    env->chicken_y = env->height - env->player_height / 2.0f;
    env->stun = 0;
}

static void c_reset(Env* env) {
    env->score = env->hits = env->tick = env->steps = env->ups = 0;
    env->best_lane = 0;
    env->ret = 0;
    freeway_chicken_home(env);
    for (int lane = 0; lane < FW_LANES; lane++) {
        env->lane_speed[lane] = FW_LANE_SPEED[lane];
        float offset = env->env_randomization ? rng_float(&env->p.rng) * env->width : 0;
        for (int i = 0; i < FW_SLOTS; i++) {
            float x = fmodf(offset + (float)i * env->width / FW_LANE_CARS[lane], (float)env->width);
            env->car_x[lane * FW_SLOTS + i] = i < FW_LANE_CARS[lane] ? x : 0;
        }
    }
    freeway_observe(env);
}

static int freeway_hit(const Env* env) {
    float px = env->width / 4.0f, hw = env->player_width / 2.0f, hh = env->player_height / 2.0f;
    for (int lane = 0; lane < FW_LANES; lane++) {
        float cy = fw_lane_y(env, lane), cw = fw_car_w(env, lane) / 2.0f, ch = env->car_height / 2.0f;
        if (env->chicken_y - hh >= cy + ch || env->chicken_y + hh <= cy - ch) continue;
        for (int i = 0; i < FW_LANE_CARS[lane]; i++) {
            float cx = env->car_x[lane * FW_SLOTS + i];
            if (px - hw < cx + cw && px + hw > cx - cw) return 1;
        }
    }
    return 0;
}

/* One frame: the chicken, then the traffic. Returns the frame's reward. */
static float freeway_frame(Env* env, int action) {
    float reward = 0, top = env->player_height / 2.0f, bottom = env->height - env->player_height / 2.0f;
    env->tick++;
    if (env->stun > 0) {
        env->stun--;
        if (env->difficulty == 0) env->chicken_y += 1.5f * env->lane_size / FW_STUN;
    } else if (action == 1) {
        env->chicken_y -= FW_CHICKEN_SPEED;
    } else if (action == 2) {
        env->chicken_y += FW_CHICKEN_SPEED;
    }
    env->chicken_y = env->chicken_y < top ? top : env->chicken_y > bottom ? bottom : env->chicken_y;
    if (env->stun == 0 && freeway_hit(env)) {
        env->hits++;
        env->stun = FW_STUN;
        if (env->use_dense_rewards) reward -= 0.01f;
        if (env->difficulty == 1) freeway_chicken_home(env);
    }
    while (env->best_lane < FW_LANES && env->chicken_y <= env->road_start - (env->best_lane + 1) * env->lane_size) {
        env->best_lane++;
        if (env->use_dense_rewards) reward += 1.0f / FW_LANES;
    }
    if (env->best_lane == FW_LANES) {
        env->score++;
        reward += 1.0f;
        env->best_lane = 0;
        freeway_chicken_home(env);
    }
    for (int lane = 0; lane < FW_LANES; lane++) {
        float v = fw_speed(env, lane), half = fw_car_w(env, lane) / 2.0f;
        if (lane >= FW_LANES / 2) v = -v;
        for (int i = 0; i < FW_LANE_CARS[lane]; i++) {
            float* x = &env->car_x[lane * FW_SLOTS + i];
            *x += v;
            if (*x > env->width + half) *x -= env->width + 2 * half;
            else if (*x < -half) *x += env->width + 2 * half;
        }
    }
    if (env->speed_randomization && env->tick % FW_SPEED_EVERY == 0)
        for (int lane = 0; lane < FW_LANES; lane++) {
            int s = env->lane_speed[lane] + rng_int(&env->p.rng, 3) - 1, base = FW_LANE_SPEED[lane];
            s = s < base - 2 ? base - 2 : s > base + 2 ? base + 2 : s;
            env->lane_speed[lane] = s < 0 ? 0 : s > 7 ? 7 : s;
        }
    return reward;
}

static void c_step(Env* env) {
    int action = env->p.actions[0];
    float reward = 0;
    env->steps++;
    env->ups += action == 1;
    for (int f = 0; f < env->frameskip && env->tick < 60 * env->game_seconds; f++) reward += freeway_frame(env, action);
    env->ret += reward;
    int terminal = env->tick >= 60 * env->game_seconds;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)terminal;
    env->p.truncations[0] = 0;
    if (terminal) {
        LOG_EPISODE(&env->log, .score = env->score, .episode_return = env->ret, .episode_length = env->steps,
                    .hits = env->hits, .up_action_frac = (float)env->ups / env->steps);
        c_reset(env);
    } else {
        freeway_observe(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int cols = 76, len = 0;
    float cell = (float)env->width / cols;
    int chicken_col = (int)(env->width / 4.0f / cell);
    for (int row = FW_LANES; row >= -1; row--) {  /* the far sidewalk, the lanes top down, the near sidewalk */
        for (int c = 0; c < cols; c++) {
            char out = row == FW_LANES || row == -1 ? '_' : ' ';
            if (row >= 0 && row < FW_LANES)
                for (int i = 0; i < FW_LANE_CARS[row]; i++) {
                    float x = env->car_x[row * FW_SLOTS + i], half = fw_car_w(env, row) / 2.0f;
                    if ((c + 1) * cell > x - half && c * cell < x + half) out = row < FW_LANES / 2 ? '>' : '<';
                }
            float top = row == FW_LANES ? 0 : row == -1 ? env->road_start : env->road_start - (row + 1) * env->lane_size;
            float bottom = row == FW_LANES ? env->road_start - FW_LANES * env->lane_size
                         : row == -1 ? (float)env->height : top + env->lane_size;
            if (c == chicken_col && env->chicken_y >= top && env->chicken_y < bottom) out = env->stun ? 'x' : 'C';
            ANSI_APPEND(buf, cap, len, "%c", out);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "score %d  hits %d  time %.0f s\n", env->score, env->hits,
                env->game_seconds - env->tick / 60.0);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    float s = (float)w / env->width;
    draw_fill(px, w, h, PUFFER_GREY);
    int road_top = (int)((env->road_start - FW_LANES * env->lane_size) * s);
    draw_rect(px, w, h, 0, road_top, w, (int)(FW_LANES * env->lane_size * s), 60, 60, 60);
    for (int lane = 0; lane < FW_LANES; lane++) {
        const uint8_t* c = PUFFER_PALETTE[2 + lane % 6];
        float cy = fw_lane_y(env, lane), half = fw_car_w(env, lane) / 2.0f;
        for (int i = 0; i < FW_LANE_CARS[lane]; i++)
            draw_rect(px, w, h, (int)((env->car_x[lane * FW_SLOTS + i] - half) * s), (int)((cy - env->car_height / 2.0f) * s),
                      (int)(2 * half * s), (int)(env->car_height * s), c[0], c[1], c[2]);
    }
    draw_rect(px, w, h, (int)((env->width / 4.0f - env->player_width / 2.0f) * s),
              (int)((env->chicken_y - env->player_height / 2.0f) * s), (int)(env->player_width * s),
              (int)(env->player_height * s), PUFFER_YELLOW);
}

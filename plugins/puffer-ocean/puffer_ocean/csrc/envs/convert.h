/* convert: puffers carry items through a chain of moving factories (PufferLib's Ocean "convert").
 *
 * `num_agents` puffers and `num_factories` factories share a width x height field;
 * factory f makes item f % num_resources and drifts 2 units a step, turning to a random
 * heading when it meets the border. A puffer holds one item; touching (within 32 units)
 * a factory of the item it holds converts it to the next item (mod num_resources) and
 * earns 1. Action MultiDiscrete([9, 5]) as in target: turn by (a0 - 4) / 12 radians
 * (heading in [0, 2 pi]), speed change a1 - 2 (speed in [-20, 20]); positions stay 16
 * units inside the border. Each step a puffer is moved to a random spot with probability
 * 1 / num_agents. Observation (3 * num_resources + 4 floats): for each item, the offset
 * (dx / width, dy / height) of the nearest factory making it (0, 0 if none), heading / 2 pi,
 * last reward, x / width, y / height, one-hot held item. The reference has no episodes;
 * here an episode is `max_steps` steps of the copy (truncated, then re-drawn) and `score`
 * the conversions of one puffer in it.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, width, 1920, 64, 100000) P(int, height, 1080, 64, 100000) \
    P(int, num_agents, 1024, 1, 16384) P(int, num_factories, 32, 1, 4096) P(int, num_resources, 8, 1, 8) \
    P(int, max_steps, 512, 1, 10000000)
#define FIELDS(F) F(int, tick)
#include "../puffer.h"

#define CV_RADIUS 32.0f
#define CV_MARGIN 16.0f
#define CV_TWO_PI 6.2831853f

typedef struct { float x, y, heading, speed, reward, converted; int item; } CvAgent;
typedef struct { float x, y, heading; } CvFactory;

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick;
    CvAgent* agents;
    CvFactory* factories;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    s->num_agents = env->num_agents;
    ocean_obs_flat(s, 3 * env->num_resources + 4, -1, 1);
    ocean_act_multidiscrete(s, 2, (const int[]){9, 5});
    int big = env->width > env->height ? env->width : env->height;
    int scale = (big + 639) / 640;  /* at most 640 pixels on the long side */
    ocean_render_size(s, env->width / scale, env->height / scale);
    return 0;
}

static int c_init(Env* env, char* err) {
    env->agents = (CvAgent*)calloc((size_t)env->num_agents, sizeof(CvAgent));
    env->factories = (CvFactory*)calloc((size_t)env->num_factories, sizeof(CvFactory));
    if (!env->agents || !env->factories) {
        snprintf(err, OCEAN_ERR_LEN, "out of memory");
        return 1;
    }
    return 0;
}

static void c_close(Env* env) {
    free(env->agents);
    free(env->factories);
    env->agents = NULL;
    env->factories = NULL;
}

static inline float cv_coord(Env* env, int extent) {
    return CV_MARGIN + (float)rng_int(&env->p.rng, extent - 2 * (int)CV_MARGIN + 1);
}

static void convert_observe(Env* env) {
    int R = env->num_resources, F = env->num_factories, dim = 3 * R + 4;
    float iw = 1.0f / env->width, ih = 1.0f / env->height;
    const CvFactory* factories = env->factories;
    for (int a = 0; a < env->num_agents; a++) {
        const CvAgent* ag = &env->agents[a];
        float* restrict obs = (float*)env->p.observations + (size_t)a * dim;  /* aliases no state */
        for (int r = 0; r < R; r++) {  /* the nearest factory of resource r (factories r, r + R, ...); 0, 0 if none */
            float best = INFINITY, bx = 0, by = 0;
            for (int f = r; f < F; f += R) {
                float dx = factories[f].x - ag->x, dy = factories[f].y - ag->y, dd = dx * dx + dy * dy;
                int nearer = dd < best;  /* selects, not a branch: which factory is nearer is a coin flip */
                best = nearer ? dd : best;
                bx = nearer ? dx : bx;
                by = nearer ? dy : by;
            }
            obs[2 * r] = bx * iw;
            obs[2 * r + 1] = by * ih;
        }
        obs += 2 * R;
        obs[0] = ag->heading * (1.0f / CV_TWO_PI);
        obs[1] = ag->reward;
        obs[2] = ag->x * iw;
        obs[3] = ag->y * ih;
        for (int r = 0; r < R; r++) obs[4 + r] = r == ag->item;
    }
}

static void c_reset(Env* env) {
    env->tick = 0;
    for (int a = 0; a < env->num_agents; a++) {
        CvAgent* ag = &env->agents[a];
        ag->x = cv_coord(env, env->width);
        ag->y = cv_coord(env, env->height);
        ag->heading = rng_float(&env->p.rng) * CV_TWO_PI;
        ag->speed = ag->reward = ag->converted = 0;
        ag->item = rng_int(&env->p.rng, env->num_resources);
    }
    for (int f = 0; f < env->num_factories; f++) {
        env->factories[f].x = cv_coord(env, env->width);
        env->factories[f].y = cv_coord(env, env->height);
        env->factories[f].heading = rng_float(&env->p.rng) * CV_TWO_PI;
    }
    convert_observe(env);
}

static void c_step(Env* env) {
    float xmax = env->width - CV_MARGIN, ymax = env->height - CV_MARGIN;
    env->tick++;
    for (int a = 0; a < env->num_agents; a++) {
        CvAgent* ag = &env->agents[a];
        const int32_t* act = env->p.actions + 2 * a;
        ag->heading = clampf(ag->heading + (float)(act[0] - 4) * (1.0f / 12.0f), 0, CV_TWO_PI);
        ag->speed = clampf(ag->speed + (float)(act[1] - 2), -20.0f, 20.0f);
        float sin_h, cos_h;
        fast_sincosf(ag->heading, &sin_h, &cos_h);
        ag->x = clampf(ag->x + ag->speed * cos_h, CV_MARGIN, xmax);
        ag->y = clampf(ag->y + ag->speed * sin_h, CV_MARGIN, ymax);
        if (rng_int(&env->p.rng, env->num_agents) == 0) {
            ag->x = cv_coord(env, env->width);
            ag->y = cv_coord(env, env->height);
        }
        float reward = 0;
        for (int f = ag->item; f < env->num_factories; f += env->num_resources) {  /* factories of its item */
            float dx = env->factories[f].x - ag->x, dy = env->factories[f].y - ag->y;
            if (dx * dx + dy * dy <= CV_RADIUS * CV_RADIUS) {
                ag->item = (ag->item + 1) % env->num_resources;
                reward = 1.0f;
                break;
            }
        }
        ag->reward = reward;
        ag->converted += reward;
        env->p.rewards[a] = reward;
    }
    for (int f = 0; f < env->num_factories; f++) {
        CvFactory* fa = &env->factories[f];
        float sin_h, cos_h;
        fast_sincosf(fa->heading, &sin_h, &cos_h);
        float x = fa->x + 2.0f * cos_h, y = fa->y + 2.0f * sin_h;
        fa->x = clampf(x, CV_MARGIN, xmax);
        fa->y = clampf(y, CV_MARGIN, ymax);
        if (fa->x != x || fa->y != y) fa->heading = rng_float(&env->p.rng) * CV_TWO_PI;
    }
    int truncated = env->tick >= env->max_steps;
    memset(env->p.terminals, 0, (size_t)env->num_agents);
    memset(env->p.truncations, truncated, (size_t)env->num_agents);
    convert_observe(env);
    if (truncated) {
        for (int a = 0; a < env->num_agents; a++) {
            LOG_EPISODE(&env->log, .score = env->agents[a].converted, .episode_return = env->agents[a].converted,
                        .episode_length = env->tick);
            ocean_keep_final(&env->p, a);
        }
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int cols = 64, rows = 18, len = 0;
    char grid[18][64];
    memset(grid, '.', sizeof(grid));
    for (int f = 0; f < env->num_factories; f++) {
        int c = (int)(env->factories[f].x * cols / (env->width + 1)), r = (int)(env->factories[f].y * rows / (env->height + 1));
        grid[r][c] = (char)('A' + f % env->num_resources);
    }
    for (int a = 0; a < env->num_agents; a++) {
        int c = (int)(env->agents[a].x * cols / (env->width + 1)), r = (int)(env->agents[a].y * rows / (env->height + 1));
        if (grid[r][c] == '.') grid[r][c] = (char)('a' + env->agents[a].item);
    }
    for (int r = 0; r < rows; r++) ANSI_APPEND(buf, cap, len, "%.64s\n", grid[r]);
    ANSI_APPEND(buf, cap, len, "factories A-H, puffers a-h by held item; tick %d\n", env->tick);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    float sx = (float)w / env->width, sy = (float)h / env->height;
    draw_fill(px, w, h, PUFFER_BG);
    for (int f = 0; f < env->num_factories; f++) {
        const uint8_t* c = PUFFER_PALETTE[f % env->num_resources];
        if (f % env->num_resources == 0) c = PUFFER_PALETTE[1];
        draw_rect(px, w, h, (int)((env->factories[f].x - CV_RADIUS) * sx), (int)((env->factories[f].y - CV_RADIUS) * sy),
                  (int)(2 * CV_RADIUS * sx) + 1, (int)(2 * CV_RADIUS * sy) + 1, c[0], c[1], c[2]);
    }
    for (int a = 0; a < env->num_agents; a++) {
        const uint8_t* c = PUFFER_PALETTE[env->agents[a].item % 8];
        draw_rect(px, w, h, (int)((env->agents[a].x - 4) * sx), (int)((env->agents[a].y - 4) * sy), 3, 3, 255, 255, 255);
        draw_rect(px, w, h, (int)((env->agents[a].x - 4) * sx) + 1, (int)((env->agents[a].y - 4) * sy) + 1, 1, 1,
                  c[0], c[1], c[2]);
    }
}

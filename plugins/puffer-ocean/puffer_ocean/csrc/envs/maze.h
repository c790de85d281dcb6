/* maze: reach the goal of a procedural maze drawn anew every episode, seen through a local window.
 *
 * The maze has `width` x `height` cells laid on a (2 width + 1) x (2 height + 1) grid of tiles:
 * cell (cx, cy) is tile (2 cx + 1, 2 cy + 1), the tiles between cells are walls or passages, the
 * border is wall. Each episode carves a perfect maze (one path between any two cells) by a
 * randomized depth-first search (recursive backtracker) over the cells, then removes each
 * remaining wall between two cells with probability `loops` (0: perfect; more: more loops).
 * A corner of the maze is drawn; the agent starts on a random cell of that corner's region
 * (the max(1, width / 4) x max(1, height / 4) cells nearest the corner) and the goal is a
 * random cell of the opposite corner's region. The agent moves one tile a step.
 * Actions: 0 up, 1 down, 2 left, 3 right; a wall blocks (the agent stays).
 * Rewards: +1 on reaching the goal (terminal); every other step costs `step_cost`; truncated
 * after `max_steps` steps. score: 1 when the episode reached the goal, else 0.
 * Observation (250 uint8, each 0 or 1):
 *   [0, 121)    walls of the 11 x 11 tile window centred on the agent, row-major, top row
 *               first (outside the maze is wall);
 *   [121, 242)  the goal in that window (one 1 where the goal is in view);
 *   [242, 246)  the goal's direction: it lies up, down, left, right of the agent (two may be
 *               set; all 0 when `goal_direction` is 0: the goal is then seen only in view);
 *   [246, 250)  the agent's last action, one-hot (all 0 on an episode's first step): the
 *               heading a memoryless policy needs to follow a wall.
 * The goal direction is a compass, not a map: the agent still has to find the path around
 * the walls, and a policy that walks toward the goal alone gets stuck in dead ends.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define MAZE_MAX 64
#define PARAMS(P) P(int, width, 5, 2, MAZE_MAX) P(int, height, 5, 2, MAZE_MAX) P(float, loops, 0, 0, 1) \
    P(int, max_steps, 150, 1, 10000000) P(float, step_cost, 0.001, 0, 1) P(int, goal_direction, 1, 0, 1)
/* Test fields: the agent's and the goal's tiles, the last action (4: none yet), the step count. */
#define FIELDS(F) F(int, x) F(int, y) F(int, gx) F(int, gy) F(int, heading) F(int, tick)
#include "../puffer.h"

#define MZ_VIEW 5
#define MZ_SIDE (2 * MZ_VIEW + 1)
#define MZ_WIN (MZ_SIDE * MZ_SIDE)
#define MZ_OBS (2 * MZ_WIN + 8)
#define MZ_NONE 4

static const int MZ_DX[4] = {0, 0, -1, 1}, MZ_DY[4] = {-1, 1, 0, 0};  /* up, down, left, right */

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int x, y, gx, gy, heading, tick;
    float ret;
    int tw, th, stride;  /* tiles across and down; a row of `wall` (the tiles and the padding) */
    uint8_t* wall;       /* (th + 2 MZ_VIEW) rows of `stride`: 1 wall, 0 free; padding is wall */
    int* stack;          /* the carving stack: one entry per cell */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_bytes(s, MZ_OBS, 0, 1);
    ocean_act_discrete(s, 4);
    int tw = 2 * env->width + 1, th = 2 * env->height + 1, longest = tw > th ? tw : th;
    int tile = longest <= 64 ? 8 : 4;
    ocean_render_size(s, tile * tw, tile * th);
    return 0;
}

static int c_init(Env* env, char* err) {
    env->tw = 2 * env->width + 1;
    env->th = 2 * env->height + 1;
    env->stride = env->tw + 2 * MZ_VIEW;
    env->wall = (uint8_t*)malloc((size_t)env->stride * (env->th + 2 * MZ_VIEW));
    env->stack = (int*)malloc(sizeof(int) * (size_t)env->width * env->height);
    if (!env->wall || !env->stack) {
        snprintf(err, OCEAN_ERR_LEN, "out of memory");
        return 1;
    }
    return 0;
}

static void c_close(Env* env) {
    free(env->wall);
    free(env->stack);
    env->wall = NULL;
    env->stack = NULL;
}

/* The wall byte of tile (x, y); x, y may reach MZ_VIEW tiles outside the maze. */
static inline uint8_t* maze_at(Env* env, int x, int y) {
    return env->wall + (size_t)(y + MZ_VIEW) * env->stride + x + MZ_VIEW;
}

/* Randomized depth-first search over the cells, then the optional loops. */
static void maze_carve(Env* env) {
    int w = env->width, h = env->height;
    memset(env->wall, 1, (size_t)env->stride * (env->th + 2 * MZ_VIEW));
    uint64_t* rng = &env->p.rng;
    int start = rng_int(rng, w * h), top = 0;
    *maze_at(env, 2 * (start % w) + 1, 2 * (start / w) + 1) = 0;
    env->stack[top++] = start;
    while (top) {
        int cell = env->stack[top - 1], cx = cell % w, cy = cell / w, options[4], n = 0;
        for (int d = 0; d < 4; d++) {
            int nx = cx + MZ_DX[d], ny = cy + MZ_DY[d];
            if (nx >= 0 && ny >= 0 && nx < w && ny < h && *maze_at(env, 2 * nx + 1, 2 * ny + 1))
                options[n++] = d;
        }
        if (!n) { top--; continue; }
        int d = options[rng_int(rng, n)], nx = cx + MZ_DX[d], ny = cy + MZ_DY[d];
        *maze_at(env, 2 * cx + 1 + MZ_DX[d], 2 * cy + 1 + MZ_DY[d]) = 0;
        *maze_at(env, 2 * nx + 1, 2 * ny + 1) = 0;
        env->stack[top++] = ny * w + nx;
    }
    if (env->loops <= 0) return;
    /* Walls between two cells: odd x and even y (between rows) or even x and odd y, off the border. */
    for (int y = 1; y < env->th - 1; y++)
        for (int x = 1 + (y & 1); x < env->tw - 1; x += 2)
            if (*maze_at(env, x, y) && rng_float(rng) < env->loops) *maze_at(env, x, y) = 0;
}

static void maze_observe(Env* env) {
    uint8_t* restrict obs = (uint8_t*)env->p.observations;
    const uint8_t* src = maze_at(env, env->x - MZ_VIEW, env->y - MZ_VIEW);
    for (int r = 0; r < MZ_SIDE; r++) memcpy(obs + r * MZ_SIDE, src + (size_t)r * env->stride, MZ_SIDE);
    uint8_t* goal = obs + MZ_WIN;
    memset(goal, 0, MZ_WIN + 8);
    int dx = env->gx - env->x, dy = env->gy - env->y;
    if (dx >= -MZ_VIEW && dx <= MZ_VIEW && dy >= -MZ_VIEW && dy <= MZ_VIEW)
        goal[(dy + MZ_VIEW) * MZ_SIDE + dx + MZ_VIEW] = 1;
    uint8_t* extra = goal + MZ_WIN;
    if (env->goal_direction) {
        extra[0] = dy < 0;
        extra[1] = dy > 0;
        extra[2] = dx < 0;
        extra[3] = dx > 0;
    }
    if (env->heading < MZ_NONE) extra[4 + env->heading] = 1;
}

static void c_reset(Env* env) {
    maze_carve(env);
    uint64_t* rng = &env->p.rng;
    int rw = env->width / 4 > 1 ? env->width / 4 : 1, rh = env->height / 4 > 1 ? env->height / 4 : 1;
    int corner = rng_int(rng, 4), right = corner & 1, bottom = corner >> 1;
    int cx = rng_int(rng, rw), cy = rng_int(rng, rh), gx = rng_int(rng, rw), gy = rng_int(rng, rh);
    /* the start near the drawn corner, the goal near the opposite one */
    env->x = 2 * (right ? env->width - 1 - cx : cx) + 1;
    env->y = 2 * (bottom ? env->height - 1 - cy : cy) + 1;
    env->gx = 2 * (right ? gx : env->width - 1 - gx) + 1;
    env->gy = 2 * (bottom ? gy : env->height - 1 - gy) + 1;
    env->heading = MZ_NONE;
    env->tick = 0;
    env->ret = 0;
    maze_observe(env);
}

static void c_step(Env* env) {
    int a = env->p.actions[0];
    int nx = env->x + MZ_DX[a], ny = env->y + MZ_DY[a];
    if (!*maze_at(env, nx, ny)) {
        env->x = nx;
        env->y = ny;
    }
    env->heading = a;
    env->tick++;
    int hit = env->x == env->gx && env->y == env->gy;
    int truncated = !hit && env->tick >= env->max_steps;
    float reward = hit ? 1.0f : -env->step_cost;
    env->ret += reward;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)hit;
    env->p.truncations[0] = (uint8_t)truncated;
    maze_observe(env);
    if (hit || truncated) {
        LOG_EPISODE(&env->log, .score = hit, .episode_return = env->ret, .episode_length = env->tick);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int y = 0; y < env->th; y++) {
        for (int x = 0; x < env->tw; x++) {
            char c = *maze_at(env, x, y) ? '#' : ' ';
            if (x == env->gx && y == env->gy) c = '*';
            if (x == env->x && y == env->y) c = '@';
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int tile = w / env->tw;
    for (int y = 0; y < env->th; y++)
        for (int x = 0; x < env->tw; x++) {
            const uint8_t* c = PUFFER_PALETTE[*maze_at(env, x, y) ? 6 : 0];
            int seen = abs(x - env->x) <= MZ_VIEW && abs(y - env->y) <= MZ_VIEW;
            uint8_t shade = seen ? 1 : 2;  /* outside the agent's window: darker */
            draw_rect(px, w, h, x * tile, y * tile, tile, tile, c[0] / shade, c[1] / shade, c[2] / shade);
        }
    draw_rect(px, w, h, env->gx * tile, env->gy * tile, tile, tile, PUFFER_YELLOW);
    draw_rect(px, w, h, env->x * tile + tile / 4, env->y * tile + tile / 4, tile / 2, tile / 2, PUFFER_CYAN);
}

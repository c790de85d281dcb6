/* grid: find the goal in a procedural maze seen through an 11 x 11 window.
 *
 * Every episode carves a new size x size maze (randomized depth-first search; size odd),
 * puts the agent in the top-left cell and the goal on a random cell. The observation is
 * the 11 x 11 window centred on the agent (uint8: 0 floor, 1 wall, 2 goal; outside the
 * maze is wall). Actions: 0 up, 1 down, 2 left, 3 right (walls block). Reward 1 at the
 * goal (terminal); truncated after `max_steps`.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, size, 11, 5, 255) P(int, max_steps, 512, 1, 10000000)
#include "../puffer.h"

#define GR_VIEW 5
#define GR_SIDE (2 * GR_VIEW + 1)
enum { GR_FLOOR = 0, GR_WALL = 1, GR_GOAL = 2 };

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int stride, pos, goal, tick;
    uint8_t* maze;   /* (size + 2 * GR_VIEW)^2 cells, the maze in the middle */
    int* stack;      /* carving stack, one entry per maze cell */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (env->size % 2 == 0) {
        snprintf(err, OCEAN_ERR_LEN, "size must be odd (rooms on odd coordinates), got %d.", env->size);
        return 1;
    }
    ocean_obs_grid(s, GR_SIDE, GR_SIDE, 0, 2);
    ocean_act_discrete(s, 4);
    int tile = env->size <= 63 ? 16 : 4;
    ocean_render_size(s, tile * env->size, tile * env->size);
    return 0;
}

static int c_init(Env* env, char* err) {
    env->stride = env->size + 2 * GR_VIEW;
    env->maze = (uint8_t*)malloc((size_t)env->stride * env->stride);
    env->stack = (int*)malloc(sizeof(int) * (size_t)env->size * env->size);
    if (!env->maze || !env->stack) {
        snprintf(err, OCEAN_ERR_LEN, "out of memory");
        return 1;
    }
    return 0;
}

static void c_close(Env* env) {
    free(env->maze);
    free(env->stack);
    env->maze = NULL;
    env->stack = NULL;
}

static inline int grid_cell(Env* env, int x, int y) { return (y + GR_VIEW) * env->stride + x + GR_VIEW; }

/* Randomized depth-first search over the rooms (odd coordinates), knocking down walls. */
static void grid_carve(Env* env) {
    memset(env->maze, GR_WALL, (size_t)env->stride * env->stride);
    int top = 0, start = grid_cell(env, 1, 1);
    env->maze[start] = GR_FLOOR;
    env->stack[top++] = start;
    const int step[4] = {-2 * env->stride, 2 * env->stride, -2, 2};
    int lo = grid_cell(env, 1, 1), hi = grid_cell(env, env->size - 2, env->size - 2);
    while (top) {
        int cell = env->stack[top - 1], options[4], n = 0;
        for (int d = 0; d < 4; d++) {
            int next = cell + step[d];
            int x = next % env->stride - GR_VIEW;
            if (next >= lo && next <= hi && x >= 1 && x <= env->size - 2 && env->maze[next] == GR_WALL)
                options[n++] = d;
        }
        if (!n) { top--; continue; }
        int d = options[rng_int(&env->p.rng, n)];
        env->maze[cell + step[d] / 2] = GR_FLOOR;
        env->maze[cell + step[d]] = GR_FLOOR;
        env->stack[top++] = cell + step[d];
    }
}

static void grid_observe(Env* env) {
    uint8_t* obs = (uint8_t*)env->p.observations;
    const uint8_t* src = env->maze + env->pos - GR_VIEW * env->stride - GR_VIEW;
    for (int r = 0; r < GR_SIDE; r++) memcpy(obs + r * GR_SIDE, src + r * env->stride, GR_SIDE);
}

static void c_reset(Env* env) {
    grid_carve(env);
    env->pos = grid_cell(env, 1, 1);
    int rooms = (env->size - 1) / 2, k;
    do {
        k = rng_int(&env->p.rng, rooms * rooms);
        env->goal = grid_cell(env, 1 + 2 * (k % rooms), 1 + 2 * (k / rooms));
    } while (env->goal == env->pos);
    env->maze[env->goal] = GR_GOAL;
    env->tick = 0;
    grid_observe(env);
}

static void c_step(Env* env) {
    const int delta[4] = {-env->stride, env->stride, -1, 1};
    int next = env->pos + delta[env->p.actions[0]];
    if (env->maze[next] != GR_WALL) env->pos = next;
    env->tick++;
    int hit = env->pos == env->goal;
    int truncated = !hit && env->tick >= env->max_steps;
    env->p.rewards[0] = (float)hit;
    env->p.terminals[0] = (uint8_t)hit;
    env->p.truncations[0] = (uint8_t)truncated;
    grid_observe(env);
    if (hit || truncated) {
        LOG_EPISODE(&env->log, .score = hit, .episode_return = hit, .episode_length = env->tick);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    static const char CHARS[3] = {' ', '#', '*'};
    int len = 0;
    for (int y = 0; y < env->size; y++) {
        for (int x = 0; x < env->size; x++) {
            int cell = grid_cell(env, x, y);
            ANSI_APPEND(buf, cap, len, "%c", cell == env->pos ? '@' : CHARS[env->maze[cell]]);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int tile = w / env->size;
    int ax = env->pos % env->stride - GR_VIEW, ay = env->pos / env->stride - GR_VIEW;
    for (int y = 0; y < env->size; y++)
        for (int x = 0; x < env->size; x++) {
            uint8_t m = env->maze[grid_cell(env, x, y)];
            const uint8_t* c = PUFFER_PALETTE[m == GR_WALL ? 6 : m == GR_GOAL ? 3 : 0];
            int seen = abs(x - ax) <= GR_VIEW && abs(y - ay) <= GR_VIEW;
            uint8_t shade = seen ? 1 : 2;  /* outside the agent's window: darker */
            draw_rect(px, w, h, x * tile, y * tile, tile, tile, c[0] / shade, c[1] / shade, c[2] / shade);
        }
    draw_rect(px, w, h, ax * tile + tile / 4, ay * tile + tile / 4, tile / 2, tile / 2, PUFFER_CYAN);
}

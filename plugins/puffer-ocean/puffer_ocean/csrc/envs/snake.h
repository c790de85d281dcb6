/* snake: many snakes in one arena (multi-agent).
 *
 * `num_snakes` snakes share a width x height arena with `num_food` pieces of food. Each
 * sees the 11 x 11 cells around its head (uint8: 0 empty, 1 food, 2 wall, 3 snake).
 * Actions: 0 up, 1 down, 2 left, 3 right (turning back is ignored). Eating earns
 * `reward_food` and grows the snake; running into a wall or a snake earns `reward_death`
 * and ends that snake's episode: it respawns, length 1, on a random empty cell. A life is
 * truncated after `max_steps`. Score: the length reached.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, width, 64, 8, 1024) P(int, height, 64, 8, 1024) P(int, num_snakes, 8, 1, 1024) \
    P(int, num_food, 32, 1, 100000) P(int, max_len, 256, 2, 65536) P(int, max_steps, 1000, 1, 10000000) \
    P(float, reward_food, 0.1, -100, 100) P(float, reward_death, -1.0, -100, 100)
#include "../puffer.h"

#define SN_VIEW 5
#define SN_SIDE (2 * SN_VIEW + 1)
enum { SN_EMPTY = 0, SN_FOOD = 1, SN_WALL = 2, SN_BODY = 3 };

typedef struct {
    int* body;       /* ring buffer of cell indices, max_len long; head at (start + len - 1) */
    int start, len, dir, tick;
    float ret;
} Snake;

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int stride;      /* width + 2 * SN_VIEW: the arena is padded with SN_VIEW cells of wall */
    uint8_t* grid;
    Snake* snakes;
    int* bodies;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if ((long)env->num_snakes * env->max_len + env->num_food >= (long)env->width * env->height) {
        snprintf(err, OCEAN_ERR_LEN, "num_snakes * max_len + num_food (%ld) must be below the %d cells of the arena.",
                 (long)env->num_snakes * env->max_len + env->num_food, env->width * env->height);
        return 1;
    }
    s->num_agents = env->num_snakes;
    ocean_obs_grid(s, SN_SIDE, SN_SIDE, 0, 3);
    ocean_act_discrete(s, 4);
    int tile = env->width <= 128 && env->height <= 128 ? 8 : 2;
    ocean_render_size(s, tile * env->width, tile * env->height);
    return 0;
}

static int c_init(Env* env, char* err) {
    env->stride = env->width + 2 * SN_VIEW;
    env->grid = (uint8_t*)calloc((size_t)env->stride * (env->height + 2 * SN_VIEW), 1);
    env->snakes = (Snake*)calloc((size_t)env->num_snakes, sizeof(Snake));
    env->bodies = (int*)calloc((size_t)env->num_snakes * env->max_len, sizeof(int));
    if (!env->grid || !env->snakes || !env->bodies) {
        snprintf(err, OCEAN_ERR_LEN, "out of memory");
        return 1;
    }
    for (int k = 0; k < env->num_snakes; k++) env->snakes[k].body = env->bodies + (size_t)k * env->max_len;
    return 0;
}

static void c_close(Env* env) {
    free(env->grid);
    free(env->snakes);
    free(env->bodies);
    env->grid = NULL;
    env->snakes = NULL;
    env->bodies = NULL;
}

/* A random empty cell of the arena: a few random tries, then a scan from a random cell.
 * c_spaces guarantees that one exists. */
static int snake_empty_cell(Env* env) {
    int n = env->width * env->height, i = 0;
    for (int t = 0; t < n + 64; t++) {
        i = t <= 64 ? rng_int(&env->p.rng, n) : (i + 1) % n;
        int cell = (i / env->width + SN_VIEW) * env->stride + i % env->width + SN_VIEW;
        if (env->grid[cell] == SN_EMPTY) return cell;
    }
    return -1;
}

static void snake_spawn(Env* env, Snake* s) {
    int cell = snake_empty_cell(env);
    s->start = 0;
    s->len = 1;
    s->body[0] = cell;
    s->dir = rng_int(&env->p.rng, 4);
    s->tick = 0;
    s->ret = 0;
    env->grid[cell] = SN_BODY;
}

static void snake_observe(Env* env, int k) {
    const Snake* s = &env->snakes[k];
    int head = s->body[(s->start + s->len - 1) % env->max_len];
    uint8_t* obs = (uint8_t*)env->p.observations + (size_t)k * SN_SIDE * SN_SIDE;
    const uint8_t* src = env->grid + head - SN_VIEW * env->stride - SN_VIEW;
    for (int r = 0; r < SN_SIDE; r++) memcpy(obs + r * SN_SIDE, src + r * env->stride, SN_SIDE);
}

static void c_reset(Env* env) {
    int rows = env->height + 2 * SN_VIEW;
    memset(env->grid, SN_WALL, (size_t)env->stride * rows);
    for (int y = 0; y < env->height; y++)
        memset(env->grid + (y + SN_VIEW) * env->stride + SN_VIEW, SN_EMPTY, (size_t)env->width);
    for (int k = 0; k < env->num_snakes; k++) snake_spawn(env, &env->snakes[k]);
    for (int f = 0; f < env->num_food; f++) env->grid[snake_empty_cell(env)] = SN_FOOD;
    for (int k = 0; k < env->num_snakes; k++) snake_observe(env, k);
}

static void snake_end(Env* env, Snake* s) {
    for (int i = 0; i < s->len; i++) env->grid[s->body[(s->start + i) % env->max_len]] = SN_EMPTY;
    LOG_EPISODE(&env->log, .score = s->len, .episode_return = s->ret, .episode_length = s->tick);
    snake_spawn(env, s);
}

static void c_step(Env* env) {
    static const int OPPOSITE[4] = {1, 0, 3, 2};
    const int delta[4] = {-env->stride, env->stride, -1, 1};
    for (int k = 0; k < env->num_snakes; k++) {
        Snake* s = &env->snakes[k];
        int a = env->p.actions[k];
        if (!(s->len > 1 && a == OPPOSITE[s->dir])) s->dir = a;
        int head = s->body[(s->start + s->len - 1) % env->max_len];
        int next = head + delta[s->dir];
        uint8_t cell = env->grid[next];
        float reward = 0;
        int dead = cell == SN_WALL || cell == SN_BODY;
        s->tick++;
        if (!dead) {
            if (cell == SN_FOOD && s->len < env->max_len) {
                s->len++;
                reward = env->reward_food;
            } else {
                if (cell == SN_FOOD) reward = env->reward_food;  /* full length: eat, do not grow */
                env->grid[s->body[s->start]] = SN_EMPTY;
                s->start = (s->start + 1) % env->max_len;
            }
            s->body[(s->start + s->len - 1) % env->max_len] = next;
            env->grid[next] = SN_BODY;
            if (cell == SN_FOOD) env->grid[snake_empty_cell(env)] = SN_FOOD;
        } else {
            reward = env->reward_death;
        }
        s->ret += reward;
        int truncated = !dead && s->tick >= env->max_steps;
        env->p.rewards[k] = reward;
        env->p.terminals[k] = (uint8_t)dead;
        env->p.truncations[k] = (uint8_t)truncated;
        if (dead || truncated) {  /* its view as it ends (later snakes have not moved yet) */
            snake_observe(env, k);
            ocean_keep_final(&env->p, k);
            snake_end(env, s);
        }
    }
    for (int k = 0; k < env->num_snakes; k++) snake_observe(env, k);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    static const char CHARS[4] = {'.', '*', '#', 'o'};
    int len = 0;
    for (int y = SN_VIEW - 1; y <= env->height + SN_VIEW; y++) {
        for (int x = SN_VIEW - 1; x <= env->width + SN_VIEW; x++) {
            int cell = y * env->stride + x;
            char c = CHARS[env->grid[cell] & 3];
            for (int k = 0; k < env->num_snakes; k++) {
                const Snake* s = &env->snakes[k];
                if (s->body[(s->start + s->len - 1) % env->max_len] == cell) c = '@';
            }
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int tile = w / env->width;
    draw_fill(px, w, h, PUFFER_BG);
    for (int y = 0; y < env->height; y++)
        for (int x = 0; x < env->width; x++)
            if (env->grid[(y + SN_VIEW) * env->stride + x + SN_VIEW] == SN_FOOD)
                draw_rect(px, w, h, x * tile, y * tile, tile, tile, PUFFER_RED);
    for (int k = 0; k < env->num_snakes; k++) {
        const Snake* s = &env->snakes[k];
        const uint8_t* c = PUFFER_PALETTE[3 + k % 5];
        for (int i = 0; i < s->len; i++) {
            int cell = s->body[(s->start + i) % env->max_len];
            int x = cell % env->stride - SN_VIEW, y = cell / env->stride - SN_VIEW;
            int head = i == s->len - 1;
            draw_rect(px, w, h, x * tile, y * tile, tile, tile, head ? 255 : c[0], head ? 255 : c[1], head ? 255 : c[2]);
        }
    }
}

/* tetris: Tetris with hold, two previews and rising garbage (PufferLib's Ocean "tetris").
 *
 * An n_rows x n_cols well; the seven tetrominoes come from a 7-bag. Actions: 0 nothing,
 * 1 left, 2 right, 3 rotate (clockwise about the piece's top-left corner; refused when it
 * would collide), 4 soft drop (one row), 5 hard drop (to the floor, then lock), 6 hold
 * (swap with the held piece, once per piece). Every `ticks_per_fall` steps the piece falls
 * a row, locking when it cannot. Full rows clear: 1-4 rows score 100/300/500/1000 and earn
 * 0.1/0.3/0.5/1.0. Shaping: a hard drop earns `reward_hard_drop` (0.02), a rotation
 * `reward_rotation` (0: at 0.01, as shipped before 2026-12-05, agents learned to rotate every
 * step, worth more than clearing lines), each hole a lock adds (an empty cell under a block
 * of its column) costs `penalty_hole` (0) and each one it removes earns it back, and game over
 * costs `penalty_game_over` (0).
 * The level is 1 + cleared rows / 10: the piece falls faster (every max(3, 6 - level/4)
 * steps). The episode starts with `n_init_garbage` rows holding one block each; from
 * step `garbage_start` (500) on, a garbage row with one hole rises every
 * max(40, 100 - 7 sqrt(level)) steps (none when `garbage_start` >= `max_ticks`).
 * The game ends (terminal) when a new piece cannot appear or garbage pushes a block out
 * of the top, and is truncated after `max_ticks` steps. Observation (n_rows * n_cols + 34
 * + n_noise_obs floats): the well (0 empty, 1 block, 2 the falling piece), step /
 * max_ticks, fall timer / ticks_per_fall, piece row / n_rows, piece column / n_cols,
 * rotation / 3, hold available; one-hot current piece, two previews and the held piece;
 * then `n_noise_obs` bits that start at 1 and of which one random bit is cleared each step.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(lines_deleted) X(game_level)
#define PARAMS(P) P(int, n_rows, 20, 6, 40) P(int, n_cols, 10, 4, 20) P(int, n_noise_obs, 10, 0, 64) \
    P(int, n_init_garbage, 4, 0, 20) P(int, max_ticks, 10000, 1, 10000000) \
    P(int, garbage_start, 500, 0, 10000000) P(float, reward_rotation, 0, 0, 1) \
    P(float, reward_hard_drop, 0.02, 0, 1) P(float, penalty_hole, 0, 0, 1) \
    P(float, penalty_game_over, 0, 0, 100)
#define FIELDS(F) F(int, piece) F(int, row) F(int, col) F(int, rot) F(int, hold) F(int, score) F(int, lines) \
    F(int, tick) F(int, ticks_per_fall)
#include "../puffer.h"

#define TE_PIECES 7
#define TE_MAX_CELLS (40 * 20)

/* Cells (row, col) of each piece in each rotation, relative to its bounding box's top-left. */
static const int8_t TE_SHAPES[TE_PIECES][4][4][2] = {
    /* I */ {{{0, 0}, {0, 1}, {0, 2}, {0, 3}}, {{0, 0}, {1, 0}, {2, 0}, {3, 0}}, {{0, 0}, {0, 1}, {0, 2}, {0, 3}}, {{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
    /* O */ {{{0, 0}, {0, 1}, {1, 0}, {1, 1}}, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}},
    /* T */ {{{0, 0}, {0, 1}, {0, 2}, {1, 1}}, {{0, 1}, {1, 0}, {1, 1}, {2, 1}}, {{0, 1}, {1, 0}, {1, 1}, {1, 2}}, {{0, 0}, {1, 0}, {1, 1}, {2, 0}}},
    /* S */ {{{0, 1}, {0, 2}, {1, 0}, {1, 1}}, {{0, 0}, {1, 0}, {1, 1}, {2, 1}}, {{0, 1}, {0, 2}, {1, 0}, {1, 1}}, {{0, 0}, {1, 0}, {1, 1}, {2, 1}}},
    /* Z */ {{{0, 0}, {0, 1}, {1, 1}, {1, 2}}, {{0, 1}, {1, 0}, {1, 1}, {2, 0}}, {{0, 0}, {0, 1}, {1, 1}, {1, 2}}, {{0, 1}, {1, 0}, {1, 1}, {2, 0}}},
    /* J */ {{{0, 0}, {1, 0}, {1, 1}, {1, 2}}, {{0, 0}, {0, 1}, {1, 0}, {2, 0}}, {{0, 0}, {0, 1}, {0, 2}, {1, 2}}, {{0, 1}, {1, 1}, {2, 0}, {2, 1}}},
    /* L */ {{{0, 2}, {1, 0}, {1, 1}, {1, 2}}, {{0, 0}, {1, 0}, {2, 0}, {2, 1}}, {{0, 0}, {0, 1}, {0, 2}, {1, 0}}, {{0, 0}, {0, 1}, {1, 1}, {2, 1}}},
};
static const int TE_LINE_SCORE[5] = {0, 100, 300, 500, 1000};
static const float TE_LINE_REWARD[5] = {0, 0.1f, 0.3f, 0.5f, 1.0f};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int piece, row, col, rot, hold, can_hold;
    int tick, tick_fall, ticks_per_fall, tick_garbage, ticks_per_garbage, holes;
    int score, lines, level;
    float ret;
    int deck[2 * TE_PIECES], deck_pos;  /* two bags: the one in use and the next, for previews */
    uint8_t grid[TE_MAX_CELLS];         /* 0 empty, else 1 + piece (garbage: 8) */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (env->n_init_garbage > env->n_rows - 4) {
        snprintf(err, OCEAN_ERR_LEN, "n_init_garbage (%d) must leave 4 free rows of the %d.", env->n_init_garbage,
                 env->n_rows);
        return 1;
    }
    ocean_obs_flat(s, env->n_rows * env->n_cols + 6 + 4 * TE_PIECES + env->n_noise_obs, 0, 2);
    ocean_act_discrete(s, 7);
    ocean_render_size(s, 24 * (env->n_cols + 6), 24 * env->n_rows);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* Whether `piece` in rotation `rot` fits with its top-left at (row, col). */
static int te_fits(const Env* env, int piece, int rot, int row, int col) {
    for (int i = 0; i < 4; i++) {
        int r = row + TE_SHAPES[piece][rot][i][0], c = col + TE_SHAPES[piece][rot][i][1];
        if (r < 0 || r >= env->n_rows || c < 0 || c >= env->n_cols || env->grid[r * env->n_cols + c]) return 0;
    }
    return 1;
}

static void te_shuffle(Env* env, int* bag) {
    for (int i = 0; i < TE_PIECES; i++) bag[i] = i;
    for (int i = TE_PIECES - 1; i > 0; i--) {
        int j = rng_int(&env->p.rng, i + 1), t = bag[i];
        bag[i] = bag[j];
        bag[j] = t;
    }
}

static inline int te_spawn_col(const Env* env, int piece) { return (env->n_cols - (piece == 0 ? 4 : piece == 1 ? 2 : 3)) / 2; }

/* Put `piece` at the top; 0 when it does not fit (game over). */
static int te_spawn(Env* env, int piece) {
    env->piece = piece;
    env->rot = 0;
    env->row = 0;
    env->col = te_spawn_col(env, piece);
    env->tick_fall = 0;
    return te_fits(env, piece, 0, 0, env->col);
}

/* The next piece of the deck; the bag just emptied is refilled for the previews. */
static int te_next_piece(Env* env) {
    env->deck_pos = (env->deck_pos + 1) % (2 * TE_PIECES);
    if (env->deck_pos == 0) te_shuffle(env, env->deck + TE_PIECES);
    else if (env->deck_pos == TE_PIECES) te_shuffle(env, env->deck);
    return env->deck[env->deck_pos];
}

/* Empty cells with a block somewhere above them in their column. */
static int te_holes(const Env* env) {
    int holes = 0;
    for (int c = 0; c < env->n_cols; c++) {
        int covered = 0;
        for (int r = 0; r < env->n_rows; r++) {
            int filled = env->grid[r * env->n_cols + c] != 0;
            covered |= filled;
            holes += covered && !filled;
        }
    }
    return holes;
}

/* Push `n` garbage rows in from the bottom, each with `holes` random empty cells; 0 when a
 * block would leave the top. */
static int te_garbage(Env* env, int n, int holes) {
    int w = env->n_cols;
    for (int i = 0; i < n * w; i++)
        if (env->grid[i]) return 0;
    memmove(env->grid, env->grid + n * w, (size_t)(env->n_rows - n) * w);
    for (int r = env->n_rows - n; r < env->n_rows; r++) {
        uint8_t* line = env->grid + r * w;
        memset(line, 8, (size_t)w);
        for (int h = 0; h < holes && h < w; h++) {
            int c;
            do c = rng_int(&env->p.rng, w); while (!line[c]);
            line[c] = 0;
        }
    }
    env->row = env->row - n < 0 ? 0 : env->row - n;
    if (env->penalty_hole > 0) env->holes = te_holes(env);
    return 1;
}

static void te_observe(Env* env) {
    float* o = (float*)env->p.observations;
    int cells = env->n_rows * env->n_cols;
    for (int i = 0; i < cells; i++) o[i] = env->grid[i] != 0;
    for (int i = 0; i < 4; i++)
        o[(env->row + TE_SHAPES[env->piece][env->rot][i][0]) * env->n_cols + env->col + TE_SHAPES[env->piece][env->rot][i][1]] = 2;
    o += cells;
    o[0] = env->tick / (float)env->max_ticks;
    o[1] = env->tick_fall / (float)env->ticks_per_fall;
    o[2] = env->row / (float)env->n_rows;
    o[3] = env->col / (float)env->n_cols;
    o[4] = env->rot / 3.0f;
    o[5] = (float)env->can_hold;
    o += 6;
    memset(o, 0, sizeof(float) * 4 * TE_PIECES);
    o[env->piece] = 1;
    for (int j = 1; j <= 2; j++) o[j * TE_PIECES + env->deck[(env->deck_pos + j) % (2 * TE_PIECES)]] = 1;
    if (env->hold >= 0) o[3 * TE_PIECES + env->hold] = 1;
    o += 4 * TE_PIECES;
    if (env->n_noise_obs > 0) o[rng_int(&env->p.rng, env->n_noise_obs)] = 0;
}

static void c_reset(Env* env) {
    env->tick = env->tick_garbage = env->score = env->lines = 0;
    env->level = 1;
    env->ticks_per_fall = 6;
    env->ticks_per_garbage = 100;
    env->hold = -1;
    env->can_hold = 1;
    env->ret = 0;
    memset(env->grid, 0, sizeof(env->grid));
    env->holes = 0;
    te_garbage(env, env->n_init_garbage, env->n_cols - 1);
    te_shuffle(env, env->deck);
    te_shuffle(env, env->deck + TE_PIECES);
    env->deck_pos = 0;
    te_spawn(env, env->deck[0]);
    float* noise = (float*)env->p.observations + env->n_rows * env->n_cols + 6 + 4 * TE_PIECES;
    for (int i = 0; i < env->n_noise_obs; i++) noise[i] = 1;
    te_observe(env);
}

/* Lock the piece, clear rows, spawn the next; returns the reward, sets *over on game over. */
static float te_lock(Env* env, int* over) {
    int w = env->n_cols, cleared = 0;
    for (int i = 0; i < 4; i++)
        env->grid[(env->row + TE_SHAPES[env->piece][env->rot][i][0]) * w + env->col + TE_SHAPES[env->piece][env->rot][i][1]] =
            (uint8_t)(1 + env->piece);
    for (int r = 0; r < env->n_rows; r++) {
        int full = 1;
        for (int c = 0; c < w && full; c++) full = env->grid[r * w + c] != 0;
        if (!full) continue;
        memmove(env->grid + w, env->grid, (size_t)r * w);
        memset(env->grid, 0, (size_t)w);
        cleared++;
    }
    float reward = 0;
    if (cleared) {
        env->lines += cleared;
        env->score += TE_LINE_SCORE[cleared];
        reward = TE_LINE_REWARD[cleared];
        env->level = 1 + env->lines / 10;
        env->ticks_per_fall = 6 - env->level / 4 < 3 ? 3 : 6 - env->level / 4;
        int g = (int)(100 - 7 * sqrt((double)env->level));
        env->ticks_per_garbage = g < 40 ? 40 : g;
    }
    if (env->penalty_hole > 0) {  /* counting costs a pass over the well: only when it is paid for */
        int holes = te_holes(env);
        reward -= env->penalty_hole * (float)(holes - env->holes);
        env->holes = holes;
    }
    env->can_hold = 1;
    if (!te_spawn(env, te_next_piece(env))) *over = 1;
    return reward;
}

static void c_step(Env* env) {
    int a = env->p.actions[0], over = 0;
    float reward = 0;
    env->tick++;
    env->tick_fall++;
    if (a == 1 && te_fits(env, env->piece, env->rot, env->row, env->col - 1)) env->col--;
    else if (a == 2 && te_fits(env, env->piece, env->rot, env->row, env->col + 1)) env->col++;
    else if (a == 3 && te_fits(env, env->piece, (env->rot + 1) & 3, env->row, env->col)) {
        env->rot = (env->rot + 1) & 3;
        reward += env->reward_rotation;
    } else if (a == 4 && te_fits(env, env->piece, env->rot, env->row + 1, env->col)) {
        env->row++;
        env->score += 1;
    } else if (a == 5) {
        while (te_fits(env, env->piece, env->rot, env->row + 1, env->col)) {
            env->row++;
            env->score += 2;
        }
        reward += env->reward_hard_drop + te_lock(env, &over);
    } else if (a == 6 && env->can_hold) {
        int next = env->hold >= 0 ? env->hold : env->deck[(env->deck_pos + 1) % (2 * TE_PIECES)];
        if (te_fits(env, next, 0, 0, te_spawn_col(env, next))) {
            if (env->hold < 0) te_next_piece(env);
            env->hold = env->piece;
            te_spawn(env, next);
            env->can_hold = 0;
        }
    }
    if (!over && env->tick_fall >= env->ticks_per_fall) {
        env->tick_fall = 0;
        if (te_fits(env, env->piece, env->rot, env->row + 1, env->col)) env->row++;
        else reward += te_lock(env, &over);
    }
    if (!over && env->tick >= env->garbage_start && ++env->tick_garbage >= env->ticks_per_garbage) {
        env->tick_garbage = 0;
        if (!te_garbage(env, 1, 1)) over = 1;
        else if (!te_fits(env, env->piece, env->rot, env->row, env->col)) over = 1;  /* pushed into the piece */
    }
    if (over) reward -= env->penalty_game_over;
    env->ret += reward;
    int truncated = !over && env->tick >= env->max_ticks;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)over;
    env->p.truncations[0] = (uint8_t)truncated;
    if (over) {  /* the piece may overlap blocks: show the well as it ended, piece included */
        float* o = (float*)env->p.observations;
        for (int i = 0; i < env->n_rows * env->n_cols; i++) o[i] = env->grid[i] != 0;
    } else {
        te_observe(env);
    }
    if (over || truncated) {
        LOG_EPISODE(&env->log, .score = env->score, .episode_return = env->ret, .episode_length = env->tick,
                    .lines_deleted = env->lines, .game_level = env->level);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    static const char CHARS[10] = ".IOTSZJL#";
    int len = 0, w = env->n_cols;
    for (int r = 0; r < env->n_rows; r++) {
        ANSI_APPEND(buf, cap, len, "|");
        for (int c = 0; c < w; c++) {
            char out = CHARS[env->grid[r * w + c] < 9 ? env->grid[r * w + c] : 8];
            for (int i = 0; i < 4; i++)
                if (env->row + TE_SHAPES[env->piece][env->rot][i][0] == r && env->col + TE_SHAPES[env->piece][env->rot][i][1] == c)
                    out = '@';
            ANSI_APPEND(buf, cap, len, "%c", out);
        }
        ANSI_APPEND(buf, cap, len, "|\n");
    }
    ANSI_APPEND(buf, cap, len, "score %d  lines %d  level %d  next %c %c  hold %c\n", env->score, env->lines,
                env->level, CHARS[1 + env->deck[(env->deck_pos + 1) % 14]], CHARS[1 + env->deck[(env->deck_pos + 2) % 14]],
                env->hold >= 0 ? CHARS[1 + env->hold] : '-');
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    static const uint8_t COLORS[9][3] = {{20, 40, 40}, {PUFFER_CYAN}, {PUFFER_YELLOW}, {170, 80, 220}, {PUFFER_GREEN},
                                         {PUFFER_RED}, {PUFFER_BLUE}, {PUFFER_ORANGE}, {120, 120, 120}};
    int t = 24, cols = env->n_cols;
    draw_fill(px, w, h, PUFFER_BG);
    for (int r = 0; r < env->n_rows; r++)
        for (int c = 0; c < cols; c++) {
            const uint8_t* k = COLORS[env->grid[r * cols + c] < 9 ? env->grid[r * cols + c] : 8];
            draw_rect(px, w, h, c * t + 1, r * t + 1, t - 2, t - 2, k[0], k[1], k[2]);
        }
    for (int i = 0; i < 4; i++) {
        const uint8_t* k = COLORS[1 + env->piece];
        draw_rect(px, w, h, (env->col + TE_SHAPES[env->piece][env->rot][i][1]) * t, (env->row + TE_SHAPES[env->piece][env->rot][i][0]) * t,
                  t, t, k[0], k[1], k[2]);
    }
    for (int j = 0; j < 3; j++) {  /* two previews, then the held piece, in the side panel */
        int piece = j < 2 ? env->deck[(env->deck_pos + 1 + j) % 14] : env->hold;
        if (piece < 0) continue;
        const uint8_t* k = COLORS[1 + piece];
        for (int i = 0; i < 4; i++)
            draw_rect(px, w, h, (cols + 1 + TE_SHAPES[piece][0][i][1]) * t, (1 + 5 * j + TE_SHAPES[piece][0][i][0]) * t,
                      t - 2, t - 2, k[0], k[1], k[2]);
    }
}

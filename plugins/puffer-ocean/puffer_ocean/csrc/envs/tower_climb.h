/* tower_climb: climb a tower of blocks by pushing and pulling them (PufferLib's Ocean
 * "tower_climb", a puzzle in the style of the game Catherine).
 *
 * The world is 10 x 10 cells on 10 floors; cell = x + 10 z + 100 y (y up). Floor 0 is
 * the void; blocks on floor 1 stand on the ground; a block on a higher floor stays put
 * while a block, or the goal, is directly under it or edge to edge under it (one of the
 * four cells beside the cell below); otherwise it falls until it is. The robot stands on
 * a block (or the goal) and faces one of four directions: 0 +x, 1 +z, 2 -x, 3 -z.
 * Actions (6): 0-3 a direction, 4 grab/release, 5 let go.
 * Standing, holding nothing: a direction other than the facing one turns; the facing one
 * walks onto the next cell when a block is under it, climbs onto the block in front when
 * the cells above the robot and above that block are free, and walks off an edge
 * otherwise: one floor down onto a block two floors below, else hanging from the edge
 * of the block it stood on, facing it.
 * Hanging: 3 climbs onto the block hung from (cells above free), 0 / 2 shimmy right /
 * left along its edge (turning around inner corners, wrapping around outer ones), 5 lets
 * go: the robot falls to the first block below, or into the void (death).
 * 4 grabs the block in front (release with 4 again). Holding it: the facing direction
 * pushes the whole row of blocks in front one cell (not past the world's edge nor into
 * the goal) and releases; the opposite direction pulls the block onto the robot's cell
 * while the robot steps back (onto a block: still holding; over nothing: it hangs from
 * the edge); a side direction turns and releases. Blocks then fall; one that falls into
 * the robot kills it; a move that would leave the goal unsupported is illegal.
 * Rewards: +1 for standing on the goal (terminal), -1 for death (terminal),
 * reward_climb_row for each new highest floor, reward_fall_row for walking off an edge or
 * letting go, reward_move_block for moving a block, reward_illegal_move for an action that
 * changes nothing; truncated after max_steps steps. score: floors climbed above the start; perf:
 * 1 when the goal was reached.
 * Levels: a bank of generated towers (blocks at random under a tapering outline, goal on
 * floor 5-8), each kept only when a breadth-first search over the rules above solves it
 * in 10 to 30 actions; the bank is built once per process, the same in every process,
 * and each episode plays one of its first num_maps levels. `start_on_solution` (0): the share
 * of episodes that start partway along the level's solution, after a uniform number of its
 * moves (0 to all but the last) replayed at reset; only the episodes played from the level's
 * start are logged. Training from states along a known solution reaches the goal from the
 * start on levels a plain agent never finds (after Salimans & Chen, 2018, learning Montezuma's
 * Revenge from one demonstration).
 * Observation (228 uint8): the 9 (x) x 5 (z) x 5 (floors) cells around the robot, index
 * x + 9 z + 45 y, clamped to the world (0 empty, 1 block, 2 goal, 3 robot; the window's
 * floors are the robot's floor - 1 to + 3), then orientation (0-3), hanging (0/1),
 * holding a block (0/1).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(perf)
#define TC_BANK 64
#define PARAMS(P) P(int, num_maps, 50, 1, TC_BANK) P(int, max_steps, 60, 1, 100000) \
    P(float, reward_climb_row, 0.16, -10, 10) P(float, reward_fall_row, -0.13, -10, 10) \
    P(float, reward_illegal_move, -0.005, -10, 10) P(float, reward_move_block, 0.035, -10, 10) \
    P(float, start_on_solution, 0, 0, 1)
/* Test fields: the robot, the goal, the block bitset (32 words of 32 cells) and the solver's actions. */
#define FIELDS(F) F(int, s.pos) F(int, s.orient) F(int, s.hang) F(int, s.holding) F(int, goal) F(int, tick) \
    F(int, level) F(int, best_floor) F(int, solution_len) F(int, replayed) \
    F(int, s.bits[0]) F(int, s.bits[1]) F(int, s.bits[2]) F(int, s.bits[3]) F(int, s.bits[4]) \
    F(int, s.bits[5]) F(int, s.bits[6]) F(int, s.bits[7]) F(int, s.bits[8]) F(int, s.bits[9]) \
    F(int, s.bits[10]) F(int, s.bits[11]) F(int, s.bits[12]) F(int, s.bits[13]) F(int, s.bits[14]) \
    F(int, s.bits[15]) F(int, s.bits[16]) F(int, s.bits[17]) F(int, s.bits[18]) F(int, s.bits[19]) \
    F(int, s.bits[20]) F(int, s.bits[21]) F(int, s.bits[22]) F(int, s.bits[23]) F(int, s.bits[24]) \
    F(int, s.bits[25]) F(int, s.bits[26]) F(int, s.bits[27]) F(int, s.bits[28]) F(int, s.bits[29]) \
    F(int, s.bits[30]) F(int, s.bits[31]) \
    F(int, solution[0]) F(int, solution[1]) F(int, solution[2]) F(int, solution[3]) F(int, solution[4]) \
    F(int, solution[5]) F(int, solution[6]) F(int, solution[7]) F(int, solution[8]) F(int, solution[9]) \
    F(int, solution[10]) F(int, solution[11]) F(int, solution[12]) F(int, solution[13]) F(int, solution[14]) \
    F(int, solution[15]) F(int, solution[16]) F(int, solution[17]) F(int, solution[18]) F(int, solution[19]) \
    F(int, solution[20]) F(int, solution[21]) F(int, solution[22]) F(int, solution[23]) F(int, solution[24]) \
    F(int, solution[25]) F(int, solution[26]) F(int, solution[27]) F(int, solution[28]) F(int, solution[29])
#include "../puffer.h"

#define TC_N 10
#define TC_FLOOR 100
#define TC_CELLS 1000
#define TC_WORDS 32
#define TC_OBS 228
#define TC_MIN_MOVES 10
#define TC_MAX_MOVES 30
#define TC_BUDGET 40000           /* states the solver may visit per candidate tower */
#define TC_HASH (1 << 17)
enum { TC_ILLEGAL = 0, TC_MOVE, TC_FALL, TC_BLOCK, TC_DEATH };
enum { TC_GRAB = 4, TC_LET_GO = 5 };
static const int TC_DX[4] = {1, 0, -1, 0}, TC_DZ[4] = {0, 1, 0, -1};

/* What the rules act on: the blocks (a bitset) and the robot. */
typedef struct {
    uint32_t bits[TC_WORDS];
    int pos, orient, hang, holding;
} TcState;

typedef struct {
    TcState start;
    int goal, moves;
    int8_t solution[TC_MAX_MOVES];
} TcLevel;

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    TcState s;
    int goal, level, tick, start_floor, best_floor, solution_len, replayed;
    float ret;
    int solution[TC_MAX_MOVES];  /* the solver's actions for this level (tests replay them) */
} Env;

static TcLevel tc_bank[TC_BANK];
static int tc_bank_size = 0;  /* levels built so far; level k is the same however many are built */

static inline int tc_get(const TcState* s, int c) { return (int)((s->bits[c >> 5] >> (c & 31)) & 1u); }
static inline void tc_set(TcState* s, int c) { s->bits[c >> 5] |= 1u << (c & 31); }
static inline void tc_clear(TcState* s, int c) { s->bits[c >> 5] &= ~(1u << (c & 31)); }
static inline int tc_floor(int c) { return c / TC_FLOOR; }
static inline int tc_solid(const TcState* s, int goal, int c) { return c >= 0 && (c == goal || tc_get(s, c)); }

/* The cell next to c in direction d on the same floor, or -1 past the world's edge (or for c = -1). */
static inline int tc_next(int c, int d) {
    if (c < 0) return -1;
    int x = c % TC_N + TC_DX[d], z = c / TC_N % TC_N + TC_DZ[d];
    return x < 0 || x >= TC_N || z < 0 || z >= TC_N ? -1 : c + TC_DX[d] + TC_N * TC_DZ[d];
}
static inline int tc_up(int c) { return c >= 0 && c + TC_FLOOR < TC_CELLS ? c + TC_FLOOR : -1; }

/* A block (or the goal) at c stays put: floor 1, or something solid under it or edge to edge under it. */
static int tc_supported(const TcState* s, int goal, int c) {
    if (tc_floor(c) <= 1) return 1;
    int below = c - TC_FLOOR;
    if (tc_solid(s, goal, below)) return 1;
    for (int d = 0; d < 4; d++) if (tc_solid(s, goal, tc_next(below, d))) return 1;
    return 0;
}

/* Let unsupported blocks fall (lowest floors first, so one pass settles everything).
 * TC_DEATH if one falls into the robot, TC_ILLEGAL if the goal loses its support. */
static int tc_settle(TcState* s, int goal) {
    int result = TC_BLOCK;
    for (int c = 2 * TC_FLOOR; c < TC_CELLS; c++) {
        if (!tc_get(s, c) || tc_supported(s, goal, c)) continue;
        tc_clear(s, c);
        int at = c;
        while (!tc_supported(s, goal, at)) {
            at -= TC_FLOOR;
            if (at == s->pos) result = TC_DEATH;
        }
        tc_set(s, at);
    }
    if (goal >= 0 && !tc_supported(s, goal, goal)) return TC_ILLEGAL;
    return result;
}

static int tc_push(TcState* s, int goal) {
    int d = s->orient, end = tc_next(s->pos, d);
    while (end >= 0 && tc_get(s, end)) end = tc_next(end, d);
    if (end < 0 || end == goal) return TC_ILLEGAL;
    tc_clear(s, tc_next(s->pos, d));  /* the row moves one cell: its first cell empties, end fills */
    tc_set(s, end);
    s->holding = 0;
    return tc_settle(s, goal);
}

static int tc_pull(TcState* s, int goal) {
    int back = tc_next(s->pos, (s->orient + 2) & 3);
    if (back < 0 || tc_solid(s, goal, back)) return TC_ILLEGAL;
    tc_clear(s, tc_next(s->pos, s->orient));
    tc_set(s, s->pos);
    if (tc_solid(s, goal, back - TC_FLOOR)) {
        s->pos = back;
    } else {  /* stepped back over nothing: hang from the edge of the block it stood on */
        s->pos = back - TC_FLOOR;
        s->hang = 1;
        s->holding = 0;
    }
    return tc_settle(s, goal);
}

/* Apply one action to s; returns TC_ILLEGAL (s unchanged unless the caller works on a copy:
 * tc_settle may have moved blocks before finding the goal unsupported), TC_MOVE, TC_FALL
 * (walked off an edge or let go), TC_BLOCK (a block moved) or TC_DEATH. */
static int tc_apply(TcState* s, int goal, int a) {
    int pos = s->pos, o = s->orient, front = tc_next(pos, o);
    if (s->hang) {
        if (a == TC_LET_GO) {
            for (int c = pos - TC_FLOOR; c >= TC_FLOOR; c -= TC_FLOOR)
                if (tc_solid(s, goal, c)) {
                    s->pos = c + TC_FLOOR;
                    s->hang = 0;
                    return TC_FALL;
                }
            return TC_DEATH;
        }
        if (a == 3) {  /* climb onto the block hung from */
            int above = tc_up(pos), target = tc_up(front);
            if (above < 0 || target < 0 || tc_solid(s, goal, above) || tc_solid(s, goal, target)) return TC_ILLEGAL;
            s->pos = target;
            s->hang = 0;
            return TC_MOVE;
        }
        if (a == 0 || a == 2) {  /* shimmy right / left along the edge */
            int side = a == 2 ? (o + 3) & 3 : (o + 1) & 3, path = tc_next(pos, side), corner = tc_next(front, side);
            if (path < 0) return TC_ILLEGAL;
            if (tc_solid(s, goal, path)) {  /* inner corner: turn to hang from that block */
                s->orient = side;
                return TC_MOVE;
            }
            int to = tc_solid(s, goal, corner) ? path : corner;  /* along the edge, or around the outer corner */
            if (to < 0 || tc_solid(s, goal, to) || tc_solid(s, goal, tc_up(to))) return TC_ILLEGAL;
            s->pos = to;
            if (to == corner) s->orient = (side + 2) & 3;
            return TC_MOVE;
        }
        return TC_ILLEGAL;
    }
    if (a < 4) {
        if (s->holding) {
            if (a == o) return tc_push(s, goal);
            if (a == ((o + 2) & 3)) return tc_pull(s, goal);
            s->orient = a;
            s->holding = 0;
            return TC_MOVE;
        }
        if (a != o) {
            s->orient = a;
            return TC_MOVE;
        }
        if (front < 0) return TC_ILLEGAL;
        if (tc_solid(s, goal, front)) {  /* climb */
            int above = tc_up(pos), target = tc_up(front);
            if (above < 0 || target < 0 || tc_solid(s, goal, above) || tc_solid(s, goal, target)) return TC_ILLEGAL;
            s->pos = target;
            return TC_MOVE;
        }
        int below = front - TC_FLOOR;
        if (tc_solid(s, goal, below)) {
            s->pos = front;
            return TC_MOVE;
        }
        if (below >= TC_FLOOR && tc_solid(s, goal, below - TC_FLOOR)) {
            s->pos = below;  /* one floor down */
        } else {
            s->pos = below;  /* hang from the edge just left, facing it */
            s->orient = (o + 2) & 3;
            s->hang = 1;
        }
        return TC_FALL;
    }
    if (a == TC_GRAB) {
        if (s->holding) {
            s->holding = 0;
            return TC_MOVE;
        }
        if (front < 0 || !tc_get(s, front)) return TC_ILLEGAL;
        s->holding = 1;
        return TC_MOVE;
    }
    return TC_ILLEGAL;  /* letting go while standing */
}

static inline int tc_won(const TcState* s, int goal) { return s->pos == goal + TC_FLOOR; }

/* ---- the level bank: generate, then keep only what breadth-first search solves ---- */

typedef struct {
    TcState s;
    int parent, depth, action;
} TcNode;

static uint64_t tc_hash(const TcState* s) {
    const uint32_t* w = (const uint32_t*)s;
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < sizeof(TcState) / 4; i++) h = (h ^ w[i]) * 0x100000001B3ull + (h >> 29);
    return h;
}

/* Shortest solution of (start, goal) in at most TC_MAX_MOVES actions, written to `solution`;
 * -1 when there is none, or when the search visits more than TC_BUDGET states. */
static int tc_solve(const TcState* start, int goal, TcNode* nodes, int* table, int8_t* solution) {
    memset(table, -1, sizeof(int) * TC_HASH);
    int head = 0, tail = 0;
    nodes[tail++] = (TcNode){*start, -1, 0, -1};
    table[tc_hash(start) & (TC_HASH - 1)] = 0;
    while (head < tail) {
        TcNode* cur = &nodes[head];
        if (cur->depth >= TC_MAX_MOVES) break;
        for (int a = 0; a < 6; a++) {
            TcState next = cur->s;
            int r = tc_apply(&next, goal, a);
            if (r == TC_ILLEGAL || r == TC_DEATH) continue;
            uint32_t slot = (uint32_t)(tc_hash(&next) & (TC_HASH - 1));
            int seen = 0;
            for (; table[slot] >= 0; slot = (slot + 1) & (TC_HASH - 1))
                if (memcmp(&nodes[table[slot]].s, &next, sizeof(TcState)) == 0) { seen = 1; break; }
            if (seen) continue;
            if (tc_won(&next, goal)) {
                int depth = cur->depth + 1;
                solution[depth - 1] = (int8_t)a;
                for (int k = head, i = depth - 2; i >= 0; k = nodes[k].parent, i--)
                    solution[i] = (int8_t)nodes[k].action;
                return depth;
            }
            if (tail >= TC_BUDGET) return -1;
            table[slot] = tail;
            nodes[tail++] = (TcNode){next, head, cur->depth + 1, a};
        }
        head++;
    }
    return -1;
}

/* One candidate tower from rng: blocks at random under a tapering outline, settled; the
 * start on floor 2 at the front; the goal on floor goal_floor over a block. 0 if none. */
static int tc_generate(uint64_t* rng, int goal_floor, TcState* s, int* goal) {
    memset(s, 0, sizeof(*s));
    for (int y = 1; y < goal_floor; y++)
        for (int z = 1; z < 8 && z <= 8 - y; z++)
            for (int x = 1; x < 8; x++)
                if (rng_int(rng, 2)) tc_set(s, x + TC_N * z + TC_FLOOR * y);
    s->pos = -1;
    tc_settle(s, -1);
    s->pos = s->orient = *goal = -1;
    for (int z = TC_N - 1; z >= 0 && s->pos < 0; z--)
        for (int x = 0; x < TC_N && s->pos < 0; x++) {
            int c = x + TC_N * z + 2 * TC_FLOOR;
            if (!tc_get(s, c) && tc_get(s, c - TC_FLOOR)) s->pos = c;
        }
    for (int z = TC_N - 1; z >= 0 && *goal < 0; z--)
        for (int x = 0; x < TC_N && *goal < 0; x++) {
            int c = x + TC_N * z + goal_floor * TC_FLOOR;
            if (!tc_get(s, c) && tc_supported(s, -1, c) && rng_int(rng, 3) == 0) *goal = c;
        }
    s->orient = 3;
    return s->pos >= 0 && *goal >= 0;
}

/* Build levels [tc_bank_size, count): called from c_init, under the GIL. */
static int tc_build_bank(int count, char* err) {
    if (count <= tc_bank_size) return 0;
    TcNode* nodes = (TcNode*)malloc(sizeof(TcNode) * TC_BUDGET);
    int* table = (int*)malloc(sizeof(int) * TC_HASH);
    if (!nodes || !table) {
        free(nodes);
        free(table);
        snprintf(err, OCEAN_ERR_LEN, "out of memory building the tower_climb levels");
        return 1;
    }
    for (int k = tc_bank_size; k < count; k++) {
        TcLevel* L = &tc_bank[k];
        uint64_t rng = 0x7043C11Bull * (uint64_t)(k + 1);
        L->moves = -1;
        for (int tries = 0; tries < 100000 && L->moves < TC_MIN_MOVES; tries++)
            if (tc_generate(&rng, 5 + k % 4, &L->start, &L->goal))
                L->moves = tc_solve(&L->start, L->goal, nodes, table, L->solution);
        if (L->moves < TC_MIN_MOVES) {
            snprintf(err, OCEAN_ERR_LEN, "tower_climb: no solvable tower found for level %d", k);
            free(nodes);
            free(table);
            return 1;
        }
    }
    tc_bank_size = count;
    free(nodes);
    free(table);
    return 0;
}

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_bytes(s, TC_OBS, 0, 3);
    ocean_act_discrete(s, 6);
    ocean_render_size(s, 3 * 128, 3 * 128);
    return 0;
}

static int c_init(Env* env, char* err) { return tc_build_bank(env->num_maps, err); }
static void c_close(Env* env) {}

static inline int tc_window(int centre, int size) {
    int start = centre - size / 2;
    return start < 0 ? 0 : start + size > TC_N ? TC_N - size : start;
}

static void tc_observe(Env* env) {
    uint8_t* o = (uint8_t*)env->p.observations;
    const TcState* s = &env->s;
    int x0 = tc_window(s->pos % TC_N, 9), z0 = tc_window(s->pos / TC_N % TC_N, 5);
    int y0 = tc_window(tc_floor(s->pos) + 1, 5);
    for (int y = 0; y < 5; y++)
        for (int z = 0; z < 5; z++) {
            int row = (x0 + TC_N * (z0 + z) + TC_FLOOR * (y0 + y));
            uint8_t* out = o + 9 * z + 45 * y;
            for (int x = 0; x < 9; x++) out[x] = (uint8_t)tc_get(s, row + x);
        }
    if (env->goal >= 0) {
        int gx = env->goal % TC_N - x0, gz = env->goal / TC_N % TC_N - z0, gy = tc_floor(env->goal) - y0;
        if (gx >= 0 && gx < 9 && gz >= 0 && gz < 5 && gy >= 0 && gy < 5) o[gx + 9 * gz + 45 * gy] = 2;
    }
    o[s->pos % TC_N - x0 + 9 * (s->pos / TC_N % TC_N - z0) + 45 * (tc_floor(s->pos) - y0)] = 3;
    o[225] = (uint8_t)s->orient;
    o[226] = (uint8_t)s->hang;
    o[227] = (uint8_t)s->holding;
}

static void c_reset(Env* env) {
    env->level = rng_int(&env->p.rng, env->num_maps);
    const TcLevel* L = &tc_bank[env->level];
    env->s = L->start;
    env->goal = L->goal;
    env->solution_len = L->moves;
    for (int i = 0; i < TC_MAX_MOVES; i++) env->solution[i] = i < L->moves ? L->solution[i] : 0;
    env->tick = 0;
    env->ret = 0;
    env->replayed = 0;
    if (env->start_on_solution > 0 && rng_float(&env->p.rng) < env->start_on_solution) {
        env->replayed = rng_int(&env->p.rng, L->moves);  /* 0 to all but the last of its moves */
        for (int i = 0; i < env->replayed; i++) tc_apply(&env->s, env->goal, L->solution[i]);
    }
    env->start_floor = env->best_floor = tc_floor(env->s.pos);
    tc_observe(env);
}

static void c_step(Env* env) {
    TcState next = env->s;
    int r = tc_apply(&next, env->goal, env->p.actions[0]);
    float reward = 0;
    int won = 0, died = r == TC_DEATH;
    if (r == TC_ILLEGAL) {
        reward = env->reward_illegal_move;
    } else {
        env->s = next;
        if (r == TC_FALL) reward += env->reward_fall_row;
        if (r == TC_BLOCK) reward += env->reward_move_block;
        if (!died && !env->s.hang && tc_floor(env->s.pos) > env->best_floor) {
            env->best_floor = tc_floor(env->s.pos);
            reward += env->reward_climb_row;
        }
        won = !died && tc_won(&env->s, env->goal);
        if (won) reward += 1.0f;
        if (died) reward -= 1.0f;
    }
    env->tick++;
    env->ret += reward;
    int truncated = !won && !died && env->tick >= env->max_steps;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)(won || died);
    env->p.truncations[0] = (uint8_t)truncated;
    if (!died) tc_observe(env);
    if (won || died || truncated) {
        if (!env->replayed) {  /* only the episodes played from the level's start are logged */
            LOG_EPISODE(&env->log, .score = env->best_floor - env->start_floor, .episode_return = env->ret,
                        .episode_length = env->tick, .perf = won);
        }
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

/* The robot's character: > v < ^ standing by orientation, h hanging; o on a held block's side. */
static char tc_robot_char(const TcState* s) { return s->hang ? 'h' : s->holding ? 'o' : ">v<^"[s->orient]; }

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int y = 1; y < TC_N; y++) ANSI_APPEND(buf, cap, len, "floor %d    ", y);
    ANSI_APPEND(buf, cap, len, "\n");
    for (int z = 0; z < TC_N; z++) {
        for (int y = 1; y < TC_N; y++) {
            for (int x = 0; x < TC_N; x++) {
                int c = x + TC_N * z + TC_FLOOR * y;
                char ch = c == env->goal ? 'G' : tc_get(&env->s, c) ? '#' : '.';
                ANSI_APPEND(buf, cap, len, "%c", c == env->s.pos ? tc_robot_char(&env->s) : ch);
            }
            ANSI_APPEND(buf, cap, len, "  ");
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "level %d, tick %d, floor %d of goal floor %d (# block, G goal, robot >v<^, h hanging, "
                "o holding)\n", env->level, env->tick, tc_floor(env->s.pos), tc_floor(env->goal));
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int t = 12;
    draw_fill(px, w, h, PUFFER_BG);
    for (int y = 1; y < TC_N; y++) {
        int ox = (y - 1) % 3 * 128 + 4, oy = (2 - (y - 1) / 3) * 128 + 4;  /* floor 1 bottom left, 9 top right */
        draw_rect(px, w, h, ox - 2, oy - 2, TC_N * t + 4, TC_N * t + 4, 18, 72, 72);
        for (int c = y * TC_FLOOR; c < (y + 1) * TC_FLOOR; c++) {
            int x = ox + c % TC_N * t, z = oy + c / TC_N % TC_N * t;
            if (c == env->s.pos) {
                if (env->s.hang) draw_rect(px, w, h, x + 1, z + 1, t - 2, t - 2, PUFFER_BLUE);
                else if (env->s.holding) draw_rect(px, w, h, x + 1, z + 1, t - 2, t - 2, PUFFER_ORANGE);
                else draw_rect(px, w, h, x + 1, z + 1, t - 2, t - 2, PUFFER_RED);
                draw_rect(px, w, h, x + t / 2 - 1 + TC_DX[env->s.orient] * 4, z + t / 2 - 1 + TC_DZ[env->s.orient] * 4,
                          3, 3, 0, 0, 0);
            } else if (c == env->goal) {
                draw_rect(px, w, h, x + 1, z + 1, t - 2, t - 2, PUFFER_YELLOW);
            } else if (tc_get(&env->s, c)) {
                draw_rect(px, w, h, x + 1, z + 1, t - 2, t - 2, PUFFER_CYAN);
            }
        }
    }
}

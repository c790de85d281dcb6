/* tripletriad: the card game Triple Triad, for two seats or against a built-in opponent
 * (PufferLib's Ocean "tripletriad", which plays a random opponent).
 *
 * Each player holds 5 cards with four side values (north, south, east, west) drawn from
 * 1-7. The first player (seat 0, or the agent against a built-in player) moves first;
 * players alternate placing a card on an empty cell of a 3 x 3 board, so the first places
 * 5 cards and the second 4. A placed card captures every adjacent card of the other player
 * whose facing side is lower than its own side. A player's score is the cards it owns (5
 * each at the start; a capture moves one point). The game ends when the board is full:
 * reward +1 for the higher score, -1 for the lower, 0 for a draw, and outcomes (pufferlib's
 * game contract) 1, 0, 0.5. Actions (Discrete(14)): 0-4 select card 1-5 of the hand (costs
 * 0.1, as in the reference, so that re-selecting forever does not pay; a card already on
 * the board stays unselected), 5-13 place the selected card on cell 1-9 (row-major), which
 * ends the player's turn. Placing with no card selected or on an occupied cell costs 0.1,
 * does nothing and keeps the turn. A game is truncated after `max_steps` steps (its
 * outcome NaN: no result).
 *
 * `opponent` (pufferlib's names by index: 0 "none", 1 "scripted", 2 "random", the default):
 * - "none": both players are agents, a game of two rows (game_seats 2); only the seat to
 *   move acts (the other is masked and its action ignored); a selection keeps the turn, a
 *   placement passes it. Each row's small costs are its own; both rows get the final
 *   reward. `max_steps` counts the steps of both seats. Either seat may be played by a
 *   built-in player instead (the `players` input: self-play's anchors), which places a card
 *   in one step, as below.
 * - "scripted": one agent row (game_seats 1) moving first; the built-in player answers each
 *   placement greedily: the card and cell capturing the most cards (ties at random).
 * - "random": as "scripted", but the built-in player places a random card on a random
 *   empty cell (the reference's opponent).
 *
 * Observation (114 floats in [0, 1]) of a row, from its player's side: cell owners (1 its
 * own, 0.5 the other's, 0 empty) x 9; its unavailable actions x 15 (its 5 cards already
 * placed, 9 cells occupied, 1 "a card is selected"); its selected card and the other
 * player's last placed card, (index + 1) / 5, x 2; its score and the other's / 10 x 2;
 * values / 10 of the card on each cell x 36 (0 if empty); values / 10 of its hand, then the
 * other's x 40; cell (1-9) / 9 where each card of its hand, then the other's, lies x 10
 * (0 in hand).
 *
 * With `legal_actions` 1 the observation starts with the row's legal actions (14 more entries,
 * 1 legal; all 0 for the seat that waits), which the trainer, `puffer eval` and `puffer match`
 * use as the action mask: with no card selected, the cards of its hand; with one selected, the
 * empty cells. A move is then always two steps, a card and its cell: in this mode a selection
 * while a card is selected is illegal too (it costs 0.1 and changes nothing), and a legal
 * selection costs nothing (only illegal actions cost).
 *
 * Log, per row and game: score, the cards the row's player owns at the end (with two seats
 * the two rows' scores add up to 10: read win_rate or the outcomes), win_rate, draw_rate.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either seat may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(win_rate) X(draw_rate)
#define PARAMS(P) P(int, max_steps, 100, 1, 10000000) P(int, opponent, 2, 0, 2) P(int, legal_actions, 0, 0, 1)
#define FIELDS(F) F(int, selected) F(int, selected_second) F(int, agent_score) F(int, opponent_score) F(int, tick) \
    F(int, to_move) F(int, owner[0]) F(int, owner[1]) F(int, owner[3]) F(int, owner[4])
#include "../puffer.h"

#define TT_OBS 114   /* without the legal actions */
#define TT_ACTIONS 14
#define TT_NONE 0
#define TT_SCRIPTED 1

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int selected;                 /* the first player's (the agent's) selected hand card, -1 none */
    int selected_second;          /* the second player's, with two seats */
    int last_played[2];           /* each player's last placed card, -1 none */
    int agent_score, opponent_score, tick;  /* the first and second player's scores */
    int to_move;                  /* the player to move (0 first, 1 second) */
    float ret[2];
    int owner[9];                 /* 0 empty, 1 first player, -1 second player */
    uint8_t cell_values[9][4];    /* N S E W of the card on each cell */
    uint8_t hand[2][5][4];        /* [player][card][side] */
    uint8_t location[2][5];       /* 0 in hand, else cell + 1 */
} Env;

static inline int tt_rows(const Env* env) { return env->opponent == TT_NONE ? 2 : 1; }
static inline int tt_obs_size(const Env* env) { return TT_OBS + (env->legal_actions ? TT_ACTIONS : 0); }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, tt_rows(env));
    s->legal_actions = env->legal_actions;
    ocean_obs_flat(s, tt_obs_size(env), 0, 1);
    ocean_act_discrete(s, 14);
    ocean_render_size(s, 3 * 96 + 2 * 80, 3 * 112);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline int* tt_selected(Env* env, int player) { return player == 0 ? &env->selected : &env->selected_second; }
static inline int tt_score(const Env* env, int player) { return player == 0 ? env->agent_score : env->opponent_score; }

/* Everything but the hands, which only change at reset (tt_observe_hands), for every row. */
static void tt_observe(Env* env) {
    static const float OWNED[3] = {0.5f, 0.0f, 1.0f};  /* by owner * mine + 1: the other's, empty, mine */
    for (int row = 0, rows = tt_rows(env); row < rows; row++) {
        int me = row, other = 1 - row, mine = me == 0 ? 1 : -1;
        float* restrict o = (float*)env->p.observations + (size_t)row * tt_obs_size(env);  /* aliases no field */
        if (env->legal_actions) {
            int moves = rows == 1 || row == env->to_move, chosen = *tt_selected(env, me) >= 0;
            for (int k = 0; k < 5; k++) o[k] = (float)(moves && !chosen && !env->location[me][k]);
            for (int c = 0; c < 9; c++) o[5 + c] = (float)(moves && chosen && !env->owner[c]);
            o += TT_ACTIONS;
        }
        for (int c = 0; c < 9; c++) o[c] = OWNED[env->owner[c] * mine + 1];
        for (int k = 0; k < 5; k++) o[9 + k] = env->location[me][k] != 0;
        for (int c = 0; c < 9; c++) o[14 + c] = env->owner[c] != 0;
        int selected = *tt_selected(env, me);
        o[23] = selected >= 0;
        o[24] = (selected + 1) * 0.2f;
        o[25] = (env->last_played[other] + 1) * 0.2f;
        o[26] = tt_score(env, me) * 0.1f;
        o[27] = tt_score(env, other) * 0.1f;
        const uint8_t* values = &env->cell_values[0][0];
        for (int i = 0; i < 36; i++) o[28 + i] = values[i] * 0.1f;
        for (int k = 0; k < 5; k++) o[104 + k] = env->location[me][k] * (1.0f / 9.0f);  /* 64..103: the hands */
        for (int k = 0; k < 5; k++) o[109 + k] = env->location[other][k] * (1.0f / 9.0f);
    }
}

static void tt_observe_hands(Env* env) {
    int size = tt_obs_size(env), hands = size - TT_OBS + 9 + 15 + 4 + 36;  /* after the legal actions, if any */
    for (int row = 0; row < tt_rows(env); row++) {
        float* o = (float*)env->p.observations + (size_t)row * size + hands;
        for (int p = 0; p < 2; p++)
            for (int k = 0; k < 5; k++)
                for (int d = 0; d < 4; d++) *o++ = env->hand[p == 0 ? row : 1 - row][k][d] * 0.1f;
    }
}

static void tt_set_masks(Env* env) {
    for (int k = 0; k < tt_rows(env); k++) env->p.masks[k] = tt_rows(env) == 1 || k == env->to_move;
}

static void c_reset(Env* env) {
    env->selected = env->selected_second = -1;
    env->last_played[0] = env->last_played[1] = -1;
    env->agent_score = env->opponent_score = 5;
    env->tick = env->to_move = 0;
    env->ret[0] = env->ret[1] = 0;
    memset(env->owner, 0, sizeof(env->owner));
    memset(env->cell_values, 0, sizeof(env->cell_values));
    memset(env->location, 0, sizeof(env->location));
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 5; k++)
            for (int d = 0; d < 4; d++) env->hand[p][k][d] = (uint8_t)(1 + rng_int(&env->p.rng, 7));
    tt_observe_hands(env);
    tt_observe(env);
    tt_set_masks(env);
}

static const int TT_DR[4] = {-1, 1, 0, 0}, TT_DC[4] = {0, 0, 1, -1}, TT_FACING[4] = {1, 0, 3, 2};

/* The cards `player`'s hand card k would capture on the empty `cell`. */
static int tt_captures(const Env* env, int player, int k, int cell) {
    int who = player == 0 ? 1 : -1, row = cell / 3, col = cell % 3, n = 0;
    for (int d = 0; d < 4; d++) {
        int r = row + TT_DR[d], c = col + TT_DC[d];
        if (r < 0 || r > 2 || c < 0 || c > 2) continue;
        int other = r * 3 + c;
        n += env->owner[other] == -who && env->cell_values[other][TT_FACING[d]] < env->hand[player][k][d];
    }
    return n;
}

/* `player` (0 first, 1 second) puts hand card k on `cell` and captures. */
static void tt_place(Env* env, int player, int k, int cell) {
    int who = player == 0 ? 1 : -1;
    env->location[player][k] = (uint8_t)(cell + 1);
    env->last_played[player] = k;
    env->owner[cell] = who;
    memcpy(env->cell_values[cell], env->hand[player][k], 4);
    int row = cell / 3, col = cell % 3;
    for (int d = 0; d < 4; d++) {
        int r = row + TT_DR[d], c = col + TT_DC[d];
        if (r < 0 || r > 2 || c < 0 || c > 2) continue;
        int other = r * 3 + c;
        if (env->owner[other] == -who && env->cell_values[other][TT_FACING[d]] < env->cell_values[cell][d]) {
            env->owner[other] = who;
            env->agent_score += who;
            env->opponent_score -= who;
        }
    }
}

/* A built-in player's placement for `player` (0 first, 1 second): random, or greedy for `kind`
 * TT_SCRIPTED (the most captures, ties at random). */
static void tt_builtin(Env* env, int player, int kind) {
    int cards[5], n = 0, cells[9], m = 0;
    for (int k = 0; k < 5; k++)
        if (!env->location[player][k]) cards[n++] = k;
    for (int c = 0; c < 9; c++)
        if (!env->owner[c]) cells[m++] = c;
    if (n == 0 || m == 0) return;
    if (kind != TT_SCRIPTED) {
        int k = cards[rng_int(&env->p.rng, n)];
        tt_place(env, player, k, cells[rng_int(&env->p.rng, m)]);
        return;
    }
    int best = -1, ties = 0, pick_k = 0, pick_c = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            int got = tt_captures(env, player, cards[i], cells[j]);
            if (got > best) {
                best = got;
                ties = 0;
            }
            if (got == best && rng_int(&env->p.rng, ++ties) == 0) {  /* a uniform choice among the best */
                pick_k = cards[i];
                pick_c = cells[j];
            }
        }
    tt_place(env, player, pick_k, pick_c);
}

static int tt_board_full(const Env* env) {
    for (int c = 0; c < 9; c++)
        if (!env->owner[c]) return 0;
    return 1;
}

/* `player`'s action: a selection or a placement. Returns its cost (0 or -0.1); *placed is
 * set when a card was placed. */
static float tt_act(Env* env, int player, int a, int* placed) {
    int* selected = tt_selected(env, player);
    *placed = 0;
    if (a < 5 && env->legal_actions) {  /* only an illegal action costs */
        if (*selected >= 0 || env->location[player][a]) return -0.1f;
        *selected = a;
        return 0;
    }
    if (a < 5) {
        if (!env->location[player][a]) *selected = a;
        return -0.1f;
    }
    int cell = a - 5;
    if (*selected < 0 || env->owner[cell]) return -0.1f;
    tt_place(env, player, *selected, cell);
    *selected = -1;
    *placed = 1;
    return 0;
}

static void c_step(Env* env) {
    int rows = tt_rows(env), mover = rows == 2 ? env->to_move : 0, placed = 1;
    int builtin = rows == 2 ? ocean_player(&env->p, mover) : 0;  /* a built-in player in this seat */
    env->tick++;
    for (int k = 0; k < rows; k++) env->p.rewards[k] = 0;
    if (builtin) tt_builtin(env, mover, builtin);
    else env->p.rewards[mover] += tt_act(env, mover, env->p.actions[mover], &placed);
    if (placed && rows == 2) env->to_move = 1 - mover;
    if (placed && rows == 1 && !tt_board_full(env)) tt_builtin(env, 1, env->opponent);
    int terminal = placed && tt_board_full(env);
    int truncated = !terminal && env->tick >= env->max_steps;
    int diff = env->agent_score - env->opponent_score;
    for (int k = 0; k < rows; k++) {
        int mine = k == 0 ? diff : -diff;
        if (terminal) env->p.rewards[k] += mine > 0 ? 1.0f : mine < 0 ? -1.0f : 0.0f;
        env->ret[k] += env->p.rewards[k];
        env->p.terminals[k] = (uint8_t)terminal;
        env->p.truncations[k] = (uint8_t)truncated;
    }
    tt_observe(env);
    if (!terminal && !truncated) {
        tt_set_masks(env);
        return;
    }
    for (int k = 0; k < rows; k++) {
        int mine = k == 0 ? diff : -diff;
        ocean_outcome(&env->p, k, !terminal ? NAN : mine > 0 ? OCEAN_WIN : mine < 0 ? OCEAN_LOSS : OCEAN_DRAW);
        LOG_EPISODE(&env->log, .score = tt_score(env, k), .episode_return = env->ret[k], .episode_length = env->tick,
                    .win_rate = terminal && mine > 0, .draw_rate = terminal && mine == 0);
        ocean_keep_final(&env->p, k);
    }
    c_reset(env);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int r = 0; r < 3; r++) {
        for (int line = 0; line < 3; line++) {
            for (int c = 0; c < 3; c++) {
                int cell = r * 3 + c;
                const uint8_t* v = env->cell_values[cell];
                char who = env->owner[cell] == 1 ? 'A' : env->owner[cell] == -1 ? 'O' : ' ';
                if (!env->owner[cell]) ANSI_APPEND(buf, cap, len, line == 1 ? "| %d   " : "|     ", cell + 1);
                else if (line == 0) ANSI_APPEND(buf, cap, len, "|  %d  ", v[0]);
                else if (line == 1) ANSI_APPEND(buf, cap, len, "|%d %c %d", v[3], who, v[2]);
                else ANSI_APPEND(buf, cap, len, "|  %d  ", v[1]);
            }
            ANSI_APPEND(buf, cap, len, "|\n");
        }
        ANSI_APPEND(buf, cap, len, "+-----+-----+-----+\n");
    }
    for (int p = 0; p < 2; p++) {
        const char* name = tt_rows(env) == 2 ? (p ? "seat 1  " : "seat 0  ") : p ? "opponent" : "agent   ";
        ANSI_APPEND(buf, cap, len, "%s hand:", name);
        for (int k = 0; k < 5; k++)
            if (!env->location[p][k])
                ANSI_APPEND(buf, cap, len, " %c%d[%d%d%d%d]", *tt_selected(env, p) == k ? '*' : ' ', k + 1,
                            env->hand[p][k][0], env->hand[p][k][1], env->hand[p][k][2], env->hand[p][k][3]);
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "score %d - %d\n", env->agent_score, env->opponent_score);
    return len;
}

/* A card: its owner's colour and four bars whose length is the side value. */
static void tt_draw_card(uint8_t* px, int w, int h, int x, int y, const uint8_t* v, int who, int selected) {
    const uint8_t* c = who == 1 ? PUFFER_PALETTE[1] : PUFFER_PALETTE[2];
    draw_rect(px, w, h, x + 4, y + 4, 88, 104, c[0], c[1], c[2]);
    if (selected) draw_rect(px, w, h, x + 4, y + 4, 88, 6, 255, 255, 255);
    draw_rect(px, w, h, x + 48 - 4 * v[0], y + 14, 8 * v[0], 8, 241, 241, 241);   /* north */
    draw_rect(px, w, h, x + 48 - 4 * v[1], y + 90, 8 * v[1], 8, 241, 241, 241);   /* south */
    draw_rect(px, w, h, x + 80, y + 56 - 4 * v[2], 8, 8 * v[2], 241, 241, 241);   /* east */
    draw_rect(px, w, h, x + 8, y + 56 - 4 * v[3], 8, 8 * v[3], 241, 241, 241);    /* west */
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int cell = 0; cell < 9; cell++) {
        int x = 80 + (cell % 3) * 96, y = (cell / 3) * 112;
        draw_rect(px, w, h, x + 1, y + 1, 94, 110, 30, 50, 50);
        if (env->owner[cell]) tt_draw_card(px, w, h, x, y, env->cell_values[cell], env->owner[cell], 0);
    }
    for (int p = 0; p < 2; p++)  /* the hands, shrunk: a cell of 80 x 67 per card */
        for (int k = 0; k < 5; k++)
            if (!env->location[p][k]) {
                const uint8_t* c = p == 0 ? PUFFER_PALETTE[1] : PUFFER_PALETTE[2];
                int x = p == 0 ? 4 : w - 76, y = k * 67 + 4;
                draw_rect(px, w, h, x, y, 72, 59, c[0], c[1], c[2]);
                if (*tt_selected(env, p) == k) draw_rect(px, w, h, x, y, 72, 5, 255, 255, 255);
                for (int d = 0; d < 4; d++)
                    draw_rect(px, w, h, x + 6 + 16 * d, y + 52 - 6 * env->hand[p][k][d], 10, 6 * env->hand[p][k][d],
                              241, 241, 241);
            }
}

/* tripletriad: the card game Triple Triad against a random opponent (PufferLib's Ocean "tripletriad").
 *
 * Each player holds 5 cards with four side values (north, south, east, west) drawn from
 * 1-7. The agent plays first; players alternate placing a card on an empty cell of a 3 x 3
 * board. A placed card captures every adjacent opponent card whose facing side is lower
 * than its own side. A player's score is the cards it owns (5 each at the start; a
 * capture moves one point). The game ends when the board is full: reward +1 for the
 * higher score, -1 for the lower, 0 for a draw. Actions (Discrete(14)): 0-4 select card
 * 1-5 of the hand (costs 0.1, as in the reference, so that re-selecting forever does
 * not pay), 5-13 place the selected card on cell 1-9 (row-major). Placing with no card
 * selected or on an occupied cell costs 0.1 and does nothing. The opponent answers each
 * placement with a random card on a random empty cell. A game is truncated after
 * `max_steps` agent actions. Observation (114 floats in [0, 1]): cell owners (1 agent,
 * 0.5 opponent, 0 empty) x 9; unavailable actions x 15 (5 cards already placed, 9 cells
 * occupied, 1 "a card is selected"); selected card (index + 1) / 5 of both players x 2;
 * scores / 10 x 2; values / 10 of the card on each cell x 36 (0 if empty); values / 10
 * of both hands x 40; cell (1-9) / 9 where each hand card lies x 10 (0 in hand).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(win_rate) X(draw_rate)
#define PARAMS(P) P(int, max_steps, 100, 1, 10000000)
#define FIELDS(F) F(int, selected) F(int, agent_score) F(int, opponent_score) F(int, tick) \
    F(int, owner[0]) F(int, owner[1]) F(int, owner[3]) F(int, owner[4])
#include "../puffer.h"

#define TT_OBS 114

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int selected;                 /* agent's selected hand card, -1 none */
    int opp_selected;             /* the opponent's last played card, -1 none */
    int agent_score, opponent_score, tick;
    float ret;
    int owner[9];                 /* 0 empty, 1 agent, -1 opponent */
    uint8_t cell_values[9][4];    /* N S E W of the card on each cell */
    uint8_t hand[2][5][4];        /* [player][card][side] */
    uint8_t location[2][5];       /* 0 in hand, else cell + 1 */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    s->num_agents = 1;
    s->obs_ndim = 1;
    s->obs_shape[0] = TT_OBS;
    s->obs_dtype = 'f';
    s->obs_low = 0;
    s->obs_high = 1;
    s->act_kind = 'D';
    s->act_dims = 1;
    s->act_n[0] = 14;
    s->render_width = 3 * 96 + 2 * 80;
    s->render_height = 3 * 112;
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* Everything but the hands, which only change at reset (tt_observe_hands). */
static void tt_observe(Env* env) {
    float* o = (float*)env->p.observations;
    for (int c = 0; c < 9; c++) *o++ = env->owner[c] == 1 ? 1.0f : env->owner[c] == -1 ? 0.5f : 0.0f;
    for (int k = 0; k < 5; k++) *o++ = env->location[0][k] != 0;
    for (int c = 0; c < 9; c++) *o++ = env->owner[c] != 0;
    *o++ = env->selected >= 0;
    *o++ = (env->selected + 1) * 0.2f;
    *o++ = (env->opp_selected + 1) * 0.2f;
    *o++ = env->agent_score * 0.1f;
    *o++ = env->opponent_score * 0.1f;
    for (int c = 0; c < 9; c++)
        for (int d = 0; d < 4; d++) *o++ = env->cell_values[c][d] * 0.1f;
    o += 40;
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 5; k++) *o++ = env->location[p][k] * (1.0f / 9.0f);
}

static void tt_observe_hands(Env* env) {
    float* o = (float*)env->p.observations + 9 + 15 + 4 + 36;
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 5; k++)
            for (int d = 0; d < 4; d++) *o++ = env->hand[p][k][d] * 0.1f;
}

static void c_reset(Env* env) {
    env->selected = env->opp_selected = -1;
    env->agent_score = env->opponent_score = 5;
    env->tick = 0;
    env->ret = 0;
    memset(env->owner, 0, sizeof(env->owner));
    memset(env->cell_values, 0, sizeof(env->cell_values));
    memset(env->location, 0, sizeof(env->location));
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 5; k++)
            for (int d = 0; d < 4; d++) env->hand[p][k][d] = (uint8_t)(1 + rng_int(&env->p.rng, 7));
    tt_observe_hands(env);
    tt_observe(env);
}

/* Player `who` (1 agent, -1 opponent) puts hand card k on `cell` and captures. */
static void tt_place(Env* env, int who, int k, int cell) {
    int p = who == 1 ? 0 : 1;
    static const int DR[4] = {-1, 1, 0, 0}, DC[4] = {0, 0, 1, -1}, FACING[4] = {1, 0, 3, 2};
    env->location[p][k] = (uint8_t)(cell + 1);
    env->owner[cell] = who;
    memcpy(env->cell_values[cell], env->hand[p][k], 4);
    int row = cell / 3, col = cell % 3;
    for (int d = 0; d < 4; d++) {
        int r = row + DR[d], c = col + DC[d];
        if (r < 0 || r > 2 || c < 0 || c > 2) continue;
        int other = r * 3 + c;
        if (env->owner[other] == -who && env->cell_values[other][FACING[d]] < env->cell_values[cell][d]) {
            env->owner[other] = who;
            env->agent_score += who;
            env->opponent_score -= who;
        }
    }
}

static void tt_opponent(Env* env) {
    int cards[5], n = 0, cells[9], m = 0;
    for (int k = 0; k < 5; k++)
        if (!env->location[1][k]) cards[n++] = k;
    for (int c = 0; c < 9; c++)
        if (!env->owner[c]) cells[m++] = c;
    if (n == 0 || m == 0) return;
    int k = cards[rng_int(&env->p.rng, n)];
    env->opp_selected = k;
    tt_place(env, -1, k, cells[rng_int(&env->p.rng, m)]);
}

static int tt_board_full(const Env* env) {
    for (int c = 0; c < 9; c++)
        if (!env->owner[c]) return 0;
    return 1;
}

static void c_step(Env* env) {
    int a = env->p.actions[0];
    float reward = 0;
    int terminal = 0;
    env->tick++;
    if (a < 5) {
        reward -= 0.1f;
        if (!env->location[0][a]) env->selected = a;
    } else {
        int cell = a - 5;
        if (env->selected < 0 || env->owner[cell]) {
            reward -= 0.1f;
        } else {
            tt_place(env, 1, env->selected, cell);
            env->selected = -1;
            if (!tt_board_full(env)) tt_opponent(env);
            if (tt_board_full(env)) {
                terminal = 1;
                reward += env->agent_score > env->opponent_score ? 1.0f : env->agent_score < env->opponent_score ? -1.0f : 0.0f;
            }
        }
    }
    env->ret += reward;
    int truncated = !terminal && env->tick >= env->max_steps;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)terminal;
    env->p.truncations[0] = (uint8_t)truncated;
    tt_observe(env);
    if (terminal || truncated) {
        env->log.score += (float)env->agent_score;
        env->log.episode_return += env->ret;
        env->log.episode_length += (float)env->tick;
        env->log.win_rate += terminal && env->agent_score > env->opponent_score;
        env->log.draw_rate += terminal && env->agent_score == env->opponent_score;
        env->log.n += 1;
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
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
        ANSI_APPEND(buf, cap, len, "%s hand:", p ? "opponent" : "agent   ");
        for (int k = 0; k < 5; k++)
            if (!env->location[p][k])
                ANSI_APPEND(buf, cap, len, " %c%d[%d%d%d%d]", p == 0 && env->selected == k ? '*' : ' ', k + 1,
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
                if (p == 0 && env->selected == k) draw_rect(px, w, h, x, y, 72, 5, 255, 255, 255);
                for (int d = 0; d < 4; d++)
                    draw_rect(px, w, h, x + 6 + 16 * d, y + 52 - 6 * env->hand[p][k][d], 10, 6 * env->hand[p][k][d],
                              241, 241, 241);
            }
}

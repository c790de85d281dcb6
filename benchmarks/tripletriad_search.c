/* tripletriad_search.c: how often a player that searches the game tree beats random play at
 * Ocean's tripletriad, with the env's own rules (it includes envs/tripletriad.h and places cards
 * with its tt_place). A yardstick for a learned policy's win rate against random play: what a
 * player that knows its opponent plays at random can reach.
 *
 * The searcher maximizes its probability of winning (a draw counts 0) by expectimax: its own
 * placements a maximum, the random player's an average over every (card, cell) pair, as the
 * env's random player draws them. From each player's second placement on the search is exact,
 * to the end of the game (at most 8.7M nodes); each player's first placement looks 4 placements
 * ahead and scores the leaves by the card difference, so the figure is a lower bound on the
 * best play against random play. Games alternate seats (even games the searcher moves first), as
 * `puffer match` does; deals come from the env's generator (cards 1-7 per side).
 *
 * Build and run (about 0.2 s per game on one core):
 *   cc -O2 -o /tmp/tt_search benchmarks/tripletriad_search.c -lm && /tmp/tt_search 1000 [seed] [greedy]
 * With `greedy` the searcher is replaced by the env's scripted player (the most captures, ties at
 * random), the calibration: it should match that player's figure in the Ocean README.
 */
#include "../plugins/puffer-ocean/puffer_ocean/csrc/envs/tripletriad.h"

/* 1 when player 0 (the first) wins, from the final scores. */
static inline int first_wins(const Env* e) { return e->agent_score > e->opponent_score; }

/* The free cards of `player` and the empty cells of the board. */
static void moves(const Env* e, int player, int* cards, int* n, int* cells, int* m) {
    *n = *m = 0;
    for (int k = 0; k < 5; k++)
        if (!e->location[player][k]) cards[(*n)++] = k;
    for (int c = 0; c < 9; c++)
        if (!e->owner[c]) cells[(*m)++] = c;
}

/* Expectimax value for `me` of state `e` with `mover` to place and `left` placements left in
 * the game; `depth` placements are searched before the card difference scores a leaf
 * (depth >= left: exact, the probability that `me` wins). */
static double value(const Env* e, int me, int mover, int left, int depth) {
    if (left == 0) return (me == 0) == first_wins(e) && e->agent_score != e->opponent_score;
    if (depth == 0) {
        int diff = e->agent_score - e->opponent_score;
        return (me == 0 ? diff : -diff) / 20.0 + 0.5;
    }
    int cards[5], n, cells[9], m;
    moves(e, mover, cards, &n, cells, &m);
    double best = -1, sum = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            Env next = *e;
            tt_place(&next, mover, cards[i], cells[j]);
            double v = value(&next, me, 1 - mover, left - 1, depth - 1);
            if (v > best) best = v;
            sum += v;
        }
    return mover == me ? best : sum / (n * m);
}

/* The searcher's placement for `me` with `left` placements left: (card, cell). */
static void search(const Env* e, int me, int left, int* card, int* cell) {
    int depth = left >= 8 ? 4 : left, cards[5], n, cells[9], m;
    moves(e, me, cards, &n, cells, &m);
    double best = -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            Env next = *e;
            tt_place(&next, me, cards[i], cells[j]);
            double v = value(&next, me, 1 - me, left - 1, depth - 1);
            if (v > best) {
                best = v;
                *card = cards[i];
                *cell = cells[j];
            }
        }
}

int main(int argc, char** argv) {
    int games = argc > 1 ? atoi(argv[1]) : 1000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    int greedy = argc > 3 && strcmp(argv[3], "greedy") == 0;
    int wins = 0, draws = 0, losses = 0;
    for (int g = 0; g < games; g++) {
        Env e;
        memset(&e, 0, sizeof(e));
        e.p.rng = seed * 0x9E3779B97F4A7C15ull + (uint64_t)g;
        e.opponent = TT_NONE;
        float obs[2 * TT_OBS];
        uint8_t masks[2];
        e.p.observations = obs;
        e.p.masks = masks;
        c_reset(&e);
        int me = g % 2;
        for (int left = 9, mover = 0; left > 0; left--, mover = 1 - mover) {
            if (mover == me && !greedy) {
                int card = 0, cell = 0;
                search(&e, me, left, &card, &cell);
                tt_place(&e, me, card, cell);
            } else {
                tt_builtin(&e, mover, mover == me ? TT_SCRIPTED : 2);
            }
        }
        int diff = (e.agent_score - e.opponent_score) * (me == 0 ? 1 : -1);
        wins += diff > 0;
        draws += diff == 0;
        losses += diff < 0;
    }
    double score = (wins + 0.5 * draws) / games;
    printf("%s against random play, %d games, seats alternating (seed %llu): %d wins, %d draws, %d losses; "
           "wins %.3f, score %.3f\n", greedy ? "scripted (greedy) player" : "expectimax searcher", games,
           (unsigned long long)seed, wins, draws, losses, (double)wins / games, score);
    return 0;
}

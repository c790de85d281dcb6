/* moba_map.h: the map of ocean-moba, generated in code (no map file), the same for every copy.
 *
 * A MOBA_N x MOBA_N grid (x right, y down) inside a wall. Team 0's base is the bottom-left
 * corner, team 1's the top-right one; each base is the square of cells within 5 of its ancient
 * (team 0's at (3, N-4), team 1's at (N-4, 3)). Three lanes join the two ancients, each 3 cells
 * wide around its centre line: top (up the left edge, then right along the top edge), mid (the
 * diagonal) and bot (right along the bottom edge, then up the right edge). A river 3 cells wide
 * runs along the other diagonal (x == y), crossing mid at the centre and the side lanes at their
 * corners. The rest is jungle: wall, with tunnels carved by seeded random walks that start on
 * the lanes. The map is point-symmetric: cell (x, y) equals cell (N-1-x, N-1-y), so each team
 * sees the same world from its own base (the observations are turned for team 1).
 *
 * moba_map_build() fills the shared tables once per process (c_init, under the GIL):
 *   moba_tile[cell]            MOBA_FLOOR, MOBA_WALL or MOBA_RIVER (walkable)
 *   moba_path[lane][i]         the cells of a lane's centre line from team 0's ancient (i = 0)
 *                              to team 1's (i = moba_path_len[lane] - 1), 8-connected steps
 *   moba_near[lane][cell]      the index of the path cell nearest to `cell` by walking (-1: none)
 *   moba_toward[lane][cell]    the next cell of a shortest walk from `cell` to that path cell
 */
#ifndef MOBA_MAP_H
#define MOBA_MAP_H

#include <stdint.h>
#include <string.h>

#define MOBA_N 48
#define MOBA_CELLS (MOBA_N * MOBA_N)
#define MOBA_LANES 3
#define MOBA_MAX_PATH (2 * MOBA_N)
#define MOBA_FLOOR 0
#define MOBA_WALL 1
#define MOBA_RIVER 2

static uint8_t moba_tile[MOBA_CELLS];
static int16_t moba_path[MOBA_LANES][MOBA_MAX_PATH];
static int moba_path_len[MOBA_LANES];
static int16_t moba_near[MOBA_LANES][MOBA_CELLS];
static int16_t moba_toward[MOBA_LANES][MOBA_CELLS];
static int moba_map_ready = 0;

static const int MOBA_DX[9] = {0, 1, 1, 0, -1, -1, -1, 0, 1};  /* stay, E, NE, N, NW, W, SW, S, SE */
static const int MOBA_DY[9] = {0, 0, -1, -1, -1, 0, 1, 1, 1};

static inline int moba_walkable(int x, int y) {
    return x >= 0 && y >= 0 && x < MOBA_N && y < MOBA_N && moba_tile[y * MOBA_N + x] != MOBA_WALL;
}

/* Set (x, y) and its mirror (N-1-x, N-1-y) to `tile` (inside the border only). */
static void moba_carve(int x, int y, uint8_t tile) {
    if (x < 1 || y < 1 || x > MOBA_N - 2 || y > MOBA_N - 2) return;
    moba_tile[y * MOBA_N + x] = tile;
    moba_tile[(MOBA_N - 1 - y) * MOBA_N + (MOBA_N - 1 - x)] = tile;
}

/* Append the straight 8-connected cells from the lane's last cell to (x, y). */
static void moba_path_to(int lane, int x, int y) {
    int n = moba_path_len[lane];
    int cx = moba_path[lane][n - 1] % MOBA_N, cy = moba_path[lane][n - 1] / MOBA_N;
    while (cx != x || cy != y) {
        cx += (x > cx) - (x < cx);
        cy += (y > cy) - (y < cy);
        moba_path[lane][n++] = (int16_t)(cy * MOBA_N + cx);
    }
    moba_path_len[lane] = n;
}

/* Multi-source breadth-first walk from a lane's path cells: nearest path index and next step. */
static void moba_flood(int lane, int16_t* queue) {
    int head = 0, tail = 0;
    for (int c = 0; c < MOBA_CELLS; c++) moba_near[lane][c] = -1, moba_toward[lane][c] = (int16_t)c;
    for (int i = 0; i < moba_path_len[lane]; i++) {
        int c = moba_path[lane][i];
        if (moba_near[lane][c] >= 0) continue;
        moba_near[lane][c] = (int16_t)i;
        queue[tail++] = (int16_t)c;
    }
    while (head < tail) {
        int c = queue[head++], x = c % MOBA_N, y = c / MOBA_N;
        for (int d = 1; d < 9; d++) {
            int nx = x + MOBA_DX[d], ny = y + MOBA_DY[d];
            if (!moba_walkable(nx, ny)) continue;
            int nc = ny * MOBA_N + nx;
            if (moba_near[lane][nc] >= 0) continue;
            moba_near[lane][nc] = moba_near[lane][c];
            moba_toward[lane][nc] = (int16_t)c;
            queue[tail++] = (int16_t)nc;
        }
    }
}

static void moba_map_build(void) {
    if (moba_map_ready) return;
    const int N = MOBA_N, lo = 3, hi = MOBA_N - 4;
    memset(moba_tile, MOBA_WALL, sizeof(moba_tile));
    /* Lane centre lines: top, mid, bot, each from team 0's ancient (lo, hi) to team 1's (hi, lo). */
    for (int lane = 0; lane < MOBA_LANES; lane++) {
        moba_path[lane][0] = (int16_t)(hi * N + lo);
        moba_path_len[lane] = 1;
    }
    moba_path_to(0, lo, lo); moba_path_to(0, hi, lo);
    moba_path_to(1, hi, lo);
    moba_path_to(2, hi, hi); moba_path_to(2, hi, lo);
    /* Jungle tunnels: seeded random walks from the lanes' cells of the upper-left half, mirrored. */
    uint64_t rng = 0x6d6f6261ull;  /* "moba" */
    for (int walk = 0; walk < 14; walk++) {
        int lane = walk % 3, i = 6 + rng_int(&rng, moba_path_len[lane] / 2 - 6);
        int x = moba_path[lane][i] % N, y = moba_path[lane][i] / N, d = 1 + rng_int(&rng, 8);
        for (int s = 0; s < 36; s++) {
            if (rng_int(&rng, 4) == 0) d = 1 + 2 * rng_int(&rng, 4);  /* turn to an axis direction */
            int nx = x + MOBA_DX[d], ny = y + MOBA_DY[d];
            if (nx < 2 || ny < 2 || nx > N - 3 || ny > N - 3) { d = 1 + rng_int(&rng, 8); continue; }
            x = nx; y = ny;
            moba_carve(x, y, MOBA_FLOOR);
            moba_carve(x + 1, y, MOBA_FLOOR);
        }
    }
    /* Lanes (3 wide), the river (x == y, 3 wide), then the bases (within 5 of each ancient). */
    for (int lane = 0; lane < MOBA_LANES; lane++)
        for (int i = 0; i < moba_path_len[lane]; i++) {
            int x = moba_path[lane][i] % N, y = moba_path[lane][i] / N;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) moba_carve(x + dx, y + dy, MOBA_FLOOR);
        }
    for (int x = 1; x < N - 1; x++)
        for (int d = -1; d <= 1; d++) moba_carve(x, x + d, MOBA_RIVER);
    for (int dy = -5; dy <= 5; dy++)
        for (int dx = -5; dx <= 5; dx++) moba_carve(lo + dx, hi + dy, MOBA_FLOOR);
    int16_t queue[MOBA_CELLS];
    for (int lane = 0; lane < MOBA_LANES; lane++) moba_flood(lane, queue);
    moba_map_ready = 1;
}

#endif

/* puffer.h: what every Ocean environment header includes.
 *
 * An environment header defines, before including this file:
 *   LOG_FIELDS(X)  the episode stats, e.g. X(score) X(episode_return) X(episode_length)
 * and optionally PARAMS(P) (constructor arguments: P(type, name, default, min, max)) and
 * FIELDS(F) (state readable/writable from Python for tests: F(type, name)); type is
 * int, float or double. It then declares its state struct `Env`, whose first member is
 * `Puffer p;` and which holds `Log log;`, `PUFFER_PARAMS` and `PUFFER_FIELDS`, and the
 * functions listed in binding.h. c_spaces describes the spaces with the ocean_obs_*,
 * ocean_act_* and ocean_render_size helpers below (one copy has one agent unless it sets
 * s->num_agents or calls ocean_game); c_step adds each finished episode's stats with
 * LOG_EPISODE. See envs/squared.h for a short complete example.
 */
#ifndef PUFFER_H
#define PUFFER_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocean.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#define PUFFER_X_FLOAT(name) float name;
#define PUFFER_P_DECL(type, name, def, lo, hi) type name;
#define PUFFER_F_DECL(type, name) type name;
#ifndef PARAMS
#define PARAMS(P)
#endif
#ifndef FIELDS
#define FIELDS(F)
#endif
#define PUFFER_PARAMS PARAMS(PUFFER_P_DECL)
#define PUFFER_FIELDS FIELDS(PUFFER_F_DECL)

/* Episode stats summed over finished episodes; n counts them. */
typedef struct {
    LOG_FIELDS(PUFFER_X_FLOAT)
    float n;
} Log;

/* Add one finished episode's stats to the Log at `logp` and count it in n:
 *   LOG_EPISODE(&env->log, .score = hit, .episode_return = ret, .episode_length = env->tick);
 * The arguments after `logp` initialize a Log (each value converted to float as `+=` would);
 * every LOG_FIELDS member is then added, a member not named adding 0. */
#define PUFFER_LOG_ADD(name) puffer_log_sum_->name += puffer_log_add_.name;
#define LOG_EPISODE(logp, ...)                          \
    do {                                                \
        Log* puffer_log_sum_ = (logp);                  \
        const Log puffer_log_add_ = {__VA_ARGS__};      \
        LOG_FIELDS(PUFFER_LOG_ADD)                      \
        puffer_log_sum_->n += 1;                        \
    } while (0)

/* ---- c_spaces: the spaces of one copy ----
 * The binding sets s->num_agents = 1 before calling c_spaces; an env with several agents per copy
 * sets it, an env of games calls ocean_game. Then one ocean_obs_* and one ocean_act_* call and
 * ocean_render_size; the binding refuses a c_spaces that leaves a space undescribed. */

static inline void ocean_obs_(OceanSpaces* s, char dtype, double lo, double hi, int ndim, int d0, int d1, int d2) {
    s->obs_dtype = dtype;
    s->obs_low = lo;
    s->obs_high = hi;
    s->obs_ndim = ndim;
    s->obs_shape[0] = d0;
    s->obs_shape[1] = d1;
    s->obs_shape[2] = d2;
}

/* Observation: a float32 vector of n values in [lo, hi] (bounds may be -INFINITY, INFINITY). */
static inline void ocean_obs_flat(OceanSpaces* s, int n, double lo, double hi) {
    ocean_obs_(s, 'f', lo, hi, 1, n, 0, 0);
}

/* Observation: a uint8 vector of n values in [lo, hi]. */
static inline void ocean_obs_bytes(OceanSpaces* s, int n, double lo, double hi) {
    ocean_obs_(s, 'B', lo, hi, 1, n, 0, 0);
}

/* Observation: a uint8 grid of `rows` x `cols` cells with values in [lo, hi]. */
static inline void ocean_obs_grid(OceanSpaces* s, int rows, int cols, double lo, double hi) {
    ocean_obs_(s, 'B', lo, hi, 2, rows, cols, 0);
}

/* Observation: a uint8 image of h x w pixels of c channels (h, w, c) with values in [lo, hi]. */
static inline void ocean_obs_image(OceanSpaces* s, int h, int w, int c, double lo, double hi) {
    ocean_obs_(s, 'B', lo, hi, 3, h, w, c);
}

/* Action: one of n choices (Discrete(n)). */
static inline void ocean_act_discrete(OceanSpaces* s, int n) {
    s->act_kind = 'D';
    s->act_dims = 1;
    s->act_n[0] = n;
}

/* Action: `dims` choices at once, n[i] for the i-th (MultiDiscrete), e.g.
 * ocean_act_multidiscrete(s, 2, (const int[]){9, 5}); at most OCEAN_MAX_DIMS. */
static inline void ocean_act_multidiscrete(OceanSpaces* s, int dims, const int* n) {
    s->act_kind = 'M';
    s->act_dims = dims;  /* more than OCEAN_MAX_DIMS: the binding refuses it */
    for (int i = 0; i < dims && i < OCEAN_MAX_DIMS; i++) s->act_n[i] = n[i];
}

/* Action: a float32 vector of `dims` values in [lo, hi] (Box); at most OCEAN_MAX_DIMS. */
static inline void ocean_act_box(OceanSpaces* s, int dims, double lo, double hi) {
    s->act_kind = 'B';
    s->act_dims = dims;
    s->act_low = lo;
    s->act_high = hi;
}

/* An env of games: a copy is one game of `seats` rows, every one an agent (OceanSpaces.game_seats). */
static inline void ocean_game(OceanSpaces* s, int seats) { s->num_agents = s->game_seats = seats; }

/* The size of c_render_rgb's canvas in pixels. */
static inline void ocean_render_size(OceanSpaces* s, int width, int height) {
    s->render_width = width;
    s->render_height = height;
}

/* splitmix64: tiny, fast, and good enough for environment randomness. */
static inline uint64_t rng_next(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [0, n). */
static inline int rng_int(uint64_t* s, int n) {
    return (int)(((rng_next(s) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform float in [0, 1). */
static inline float rng_float(uint64_t* s) {
    return (float)(rng_next(s) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform double in [lo, hi). */
static inline double rng_uniform(uint64_t* s, double lo, double hi) {
    return lo + (hi - lo) * ((double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0));
}

/* v clamped to [lo, hi] without a branch (SSE max then min; a NaN v gives lo): for values that
 * hit their bounds at random, where a mispredicted branch costs more than the clamp. */
static inline float clampf(float v, float lo, float hi) {
#if defined(__SSE__)
    return _mm_cvtss_f32(_mm_min_ss(_mm_max_ss(_mm_set_ss(v), _mm_set_ss(lo)), _mm_set_ss(hi)));
#else
    return v > lo ? (v < hi ? v : hi) : lo;
#endif
}

/* sin and cos of x (|x| < 1e4) to within 3e-7 (not libm's exact bits), inline and branch-free so
 * a loop over agents vectorizes: x less the nearest multiple k of pi/2 (in two parts, Cody-Waite),
 * the Cephes polynomials of sinf and cosf on [-pi/4, pi/4], swapped and signed by k mod 4. */
static inline void fast_sincosf(float x, float* sin_out, float* cos_out) {
    int k = (int)(x * 0.63661977f + (x >= 0 ? 0.5f : -0.5f));
    float r = (x - (float)k * 1.5703125f) - (float)k * 4.83826794897e-4f;
    float z = r * r;
    float s = r + r * z * (-1.6666654611e-1f + z * (8.3321608736e-3f + z * -1.9515295891e-4f));
    float c = 1.0f - 0.5f * z + z * z * (4.166664568298827e-2f + z * (-1.388731625493765e-3f + z * 2.443315711809948e-5f));
    float sv = k & 1 ? c : s, cv = k & 1 ? s : c;
    *sin_out = k & 2 ? -sv : sv;
    *cos_out = (k + 1) & 2 ? -cv : cv;
}

/* ---- rgb_array drawing into an (h, w, 3) uint8 canvas ---- */

static inline void draw_rect(uint8_t* px, int w, int h, int x, int y, int rw, int rh,
                             uint8_t r, uint8_t g, uint8_t b) {
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + rw > w ? w : x + rw, y1 = y + rh > h ? h : y + rh;
    for (int yy = y0; yy < y1; yy++) {
        uint8_t* row = px + 3 * (yy * w);
        for (int xx = x0; xx < x1; xx++) {
            row[3 * xx] = r; row[3 * xx + 1] = g; row[3 * xx + 2] = b;
        }
    }
}

static inline void draw_fill(uint8_t* px, int w, int h, uint8_t r, uint8_t g, uint8_t b) {
    draw_rect(px, w, h, 0, 0, w, h, r, g, b);
}

/* The colours every renderer draws with (r, g, b, as the three last arguments of draw_rect). */
#define PUFFER_BG 6, 24, 24
#define PUFFER_CYAN 0, 187, 187
#define PUFFER_RED 187, 0, 0
#define PUFFER_YELLOW 239, 239, 110
#define PUFFER_BLUE 90, 90, 220
#define PUFFER_ORANGE 230, 130, 40
#define PUFFER_GREY 170, 170, 170
#define PUFFER_GREEN 40, 200, 60

/* The same colours by index, for the grid-like renderers (draw_tiles). */
static const uint8_t PUFFER_PALETTE[8][3] = {
    {PUFFER_BG}, {PUFFER_CYAN}, {PUFFER_RED}, {PUFFER_YELLOW},
    {PUFFER_BLUE}, {PUFFER_ORANGE}, {PUFFER_GREY}, {PUFFER_GREEN},
};

/* Draw a gw x gh grid of palette indices, `tile` pixels per cell. */
static inline void draw_tiles(uint8_t* px, int w, int h, const uint8_t* cells, int gw, int gh, int tile) {
    for (int gy = 0; gy < gh; gy++)
        for (int gx = 0; gx < gw; gx++) {
            const uint8_t* c = PUFFER_PALETTE[cells[gy * gw + gx] & 7];
            draw_rect(px, w, h, gx * tile, gy * tile, tile, tile, c[0], c[1], c[2]);
        }
}

/* Append formatted text to an ansi render buffer; returns the new length. */
#define ANSI_APPEND(buf, cap, len, ...) \
    ((len) += snprintf((len) < (cap) ? (buf) + (len) : NULL, \
                        (len) < (cap) ? (size_t)((cap) - (len)) : 0, __VA_ARGS__))

#endif

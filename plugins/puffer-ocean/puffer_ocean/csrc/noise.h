/* noise.h: fractal value noise for procedurally generated height maps (terraform, school).
 *
 * noise_fill(out, w, h, cell, octaves, seed) writes w x h values in [0, 1] (row-major, stride w):
 * the sum over `octaves` octaves of value noise, octave o a lattice of spacing cell / 2^o cells
 * (at least 1) whose corner values come from a hash of (seed, octave, corner), blended with a
 * smoothstep and weighted 1 / 2^o (w at most NOISE_MAX_SIDE); the sum is then stretched to span
 * [0, 1] exactly (a flat sum, possible only for tiny maps, gives 0.5 everywhere). Nothing is allocated and no random state
 * is consumed: the same seed gives the same map, so an env draws `seed` from its own rng.
 */
#ifndef OCEAN_NOISE_H
#define OCEAN_NOISE_H

#include <stdint.h>

#define NOISE_MAX_SIDE 256  /* widest map noise_fill makes */

/* A corner value in [0, 1) of lattice `octave` at integer corner (ix, iy). */
static inline float noise_corner(uint64_t seed, int octave, int ix, int iy) {
    uint64_t z = seed ^ ((uint64_t)(uint32_t)ix * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uint32_t)iy * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)(octave + 1) * 0x165667B19E3779F9ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

static inline void noise_fill(float* out, int w, int h, int cell, int octaves, uint64_t seed) {
    float above[NOISE_MAX_SIDE + 2], below[NOISE_MAX_SIDE + 2];  /* one lattice row's corners, and the next */
    for (int i = 0; i < w * h; i++) out[i] = 0;
    float amp = 1.0f;
    for (int o = 0; o < octaves; o++, amp *= 0.5f) {
        int spacing = cell >> o;
        if (spacing < 1) spacing = 1;
        int corners = (w - 1) / spacing + 2;
        float inv = 1.0f / (float)spacing;
        for (int y = 0; y < h; y++) {
            int iy = y / spacing;
            if (y == iy * spacing)  /* a new lattice row: its corners once, not per cell */
                for (int ix = 0; ix < corners; ix++) {
                    above[ix] = noise_corner(seed, o, ix, iy);
                    below[ix] = noise_corner(seed, o, ix, iy + 1);
                }
            float fy = (float)(y - iy * spacing) * inv;
            fy = fy * fy * (3.0f - 2.0f * fy);
            for (int x = 0; x < w; x++) {
                int ix = x / spacing;
                float fx = (float)(x - ix * spacing) * inv;
                fx = fx * fx * (3.0f - 2.0f * fx);
                float top = above[ix] + (above[ix + 1] - above[ix]) * fx;
                float bottom = below[ix] + (below[ix + 1] - below[ix]) * fx;
                out[y * w + x] += amp * (top + (bottom - top) * fy);
            }
        }
    }
    float lo = out[0], hi = out[0];
    for (int i = 1; i < w * h; i++) {
        lo = out[i] < lo ? out[i] : lo;
        hi = out[i] > hi ? out[i] : hi;
    }
    float scale = hi > lo ? 1.0f / (hi - lo) : 0.0f;
    for (int i = 0; i < w * h; i++) out[i] = hi > lo ? (out[i] - lo) * scale : 0.5f;
}

#endif

/* ocean.h: the description of one environment that binding.h generates and module.c uses. */
#ifndef OCEAN_H
#define OCEAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OCEAN_MAX_DIMS 16
#define OCEAN_ERR_LEN 256

/* The slots the binding fills for each copy: its rows of the PufferEnv arrays. */
typedef struct {
    void* observations;    /* first observation row of this copy (float or uint8) */
    int32_t* actions;      /* discrete actions (NULL for Box actions) */
    float* cont_actions;   /* Box actions (NULL for discrete actions) */
    float* rewards;
    uint8_t* terminals;
    uint8_t* truncations;
    void* final_observations; /* rows like observations: the last one of an ended episode */
    float* outcomes;       /* games (OceanSpaces.game_seats): a row's result where its game ends */
    uint8_t* masks;        /* 1 (the default): the row acts this step; a turn-based game sets 0 for
                            * the seats that wait (their actions are ignored and not trained on) */
    const int8_t* players; /* per row, who acts (pufferlib.environment's `players`): 0 the agent,
                            * k > 0 the env's built-in player k (OCEAN_BUILTIN_PLAYERS) */
    size_t obs_row_bytes;  /* bytes of one agent's observation row */
    uint64_t rng;          /* this copy's random state: use the rng_* helpers */
    int index;             /* index of this copy in its vector */
} Puffer;

/* Game results (pufferlib.environment's contract for envs of games). */
#define OCEAN_WIN 1.0f
#define OCEAN_DRAW 0.5f
#define OCEAN_LOSS 0.0f

/* Record agent `k`'s result (OCEAN_WIN, OCEAN_DRAW, OCEAN_LOSS, or NAN for a game without
 * one) in the step where its game ends; an env of games (game_seats > 0) calls it for every
 * row of a game that ends, in the step whose terminal or truncation ends it. */
static inline void ocean_outcome(Puffer* p, int k, float result) { p->outcomes[k] = result; }

/* Who acts for row `k` this step: 0 its agent (the action), k > 0 the built-in player k. An env
 * that defines OCEAN_BUILTIN_PLAYERS n (players 1..n, the numbering of its `opponent`) reads it
 * for the rows of a game whose seats are all agents; the trainer changes it only between games. */
static inline int ocean_player(const Puffer* p, int k) { return p->players[k]; }

/* Keep agent `k`'s observation row as its final observation. An env that defines
 * OCEAN_WRITES_FINAL calls it for every agent whose episode ends, after writing that
 * agent's last observation and before resetting it. */
static inline void ocean_keep_final(Puffer* p, int k) {
    memcpy((char*)p->final_observations + (size_t)k * p->obs_row_bytes,
           (const char*)p->observations + (size_t)k * p->obs_row_bytes, p->obs_row_bytes);
}

typedef enum { OCEAN_INT = 0, OCEAN_FLOAT = 1, OCEAN_DOUBLE = 2 } OceanType;

/* A named struct member: a constructor argument (with default and bounds) or a state field. */
typedef struct {
    const char* name;
    OceanType type;
    double def, lo, hi;
    size_t offset;
} OceanField;

/* The spaces of one copy, filled by the env's c_spaces(). */
typedef struct {
    int num_agents;                    /* agents per copy */
    int game_seats;                    /* rows per game of an env of games (0: not a game) */
    int legal_actions;                 /* 1: a flat float observation starting with one entry per action of
                                        * a Discrete space, 1 legal, 0 not (all 0 for a waiting seat) */
    int obs_ndim;
    int obs_shape[3];
    char obs_dtype;                    /* 'f' float32 or 'B' uint8 */
    double obs_low, obs_high;
    char act_kind;                     /* 'D' Discrete, 'M' MultiDiscrete, 'B' Box */
    int act_dims;                      /* 1 for Discrete */
    int act_n[OCEAN_MAX_DIMS];         /* choices per dimension (D, M) */
    double act_low, act_high;          /* bounds (B) */
    int render_width, render_height;   /* rgb_array size */
} OceanSpaces;

typedef struct {
    const char* name;
    size_t env_size, puffer_offset, log_offset;
    int log_count;                     /* floats in Log, n included (last) */
    const char* const* log_names;      /* log_count - 1 names */
    const OceanField* params;
    int num_params;
    const OceanField* fields;
    int num_fields;
    /* Check the parsed params and describe the spaces; nonzero (with err set) when invalid. */
    int (*spaces)(void* env, OceanSpaces* out, char* err);
    int (*init)(void* env, char* err);
    void (*reset)(void* env);
    void (*step_range)(void* envs, int start, int stop);
    int (*render_ansi)(void* env, char* buf, int cap);
    void (*render_rgb)(void* env, uint8_t* pixels, int width, int height);
    void (*close)(void* env);
    int writes_final;                  /* the env calls ocean_keep_final (OCEAN_WRITES_FINAL) */
    int builtin_players;               /* built-in players that can take a seat (OCEAN_BUILTIN_PLAYERS) */
} OceanEnvDef;

#endif

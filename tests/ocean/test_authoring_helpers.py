"""The authoring helpers of puffer.h (c_spaces helpers, LOG_EPISODE) and the binding's checks of
c_spaces, compiled with gcc into a small program against `puffer_ocean.get_include()` (no Python
extension is built)."""

import shutil
import subprocess

import pytest

import puffer_ocean

PROBE = r"""
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(extra)
#include "puffer.h"

typedef struct { Puffer p; Log log; int variant; } Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    switch (env->variant) {
    case 0: break;                                   /* describes nothing */
    case 1: ocean_obs_flat(s, 8, -1, 1); break;      /* no action space */
    case 2: {                                        /* too many action dimensions */
        int n[OCEAN_MAX_DIMS + 1] = {0};
        ocean_obs_flat(s, 8, -1, 1);
        ocean_act_multidiscrete(s, OCEAN_MAX_DIMS + 1, n);
        break;
    }
    case 3:
        ocean_obs_grid(s, 5, 7, 0, 2);
        ocean_act_multidiscrete(s, 2, (const int[]){9, 5});
        ocean_render_size(s, 64, 32);
        break;
    case 4:
        ocean_game(s, 2);
        ocean_obs_image(s, 4, 6, 3, 0, 255);
        ocean_act_box(s, 3, -1, 1);
        break;
    case 5:
        s->num_agents = 0;
        ocean_obs_bytes(s, 3, 0, 1);
        ocean_act_discrete(s, 4);
        break;
    }
    return 0;
}
static int c_init(Env* env, char* err) { return 0; }
static void c_reset(Env* env) {}
static void c_step(Env* env) {}
static int c_render_ansi(Env* env, char* buf, int cap) { return 0; }
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {}
static void c_close(Env* env) {}

#define ENV_NAME probe
#include "binding.h"

int main(void) {
    for (int v = 0; v <= 5; v++) {
        Env env;
        OceanSpaces s;
        char err[OCEAN_ERR_LEN] = {0};
        memset(&env, 0, sizeof env);
        memset(&s, 0, sizeof s);
        env.variant = v;
        int rc = ocean_def_probe.spaces(&env, &s, err);
        printf("%d rc=%d agents=%d seats=%d obs=%c%d:%d,%d,%d[%g,%g] act=%c%d:%d,%d[%g,%g] render=%dx%d err=%s\n", v,
               rc, s.num_agents, s.game_seats, s.obs_dtype ? s.obs_dtype : '-', s.obs_ndim, s.obs_shape[0],
               s.obs_shape[1], s.obs_shape[2], s.obs_low, s.obs_high, s.act_kind ? s.act_kind : '-', s.act_dims,
               s.act_n[0], s.act_n[1], s.act_low, s.act_high, s.render_width, s.render_height, err);
    }
    Env env;
    memset(&env, 0, sizeof env);
    for (int i = 0; i < 2; i++)
        if (i == 0)  /* an unbraced if/else: LOG_EPISODE is one statement */
            LOG_EPISODE(&env.log, .score = 1, .episode_return = 0.5f, .episode_length = 10);
        else
            LOG_EPISODE(&env.log, .extra = 2, .score = i + 1);
    printf("log score=%g episode_return=%g episode_length=%g extra=%g n=%g\n", env.log.score,
           env.log.episode_return, env.log.episode_length, env.log.extra, env.log.n);
    return 0;
}
"""


@pytest.fixture(scope="module")
def probe_output(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    folder = tmp_path_factory.mktemp("probe")
    (folder / "probe.c").write_text(PROBE)
    # the plugin's warnings and more (-Wextra), as errors: the helpers compile cleanly under both
    subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function",
                    "-Wno-unused-parameter", "-Wno-missing-braces", "-I", puffer_ocean.get_include(),
                    "probe.c", "-o", "probe", "-lm"], cwd=folder, check=True, capture_output=True, text=True)
    out = subprocess.run([str(folder / "probe")], check=True, capture_output=True, text=True).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def test_the_binding_refuses_a_c_spaces_that_leaves_a_space_undescribed(probe_output):
    assert probe_output["0"].startswith("rc=1 ")
    assert probe_output["0"].endswith("err=c_spaces must describe its observation space (an ocean_obs_* helper).")
    assert probe_output["1"].startswith("rc=1 ")
    assert "err=c_spaces must describe its action space, of 1 to 16 dimensions" in probe_output["1"]
    assert probe_output["2"].startswith("rc=1 ") and "its action space, of 1 to 16" in probe_output["2"]
    assert probe_output["5"].startswith("rc=1 ")
    assert probe_output["5"].endswith("err=c_spaces must describe at least one agent per copy (s->num_agents).")


def test_helpers_fill_the_spaces_and_one_agent_per_copy_is_the_default(probe_output):
    assert probe_output["3"] == "rc=0 agents=1 seats=0 obs=B2:5,7,0[0,2] act=M2:9,5[0,0] render=64x32 err="
    assert probe_output["4"] == "rc=0 agents=2 seats=2 obs=B3:4,6,3[0,255] act=B3:0,0[-1,1] render=0x0 err="


def test_log_episode_adds_the_named_stats_and_counts_each_episode(probe_output):
    assert probe_output["log"] == "score=3 episode_return=0.5 episode_length=10 extra=2 n=2"

"""Registry, plugins and pufferlib.make: ids, families, entry points, errors."""

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import pufferlib
from pufferlib import APIUsageError, EnvNotFoundError
from pufferlib.registry import spec, unregister

PLUGIN = '''
import pufferlib
from pufferlib import EnvSpec

@pufferlib.hookimpl
def pufferlib_env_specs():
    return [EnvSpec("fake-counter", "fakeheavy:make_counter", kwargs={"length": 4},
                    policy="fakeheavy:Policy", config={"train": {"learning_rate": 0.01}},
                    package="fake-plugin", aliases=("fake_counter",))]

@pufferlib.hookimpl
def pufferlib_env_prefixes():
    return ["fake-"]

@pufferlib.hookimpl
def pufferlib_resolve_env(env_id):
    if env_id.startswith("fake-family-"):
        return EnvSpec(env_id, "fakeheavy:make_counter", kwargs={"length": int(env_id.rsplit("-", 1)[1])})
'''

HEAVY = '''
from tests.core.envs import CountingEnv

def make_counter(length=5):
    return CountingEnv(length=length)

class Policy:
    pass
'''


def install_fake_distribution(root, name, module, source, version="1.2.3", entry_name=None):
    """Write a package and its .dist-info (with an entry point, named `entry_name` or like the
    module) into `root`, as pip would."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[pufferlib.plugins]\n{entry_name or module} = {module}\n")


@pytest.fixture
def fake_plugins(tmp_path, monkeypatch, fresh_plugins):
    install_fake_distribution(tmp_path, "fake-plugin", "fakeplugin", PLUGIN)
    install_fake_distribution(tmp_path, "broken-plugin", "brokenplugin", "raise RuntimeError('boom')", "0.0.1")
    (tmp_path / "fakeheavy.py").write_text(HEAVY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "fakeheavy", raising=False)
    yield tmp_path
    for name in ("fakeplugin", "brokenplugin", "fakeheavy"):
        sys.modules.pop(name, None)


def test_third_party_plugin_is_discovered_lazily(fake_plugins):
    with pytest.warns(RuntimeWarning, match=r"'brokenplugin' \(broken-plugin 0.0.1\) failed to load.*boom"):
        env_spec = spec("fake-counter")
    assert env_spec.kwargs == {"length": 4} and env_spec.config["train"]["learning_rate"] == 0.01
    assert "fakeheavy" not in sys.modules  # listing specs imports nothing heavy
    vecenv = pufferlib.make("fake-counter", num_envs=2, seed=None)
    assert "fakeheavy" in sys.modules
    vecenv.reset()
    for _ in range(3):
        _, _, terminals, _, _ = vecenv.step(np.zeros(2, np.int32))
    assert not terminals.any()
    _, _, terminals, _, _ = vecenv.step(np.zeros(2, np.int32))
    assert terminals.all()  # default kwarg length=4 applied
    vecenv.close()
    assert spec("fake_counter") is not None  # alias
    assert spec("fake-family-7").kwargs == {"length": 7}  # open-ended family hook
    assert env_spec.load_policy().__name__ == "Policy"


def test_kwargs_override_spec_defaults(fake_plugins):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vecenv = pufferlib.make("fake-counter", num_envs=1, seed=None, length=1)
    vecenv.reset()
    assert vecenv.step(np.zeros(1, np.int32))[2].all()
    vecenv.close()


def test_plugins_listing_reports_broken_plugins(fake_plugins):
    from pufferlib.registry.plugins import installed_plugins

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        infos = {info.name: info for info in installed_plugins()}
    assert infos["fakeplugin"].version == "1.2.3" and infos["fakeplugin"].error is None
    assert "boom" in infos["brokenplugin"].error


def test_autoload_can_be_disabled(fake_plugins, monkeypatch):
    monkeypatch.setenv("PUFFERLIB_DISABLE_PLUGIN_AUTOLOAD", "1")
    with pytest.raises(EnvNotFoundError):
        spec("fake-counter")
    assert spec("gym-CartPole-v1").id == "gym-CartPole-v1"  # the core's families stay


def test_unknown_id_says_what_to_install(monkeypatch):
    from pufferlib.registry import plugins

    monkeypatch.setitem(plugins.FIRST_PARTY, "zzz", ("puffer-zzz", ("zzz-",)))
    with pytest.raises(EnvNotFoundError, match="pip install puffer-zzz"):
        spec("zzz-breakout")


def test_unknown_id_suggests_close_matches():
    pufferlib.register("my-cartpole", "tests.core.vector.test_vector:cartpole", overwrite=True)
    try:
        with pytest.raises(EnvNotFoundError, match="Did you mean: my-cartpole"):
            spec("my-cartpol")
    finally:
        unregister("my-cartpole")


def test_gym_family():
    assert spec("gym-CartPole-v1").id == "gym-CartPole-v1"
    assert spec("gym-cartpole").id == "gym-CartPole-v1"  # latest version, any case
    with pytest.raises(EnvNotFoundError, match="Did you mean: gym-CartPole-v"):
        spec("gym-CartPol-v1")


def test_pettingzoo_family():
    assert spec("pettingzoo-pistonball").description == "pettingzoo.make('butterfly/pistonball-v6')"
    assert "knights_archers_zombies-v11" in spec("pettingzoo-knights-archers-zombies").description
    assert "pistonball-v6" in spec("pettingzoo-pistonball-v6").description
    with pytest.raises(EnvNotFoundError, match="pistonball"):
        spec("pettingzoo-pistonbal")


def test_module_callable_ids_and_register():
    vecenv = pufferlib.make("tests.core.vector.test_vector:cartpole", num_envs=2)
    assert vecenv.num_agents == 2
    vecenv.close()
    pufferlib.register("local-counter", "tests.core.envs:CountingEnv", kwargs={"length": 2})
    try:
        with pytest.raises(APIUsageError, match="already registered"):
            pufferlib.register("local-counter", "tests.core.envs:CountingEnv")
        with pufferlib.make("local-counter", seed=None) as vecenv:
            vecenv.reset()
            vecenv.step([0])
            assert vecenv.step([0])[2].all()
    finally:
        unregister("local-counter")
    with pytest.raises(APIUsageError, match="no attribute"):
        pufferlib.make("tests.core.envs:Nope")


def test_make_with_workers_needs_multiprocessing_args():
    with pytest.raises(APIUsageError, match="num_workers"):
        pufferlib.make("gym-CartPole-v1", num_envs=4, num_workers=2, backend="serial")


def test_import_is_cheap_and_side_effect_free(tmp_path):
    code = ("import sys, warnings, signal; before = signal.getsignal(signal.SIGINT); import pufferlib; "
            "heavy = [m for m in ('torch', 'gymnasium', 'pettingzoo', 'numpy') if m in sys.modules]; "
            "assert signal.getsignal(signal.SIGINT) is before; "
            "assert not any(f[0] == 'error' for f in warnings.filters); print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]" and out.stderr == ""
    assert list(tmp_path.iterdir()) == []


def test_plugin_with_unknown_hooks_is_skipped_not_fatal(tmp_path, monkeypatch, fresh_plugins):
    source = "import pufferlib\n\n@pufferlib.hookimpl\ndef pufferlib_hook_from_the_future():\n    return 1\n"
    install_fake_distribution(tmp_path, "future-plugin", "futureplugin", source, "9.0")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(RuntimeWarning, match=r"'futureplugin' \(future-plugin 9.0\) failed to load.*unknown hook"):
        assert spec("gym-CartPole-v1").id == "gym-CartPole-v1"
    sys.modules.pop("futureplugin", None)


def test_a_creator_that_refuses_a_keyword_argument_is_an_error_naming_it():
    """A keyword argument the creator does not take says so in one line, not a TypeError (`opponent`
    reaches a plugin's AEC game through the adapter: see the test below)."""
    pufferlib.register("test-nim-kwargs", "tests.core.aec_plugin:env", overwrite=True)
    try:
        with pytest.raises(APIUsageError, match="does not take the keyword argument 'colour'.*remove it"):
            pufferlib.make("test-nim-kwargs", colour="red")
        with pufferlib.make("test-nim-kwargs", opponent="none") as env:
            assert env.game_seats == 2
        with pufferlib.make("test-nim-kwargs", pile=5) as env:  # the keywords it takes still go through
            assert env.game_seats == 2
    finally:
        unregister("test-nim-kwargs")


def test_pettingzoo_classic_games_are_games_even_those_pettingzoo_could_step_in_parallel():
    """rps has PettingZoo's parallel API; as a classic game it goes through the turn-based adapter,
    which writes each game's outcome (game_seats), so self-play, match and league take it."""
    with pufferlib.make("pettingzoo-rps") as env:
        assert env.game_seats == 2 and set(env.builtin_players) == {"random", "tactical"}


def test_a_game_option_its_creator_refuses_is_an_error_unless_it_makes_an_aec_game():
    """`opponent` reaches a plugin's AEC game through the turn-based adapter; a creator of anything
    else that does not take it is refused, naming it (not a TypeError)."""
    import gymnasium

    from pufferlib.errors import APIUsageError
    from tests.core import aec_plugin

    pufferlib.register("test-plain-gym", lambda: gymnasium.make("CartPole-v1"))
    try:
        with pytest.raises(APIUsageError, match="does not take opponent and makes a .*not a turn-based"):
            pufferlib.make("test-plain-gym", opponent="random")
    finally:
        pufferlib.registry.unregister("test-plain-gym")
    with aec_plugin.installed():
        env = pufferlib.make(aec_plugin.ENV_ID, num_envs=2, opponent="random")
        try:
            assert env.num_agents == 2 and getattr(env.driver_env, "game_seats", None) == 1  # one learner a game
        finally:
            env.close()

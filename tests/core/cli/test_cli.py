"""`puffer list`, `puffer plugins`, `puffer rollout` and command-name errors."""

import subprocess
import sys


def puffer(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pufferlib", *args], capture_output=True, text=True, timeout=120)


def test_list_shows_core_families():
    out = puffer("list")
    assert out.returncode == 0, out.stderr
    assert "core:" in out.stdout and "gym-<name>" in out.stdout and "pettingzoo-<name>" in out.stdout


def test_plugins_shows_core_version():
    out = puffer("plugins")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split()[:2] == ["core", "puffer-core"]


def test_rollout_prints_steps_per_second():
    out = puffer("rollout", "gym-CartPole-v1", "--num-envs", "2", "--steps", "300")
    assert out.returncode == 0, out.stderr
    assert "agent steps/s" in out.stdout and "episodes" in out.stdout


def test_unknown_command_suggests():
    out = puffer("lsit")
    assert out.returncode == 2 and "Did you mean: list" in out.stderr


def test_unknown_env_is_a_clear_error():
    out = puffer("rollout", "gym-CartPol-v1")
    assert out.returncode == 2 and "Did you mean: gym-CartPole-v1" in out.stderr
    assert "Traceback" not in out.stderr


def test_every_command_maps_errors_to_one_exit_status(monkeypatch, capsys):
    """Wrong input exits 2 and a failed run 1, whichever command raised, with `puffer X: error:`."""
    from pufferlib import cli
    from pufferlib.errors import APIUsageError, NonFiniteError, WorkerError

    for error, status in [(APIUsageError("bad"), 2), (NonFiniteError("nan"), 1), (WorkerError("died"), 1)]:
        for name in ("train", "eval", "sweep", "check"):
            module, _, func = cli.COMMANDS[name][0].partition(":")

            def raising(argv, error=error):
                raise error

            monkeypatch.setattr(__import__(module, fromlist=[func]), func, raising)
            assert cli.main([name]) == status
            assert f"puffer {name}: error: {error}" in capsys.readouterr().err


def test_nothing_outside_the_cli_package_imports_it():
    import pathlib

    import pufferlib

    root = pathlib.Path(pufferlib.__file__).parent
    importers = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if "cli" not in p.relative_to(root).parts[:1] and p.name != "__main__.py"
                 and ("pufferlib.cli" in p.read_text() or "from pufferlib import cli" in p.read_text())]
    assert importers == []

"""puffer_ocean.policies: BoardConv reads connect4's board, is named from a config, and refuses an
observation that holds no board of its size; TripletriadPairs scores tripletriad's placements from
the sides of the cards and their neighbours, and refuses another env."""

import numpy as np
import pytest
import torch

import pufferlib
from puffer_ocean import envs
from puffer_ocean.policies import BoardConv, TripletriadPairs
from pufferlib.agent import build
from pufferlib.config import env_config, load_default, merge


def connect4_agent():
    config = merge(load_default(), env_config("ocean-connect4")[0])
    config["policy"] = {"class": "puffer_ocean.policies:BoardConv", "channels": 8, "hidden_size": 32}
    return build("ocean-connect4", config)


def test_boardconv_is_named_in_a_config_and_acts_on_connect4():
    agent = connect4_agent()
    policy = agent.policy
    assert any(isinstance(m, BoardConv) for m in policy.modules())
    env = pufferlib.make("ocean-connect4", num_envs=4)
    try:
        obs, _ = env.reset(seed=0)
        logits, value = policy(torch.from_numpy(obs))[:2]
        assert logits.shape == (4, 7) and value.shape == (4, 1)
    finally:
        env.close()


def test_boardconv_reads_connect4s_board_and_sees_a_pattern_anywhere_on_it():
    """connect4's observation is row-major from the top row, +1 own, -1 other: the planes put each
    piece on its cell, and a piece one column over moves the first layer's output with it."""
    conv = next(m for m in connect4_agent().policy.modules() if isinstance(m, BoardConv))
    obs = np.zeros((2, 42), np.float32)
    obs[0, 5 * 7 + 2], obs[0, 0] = 1, -1  # own piece on the bottom row, column 2; the other's top left
    obs[1, 5 * 7 + 3], obs[1, 1] = 1, -1  # the same, one column to the right
    planes = conv.planes(torch.from_numpy(obs))
    assert planes[0, 0, 5, 2] == 1 and planes[0, 1, 0, 0] == 1 and planes[0, 2].sum() == 40
    first = conv.convs[0](planes).detach()
    assert torch.allclose(first[0, :, :, 1:5], first[1, :, :, 2:6], atol=1e-6)


def test_boardconv_refuses_an_observation_without_its_board():
    env = pufferlib.make("ocean-squared", num_envs=1)
    try:
        with pytest.raises(ValueError, match="reads a 9 x 9 board"):
            BoardConv(env, rows=9, cols=9)
    finally:
        env.close()


@pytest.mark.parametrize("legal_actions", [0, 1])
def test_tripletriad_pairs_reads_the_cards_and_cells_and_gives_the_selected_cards_scores_as_cell_logits(legal_actions):
    env = envs.Tripletriad(num_envs=2, opponent="random", legal_actions=legal_actions)
    try:
        env.reset(seed=1)
        torch.manual_seed(0)
        policy = TripletriadPairs(env, hidden_size=16, pair_size=8)
        env.step(np.array([3, 3], np.int32))  # card 4 selected
        env.step(np.array([5 + 4, 5 + 4], np.int32))  # placed on the centre; the random player answers
        env.step(np.array([1, 1], np.int32))  # card 2 selected
        obs = torch.from_numpy(env.observations)
        cards, cells, selected = policy.features(obs[:, policy.offset:])
        plain = env.observations[:, policy.offset:]
        assert selected.tolist() == [1, 1] and cards[0, 1, 5] == 1 and cards[0, 3, 4] == 0  # selected; placed
        np.testing.assert_allclose(cards[0, :, :4].numpy(), plain[0, 64:84].reshape(5, 4))
        # per side (north, south, east, west) of a cell: edge, empty, own card, the other's, its facing value
        south_of_top = cells[0, 1, 5:10]  # the top middle cell's south side: the centre's card (the agent's,
        own = plain[0, 4] == 1            # unless the random player's answer captured it)
        assert south_of_top[:4].tolist() == [0, 0, float(own), float(not own)]
        assert south_of_top[4] == pytest.approx(plain[0, 28 + 4 * 4 + 0])  # the centre card's north value
        assert cells[0, 0, 0:5].tolist() == [1, 0, 0, 0, 0] and cells[0, 4, -1] == 0  # an edge; the centre is taken
        logits, value = policy(obs)
        assert logits.shape == (2, 14) and value.shape == (2, 1)
        pairs = (policy.card(cards).unsqueeze(2) + policy.cell(cells).unsqueeze(1)
                 + policy.context(policy.encoder(obs.float()))[:, None, None, :])
        scores = policy.out(torch.relu(pairs)).squeeze(-1)
        torch.testing.assert_close(logits[:, 5:], scores[:, 1, :])  # the selected card's scores, cell by cell
        empty = cells[0, :, -1] == 1
        torch.testing.assert_close(logits[0, :5], torch.logsumexp(scores[0][:, empty], dim=1))
    finally:
        env.close()


def test_tripletriad_pairs_trains_by_self_play_from_the_command_line_and_loads_back(tmp_path):
    from pufferlib import cli
    from pufferlib.agent import load

    assert cli.main(["train", "ocean-tripletriad", "--env.opponent", "none", "--env.legal-actions", "1",
                     "--policy.class", "puffer_ocean.policies:TripletriadPairs", "--policy.pair-size", "8",
                     "--selfplay.enabled", "true", "--selfplay.anchors", "random", "--vec.num-envs", "16",
                     "--train.total-timesteps", "2048", "--train.batch-size", "512", "--train.minibatch-size", "256",
                     "--train.data-dir", str(tmp_path), "--train.device", "cpu"]) == 0
    (run,) = tmp_path.iterdir()
    agent = load(run)
    assert any(isinstance(m, TripletriadPairs) and m.offset == 14 for m in agent.policy.modules())


def test_tripletriad_pairs_refuses_another_env():
    env = pufferlib.make("ocean-connect4", num_envs=1)
    try:
        with pytest.raises(ValueError, match="reads Ocean tripletriad's observation"):
            TripletriadPairs(env)
    finally:
        env.close()

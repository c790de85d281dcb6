"""Ready-made policies. Each takes the vectorized env (for its spaces) as first argument.

Feed-forward policies implement `forward(obs) -> (logits, value)` as two steps,
`encode_observations(obs) -> hidden` and `decode_actions(hidden) -> (logits, value)`,
so that `LSTMWrapper` can put a recurrent core between them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import numpy as np
import torch
from gymnasium import spaces
from torch import nn

import pufferlib.pytorch
from pufferlib.errors import APIUsageError
from pufferlib.pytorch import layer_init

if TYPE_CHECKING:
    from pufferlib.protocols import EnvSpaces, Logits, LSTMState, SplitPolicy
    from pufferlib.spaces import Nested


class ActionHead(nn.Module):
    """Actor and critic heads for a Discrete, MultiDiscrete or Box action space.

    Box actions: a Gaussian with a state-independent log-std starting at `log_std_init`, or,
    with `sde`, gSDE's state-dependent Gaussian (`pufferlib.pytorch.StateDependentNormal`:
    a (hidden_size, action_dim) log-std, noise held for `sde_hold` steps). `ortho_init`:
    orthogonal weights (actor scaled 0.01, critic 1.0), else PyTorch's default initialisation.
    """

    def __init__(self, action_space: spaces.Space[object], hidden_size: int, log_std_init: float = 0.0,
                 sde: bool = False, sde_hold: int = 8, ortho_init: bool = True):
        super().__init__()
        self.nvec: list[int] | None = None
        self.continuous = isinstance(action_space, spaces.Box)
        self.sde, self.sde_hold = sde and self.continuous, sde_hold
        if sde and not self.continuous:
            raise APIUsageError(f"sde = true is for Box actions; {action_space} is not one.")
        if sde_hold < 1:
            raise APIUsageError(f"sde_hold = {sde_hold}: the noise is held for at least one step.")
        if isinstance(action_space, spaces.Discrete):
            out = int(action_space.n)
        elif isinstance(action_space, spaces.MultiDiscrete):
            self.nvec = [int(n) for n in action_space.nvec.ravel()]
            out = sum(self.nvec)
        else:
            assert action_space.shape is not None, f"{action_space!r} has no shape"  # a Box
            out = int(np.prod(action_space.shape))
            self.logstd = nn.Parameter(torch.full((hidden_size, out) if self.sde else (1, out), float(log_std_init)))
        self.actor, self.critic = nn.Linear(hidden_size, out), nn.Linear(hidden_size, 1)
        if ortho_init:  # else PyTorch's default initialisation
            layer_init(self.actor, std=0.01)
            layer_init(self.critic, std=1.0)

    def forward(self, hidden: torch.Tensor,
                critic_hidden: torch.Tensor | None = None) -> tuple[Logits, torch.Tensor]:
        """(logits, value) of `hidden`; the value reads `critic_hidden` instead when given."""
        logits = self.actor(hidden)
        value = self.critic(hidden if critic_hidden is None else critic_hidden)
        if self.sde:
            return pufferlib.pytorch.StateDependentNormal(logits, hidden, self.logstd, self.sde_hold), value
        if self.continuous:
            return torch.distributions.Normal(logits, self.logstd.expand_as(logits).exp()), value
        if self.nvec is not None:
            return list(torch.split(logits, self.nvec, dim=-1)), value
        return logits, value


class Default(nn.Module):
    """An MLP policy. Structured (dict/tuple) observations get one linear encoder per leaf.

    `hidden_size`: width of the encoder output and of the actor/critic input.
    """

    def __init__(self, env: EnvSpaces, hidden_size: int = 128):
        super().__init__()
        self.hidden_size = hidden_size
        self.obs_layout = env.obs_layout
        if self.obs_layout is not None and self.obs_layout.structured:
            self.leaf_encoders: nn.ModuleList | None = nn.ModuleList(
                layer_init(nn.Linear(max(1, math.prod(leaf.shape)), hidden_size))
                for leaf in self.obs_layout.leaves)
            encoded = hidden_size * len(self.obs_layout.leaves)
        else:
            self.leaf_encoders = None
            shape = env.single_observation_space.shape
            assert shape is not None, "observation spaces are Boxes"
            encoded = int(np.prod(shape))
        self.encoder = nn.Sequential(layer_init(nn.Linear(encoded, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, *obs_shape) -> (batch, hidden_size)."""
        batch = obs.shape[0]
        if self.leaf_encoders is None:
            return self.encoder(obs.reshape(batch, -1).float())
        leaves = _leaves(pufferlib.pytorch.unflatten(obs, self.obs_layout))
        x = torch.cat([enc(leaf.reshape(batch, -1).float()) for enc, leaf in zip(self.leaf_encoders, leaves)], -1)
        return self.encoder(torch.relu(x))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs over a flat observation (the continuous-control PPO layout).

    Each network has `num_layers` tanh layers of `hidden_size` units; the actor ends in a
    Gaussian (Box) or categorical head, the critic in one value. Sharing no layers keeps the
    value loss from disturbing the policy's features, which MuJoCo-style tasks need.
    `encode_observations` returns both trunks' features side by side (2 * hidden_size), and
    `decode_actions` splits them again, so that `LSTMWrapper` can sit between the two.
    Box actions: `log_std_init`, `sde`, `sde_hold` and `ortho_init` as in `ActionHead` (gSDE reads
    the actor's last tanh features; `ortho_init` also applies to the trunks).
    """

    def __init__(self, env: EnvSpaces, hidden_size: int = 64, num_layers: int = 2, log_std_init: float = 0.0,
                 sde: bool = False, sde_hold: int = 8, ortho_init: bool = True):
        super().__init__()
        if num_layers < 1:
            raise ValueError(f"num_layers={num_layers}: ActorCritic needs at least one hidden layer.")
        self.hidden_size = 2 * hidden_size
        shape = env.single_observation_space.shape
        assert shape is not None, "observation spaces are Boxes"
        obs_size = int(np.prod(shape))

        def trunk() -> nn.Sequential:
            sizes = [obs_size] + [hidden_size] * num_layers
            linear = [nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]
            layers = [(layer_init(layer) if ortho_init else layer, nn.Tanh()) for layer in linear]
            return nn.Sequential(*(m for pair in layers for m in pair))

        self.actor_trunk, self.critic_trunk = trunk(), trunk()
        # Not named `head`: LSTMWrapper would rebuild a `head` for its own width, which the split cannot read.
        self.heads = ActionHead(env.single_action_space, hidden_size, log_std_init, sde, sde_hold, ortho_init)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, *obs_shape) -> (batch, 2 * hidden_size): actor features, then critic features."""
        flat = obs.reshape(obs.shape[0], -1).float()
        return torch.cat([self.actor_trunk(flat), self.critic_trunk(flat)], -1)

    def decode_actions(self, hidden: torch.Tensor) -> tuple[Logits, torch.Tensor]:
        """(batch, 2 * hidden_size) -> (logits, value): the actor reads the first half, the critic the second."""
        actor, critic = hidden.chunk(2, dim=-1)
        return self.heads(actor, critic)

    def forward(self, obs: torch.Tensor) -> tuple[Logits, torch.Tensor]:
        return self.decode_actions(self.encode_observations(obs))


def _leaves(tree: Nested[torch.Tensor]) -> list[torch.Tensor]:
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in _leaves(v)]
    if isinstance(tree, tuple):
        return [x for v in tree for x in _leaves(v)]
    return [tree]


class ImagePolicy(nn.Module):
    """The base of image policies (the core's and plugins'): (H, W, C) or (C, H, W) uint8 frames
    scaled to [0, 1], a `network` that a subclass sets (frames -> (batch, hidden_size)), and an
    `ActionHead` named `head`; recurrent-ready (`encode_observations` / `decode_actions`)."""

    network: nn.Module  # set by the subclass: frames -> (batch, hidden_size)

    def _setup(self, env: EnvSpaces, channels_last: bool, hidden_size: int) -> tuple[int, int, int]:
        """Check the frames' shape, set `hidden_size` and `head`; returns (channels, height, width)."""
        self.channels_last = channels_last
        self.hidden_size = hidden_size
        shape = env.single_observation_space.shape
        if shape is None or len(shape) != 3:
            raise APIUsageError(f"{type(self).__name__} takes image frames, (H, W, C) with channels_last else "
                                f"(C, H, W); this env's observations have shape {shape}. Use models.Default.")
        self.head = ActionHead(env.single_action_space, hidden_size)
        return (shape[2], shape[0], shape[1]) if channels_last else (shape[0], shape[1], shape[2])

    def _frames(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs.float() / 255.0
        return x.permute(0, 3, 1, 2) if self.channels_last else x

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, *frame) -> (batch, hidden_size)."""
        return self.network(self._frames(obs))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))


class Convolutional(ImagePolicy):
    """The Nature-DQN CNN (Atari). `channels_last`: frames are (H, W, C) rather than (C, H, W)."""

    def __init__(self, env: EnvSpaces, hidden_size: int = 512, channels_last: bool = False):
        super().__init__()
        c, h, w = self._setup(env, channels_last, hidden_size)
        convs = nn.Sequential(
            layer_init(nn.Conv2d(c, 32, 8, stride=4)), nn.ReLU(),
            layer_init(nn.Conv2d(32, 64, 4, stride=2)), nn.ReLU(),
            layer_init(nn.Conv2d(64, 64, 3, stride=1)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, c, h, w)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())


class SmallConvolutional(ImagePolicy):
    """The network of the first DQN paper (Mnih et al. 2013), sized for training on CPUs:
    `cnn_width` 8x8 filters with stride 4, twice as many 4x4 filters with stride 2, and
    `hidden_size` units; about 6 MFLOP for four 84x84 grayscale frames, a third of
    `Convolutional`. `channels_last`: frames are (H, W, C) rather than (C, H, W)."""

    def __init__(self, env: EnvSpaces, cnn_width: int = 16, hidden_size: int = 256, channels_last: bool = False):
        super().__init__()
        c, h, w = self._setup(env, channels_last, hidden_size)
        if min(h, w) < 20:
            raise APIUsageError(f"{type(self).__name__} takes frames of at least 20x20 (its two strided "
                                f"convolutions); this env's are {h}x{w}. Use models.Default for small grids.")
        convs = nn.Sequential(
            layer_init(nn.Conv2d(c, cnn_width, 8, stride=4)), nn.ReLU(),
            layer_init(nn.Conv2d(cnn_width, 2 * cnn_width, 4, stride=2)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, c, h, w)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())


class _ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv0 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv1(torch.relu(self.conv0(torch.relu(x))))


class ImpalaResNet(ImagePolicy):
    """The IMPALA ResNet used for Procgen: 3 stages of conv, max-pool and 2 residual blocks.

    `cnn_width`: channels of the first stage (then x2, x2); `hidden_size`: the MLP width.
    """

    def __init__(self, env: EnvSpaces, cnn_width: int = 16, hidden_size: int = 256, channels_last: bool = True):
        super().__init__()
        frame = self._setup(env, channels_last, hidden_size)
        layers: list[nn.Module] = []
        channels = frame[0]
        for out in (cnn_width, 2 * cnn_width, 2 * cnn_width):
            layers += [nn.Conv2d(channels, out, 3, padding=1), nn.MaxPool2d(3, stride=2, padding=1),
                       _ResidualBlock(out), _ResidualBlock(out)]
            channels = out
        convs = nn.Sequential(*layers, nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, *frame)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())


class LSTMWrapper(nn.Module):
    """Puts an LSTM between a policy's `encode_observations` and `decode_actions`.

    `input_size` must equal the wrapped policy's hidden size; `hidden_size` is the LSTM's.
    The wrapped policy must provide `encode_observations(obs) -> (batch, input_size)` and
    `decode_actions(hidden) -> (logits, value)` reading `hidden_size` features (a
    `models.ActionHead` named `head` is rebuilt to that width); `pufferlib.train.policy.
    wrap_recurrent` checks this and says what is missing.
    Rollout: `forward(obs, state) -> (logits, value, state)` with `state = (h, c)` of
    shape (batch, hidden_size). Training: `forward_sequence(obs, state, starts)` over
    (batch, time) sequences, zeroing the state wherever `starts` marks a new episode.
    """

    is_recurrent = True
    policy: SplitPolicy  # an nn.Module (registered as a submodule)

    def __init__(self, env: EnvSpaces, policy: nn.Module, input_size: int = 128, hidden_size: int = 128):
        super().__init__()
        # A module with encode_observations and decode_actions: policy_factory.wrap_recurrent checks it.
        self.policy = cast("SplitPolicy", policy)
        self.hidden_size = hidden_size
        self.lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        for name, param in self.lstm.named_parameters():
            if "bias" in name:
                nn.init.constant_(param, 0)
            else:
                nn.init.orthogonal_(param, 1.0)
        # The policy's heads read the LSTM output.
        if getattr(policy, "hidden_size", hidden_size) != hidden_size:
            policy.head = ActionHead(env.single_action_space, hidden_size)

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
        """Zero (h, c) for `batch` rows."""
        zeros = torch.zeros(batch, self.hidden_size, device=device)
        return zeros, zeros.clone()

    def forward(self, obs: torch.Tensor, state: LSTMState | None = None) -> tuple[Logits, torch.Tensor, LSTMState]:
        if state is None:
            state = self.initial_state(obs.shape[0], obs.device)
        hidden = self.policy.encode_observations(obs)
        h, c = state
        out, (h, c) = self.lstm(hidden.unsqueeze(1), (h.unsqueeze(0).contiguous(), c.unsqueeze(0).contiguous()))
        logits, value = self.policy.decode_actions(out.squeeze(1))
        return logits, value, (h.squeeze(0), c.squeeze(0))

    def forward_sequence(self, obs: torch.Tensor, state: LSTMState,
                         starts: torch.Tensor) -> tuple[Logits, torch.Tensor]:
        """Logits and values of (batch, time, *obs_shape) sequences, flattened to batch*time rows.

        `state`: (h, c) before each sequence's first step; `starts` (batch, time) marks
        steps that begin a new episode (the state is zeroed before them). The sequence is
        cut at those steps, so a batch without episode starts is one LSTM call.
        """
        batch, time = obs.shape[:2]
        hidden = self.policy.encode_observations(obs.reshape(batch * time, *obs.shape[2:]))
        hidden = hidden.reshape(batch, time, -1)
        h, c = state[0].unsqueeze(0), state[1].unsqueeze(0)
        inner = (starts[:, 1:].any(0).nonzero().flatten() + 1).tolist()
        # The rows that carry their state into each piece (no episode start there), for all pieces
        # in one op: with few rows and many pieces, the calls per piece are what a piece costs.
        keep = (~starts[:, [0, *inner]].bool()).to(h.dtype).T.unsqueeze(-1)  # (pieces, batch, 1)
        outputs = []
        for piece, kept in zip(hidden.tensor_split(inner, dim=1), keep):
            out, (h, c) = self.lstm(piece, (h * kept, c * kept))
            outputs.append(out)
        out = torch.cat(outputs, dim=1).reshape(batch * time, -1)
        return self.policy.decode_actions(out)

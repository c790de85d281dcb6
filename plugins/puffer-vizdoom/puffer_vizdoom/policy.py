"""VizdoomCNN: the default policy of the `vizdoom-*` ids, sized for training on CPUs.

The core's `pufferlib.models.SmallConvolutional` (the network of the first DQN paper, Mnih et al.
2013) over the stack of downscaled screens (channels first, as puffer_vizdoom.env gives them):
about 3 MFLOP for four 64x64 grayscale screens (the default), 6 for four 84x84 ones, a third of
the Nature DQN network at the same size (`pufferlib.models:Convolutional`). Training on a CPU
spends most of its time in this network's update, so its size sets the steps per second there.
The name stays for the runs and checkpoints that record it.
"""

from __future__ import annotations

from pufferlib.models import SmallConvolutional


class VizdoomCNN(SmallConvolutional):
    """(batch, channels, S, S) uint8 screens -> action logits and value; `cnn_width` filters in the
    first convolution (twice as many in the second), `hidden_size` units fed to the actor and critic."""

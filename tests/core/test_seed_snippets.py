"""The user guide's snippets of sections 2 (environment authoring) and 5 (integration), as written."""

import numpy as np

import pufferlib

SECTION_2 = '''
import numpy as np
from pufferlib import PufferEnv

class MyEnvironment(PufferEnv):
    def __init__(self, buf=None):
        super().__init__(buf)

        # Definir espaços
        self.observation_space = self.make_space((4,))
        self.action_space = self.make_discrete(4)

        self.reset()

    def reset(self):
        # Resetar estado e retornar observação inicial
        return np.zeros(4, dtype=np.float32)

    def step(self, action):
        # Executar ação, computar recompensa, verificar término
        obs = self._get_observation()
        reward = self._compute_reward()
        done = self._is_done()
        info = {}

        return obs, reward, done, info
'''

SECTION_5_GYMNASIUM = '''
import gymnasium as gym
import pufferlib

# Envolver ambiente Gymnasium
gym_env = gym.make('CartPole-v1')
env = pufferlib.emulate(gym_env, num_envs=256)

# Ou usar make diretamente
env = pufferlib.make('gym-CartPole-v1', num_envs=256)
'''

SECTION_5_PETTINGZOO = '''
# Ambiente multi-agent
env = pufferlib.make('pettingzoo-knights-archers-zombies', num_envs=128)
'''


def test_section_2_environment_authoring():
    namespace: dict = {}
    exec(SECTION_2, namespace)
    MyEnvironment = namespace["MyEnvironment"]
    env = MyEnvironment()
    assert env.observation_space.shape == (4,) and env.action_space.n == 4

    class Filled(MyEnvironment):
        """The snippet with its three helper methods written."""

        def __init__(self, buf=None):
            self.t = 0
            super().__init__(buf)

        def _get_observation(self):
            self.t += 1
            return np.full(4, self.t, dtype=np.float32)

        def _compute_reward(self):
            return 1.0

        def _is_done(self):
            return self.t >= 3

    vecenv = pufferlib.emulate(Filled, num_envs=4)
    obs, _ = vecenv.reset()
    assert obs.shape == (4, 4)
    for _ in range(2):
        obs, rewards, terminals, _, infos = vecenv.step(np.zeros(4, np.int32))
    assert rewards.tolist() == [1.0] * 4 and not terminals.any() and obs[0, 0] == 2
    obs, _, terminals, _, infos = vecenv.step(np.zeros(4, np.int32))
    assert terminals.all() and [i["episode_length"] for i in infos] == [3] * 4
    vecenv.close()


def test_section_5_gymnasium():
    namespace: dict = {}
    exec(SECTION_5_GYMNASIUM, namespace)
    env = namespace["env"]
    first = namespace["pufferlib"].emulate(namespace["gym_env"], num_envs=256)
    for vecenv in (env, first):
        obs, _ = vecenv.reset(seed=0)
        assert obs.shape == (256, 4) and vecenv.num_agents == 256
        obs, rewards, terminals, truncations, infos = vecenv.step(vecenv.action_space.sample())
        assert rewards.shape == (256,)
        vecenv.close()
    # The instance is re-made from its spec, never shared between the copies.
    assert len({id(e.env) for e in first.envs}) == 256
    assert all(e.env is not namespace["gym_env"] for e in first.envs)


def test_section_5_pettingzoo():
    namespace = {"pufferlib": pufferlib}
    exec(SECTION_5_PETTINGZOO, namespace)
    env = namespace["env"]
    obs, _ = env.reset(seed=0)
    assert env.num_agents == 128 * 4 and obs.shape[0] == 512
    for _ in range(5):
        obs, rewards, terminals, truncations, infos = env.step(env.action_space.sample())
    assert env.masks.any()
    env.close()

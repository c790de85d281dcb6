/* The compiled environments: one X(name) per envs/<name>.c. */
#define OCEAN_ENVS(X) \
    X(squared) X(bandit) X(memory) X(password) X(stochastic) X(multiagent) X(continuous) X(spaces) \
    X(cartpole) X(pong) X(breakout) X(snake) X(connect4) X(grid)

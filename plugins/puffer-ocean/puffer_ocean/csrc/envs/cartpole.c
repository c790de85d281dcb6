#include "cartpole.h"
#define ENV_NAME cartpole
#include "../binding.h"

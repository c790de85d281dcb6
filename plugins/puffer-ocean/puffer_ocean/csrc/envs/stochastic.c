#include "stochastic.h"
#define ENV_NAME stochastic
#include "../binding.h"

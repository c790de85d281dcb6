#include "bandit.h"
#define ENV_NAME bandit
#include "../binding.h"

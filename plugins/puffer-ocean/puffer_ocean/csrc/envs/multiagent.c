#include "multiagent.h"
#define ENV_NAME multiagent
#include "../binding.h"

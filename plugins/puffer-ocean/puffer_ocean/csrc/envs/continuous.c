#include "continuous.h"
#define ENV_NAME continuous
#include "../binding.h"

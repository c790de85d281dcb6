#include "breakout.h"
#define ENV_NAME breakout
#include "../binding.h"

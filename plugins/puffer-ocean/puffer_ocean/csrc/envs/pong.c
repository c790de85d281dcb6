#include "pong.h"
#define ENV_NAME pong
#include "../binding.h"

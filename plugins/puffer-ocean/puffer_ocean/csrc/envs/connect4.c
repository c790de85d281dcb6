#include "connect4.h"
#define ENV_NAME connect4
#include "../binding.h"

#include "memory.h"
#define ENV_NAME memory
#include "../binding.h"

#include "spaces.h"
#define ENV_NAME spaces
#include "../binding.h"

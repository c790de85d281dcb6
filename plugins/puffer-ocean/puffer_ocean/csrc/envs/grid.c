#include "grid.h"
#define ENV_NAME grid
#include "../binding.h"

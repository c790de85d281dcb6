#include "snake.h"
#define ENV_NAME snake
#include "../binding.h"

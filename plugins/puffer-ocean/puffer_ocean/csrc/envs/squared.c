#include "squared.h"
#define ENV_NAME squared
#include "../binding.h"

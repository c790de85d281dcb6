#include "password.h"
#define ENV_NAME password
#include "../binding.h"

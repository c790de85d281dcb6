/* squared_continuous: ocean-squared with a Box action, (dx, dy) in [-1, 1]^2: walking to the
 * target needs a continuous policy that picks an axis and a direction (see squared.h). */
#define SQ_CONTINUOUS 1
#include "squared.h"

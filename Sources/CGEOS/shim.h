// Only the re-entrant (_r) half of the GEOS C API is used by Wayfare.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

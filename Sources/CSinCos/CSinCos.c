// The header holds the only function (static inline); SwiftPM needs one source file.
#include "CSinCos.h"

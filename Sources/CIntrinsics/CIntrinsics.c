// The header holds the only functions (static inline); SwiftPM needs one source file.
#include "CIntrinsics.h"

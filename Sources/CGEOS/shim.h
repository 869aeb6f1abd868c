// GEOS C API, reentrant functions only: every call takes a context handle,
// and Meridian never shares a context across threads.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

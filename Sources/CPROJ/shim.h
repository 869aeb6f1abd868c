// PROJ: CRS transforms (proj.h) and Karney's geodesic routines (geodesic.h).
#include <proj.h>
#include <geodesic.h>

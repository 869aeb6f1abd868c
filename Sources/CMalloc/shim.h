// glibc's allocator controls (malloc_trim, mallopt), which Swift's Glibc module leaves out.
#include <malloc.h>

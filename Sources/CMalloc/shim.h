#ifndef AGGREGATOR_CMALLOC_SHIM_H
#define AGGREGATOR_CMALLOC_SHIM_H

// glibc's allocator controls (malloc_trim, mallopt), which Swift's Glibc module leaves out.
#include <malloc.h>

#endif

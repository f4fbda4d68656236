#ifndef AGGREGATOR_CZLIB_SHIM_H
#define AGGREGATOR_CZLIB_SHIM_H

#include <zlib.h>

// deflateInit2 is a macro (it passes the library's version and the stream's size), which Swift
// cannot call: this starts a gzip stream (window bits 15 + 16) at `level`.
static inline int aggregator_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

#endif

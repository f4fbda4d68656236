#ifndef AGGREGATOR_CSODIUM_SHIM_H
#define AGGREGATOR_CSODIUM_SHIM_H

#include <stddef.h>
#include <sodium.h>

// libsodium's sizes and algorithm ids are macros that name other macros, which Swift does not
// import: these give them as functions.

/// Bytes of an encoded password hash, its terminating NUL included.
static inline size_t aggregator_pwhash_str_bytes(void) { return crypto_pwhash_STRBYTES; }

/// Hashes `password` with Argon2id at `opslimit` passes over `memlimit` bytes; 0 on success.
static inline int aggregator_pwhash_argon2id(char out[crypto_pwhash_STRBYTES], const char *password,
                                             unsigned long long length, unsigned long long opslimit,
                                             size_t memlimit) {
    return crypto_pwhash_str_alg(out, password, length, opslimit, memlimit, crypto_pwhash_ALG_ARGON2ID13);
}

#endif

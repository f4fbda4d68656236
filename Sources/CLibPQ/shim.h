#ifndef AGGREGATOR_CLIBPQ_SHIM_H
#define AGGREGATOR_CLIBPQ_SHIM_H

// PostgreSQL's client library (Debian's libpq-dev), for the store's second backend.
#include <libpq-fe.h>

// Notices (a table that already exists, …) would go to stderr: the store says what matters itself.
static void aggregator_pq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static inline void aggregator_pq_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, aggregator_pq_ignore_notice, 0);
}

#endif

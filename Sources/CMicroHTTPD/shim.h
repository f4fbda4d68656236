#ifndef AGGREGATOR_CMICROHTTPD_SHIM_H
#define AGGREGATOR_CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_connection_info are variadic, which Swift cannot call: these take
// fixed arguments and pass the options as an MHD_OPTION_ARRAY.

/// Serves on `listen_fd` (bound and listening), one thread per connection, with the given limits;
/// `notify` hears each connection open and close.
static inline struct MHD_Daemon *aggregator_mhd_start(int listen_fd, MHD_AccessHandlerCallback handler,
                                                      void *handler_context, MHD_RequestCompletedCallback completed,
                                                      MHD_NotifyConnectionCallback notify,
                                                      unsigned int connection_limit, unsigned int per_ip_limit,
                                                      unsigned int timeout_seconds, size_t memory_limit) {
    struct MHD_OptionItem options[] = {
        { MHD_OPTION_LISTEN_SOCKET, listen_fd, NULL },
        { MHD_OPTION_CONNECTION_LIMIT, connection_limit, NULL },
        { MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit, NULL },
        { MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds, NULL },
        { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memory_limit, NULL },
        { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, handler_context },
        { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify, handler_context },
        { MHD_OPTION_END, 0, NULL },
    };
    // poll, not select: select cannot watch a descriptor numbered past 1023, and a busy daemon has many.
    // ITC: MHD_quiesce_daemon (stop accepting, let responses finish) needs it in this mode.
    return MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC, 0, NULL, NULL,
                            handler, handler_context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The peer's address, or NULL.
static inline const struct sockaddr *aggregator_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// What the connection-notify callback kept for this connection, or NULL.
static inline void *aggregator_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

#endif

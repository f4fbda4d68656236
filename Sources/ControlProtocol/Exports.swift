// JSON values are the protocol's messages: every user of the protocol sees them.
@_exported import JSON

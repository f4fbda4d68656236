// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "aggregatord",
    products: [
        .executable(name: "aggregatord", targets: ["aggregatord"]),
        .executable(name: "aggregatorctl", targets: ["aggregatorctl"]),
        // For the fuzz targets (Fuzz/, a package of their own built with libFuzzer): the modules
        // whose inputs come from outside.
        .library(name: "FeedParser", targets: ["FeedParser"]),
        .library(name: "FeedStore", targets: ["FeedStore"]),
        .library(name: "ControlProtocol", targets: ["ControlProtocol"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "HTTPAPI", targets: ["HTTPAPI", "AggregatorCore"]),
    ],
    targets: [
        // C libraries from Debian, wrapped with typed shims (see each shim.h).
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),

        .target(name: "FeedParser", dependencies: ["CLibXML2", "JSON"]),
        .target(name: "FeedFetcher", dependencies: ["CCurl"]),
        .target(name: "FeedStore", dependencies: ["CSQLite", "CLibPQ"]),
        // JSON values, read and written by hand (no ICU-linked Foundation: the client stays small).
        .target(name: "JSON"),
        .target(name: "ControlProtocol", dependencies: ["JSON"]),
        // Password hashes (Argon2id), API tokens and keyed digests, on libsodium.
        .target(name: "Credentials", dependencies: ["CSodium"]),
        // HTTP/1.1 on libmicrohttpd: requests, responses and limits; it knows nothing of feeds.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CZlib"]),
        // The HTTP routes over the service (AggregatorCore) on the server (HTTPServer).
        .target(name: "HTTPAPI", dependencies: ["AggregatorCore", "ControlProtocol", "Credentials", "FeedParser", "FeedStore",
                                                "HTTPServer"]),
        .target(
            name: "AggregatorCore",
            dependencies: ["CMalloc", "FeedParser", "FeedFetcher", "FeedStore", "ControlProtocol", "HTTPServer", "Credentials"]
        ),

        .executableTarget(name: "aggregatord", dependencies: ["AggregatorCore", "CMalloc", "ControlProtocol", "FeedFetcher",
                                                            "FeedStore", "HTTPAPI", "HTTPServer"]),
        .executableTarget(name: "aggregatorctl", dependencies: ["ControlProtocol", "FeedParser"]),
        // `make bench`: parse + ingest of a generated farm, against bench/reference/store_limit.py.
        .executableTarget(name: "storebench", dependencies: ["AggregatorCore", "FeedParser", "FeedStore", "HTTPAPI",
                                                          "HTTPServer"],
                          path: "bench/StoreBench"),

        // What several test suites share: the misbehaving feed server, running the built executables.
        .target(name: "TestSupport", path: "Tests/TestSupport", resources: [.copy("test_server.py"), .copy("test_proxy.py")]),

        .testTarget(name: "FeedParserTests", dependencies: ["FeedParser"], resources: [.copy("Fixtures")]),
        .testTarget(name: "FeedFetcherTests", dependencies: ["FeedFetcher", "TestSupport"]),
        .testTarget(name: "FeedStoreTests", dependencies: ["FeedStore", "StoreCrashHelper"]),
        // Run by FeedStoreTests as a child process that is killed mid-ingest.
        .executableTarget(name: "StoreCrashHelper", dependencies: ["FeedStore"], path: "Tests/StoreCrashHelper"),
        .testTarget(name: "ControlProtocolTests", dependencies: ["ControlProtocol"]),
        .testTarget(name: "AggregatorCoreTests", dependencies: ["AggregatorCore", "FeedStore", "FeedFetcher", "TestSupport"]),
        .testTarget(name: "aggregatordTests", dependencies: ["aggregatord"]),
        .testTarget(name: "aggregatorctlTests", dependencies: ["aggregatorctl"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(name: "CredentialsTests", dependencies: ["Credentials"]),
        .testTarget(name: "HTTPAPITests", dependencies: ["HTTPAPI", "AggregatorCore", "FeedStore", "FeedFetcher", "HTTPServer", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["aggregatord", "aggregatorctl", "ControlProtocol", "HTTPAPI", "TestSupport"],
                    exclude: ["Clients"], resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets, one per input that comes from outside (`make fuzz` builds and runs them with
// `-sanitize=fuzzer,address`; docs/RELIABILITY.md). A package of its own: a fuzzer's main comes
// from libFuzzer, and these are built only with the fuzzing flags.
let package = Package(
    name: "aggregatord-fuzz",
    dependencies: [.package(name: "aggregatord", path: "..")],
    targets: [
        .target(name: "FuzzSupport", path: "Sources/FuzzSupport"),
        .executableTarget(name: "FuzzFeedParser", dependencies: ["FuzzSupport", .product(name: "FeedParser", package: "aggregatord")]),
        .executableTarget(name: "FuzzOPML", dependencies: ["FuzzSupport", .product(name: "FeedParser", package: "aggregatord")]),
        .executableTarget(name: "FuzzSanitizer", dependencies: ["FuzzSupport", .product(name: "FeedParser", package: "aggregatord")]),
        .executableTarget(name: "FuzzDates", dependencies: ["FuzzSupport", .product(name: "FeedParser", package: "aggregatord")]),
        .executableTarget(name: "FuzzSearchQuery", dependencies: ["FuzzSupport", .product(name: "FeedStore", package: "aggregatord")]),
        .executableTarget(name: "FuzzControlProtocol",
                          dependencies: ["FuzzSupport", .product(name: "ControlProtocol", package: "aggregatord")]),
        .executableTarget(name: "FuzzHTTPRequest", dependencies: ["FuzzSupport", .product(name: "HTTPAPI", package: "aggregatord"),
                                                                 .product(name: "HTTPServer", package: "aggregatord"),
                                                                 .product(name: "FeedStore", package: "aggregatord")]),
        .executableTarget(name: "FuzzCanonicalURL", dependencies: ["FuzzSupport", .product(name: "FeedStore", package: "aggregatord")]),
    ],
    swiftLanguageModes: [.v6]
)

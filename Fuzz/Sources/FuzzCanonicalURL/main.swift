@testable import FeedStore
import FuzzSupport

// CanonicalURL on any text: no crash, and the key of a key is the key itself (a stored entry's key
// must find it again).
runFuzzer { data, size in
    let url = text(data, size)
    guard let key = CanonicalURL.key(for: url) else { return 0 }
    let again = CanonicalURL.key(for: key)
    require(again == key, "canonicalizing twice changed \(key.debugDescription) into \(again.debugDescription)")
    return 0
}

import CMalloc

/// glibc's allocator, set for a long-running server with many threads (the daemon, and the benchmarks
/// that measure its work).
public enum ServerAllocator {
    /// Call before any thread starts. Two arenas rather than up to eight a core: each arena keeps its
    /// own free memory, and with sixteen the soak's daemon held 110 MB for 37 MB in use. Blocks from
    /// 128 KiB up (feed bodies, pages of results) come from mmap and go back when freed: glibc otherwise
    /// raises that threshold after each such block is freed, up to 32 MB, and serves them from the
    /// arenas. No fastbins: with them, each request of 1 KiB or more while small blocks wait in them
    /// merged them all first, a quarter of libxml2's time parsing a large page (the 2 MB pages of
    /// `storebench extract`: 75 → 70 and 74 → 64 ms; a farm's ingest unchanged: 4.61 / 4.64 s,
    /// `storebench FARM DB`, medians of 3).
    public static func configure() {
        mallopt(M_ARENA_MAX, 2)
        mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        mallopt(M_MXFAST, 0)
    }
}

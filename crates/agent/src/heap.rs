//! Handing freed heap memory back to the system.

/// Returns the memory that allocations have freed to the system. glibc keeps the pages a
/// thread's arena once held (the app's start, serving the page, a run, an import), so a
/// process that was busy a moment ago stays that large while it idles: measured on the
/// app at rest after start, 8 MB of its 117 MB. `malloc_trim(0)` releases every free
/// page of every arena. Nothing to do elsewhere.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: malloc_trim has no preconditions; it takes each arena's lock and releases
    // only pages no allocation is using.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Makes memory freed in a thread's arena go back to the system when it is freed, for a
/// long-lived process (the app). glibc raises its mmap threshold each time a large block
/// is freed (up to 32 MB) and its trim threshold to twice that, so after one large
/// buffer (the embedding model's) every thread's arena keeps up to 64 MB free at its
/// top, which [`release_free_memory`] does not return (`malloc_trim` trims the main
/// arena's top only). Fixed thresholds (glibc's defaults, 128 KB) keep large blocks
/// mapped on their own, unmapped when freed, and arenas trimmed as they shrink. Measured
/// on four fixture papers parsed, chunked and embedded by the local model, then the model
/// let go: 18–21 MB more than at start before, 14 MB after (three runs each).
pub fn return_freed_memory_promptly() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: mallopt only sets allocator parameters; 128 KB is in range for both.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 * 1024);
    }
}

#[cfg(test)]
mod tests {
    /// A thread that allocated and freed 64 MB leaves it in its arena; after the call the
    /// process holds less (read from /proc, so Linux with glibc only).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn freed_memory_leaves_the_process() {
        // Many small blocks (one large one glibc would map and unmap), one in sixteen
        // kept: the arena cannot shrink past what is kept, so it holds the rest.
        let kept = std::thread::spawn(|| {
            let mut blocks: Vec<Vec<u8>> = (0..16_384).map(|i| vec![i as u8 | 1; 4096]).collect();
            let kept: Vec<Vec<u8>> = blocks.iter_mut().step_by(16).map(std::mem::take).collect();
            drop(blocks);
            kept
        })
        .join()
        .unwrap();
        let before = resident_anon();
        super::release_free_memory();
        let after = resident_anon();
        drop(kept);
        assert!(
            after + 32 * 1024 < before,
            "freed memory still held: {before} kB before, {after} kB after"
        );
    }

    /// After one large block was freed (16 MB: glibc's thresholds would rise to 16 and
    /// 32 MB), 24 MB of 1 MB blocks freed by a thread leave the process with no trim
    /// asked for (they would stay at the top of the thread's arena).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn freed_blocks_leave_the_process_without_a_trim() {
        super::return_freed_memory_promptly();
        let held = std::thread::spawn(|| {
            drop(std::hint::black_box(vec![1u8; 16 << 20]));
            let blocks: Vec<Vec<u8>> = (0..24).map(|i| vec![i as u8 | 1; 1 << 20]).collect();
            let held = resident_anon();
            drop(std::hint::black_box(blocks));
            (held, resident_anon())
        })
        .join()
        .unwrap();
        let (before, after) = held;
        assert!(
            after + 16 * 1024 < before,
            "freed blocks still held: {before} kB before, {after} kB after"
        );
    }

    fn resident_anon() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("RssAnon:"))
            .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }
}

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

/// Hands back the pages of the shared libraries whose file name is `file_name` that
/// this process has read (their code and constants): the ONNX runtime's 20 MB once the
/// embedding model it ran is let go. They are the kernel's to drop (`MADV_PAGEOUT`, as
/// it would under memory pressure) and are read again, from the page cache or the disk,
/// when the model next loads. Returns how many bytes of mappings were advised; 0 where
/// the library is not loaded or the kernel is older than 5.4.
pub fn page_out_library(file_name: &str) -> usize {
    #[cfg(target_os = "linux")]
    {
        let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
            return 0;
        };
        library_ranges(&maps, file_name)
            .filter(|&(start, end)| {
                #[allow(unsafe_code)]
                // SAFETY: the range is one of this process's file mappings, as the
                // kernel listed it; MADV_PAGEOUT only reclaims its pages (a later read
                // faults them back in), it changes no content and unmaps nothing.
                let advised = unsafe {
                    libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_PAGEOUT)
                };
                advised == 0
            })
            .map(|(start, end)| end - start)
            .sum()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file_name;
        0
    }
}

/// The address ranges of `/proc/self/maps` lines that map a file named `file_name`.
fn library_ranges<'a>(
    maps: &'a str,
    file_name: &'a str,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    maps.lines().filter_map(move |line| {
        let mut fields = line.split_whitespace();
        let range = fields.next()?;
        let path = fields.nth(4)?;
        if std::path::Path::new(path).file_name()? != file_name {
            return None;
        }
        let (start, end) = range.split_once('-')?;
        Some((
            usize::from_str_radix(start, 16).ok()?,
            usize::from_str_radix(end, 16).ok()?,
        ))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_library_is_found_by_its_file_name_only() {
        let maps = "7f00-7f10 r--p 00000000 08:01 12 /opt/x/libonnxruntime.so\n\
                    7f10-7f30 r-xp 00010000 08:01 12 /opt/x/libonnxruntime.so\n\
                    7f30-7f40 rw-p 00000000 00:00 0 \n\
                    7f40-7f50 r-xp 00000000 08:01 13 /opt/x/libonnxruntime.so.bak\n\
                    7f50-7f60 r-xp 00000000 08:01 14 /opt/libonnxruntime.so/other.so\n";
        let found: Vec<_> = super::library_ranges(maps, "libonnxruntime.so").collect();
        assert_eq!(found, [(0x7f00, 0x7f10), (0x7f10, 0x7f30)]);
    }

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

    /// The test's own program is a file this process alone maps: once its pages are
    /// advised out, fewer of them are resident (`RssFile`), though the code runs on.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_library_s_pages_leave_the_process() {
        let exe = std::env::current_exe().unwrap();
        let name = exe.file_name().unwrap().to_str().unwrap().to_string();
        let before = resident("RssFile:");
        let advised = super::page_out_library(&name);
        let after = resident("RssFile:");
        assert!(advised > 0, "the program's mappings were found");
        assert!(
            after + 1024 < before,
            "its pages stayed resident: {before} kB before, {after} kB after"
        );
    }

    fn resident(field: &str) -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    fn resident_anon() -> u64 {
        resident("RssAnon:")
    }
}

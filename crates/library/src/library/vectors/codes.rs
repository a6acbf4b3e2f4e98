//! A cell's codes: in the saved file's memory map while unchanged, on the heap once
//! changed. Mapped codes are file-backed pages: shared by every process that reads the
//! same library, read from disk only where a query looks, and given back by the kernel
//! under memory pressure, where codes on the heap (about 400 bytes a passage) are private
//! to each process and read whole before its first search.

use std::ops::Deref;
use std::sync::Arc;

/// The bytes of a saved file: mapped, or read (where mapping is refused).
pub enum Backing {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl Backing {
    /// The file's bytes, mapped when the system allows it.
    pub fn open(path: &std::path::Path) -> std::io::Result<Self> {
        let file = std::fs::File::open(path)?;
        match map(&file) {
            Ok(map) => Ok(Self::Mapped(map)),
            Err(error) => {
                tracing::debug!(%error, "could not map the vector index; reading it");
                Ok(Self::Read(std::fs::read(path)?))
            }
        }
    }
}

#[allow(unsafe_code)]
fn map(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: a mapped file must not change while mapped. `vectors.cells` is only ever
    // replaced whole (written to a temporary file and renamed over it), never written in
    // place: a mapping keeps the file it was made from, however often it is replaced.
    unsafe { memmap2::Mmap::map(file) }
}

impl Deref for Backing {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Self::Mapped(map) => map,
            Self::Read(bytes) => bytes,
        }
    }
}

/// Codes, one signed byte per dimension, vector after vector: on the heap, or `len`
/// bytes of a saved file from `start`.
#[derive(Clone, Default)]
pub struct Codes {
    heap: Vec<i8>,
    saved: Option<Saved>,
}

#[derive(Clone)]
struct Saved {
    file: Arc<Backing>,
    start: usize,
    len: usize,
}

impl Codes {
    /// `len` bytes of `file` from `start` (within it: the caller checks).
    pub fn saved(file: Arc<Backing>, start: usize, len: usize) -> Self {
        Self {
            heap: Vec::new(),
            saved: Some(Saved { file, start, len }),
        }
    }

    /// The codes on the heap, copied there first if they were in the file.
    pub fn owned(&mut self) -> &mut Vec<i8> {
        if let Some(saved) = self.saved.take() {
            self.heap =
                bytemuck::cast_slice(&saved.file[saved.start..saved.start + saved.len]).to_vec();
        }
        &mut self.heap
    }

    /// True while they are read from the saved file.
    pub fn is_saved(&self) -> bool {
        self.saved.is_some()
    }

    /// Gives back the heap's room to grow.
    pub fn shrink_to_fit(&mut self) {
        self.heap.shrink_to_fit();
    }

    /// Bytes of heap they hold.
    pub fn heap_bytes(&self) -> usize {
        self.heap.capacity()
    }
}

impl Deref for Codes {
    type Target = [i8];

    fn deref(&self) -> &[i8] {
        match &self.saved {
            Some(saved) => bytemuck::cast_slice(&saved.file[saved.start..saved.start + saved.len]),
            None => &self.heap,
        }
    }
}

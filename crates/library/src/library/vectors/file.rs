//! The cells on disk (`vectors.cells`, beside the database): written to a temporary file
//! and renamed (never changed in place: readers map it), read back whole or not at all.
//!
//! Little-endian: `ASTCELL1`, dimensions (u32), cells (u32), vectors the centres were
//! trained on (u64), 1 if there are centres (u8) and then cells × dimensions f32; each
//! cell: its length n (u64), n ids (i64), n scales (f32), n × dimensions codes (i8);
//! `ASTCELL1` again at the end.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use nalgebra::DMatrix;

use super::DIMENSIONS;
use super::cells::{Cell, Cells, Centres};
use super::codes::{Backing, Codes};

const MAGIC: &[u8; 8] = b"ASTCELL1";

pub fn write(path: &Path, cells: &Cells) -> std::io::Result<()> {
    let temporary = path.with_extension("cells.tmp");
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&temporary)?);
    out.write_all(MAGIC)?;
    out.write_all(&(DIMENSIONS as u32).to_le_bytes())?;
    out.write_all(&(cells.cells.len() as u32).to_le_bytes())?;
    out.write_all(&(cells.trained_on as u64).to_le_bytes())?;
    out.write_all(&[u8::from(cells.centres.is_some())])?;
    if let Some(centres) = &cells.centres {
        for x in centres.columns.as_slice() {
            out.write_all(&x.to_le_bytes())?;
        }
    }
    for cell in &cells.cells {
        out.write_all(&(cell.ids.len() as u64).to_le_bytes())?;
        let ids: Vec<u8> = cell.ids.iter().flat_map(|id| id.to_le_bytes()).collect();
        out.write_all(&ids)?;
        let scales: Vec<u8> = cell.scales.iter().flat_map(|s| s.to_le_bytes()).collect();
        out.write_all(&scales)?;
        out.write_all(bytemuck::cast_slice(&cell.codes))?;
    }
    out.write_all(MAGIC)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&temporary, path)
}

/// The saved cells, when the file is there and whole (and holds each id once). Their
/// codes stay in the file, mapped ([`Codes`]); ids and scales are read onto the heap.
pub fn read(path: &Path) -> Option<Cells> {
    let file = Arc::new(Backing::open(path).ok()?);
    let cells = parse(&file);
    if cells.is_none() {
        tracing::warn!(path = %path.display(), "the saved vector index is unreadable; rebuilding it");
    }
    cells
}

fn parse(file: &Arc<Backing>) -> Option<Cells> {
    let mut input = Input { bytes: file, at: 0 };
    if input.bytes(8)? != MAGIC || input.u32s(1)?[0] as usize != DIMENSIONS {
        return None;
    }
    let count = input.u32s(1)?[0] as usize;
    let trained_on = usize::try_from(input.u64s(1)?[0]).ok()?;
    let centres = match input.bytes(1)?[0] {
        0 => None,
        _ => {
            let flat: Vec<f32> = input
                .u32s(count.checked_mul(DIMENSIONS)?)?
                .into_iter()
                .map(f32::from_bits)
                .collect();
            Some(Centres::new(DMatrix::from_column_slice(
                DIMENSIONS, count, &flat,
            )))
        }
    };
    if centres.is_none() && count != 1 {
        return None;
    }
    let mut cells = Vec::with_capacity(count.min(file.len()));
    for _ in 0..count {
        let n = usize::try_from(input.u64s(1)?[0]).ok()?;
        let ids = input.u64s(n)?.into_iter().map(|x| x as i64).collect();
        let scales = input.u32s(n)?.into_iter().map(f32::from_bits).collect();
        let len = n.checked_mul(DIMENSIONS)?;
        let start = input.at;
        input.bytes(len)?;
        let codes = Codes::saved(Arc::clone(file), start, len);
        cells.push(Cell { ids, scales, codes });
    }
    let whole = input.bytes(8)? == MAGIC && input.at == file.len();
    let total: usize = cells.iter().map(|c| c.ids.len()).sum();
    let cells = Cells::from_parts(centres, cells, trained_on);
    (whole && cells.len() == total).then_some(cells)
}

/// The file's bytes, and how far they have been read.
struct Input<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    /// The next `n` bytes, if the file holds them.
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let taken = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(taken)
    }

    fn u32s(&mut self, n: usize) -> Option<Vec<u32>> {
        let raw = self.bytes(n.checked_mul(4)?)?;
        Some(
            raw.chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        )
    }

    fn u64s(&mut self, n: usize) -> Option<Vec<u64>> {
        let raw = self.bytes(n.checked_mul(8)?)?;
        Some(
            raw.chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                .collect(),
        )
    }
}

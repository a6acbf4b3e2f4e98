//! The cells on disk (`vectors.cells`, beside the database): written to a temporary file
//! and renamed, read back whole or not at all.
//!
//! Little-endian: `ASTCELL1`, dimensions (u32), cells (u32), vectors the centres were
//! trained on (u64), 1 if there are centres (u8) and then cells × dimensions f32; each
//! cell: its length n (u64), n ids (i64), n scales (f32), n × dimensions codes (i8);
//! `ASTCELL1` again at the end.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use nalgebra::DMatrix;

use super::DIMENSIONS;
use super::cells::{Cell, Cells, Centres};

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
        let codes: Vec<u8> = cell.codes.iter().map(|c| *c as u8).collect();
        out.write_all(&codes)?;
    }
    out.write_all(MAGIC)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&temporary, path)
}

/// The saved cells, when the file is there and whole (and holds each id once).
pub fn read(path: &Path) -> Option<Cells> {
    let file = std::fs::File::open(path).ok()?;
    let left = file.metadata().ok()?.len();
    let cells = parse(&mut Input {
        read: BufReader::with_capacity(1 << 20, file),
        left,
    });
    if cells.is_none() {
        tracing::warn!(path = %path.display(), "the saved vector index is unreadable; rebuilding it");
    }
    cells
}

fn parse<R: Read>(input: &mut Input<R>) -> Option<Cells> {
    if bytes(input, 8)? != MAGIC || u32s(input, 1)?[0] as usize != DIMENSIONS {
        return None;
    }
    let count = u32s(input, 1)?[0] as usize;
    let trained_on = usize::try_from(u64s(input, 1)?[0]).ok()?;
    let centres = match bytes(input, 1)?[0] {
        0 => None,
        _ => {
            let flat: Vec<f32> = u32s(input, count * DIMENSIONS)?
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
    let mut cells = Vec::with_capacity(count);
    for _ in 0..count {
        let n = usize::try_from(u64s(input, 1)?[0]).ok()?;
        let ids = u64s(input, n)?.into_iter().map(|x| x as i64).collect();
        let scales = u32s(input, n)?.into_iter().map(f32::from_bits).collect();
        let codes = bytes(input, n.checked_mul(DIMENSIONS)?)?
            .into_iter()
            .map(|b| b as i8)
            .collect();
        cells.push(Cell { ids, scales, codes });
    }
    let whole = bytes(input, 8)? == MAGIC && input.left == 0;
    let total: usize = cells.iter().map(|c| c.ids.len()).sum();
    let cells = Cells::from_parts(centres, cells, trained_on);
    (whole && cells.len() == total).then_some(cells)
}

/// The file being read, and how many of its bytes are left.
struct Input<R> {
    read: R,
    left: u64,
}

/// `n` bytes, refusing a length the file cannot hold before allocating it.
fn bytes<R: Read>(input: &mut Input<R>, n: usize) -> Option<Vec<u8>> {
    if n as u64 > input.left {
        return None;
    }
    let mut buffer = vec![0u8; n];
    input.read.read_exact(&mut buffer).ok()?;
    input.left -= n as u64;
    Some(buffer)
}

fn u32s<R: Read>(input: &mut Input<R>, n: usize) -> Option<Vec<u32>> {
    let raw = bytes(input, n.checked_mul(4)?)?;
    Some(
        raw.chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

fn u64s<R: Read>(input: &mut Input<R>, n: usize) -> Option<Vec<u64>> {
    let raw = bytes(input, n.checked_mul(8)?)?;
    Some(
        raw.chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .collect(),
    )
}

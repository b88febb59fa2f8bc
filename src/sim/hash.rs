//! A stable fingerprint of the fluid's state, so replays, tests and users can check that the
//! same scene gave the same fluid bit for bit. FNV-1a 64 is used because it is fixed by its
//! definition (std's `DefaultHasher` may change between releases), and rows are hashed in
//! parallel then combined in a fixed order, so the value does not depend on the thread count.
//!
//! [`fnv1a64`] and its streaming form [`fnv1a64_extend`] are fogbank's one FNV-1a: the world's
//! state hash and the scene hashes use them too.

use rayon::prelude::*;

use super::FluidSim;

/// FNV-1a 64's starting value: the hash of no bytes.
pub const FNV1A64_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a, 64 bits, of `bytes`: stable across platforms and releases, unlike std's hashers.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_extend(FNV1A64_OFFSET_BASIS, bytes)
}

/// FNV-1a 64 continued over `bytes` from `hash` (the value so far, [`FNV1A64_OFFSET_BASIS`]
/// at the start): hashing `a` then `b` this way gives `fnv1a64` of `a` and `b` joined.
#[inline]
pub fn fnv1a64_extend(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// Rows hashed side by side. FNV-1a is a chain of dependent multiplies, so one row at a time
/// waits on the multiplier's latency; independent rows interleaved keep it busy. Each row's
/// hash is still exactly FNV-1a over its own bytes in order.
const LANES: usize = 8;

/// The row hashes of `block`, whole rows of `cells` elements, in row order; `bytes` gives an
/// element's bytes. Full blocks of [`LANES`] rows are hashed side by side.
fn hash_block<T: Copy, const N: usize>(
    block: &[T],
    cells: usize,
    bytes: impl Fn(T) -> [u8; N],
) -> Vec<u64> {
    let row_hash = |row: &[T]| {
        row.iter().fold(FNV1A64_OFFSET_BASIS, |hash, &value| {
            fnv1a64_extend(hash, &bytes(value))
        })
    };
    if block.len() != cells * LANES {
        return block.chunks(cells).map(row_hash).collect();
    }
    let rows: [&[T]; LANES] = std::array::from_fn(|lane| &block[lane * cells..][..cells]);
    let mut hashes = [FNV1A64_OFFSET_BASIS; LANES];
    for x in 0..cells {
        for (hash, row) in hashes.iter_mut().zip(rows) {
            *hash = fnv1a64_extend(*hash, &bytes(row[x]));
        }
    }
    hashes.to_vec()
}

/// FNV-1a 64 of each `cells`-long row of `field`, in row order (blocks of rows in parallel).
fn row_hashes<T: Copy + Sync, const N: usize>(
    field: &[T],
    cells: usize,
    min_rows: usize,
    bytes: impl Fn(T) -> [u8; N] + Sync,
) -> Vec<u64> {
    let blocks: Vec<Vec<u64>> = field
        .par_chunks(cells * LANES)
        .with_min_len(min_rows.div_ceil(LANES))
        .map(|block| hash_block(block, cells, &bytes))
        .collect();
    blocks.concat()
}

impl FluidSim {
    /// A 64-bit fingerprint of the whole state: grid size, then u, v, su, sv, density, off_x,
    /// off_z, lift, pressure and solid.
    ///
    /// Each row of each field is hashed with FNV-1a 64 over its little-endian bytes; the final
    /// value is FNV-1a 64 over the grid size (`u64`, little-endian) followed by every row hash
    /// (`u64`, little-endian) in field order, then row order. The same for every run and every
    /// thread count on one platform; a few stages call the platform's `exp`/`sin`, so another
    /// operating system's maths library may give other bits.
    pub fn state_hash(&self) -> u64 {
        let cells = self.mapping.cells;
        let min_rows = self.min_rows_per_task;
        let fields = self.state_fields();
        let mut hash = fnv1a64_extend(FNV1A64_OFFSET_BASIS, &(cells as u64).to_le_bytes());
        for field in fields {
            for row_hash in row_hashes(field, cells, min_rows, f32::to_le_bytes) {
                hash = fnv1a64_extend(hash, &row_hash.to_le_bytes());
            }
        }
        for row_hash in row_hashes(&self.solid, cells, min_rows, |byte: u8| [byte]) {
            hash = fnv1a64_extend(hash, &row_hash.to_le_bytes());
        }
        hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a 64 of one row of floats, as their little-endian bytes, one byte after another.
    fn hash_float_row(row: &[f32]) -> u64 {
        row.iter().fold(FNV1A64_OFFSET_BASIS, |hash, value| {
            fnv1a64_extend(hash, &value.to_le_bytes())
        })
    }

    #[test]
    fn fnv1a_matches_published_vectors() {
        // Reference values from the FNV specification's test suite.
        assert_eq!(
            fnv1a64_extend(FNV1A64_OFFSET_BASIS, b""),
            0xcbf2_9ce4_8422_2325
        );
        assert_eq!(
            fnv1a64_extend(FNV1A64_OFFSET_BASIS, b"a"),
            0xaf63_dc4c_8601_ec8c
        );
        assert_eq!(
            fnv1a64_extend(FNV1A64_OFFSET_BASIS, b"foobar"),
            0x8594_4171_f739_67e8
        );
    }

    #[test]
    fn side_by_side_rows_hash_like_one_row_at_a_time() {
        for cells in [1, 3, 16] {
            for rows in [1, LANES - 1, LANES, LANES + 3, 3 * LANES] {
                let field: Vec<f32> = (0..cells * rows)
                    .map(|i| (i as f32 * 0.37).sin() * 1e3)
                    .collect();
                let expected: Vec<u64> = field.chunks(cells).map(hash_float_row).collect();
                for min_rows in [1, 5, 1000] {
                    let got = row_hashes(&field, cells, min_rows, f32::to_le_bytes);
                    assert_eq!(got, expected, "{cells} cells, {rows} rows, {min_rows}");
                }
            }
        }
    }
}

//! A stable fingerprint of the fluid's state, so replays, tests and users can check that the
//! same scene gave the same fluid bit for bit. FNV-1a 64 is used because it is fixed by its
//! definition (std's `DefaultHasher` may change between releases), and rows are hashed in
//! parallel then combined in a fixed order, so the value does not depend on the thread count.

use rayon::prelude::*;

use super::FluidSim;

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 of `bytes`, continuing from `hash`.
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// FNV-1a 64 of one row of floats, as their little-endian bytes.
fn hash_float_row(row: &[f32]) -> u64 {
    row.iter().fold(FNV_OFFSET_BASIS, |hash, value| {
        fnv1a(hash, &value.to_le_bytes())
    })
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
        let fields: [&[f32]; 9] = [
            &self.u,
            &self.v,
            &self.su,
            &self.sv,
            &self.density,
            &self.off_x,
            &self.off_z,
            &self.lift,
            &self.pressure,
        ];
        let mut hash = fnv1a(FNV_OFFSET_BASIS, &(cells as u64).to_le_bytes());
        for field in fields {
            let row_hashes: Vec<u64> = field
                .par_chunks(cells)
                .with_min_len(self.min_rows_per_task)
                .map(hash_float_row)
                .collect();
            for row_hash in row_hashes {
                hash = fnv1a(hash, &row_hash.to_le_bytes());
            }
        }
        let solid_hashes: Vec<u64> = self
            .solid
            .par_chunks(cells)
            .with_min_len(self.min_rows_per_task)
            .map(|row| fnv1a(FNV_OFFSET_BASIS, row))
            .collect();
        for row_hash in solid_hashes {
            hash = fnv1a(hash, &row_hash.to_le_bytes());
        }
        hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_published_vectors() {
        // Reference values from the FNV specification's test suite.
        assert_eq!(fnv1a(FNV_OFFSET_BASIS, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(FNV_OFFSET_BASIS, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(FNV_OFFSET_BASIS, b"foobar"), 0x8594_4171_f739_67e8);
    }
}

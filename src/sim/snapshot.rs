//! Snapshots of the fluid as bytes, so a render farm can start a frame range from a cached
//! state instead of re-simulating from time 0 (see `World::snapshot` and `fogbank simulate
//! --cache`).
//!
//! The format is plain little-endian: a header (magic, format version, the scene's hash, the
//! grid size, the step index, the payload's length and a CRC-32 of the header fields after the
//! version and of the payload), then the payload: each field of the fluid as raw `f32`/`u8`
//! values in a fixed order (the world appends the ball, the camera and the step count). Any
//! flipped bit after the version or any truncation is refused before a field is interpreted. Scratch buffers are not stored: every stage overwrites them before reading.
//! The pressure is stored because the next solve starts from it (warm start); leaving it out
//! would change every later step. Reading checks the header against what the caller expects
//! and never panics on short or damaged input.

use super::pressure::PressureSolver;
use super::{FluidParams, FluidSim, GridMapping, grid};

/// First bytes of every snapshot file.
pub const SNAPSHOT_MAGIC: [u8; 8] = *b"FOGSNAP\0";
/// Format version; bump it whenever the byte layout or the meaning of a field changes.
/// Version 3 added the payload length and the CRC-32; version 4 goes with the block-lane state
/// hash (`hash.rs`): the per-frame hashes of a range started from a cache must be of the same
/// kind as those of the run that filled it, so caches of the FNV-hash releases are refused.
/// Version 5 carries the scene's step hash (`Scene::step_hash`) instead of its simulation
/// hash, so an older cache is refused as another version rather than as another scene.
pub const SNAPSHOT_VERSION: u32 = 5;
/// Bytes in a snapshot header: magic, version, scene hash, cells, step, payload length, CRC-32.
pub const SNAPSHOT_HEADER_LEN: usize = 8 + 4 + 8 + 8 + 8 + 8 + 4;

/// Why a snapshot could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// The bytes do not start with the snapshot magic.
    #[error("not a fogbank snapshot (wrong magic bytes)")]
    BadMagic,
    /// Written by another format version.
    #[error(
        "snapshot format version {found}, this fogbank reads version {expected}: delete the \
         cache folder and fill it again with `fogbank simulate --cache DIR`"
    )]
    Version {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// Written for another scene (or other overrides).
    #[error(
        "snapshot belongs to scene {found:016x}, not this scene ({expected:016x}); \
         delete the cache folder or use another --cache for this scene"
    )]
    OtherScene {
        /// Scene hash in the file.
        found: u64,
        /// Hash of the scene being played.
        expected: u64,
    },
    /// The grid size in the file is not the scene's.
    #[error("snapshot has a {found}-cell grid, the scene has {expected}")]
    GridSize {
        /// Cells per side in the file.
        found: u64,
        /// Cells per side of the scene.
        expected: u64,
    },
    /// The bytes end before the snapshot does.
    #[error("snapshot is truncated (needed {needed} more bytes while reading {what})")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes missing.
        needed: usize,
    },
    /// The checksum does not match the bytes: the file was damaged after it was written.
    #[error(
        "snapshot is damaged: its CRC-32 checksum says {stored:08x}, its bytes give \
         {computed:08x}; delete it and fill the cache again with `fogbank simulate --cache DIR`"
    )]
    Checksum {
        /// The checksum stored in the header.
        stored: u32,
        /// The checksum of the bytes read.
        computed: u32,
    },
    /// Bytes are left after the snapshot's end, or a value is out of range.
    #[error("snapshot is corrupt: {0}")]
    Corrupt(String),
}

/// The header every snapshot starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotHeader {
    /// The scene's `Scene::step_hash`: its canonical encoding without the fields the step
    /// never reads (see `scene::canonical::LOOK_FIELDS` and `World::snapshot`).
    pub scene_hash: u64,
    /// Cells per side of the fluid grid.
    pub cells: u64,
    /// World steps taken when the snapshot was made.
    pub step: u64,
}

impl SnapshotHeader {
    /// The snapshot file: this header (magic, version, scene hash, cells, step, the payload's
    /// length and the CRC-32 of those fields and the payload), then `payload`.
    pub fn seal(&self, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(SNAPSHOT_HEADER_LEN + payload.len());
        out.extend_from_slice(&SNAPSHOT_MAGIC);
        out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        let checked_from = out.len();
        put_u64(&mut out, self.scene_hash);
        put_u64(&mut out, self.cells);
        put_u64(&mut out, self.step);
        put_u64(&mut out, payload.len() as u64);
        let crc = checksum(&out[checked_from..], payload);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// Reads a header, checks magic, version, the payload's length and the checksum, and
    /// leaves `input` at the payload (the caller checks scene hash and grid).
    pub fn read(input: &mut &[u8]) -> Result<SnapshotHeader, SnapshotError> {
        let magic = take(input, SNAPSHOT_MAGIC.len(), "magic")?;
        if magic != SNAPSHOT_MAGIC {
            return Err(SnapshotError::BadMagic);
        }
        let version = u32::from_le_bytes(take_array(input, "version")?);
        if version != SNAPSHOT_VERSION {
            return Err(SnapshotError::Version {
                found: version,
                expected: SNAPSHOT_VERSION,
            });
        }
        let checked = take(input, 4 * 8, "header")?;
        let mut fields = checked;
        let stored = u32::from_le_bytes(take_array(input, "checksum")?);
        let header = SnapshotHeader {
            scene_hash: get_u64(&mut fields, "scene hash")?,
            cells: get_u64(&mut fields, "grid size")?,
            step: get_u64(&mut fields, "step")?,
        };
        let payload_len = get_u64(&mut fields, "payload length")?;
        let available = input.len() as u64;
        if available < payload_len {
            return Err(SnapshotError::Truncated {
                what: "payload",
                needed: usize::try_from(payload_len - available).unwrap_or(usize::MAX),
            });
        }
        if available > payload_len {
            return Err(SnapshotError::Corrupt(format!(
                "{} bytes left after the end",
                available - payload_len
            )));
        }
        let computed = checksum(checked, input);
        if computed != stored {
            return Err(SnapshotError::Checksum { stored, computed });
        }
        Ok(header)
    }
}

/// CRC-32 (IEEE) of the checked header fields followed by the payload.
fn checksum(header_fields: &[u8], payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(header_fields);
    hasher.update(payload);
    hasher.finalize()
}

impl FluidSim {
    /// Appends the fluid's whole state (no scratch) to `out`: the grid size, then u, v, su,
    /// sv, density, off_x, off_z, lift, pressure as `f32` and solid as `u8`, each in grid order.
    pub fn write_snapshot(&self, out: &mut Vec<u8>) {
        put_u64(out, self.mapping.cells as u64);
        for field in self.state_fields() {
            out.reserve(field.len() * 4);
            for value in field.iter() {
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.solid);
    }

    /// A fluid built from `params` and `mapping` with the state read from `input` (as written
    /// by [`FluidSim::write_snapshot`]); `input` is advanced past it.
    pub fn read_snapshot(
        params: &FluidParams,
        mapping: GridMapping,
        input: &mut &[u8],
    ) -> Result<FluidSim, SnapshotError> {
        let mut fluid = FluidSim::new(params, mapping);
        let cells = get_u64(input, "fluid grid size")?;
        if cells != fluid.mapping.cells as u64 {
            return Err(SnapshotError::GridSize {
                found: cells,
                expected: fluid.mapping.cells as u64,
            });
        }
        for (field, what) in [
            (&mut fluid.u, "u"),
            (&mut fluid.v, "v"),
            (&mut fluid.su, "su"),
            (&mut fluid.sv, "sv"),
            (&mut fluid.density, "density"),
            (&mut fluid.off_x, "off_x"),
            (&mut fluid.off_z, "off_z"),
            (&mut fluid.lift, "lift"),
            (&mut fluid.pressure, "pressure"),
        ] {
            let bytes = take(input, field.len() * 4, what)?;
            for (value, chunk) in field.iter_mut().zip(bytes.chunks_exact(4)) {
                *value = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            }
        }
        let solid = take(input, fluid.solid.len(), "solid")?;
        if let Some(bad) = solid.iter().find(|&&s| s > 1) {
            return Err(SnapshotError::Corrupt(format!("solid cell value {bad}")));
        }
        fluid.solid.copy_from_slice(solid);
        // The solver starts the next solve from its own copy of the pressure.
        fluid.solver = PressureSolver::new(fluid.mapping.cells);
        fluid.solver.load_pressure(
            &fluid.pressure,
            grid::min_rows_per_task(fluid.mapping.cells),
        );
        Ok(fluid)
    }
}

/// Appends `value` as 8 little-endian bytes.
pub fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// Takes `count` bytes off the front of `input`.
pub fn take<'a>(
    input: &mut &'a [u8],
    count: usize,
    what: &'static str,
) -> Result<&'a [u8], SnapshotError> {
    if input.len() < count {
        return Err(SnapshotError::Truncated {
            what,
            needed: count - input.len(),
        });
    }
    let (head, rest) = input.split_at(count);
    *input = rest;
    Ok(head)
}

/// Takes `N` bytes off the front of `input` as an array.
pub fn take_array<const N: usize>(
    input: &mut &[u8],
    what: &'static str,
) -> Result<[u8; N], SnapshotError> {
    let mut array = [0; N];
    array.copy_from_slice(take(input, N, what)?);
    Ok(array)
}

/// Reads a little-endian `u64`.
pub fn get_u64(input: &mut &[u8], what: &'static str) -> Result<u64, SnapshotError> {
    Ok(u64::from_le_bytes(take_array(input, what)?))
}

/// Reads a little-endian `f32`.
pub fn get_f32(input: &mut &[u8], what: &'static str) -> Result<f32, SnapshotError> {
    Ok(f32::from_le_bytes(take_array(input, what)?))
}

/// Reads a little-endian `f64`.
pub fn get_f64(input: &mut &[u8], what: &'static str) -> Result<f64, SnapshotError> {
    Ok(f64::from_le_bytes(take_array(input, what)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stirred_fluid() -> FluidSim {
        stirred_fluid_with(FluidParams::default())
    }

    fn stirred_fluid_with(params: FluidParams) -> FluidSim {
        let mut fluid = FluidSim::new(&params, GridMapping::new(17, 20.0));
        fluid.mark_solid_circle([3.0, -2.0], 1.5);
        fluid.blast([0.0, 0.0], 3.0, 4.0, 0.5);
        for _ in 0..5 {
            fluid.step(1.0 / 60.0);
        }
        fluid
    }

    #[test]
    fn a_restored_fluid_steps_exactly_like_the_original() {
        for solver in [
            crate::sim::PressureSolverKind::RedBlack,
            crate::sim::PressureSolverKind::Sor,
            crate::sim::PressureSolverKind::Multigrid,
        ] {
            restored_steps_like_original(FluidParams {
                solver,
                ..FluidParams::default()
            });
        }
    }

    /// A snapshot of a stirred fluid, restored, steps to the same states as the original (the
    /// next solve warm-starts from the stored pressure whichever solver runs).
    fn restored_steps_like_original(params: FluidParams) {
        let mut original = stirred_fluid_with(params);
        let mut bytes = Vec::new();
        original.write_snapshot(&mut bytes);
        let mut input = bytes.as_slice();
        let mut restored =
            FluidSim::read_snapshot(original.params(), *original.mapping(), &mut input).unwrap();
        assert!(input.is_empty());
        assert!(original.pressure().iter().any(|&p| p != 0.0));
        for _ in 0..10 {
            original.step(1.0 / 60.0);
            restored.step(1.0 / 60.0);
            assert_eq!(original.state_hash(), restored.state_hash());
        }
    }

    #[test]
    fn short_or_mismatched_input_is_an_error_not_a_panic() {
        let fluid = stirred_fluid();
        let mut bytes = Vec::new();
        fluid.write_snapshot(&mut bytes);
        for cut in [0, 7, 8, 100, bytes.len() - 1] {
            let mut input = &bytes[..cut];
            let result = FluidSim::read_snapshot(fluid.params(), *fluid.mapping(), &mut input);
            assert!(
                matches!(result, Err(SnapshotError::Truncated { .. })),
                "{cut}: {result:?}"
            );
        }
        let mut input = bytes.as_slice();
        let other = GridMapping::new(16, 20.0);
        let result = FluidSim::read_snapshot(fluid.params(), other, &mut input);
        assert!(matches!(result, Err(SnapshotError::GridSize { .. })));
    }

    #[test]
    fn header_round_trips_and_rejects_other_versions() {
        let header = SnapshotHeader {
            scene_hash: 0x1234_5678_9abc_def0,
            cells: 64,
            step: 600,
        };
        let payload = [1u8, 2, 3, 4, 5];
        let bytes = header.seal(&payload);
        assert_eq!(bytes.len(), SNAPSHOT_HEADER_LEN + payload.len());
        let mut input = bytes.as_slice();
        assert_eq!(SnapshotHeader::read(&mut input), Ok(header));
        assert_eq!(input, payload);
        let mut newer = bytes.clone();
        newer[8] = newer[8].wrapping_add(1);
        assert!(matches!(
            SnapshotHeader::read(&mut newer.as_slice()),
            Err(SnapshotError::Version { .. })
        ));
        let mut garbage = bytes.clone();
        garbage[0] = b'X';
        assert_eq!(
            SnapshotHeader::read(&mut garbage.as_slice()),
            Err(SnapshotError::BadMagic)
        );
    }

    #[test]
    fn every_flipped_bit_after_the_version_and_every_cut_is_refused() {
        let header = SnapshotHeader {
            scene_hash: 0x0fed_cba9_8765_4321,
            cells: 8,
            step: 60,
        };
        let payload: Vec<u8> = (0..=255).collect();
        let bytes = header.seal(&payload);
        for index in 12..bytes.len() {
            for bit in 0..8 {
                let mut damaged = bytes.clone();
                damaged[index] ^= 1 << bit;
                let result = SnapshotHeader::read(&mut damaged.as_slice());
                assert!(result.is_err(), "byte {index} bit {bit}: {result:?}");
            }
        }
        for cut in 0..bytes.len() {
            let result = SnapshotHeader::read(&mut &bytes[..cut]);
            assert!(
                matches!(result, Err(SnapshotError::Truncated { .. })),
                "cut at {cut}: {result:?}"
            );
        }
        let mut damaged = bytes.clone();
        *damaged.last_mut().unwrap() ^= 0x40;
        let result = SnapshotHeader::read(&mut damaged.as_slice());
        assert!(
            matches!(result, Err(SnapshotError::Checksum { .. })),
            "{result:?}"
        );
    }
}

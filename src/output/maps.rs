//! The fluid debug maps of one frame: the two shader maps exactly as the GPU reads them, and a
//! colourised picture of each field (density, speed, lift, pressure, divergence, curl,
//! obstacles), all at the grid's size, named by field and frame (`density_0060.png`).

use super::png::frame_file_name;
use super::writer::{ImageFormat, WriteJob};
use crate::sim::FluidSim;
use crate::sim::maps::{DebugField, debug_image};
use std::path::Path;

/// Name prefix of the shader's fluid map (density/2, drift x, drift z).
pub const FLUID_MAP: &str = "fluid";
/// Name prefix of the shader's lift map (lift, speed).
pub const LIFT_MAP: &str = "lift";

/// The write jobs for every map of `frame`, into `dir`.
pub fn map_jobs(
    dir: &Path,
    frame: u32,
    sim: &FluidSim,
    fluid_map: &[u8],
    lift_map: &[u8],
) -> Vec<WriteJob> {
    let cells = sim.mapping().cells as u32;
    let mut jobs = vec![
        WriteJob {
            path: dir.join(frame_file_name(FLUID_MAP, frame)),
            width: cells,
            height: cells,
            rgba8: fluid_map.to_vec(),
            srgb: false,
            format: ImageFormat::Png,
        },
        WriteJob {
            path: dir.join(frame_file_name(LIFT_MAP, frame)),
            width: cells,
            height: cells,
            rgba8: lift_map.to_vec(),
            srgb: false,
            format: ImageFormat::Png,
        },
    ];
    for field in DebugField::ALL {
        jobs.push(WriteJob {
            path: dir.join(frame_file_name(field.name(), frame)),
            width: cells,
            height: cells,
            rgba8: debug_image(sim, field),
            srgb: true,
            format: ImageFormat::Png,
        });
    }
    jobs
}

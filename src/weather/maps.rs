//! The wind map `fogbank maps` writes for a scene with weather (`wind_NNNN.png`, grid-sized):
//! the air's velocity in each cell as the wind and everything else have left it. Red and green
//! are the velocity along +x and +z (128 still, 0 and 255 at ∓`fluid.speed_scale` world units
//! per second), blue its speed (255 at `speed_scale`); solid cells are black.

use std::path::Path;

use crate::output::png::frame_file_name;
use crate::output::writer::{ImageFormat, WriteJob};
use crate::scene::Scene;
use crate::sim::FluidSim;

/// Name prefix of the wind map.
pub const WIND_MAP: &str = "wind";

/// The wind map of `fluid`, `cells × cells` RGBA8, row `j = 0` first.
pub fn wind_map(fluid: &FluidSim) -> Vec<u8> {
    let scale = fluid.speed_scale_cells().max(1e-6);
    let (u, v) = fluid.velocity();
    let to_byte = |value: f32| (value.clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut out = Vec::with_capacity(u.len() * 4);
    for ((&u, &v), &solid) in u.iter().zip(v).zip(fluid.solid()) {
        if solid != 0 {
            out.extend_from_slice(&[0, 0, 0, 255]);
            continue;
        }
        out.extend_from_slice(&[
            to_byte(0.5 + 0.5 * u / scale),
            to_byte(0.5 + 0.5 * v / scale),
            to_byte(u.hypot(v) / scale),
            255,
        ]);
    }
    out
}

/// The write job of the wind map of `frame` into `dir`; `None` for a scene without weather.
pub fn wind_job(dir: &Path, frame: u32, fluid: &FluidSim, scene: &Scene) -> Option<WriteJob> {
    scene.weather.as_ref()?;
    let cells = fluid.mapping().cells as u32;
    Some(WriteJob {
        path: dir.join(frame_file_name(WIND_MAP, frame)),
        width: cells,
        height: cells,
        rgba8: wind_map(fluid).into(),
        srgb: false,
        format: ImageFormat::Png,
    })
}

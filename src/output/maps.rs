//! The fluid debug maps of one frame: the two shader maps exactly as the GPU reads them, and a
//! colourised picture of each field (density, speed, lift, pressure, divergence, curl,
//! obstacles), all at the grid's size, named by field and frame (`density_0060.png`). The
//! colourised lift is `lift_view_0060.png`: `lift_0060.png` is the shader's lift map, and every
//! file of a frame has a name of its own (two writes of one name would race in the pool).

use super::png::frame_file_name;
use super::writer::{ImageFormat, WriteJob};
use crate::sim::FluidSim;
use crate::sim::maps::{DebugField, debug_image};
use std::path::Path;

/// Name prefix of the shader's fluid map (density/2, drift x, drift z).
pub const FLUID_MAP: &str = "fluid";
/// Name prefix of the shader's lift map (lift, speed).
pub const LIFT_MAP: &str = "lift";

/// Name prefix of the colourised picture of `field`: its name, but for the lift, whose name
/// the shader's lift map already takes.
pub fn view_file_prefix(field: DebugField) -> &'static str {
    match field {
        DebugField::Lift => "lift_view",
        other => other.name(),
    }
}

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
            rgba8: fluid_map.to_vec().into(),
            srgb: false,
            format: ImageFormat::Png,
        },
        WriteJob {
            path: dir.join(frame_file_name(LIFT_MAP, frame)),
            width: cells,
            height: cells,
            rgba8: lift_map.to_vec().into(),
            srgb: false,
            format: ImageFormat::Png,
        },
    ];
    for field in DebugField::ALL {
        jobs.push(WriteJob {
            path: dir.join(frame_file_name(view_file_prefix(field), frame)),
            width: cells,
            height: cells,
            rgba8: debug_image(sim, field).into(),
            srgb: true,
            format: ImageFormat::Png,
        });
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{FluidParams, GridMapping};

    #[test]
    fn every_map_of_a_frame_has_a_file_of_its_own() {
        let sim = FluidSim::new(&FluidParams::default(), GridMapping::new(8, 8.0));
        let cells = 8 * 8 * 4;
        let (fluid_map, lift_map) = (vec![1u8; cells], vec![2u8; cells]);
        let jobs = map_jobs(Path::new("maps"), 60, &sim, &fluid_map, &lift_map);
        let mut paths: Vec<_> = jobs.iter().map(|j| j.path.clone()).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), jobs.len(), "two maps share a file name");
        // The shader's maps keep their names and hold exactly the bytes the GPU reads.
        let by_name = |name: &str| jobs.iter().find(|j| j.path == Path::new("maps").join(name));
        assert_eq!(by_name("fluid_0060.png").unwrap().rgba8, fluid_map);
        assert_eq!(by_name("lift_0060.png").unwrap().rgba8, lift_map);
        let view = by_name("lift_view_0060.png").expect("the colourised lift");
        assert!(
            view.srgb && view.rgba8 != lift_map,
            "a picture for people, not the data map"
        );
    }
}

//! The fluid's maps without the GPU: for each chosen frame, the two maps the shader reads and
//! the colourised debug maps, written by the encoder pool.

use super::frame_loop::start_playback;
use super::report::{Reporter, Stage};
use super::{create_dir, frames_in_clip};
use crate::Error;
use crate::output::maps::map_jobs;
use crate::output::writer::WriterPool;
use crate::scene::Scene;
use crate::timeline::FrameSet;
use std::path::PathBuf;

/// Which frames' maps [`maps`] writes, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapsOptions {
    /// Folder for the maps.
    pub out_dir: PathBuf,
    /// Frames to write; the whole clip when `None`.
    pub frames: Option<FrameSet>,
    /// Start from this simulation cache (`--cache`).
    pub cache_dir: Option<PathBuf>,
}

/// Steps `scene` to each chosen frame and writes its maps. Returns the number of files written.
pub fn maps(
    scene: &Scene,
    options: &MapsOptions,
    reporter: &mut dyn Reporter,
) -> Result<usize, Error> {
    let frames = frames_in_clip(options.frames.as_ref(), scene)?;
    create_dir(&options.out_dir)?;
    let first_frame = frames.frames().first().copied().unwrap_or(0);
    let mut playback = start_playback(options.cache_dir.as_deref(), scene, first_frame)?;
    let mut pool = WriterPool::for_this_machine();
    reporter.begin(Stage::Simulate, frames.len() as u64);
    for &frame in frames.frames() {
        if crate::interrupt::requested() {
            let written = pool.files_written();
            pool.finish()?;
            return Err(Error::interrupted(written));
        }
        if playback
            .advance_to_or_stop(frame, crate::interrupt::poll)
            .is_none()
        {
            let written = pool.files_written();
            pool.finish()?;
            return Err(Error::interrupted(written));
        }
        let (fluid, fluid_map, lift_map) = playback.packed_maps();
        for job in map_jobs(&options.out_dir, frame, fluid, fluid_map, lift_map) {
            pool.submit(job)?;
        }
        // Scenes with weather: the wind map too.
        if let Some(job) = crate::weather::maps::wind_job(&options.out_dir, frame, fluid, scene) {
            pool.submit(job)?;
        }
        reporter.advance(Stage::Simulate, 1);
    }
    let report = pool.finish()?;
    reporter.end(Stage::Simulate);
    Ok(report.files)
}

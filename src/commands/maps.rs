//! `fogbank maps`: the fluid's shader maps and colourised debug maps for each chosen frame.

use super::{MapsSettings, Progress, ProgressMode, load_scene};
use crate::Error;
use crate::output::maps::map_jobs;
use crate::output::writer::WriterPool;
use crate::pipeline::{create_dir, frames_in_clip, start_playback};

pub(super) fn run(settings: &MapsSettings) -> Result<(), Error> {
    let loaded = load_scene(&settings.scene)?;
    let scene = &loaded.scene;
    let frames = frames_in_clip(settings.frames.as_ref(), scene)?;
    create_dir(&settings.out_dir)?;
    let first_frame = frames.frames().first().copied().unwrap_or(0);
    let mut playback = start_playback(settings.scene.cache.as_deref(), scene, first_frame)?;
    let mut pool = WriterPool::for_this_machine();
    let mut progress = Progress::new(
        "maps",
        frames.len() as u64,
        ProgressMode::detect(settings.quiet),
    );
    for &frame in frames.frames() {
        if crate::interrupt::requested() {
            let written = pool.files_written();
            pool.finish()?;
            return Err(Error::Interrupted { written });
        }
        playback.advance_to(frame, || {});
        let (fluid, fluid_map, lift_map) = playback.packed_maps();
        for job in map_jobs(&settings.out_dir, frame, fluid, fluid_map, lift_map) {
            pool.submit(job)?;
        }
        progress.advance(1);
    }
    pool.finish()?;
    progress.finish();
    Ok(())
}

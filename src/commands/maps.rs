//! `fogbank maps`: the fluid's shader maps and colourised debug maps for each chosen frame,
//! through [`pipeline::maps`].

use super::{MapsSettings, ProgressMode, ProgressReporter, load_scene};
use crate::Error;
use crate::pipeline::{self, MapsOptions};

pub(super) fn run(settings: &MapsSettings) -> Result<(), Error> {
    let loaded = load_scene(&settings.scene)?;
    let options = MapsOptions {
        out_dir: settings.out_dir.clone(),
        frames: settings.frames.clone(),
        cache_dir: settings.scene.cache.clone(),
    };
    let mut reporter = ProgressReporter::labelled(ProgressMode::detect(settings.quiet), "maps");
    pipeline::maps(&loaded.scene, &options, &mut reporter)?;
    Ok(())
}

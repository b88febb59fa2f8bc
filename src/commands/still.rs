//! `fogbank still`: one frame through [`pipeline::still`], written as a PNG file.

use super::{ProgressMode, ProgressReporter, StillSettings, load_scene};
use crate::Error;
use crate::pipeline::{self, StillOptions};

pub(super) fn run(settings: &StillSettings) -> Result<(), Error> {
    let loaded = load_scene(&settings.scene)?;
    let scene = settings
        .gpu
        .apply_to(pipeline::sized_scene(&loaded.scene, settings.size));
    super::check_shutter(&scene)?;
    let context = settings.gpu.open()?;
    // A folder that cannot be made fails before the simulation, not after it.
    pipeline::create_parent(&settings.out_file)?;
    let mut reporter = ProgressReporter::new(ProgressMode::detect(settings.quiet));
    let options = StillOptions {
        frame: settings.frame,
        view: settings.view,
        compositor: settings.gpu.compositor,
        cache_dir: settings.scene.cache.clone(),
    };
    let still = pipeline::still(&context, &scene, &options, &mut reporter)?;
    let frame = &still.frame;
    pipeline::save_png(&settings.out_file, frame.width, frame.height, &frame.rgba8)?;
    if !settings.quiet {
        eprintln!(
            "wrote frame {} (hash {:016x}) to {}",
            settings.frame,
            still.state_hash,
            settings.out_file.display()
        );
    }
    Ok(())
}

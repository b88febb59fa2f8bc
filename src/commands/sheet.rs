//! `fogbank sheet`: chosen frames as a contact sheet through [`pipeline::sheet`], written as a
//! PNG file.

use super::{ProgressMode, ProgressReporter, SheetSettings, load_scene};
use crate::Error;
use crate::pipeline::{self, SheetOptions};

pub(super) fn run(settings: &SheetSettings) -> Result<(), Error> {
    let loaded = load_scene(&settings.scene)?;
    let scene = settings
        .gpu
        .apply_to(pipeline::sized_scene(&loaded.scene, settings.size));
    super::check_shutter(&scene)?;
    let options = SheetOptions {
        frames: settings.frames.clone(),
        columns: settings.columns,
        thumb_width_px: settings.thumb_width_px,
        view: settings.view,
        compositor: settings.gpu.compositor,
        cache_dir: settings.scene.cache.clone(),
    };
    options.check(&scene)?;
    let context = settings.gpu.open()?;
    let mut reporter = ProgressReporter::new(ProgressMode::detect(settings.quiet));
    let (sheet, stills) = pipeline::sheet(&context, &scene, &options, &mut reporter)?;
    pipeline::save_png(&settings.out_file, sheet.width, sheet.height, &sheet.rgba8)?;
    if !settings.quiet {
        eprintln!(
            "wrote a sheet of {stills} stills ({}x{}) to {}",
            sheet.width,
            sheet.height,
            settings.out_file.display()
        );
    }
    Ok(())
}

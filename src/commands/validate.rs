//! `fogbank validate`: load a scene, report every error or warning, change nothing.

use super::{ValidateSettings, load_scene};
use crate::Error;

pub(super) fn run(settings: &ValidateSettings) -> Result<(), Error> {
    let loaded = load_scene(&settings.scene)?;
    let scene = &loaded.scene;
    outln!(
        "{}: ok ({} frames at {} fps, {}x{}, fluid {}², {} sheets, {} warning{})",
        loaded.source.name,
        scene.output.frame_count(),
        scene.output.fps,
        scene.output.width,
        scene.output.height,
        scene.fluid.grid,
        scene.fog.sheets,
        loaded.warnings.len(),
        if loaded.warnings.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

//! `fogbank quality`: the sheets measured against the raymarch reference through
//! [`pipeline::quality`], printed as a table (or `--json`).

use super::{ProgressMode, ProgressReporter, QualitySettings, load_scene, print_json};
use crate::Error;
use crate::gpu::Compositor;
use crate::pipeline::{self, PAYING_LEVELS, QualityOptions, QualityReport};

pub(super) fn run(settings: &QualitySettings) -> Result<(), Error> {
    let loaded = load_scene(&settings.scene)?;
    let scene = settings
        .gpu
        .apply_to(pipeline::sized_scene(&loaded.scene, settings.size));
    super::check_shutter(&scene)?;
    let context = settings.gpu.open()?;
    let options = QualityOptions {
        frames: settings.frames.clone(),
        sheet_counts: settings.sheet_counts.clone(),
        compositors: vec![Compositor::Raster, Compositor::Compute],
        steps: settings.steps,
        out_dir: settings.out_dir.clone(),
        cache_dir: settings.scene.cache.clone(),
    };
    let mut reporter = ProgressReporter::new(ProgressMode::detect(settings.quiet));
    let report = pipeline::quality(&context, &scene, &options, &mut reporter)?;
    if settings.json {
        print_json(&report)?;
    } else {
        print_table(&report, &pipeline::adapter_line(&context))?;
    }
    Ok(())
}

fn print_table(report: &QualityReport, adapter: &str) -> Result<(), Error> {
    let frames: Vec<String> = report.frames.iter().map(|f| f.to_string()).collect();
    outln!(
        "{}x{}, frames {}, {} a pixel, against a raymarch of {} steps ({:.1} ms a frame) on \
         {adapter}",
        report.width,
        report.height,
        frames.join(","),
        match (report.samples, report.edge_samples) {
            (1, 1) => "1 sample".to_string(),
            (1, edges) => format!("1 sample ({edges} at edges)"),
            (n, _) => format!("{n} samples"),
        },
        report.steps,
        report.reference_frame_time_ms
    );
    outln!("compositor  sheets  mean error  p99 error  SSIM     frame time");
    for row in &report.rows {
        outln!(
            "{:<10}  {:>6}  {:>10.3}  {:>9}  {:.5}  {:>7.1} ms",
            row.compositor.name(),
            row.sheets,
            row.mean_error,
            row.p99_error,
            row.ssim,
            row.frame_time_ms
        );
    }
    for (compositor, sheets) in &report.enough_sheets {
        outln!(
            "{}: more than {sheets} sheets stop paying (mean error within {PAYING_LEVELS} levels \
             of the lowest measured)",
            compositor.name()
        );
    }
    for file in &report.files {
        outln!("wrote {}", file.display());
    }
    Ok(())
}

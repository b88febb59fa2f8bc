//! Renders the first second of a scene to PNG files with fogbank as a library, no command line:
//! `cargo run --release --example render_clip -- [SCENE.ron] [OUT_DIR]`.

use fogbank::gpu::{GpuContext, GpuOptions};
use fogbank::pipeline::{self, RenderOptions, Silent};
use fogbank::timeline::FrameSet;
use std::path::PathBuf;

fn main() {
    if let Err(error) = run() {
        eprintln!("{}", error.report());
        std::process::exit(error.exit_code());
    }
}

fn run() -> Result<(), fogbank::Error> {
    let mut args = std::env::args().skip(1);
    let scene_path = args.next().map(PathBuf::from);
    let out_dir = args.next().unwrap_or_else(|| "out/example".into());

    let scene = fogbank::scene::load(scene_path.as_deref(), &[])?.scene;
    let gpu = GpuContext::new(&GpuOptions::default())?;
    let mut options = RenderOptions::new(out_dir);
    let one_second = scene.output.fps.min(scene.output.frame_count());
    options.frames = Some(FrameSet::parse(&format!("0..{one_second}"))?);
    let summary = pipeline::render(&gpu, &scene, &options, &mut Silent)?;
    println!(
        "{} frames of {} in {:.1} s on {}",
        summary.frames, summary.scene, summary.total_s, summary.adapter
    );
    Ok(())
}

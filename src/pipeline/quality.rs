//! `fogbank quality`: how close the fog sheets come to the raymarch reference, and at what
//! cost, per sheet count.
//!
//! Each chosen frame is rendered once with the `raymarch` compositor (the continuous fog
//! integrated along each ray, `--steps` steps) and once per sheet count and sheet compositor
//! (raster, compute), the scene's `fog.sheets` set to the count. Each render is compared with
//! the reference: the per-pixel colour error is the largest difference of R, G and B in 8-bit
//! sRGB levels (the quantity `check`'s pixel gate bounds); a row reports its mean and its 99th
//! percentile over every pixel of every frame, the mean SSIM over the frames
//! ([`crate::compare::ssim`]), and the mean frame time: the wall time of one `render_one`
//! (submit, GPU work, readback), after one untimed warm-up render per renderer so pipeline and
//! driver start-up costs are left out. The times are measurements, not part of any output
//! that must repeat; the pictures and errors are deterministic.
//!
//! With an output folder the reference, every render, its error heat map
//! ([`crate::compare::diff_heatmap`]) and `chart.png` (error and frame time against sheet
//! count) are written there. [`enough_sheets`] names the count past which more sheets stop
//! paying.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::frame_loop::start_playback;
use super::report::{Reporter, Stage};
use super::save_png;
use crate::Error;
use crate::compare::{Image, diff_heatmap, ssim};
use crate::frame::{Frame, FrameInputs, View};
use crate::gpu::{Compositor, GpuContext, Readback, RenderConfig, Renderer};
use crate::output::chart::{Panel, Series, draw_panels};
use crate::scene::Scene;
use crate::timeline::FrameSet;

/// The sheet counts measured when none are given.
pub const DEFAULT_SHEET_COUNTS: [u32; 8] = [8, 16, 24, 32, 48, 64, 96, 128];

/// More sheets stop paying once the mean error is within this many 8-bit levels of the lowest
/// measured: beyond that they change the picture by less than a quarter of a level on average
/// (the 99th percentile is then a level or two). [`enough_sheets`] is the first count within it.
pub const PAYING_LEVELS: f64 = 0.25;

/// What [`quality`] measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QualityOptions {
    /// The frames to render (each the picture at time frame / fps).
    pub frames: FrameSet,
    /// Sheet counts to measure, each 1..=512.
    pub sheet_counts: Vec<u32>,
    /// The sheet compositors to measure (`Raster`, `Compute`).
    pub compositors: Vec<Compositor>,
    /// Steps per ray of the reference.
    pub steps: u32,
    /// Write the pictures and the chart here.
    pub out_dir: Option<PathBuf>,
    /// Start from this simulation cache (`--cache`).
    pub cache_dir: Option<PathBuf>,
}

/// One measured setting: a sheet compositor at a sheet count, against the reference.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QualityRow {
    /// `raster` or `compute`.
    pub compositor: Compositor,
    /// `fog.sheets`.
    pub sheets: u32,
    /// Mean over every pixel of every frame of the largest R, G, B difference, 8-bit levels.
    pub mean_error: f64,
    /// 99th percentile of the same, 8-bit levels.
    pub p99_error: u32,
    /// Mean SSIM (luma) over the frames.
    pub ssim: f64,
    /// Mean wall time of one frame, milliseconds.
    pub frame_time_ms: f64,
}

/// What [`quality`] found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QualityReport {
    /// Picture width, pixels.
    pub width: u32,
    /// Picture height, pixels.
    pub height: u32,
    /// The frames measured.
    pub frames: Vec<u32>,
    /// Steps per ray of the reference.
    pub steps: u32,
    /// Samples a pixel of every render, the reference's included (`output.samples`).
    pub samples: u32,
    /// Samples a pixel at an edge of every render (`output.edge_samples`; 1: none more).
    pub edge_samples: u32,
    /// Mean wall time of one reference frame, milliseconds.
    pub reference_frame_time_ms: f64,
    /// One row per compositor and sheet count, compositor by compositor, counts ascending.
    pub rows: Vec<QualityRow>,
    /// Per compositor: the sheet count past which more sheets stop paying ([`enough_sheets`]).
    pub enough_sheets: Vec<(Compositor, u32)>,
    /// Files written (with an output folder).
    pub files: Vec<PathBuf>,
}

/// How often each per-pixel error (0..=255 levels) occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorHistogram {
    counts: [u64; 256],
}

impl Default for ErrorHistogram {
    fn default() -> Self {
        ErrorHistogram { counts: [0; 256] }
    }
}

impl ErrorHistogram {
    /// Adds the errors of `actual` against `expected` (same size): per pixel, the largest of
    /// the R, G and B differences.
    pub fn add(&mut self, expected: &[u8], actual: &[u8]) {
        for (e, a) in expected.chunks_exact(4).zip(actual.chunks_exact(4)) {
            let error = (0..3).map(|c| e[c].abs_diff(a[c])).max().unwrap_or(0);
            self.counts[error as usize] += 1;
        }
    }

    /// Pixels counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Mean error, levels (0 when empty).
    pub fn mean(&self) -> f64 {
        let total = self.total();
        if total == 0 {
            return 0.0;
        }
        let sum: u64 = self
            .counts
            .iter()
            .enumerate()
            .map(|(e, &n)| e as u64 * n)
            .sum();
        sum as f64 / total as f64
    }

    /// The smallest error at or below which at least `fraction` of the pixels lie.
    pub fn percentile(&self, fraction: f64) -> u32 {
        let total = self.total();
        let needed = (fraction * total as f64).ceil() as u64;
        let mut seen = 0;
        for (error, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= needed.max(1) {
                return error as u32;
            }
        }
        255
    }
}

/// The sheet count past which more sheets stop paying, from `(sheets, mean error)` pairs in
/// ascending sheet order: the first count whose mean error is within [`PAYING_LEVELS`] of the
/// lowest mean error measured.
pub fn enough_sheets(errors: &[(u32, f64)]) -> Option<u32> {
    let best = errors.iter().map(|&(_, e)| e).fold(f64::INFINITY, f64::min);
    errors
        .iter()
        .find(|&&(_, e)| e <= best + PAYING_LEVELS)
        .map(|&(sheets, _)| sheets)
}

/// One renderer being measured and what it has gathered.
struct Measured {
    /// `None`: the reference.
    setting: Option<(Compositor, u32)>,
    renderer: Renderer,
    histogram: ErrorHistogram,
    ssim_sum: f64,
    time_s_sum: f64,
    warmed_up: bool,
}

impl Measured {
    /// The file name stem of this setting's pictures.
    fn stem(&self) -> String {
        match self.setting {
            None => "reference".to_string(),
            Some((compositor, sheets)) => format!("{}_{sheets:03}", compositor.name()),
        }
    }

    /// Renders `inputs` (after one untimed warm-up), adding its wall time.
    fn render(&mut self, inputs: &FrameInputs<'_>) -> Result<Frame, Error> {
        if !self.warmed_up {
            self.renderer.render_one(inputs)?;
            self.warmed_up = true;
        }
        let start = Instant::now();
        let frame = self.renderer.render_one(inputs)?;
        self.time_s_sum += start.elapsed().as_secs_f64();
        Ok(frame)
    }
}

fn image_of(frame: &Frame) -> Image {
    Image {
        width: frame.width,
        height: frame.height,
        rgba8: frame.rgba8.to_vec(),
    }
}

fn renderer_for(
    context: &GpuContext,
    scene: &Scene,
    compositor: Compositor,
) -> Result<Renderer, Error> {
    Ok(Renderer::new(
        context,
        scene,
        &RenderConfig {
            width: scene.output.width,
            height: scene.output.height,
            view: View::Fog,
            compositor,
            readback: Readback::default(),
        },
    )?)
}

/// Renders `options.frames` of `scene` (size already applied) with the reference and every
/// sheet setting, and measures each against the reference (see the module's docs).
pub fn quality(
    context: &GpuContext,
    scene: &Scene,
    options: &QualityOptions,
    reporter: &mut dyn Reporter,
) -> Result<QualityReport, Error> {
    let frames = options.frames.frames();
    let mut scene = scene.clone();
    let needed = frames.last().map_or(0, |last| last.saturating_add(1));
    if scene.output.frame_count() < needed {
        scene.output.frames = Some(needed);
    }
    if let Some(dir) = &options.out_dir {
        super::create_dir(dir)?;
    }

    let mut measured = vec![Measured {
        setting: None,
        renderer: renderer_for(
            context,
            &scene,
            Compositor::Raymarch {
                steps: options.steps,
            },
        )?,
        histogram: ErrorHistogram::default(),
        ssim_sum: 0.0,
        time_s_sum: 0.0,
        warmed_up: false,
    }];
    for &compositor in &options.compositors {
        for &sheets in &options.sheet_counts {
            let mut sheeted = scene.clone();
            sheeted.fog.sheets = sheets;
            measured.push(Measured {
                setting: Some((compositor, sheets)),
                renderer: renderer_for(context, &sheeted, compositor)?,
                histogram: ErrorHistogram::default(),
                ssim_sum: 0.0,
                time_s_sum: 0.0,
                warmed_up: false,
            });
        }
    }

    let mut files = Vec::new();
    let first = frames.first().copied().unwrap_or(0);
    let mut playback = start_playback(options.cache_dir.as_deref(), &scene, first)?;
    reporter.begin(Stage::Render, (frames.len() * measured.len()) as u64);
    for &frame_index in frames {
        let state = playback.advance_to_or_stop(frame_index, crate::interrupt::poll);
        // Stopped by a signal: no report (the pictures written so far are whole files).
        let Some(state) = state else {
            return Err(Error::interrupted(0));
        };
        let inputs = playback.frame_inputs(&state);
        let (reference, sheeted) = measured.split_at_mut(1);
        let reference = &mut reference[0];
        let expected = image_of(&reference.render(&inputs)?);
        reporter.advance(Stage::Render, 1);
        // `STEM_NNNN.png`, or `STEM_NNNN.diff.png` for a heat map.
        let write = |name: &str, image: &Image, files: &mut Vec<PathBuf>| -> Result<(), Error> {
            if let Some(dir) = &options.out_dir {
                let path = dir.join(name);
                save_png(&path, image.width, image.height, &image.rgba8)?;
                files.push(path);
            }
            Ok(())
        };
        let png = |stem: &str| format!("{stem}_{frame_index:04}.png");
        write(&png(&reference.stem()), &expected, &mut files)?;
        for entry in sheeted.iter_mut() {
            if crate::interrupt::poll().is_break() {
                return Err(Error::interrupted(0));
            }
            let actual = image_of(&entry.render(&inputs)?);
            reporter.advance(Stage::Render, 1);
            entry.histogram.add(&expected.rgba8, &actual.rgba8);
            entry.ssim_sum += ssim(&expected, &actual).unwrap_or(0.0);
            let stem = entry.stem();
            write(&png(&stem), &actual, &mut files)?;
            let heat_map = diff_heatmap(&expected, &actual);
            write(
                &format!("{stem}_{frame_index:04}.diff.png"),
                &heat_map,
                &mut files,
            )?;
        }
    }
    reporter.end(Stage::Render);

    let frame_count = frames.len().max(1) as f64;
    let rows: Vec<QualityRow> = measured[1..]
        .iter()
        .filter_map(|entry| {
            let (compositor, sheets) = entry.setting?;
            Some(QualityRow {
                compositor,
                sheets,
                mean_error: entry.histogram.mean(),
                p99_error: entry.histogram.percentile(0.99),
                ssim: entry.ssim_sum / frame_count,
                frame_time_ms: entry.time_s_sum / frame_count * 1000.0,
            })
        })
        .collect();
    let enough = options
        .compositors
        .iter()
        .filter_map(|&compositor| {
            let errors: Vec<(u32, f64)> = rows
                .iter()
                .filter(|row| row.compositor == compositor)
                .map(|row| (row.sheets, row.mean_error))
                .collect();
            enough_sheets(&errors).map(|sheets| (compositor, sheets))
        })
        .collect();
    let mut report = QualityReport {
        width: scene.output.width,
        height: scene.output.height,
        frames: frames.to_vec(),
        steps: options.steps,
        samples: scene.output.samples_everywhere(),
        edge_samples: scene.output.samples_at_edges(),
        reference_frame_time_ms: measured[0].time_s_sum / frame_count * 1000.0,
        rows,
        enough_sheets: enough,
        files,
    };
    if let Some(dir) = &options.out_dir {
        let path = dir.join("chart.png");
        write_chart(&report, options, &path)?;
        report.files.push(path);
    }
    Ok(report)
}

/// Colours of the compositors' lines: raster blue, compute orange.
fn colour_of(compositor: Compositor) -> [u8; 4] {
    match compositor {
        Compositor::Compute => [230, 120, 20, 255],
        _ => [30, 90, 200, 255],
    }
}

/// Draws the error and frame-time panels of `report` into `path`.
fn write_chart(report: &QualityReport, options: &QualityOptions, path: &Path) -> Result<(), Error> {
    let categories: Vec<String> = options.sheet_counts.iter().map(|s| s.to_string()).collect();
    let values = |compositor: Compositor, of: &dyn Fn(&QualityRow) -> f64| -> Vec<Option<f64>> {
        options
            .sheet_counts
            .iter()
            .map(|&sheets| {
                report
                    .rows
                    .iter()
                    .find(|row| row.compositor == compositor && row.sheets == sheets)
                    .map(of)
            })
            .collect()
    };
    let mut error_series = Vec::new();
    let mut time_series = Vec::new();
    for &compositor in &options.compositors {
        let colour = colour_of(compositor);
        let light = [
            colour[0] / 2 + 127,
            colour[1] / 2 + 127,
            colour[2] / 2 + 127,
            255,
        ];
        error_series.push(Series {
            name: format!("{} mean", compositor.name()),
            colour,
            values: values(compositor, &|row| row.mean_error),
            level: false,
        });
        error_series.push(Series {
            name: format!("{} p99", compositor.name()),
            colour: light,
            values: values(compositor, &|row| f64::from(row.p99_error)),
            level: false,
        });
        time_series.push(Series {
            name: compositor.name().to_string(),
            colour,
            values: values(compositor, &|row| row.frame_time_ms),
            level: false,
        });
    }
    time_series.push(Series {
        name: format!("raymarch {}", report.steps),
        colour: [120, 120, 120, 255],
        values: vec![Some(report.reference_frame_time_ms)],
        level: true,
    });
    let panels = [
        Panel {
            title: "Error against the raymarch (8-bit levels)".into(),
            x_name: "sheets".into(),
            categories: categories.clone(),
            series: error_series,
        },
        Panel {
            title: "Frame time (ms)".into(),
            x_name: "sheets".into(),
            categories,
            series: time_series,
        },
    ];
    let (width, height, rgba8) = draw_panels(&panels, 560, 360);
    save_png(path, width, height, &rgba8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_mean_and_percentiles() {
        let mut histogram = ErrorHistogram::default();
        // 100 pixels: 98 exact, one 10 levels off in green, one 40 off in blue (alpha ignored).
        let expected = vec![100u8; 400];
        let mut actual = expected.clone();
        actual[1] = 110;
        actual[6] = 60;
        actual[11] = 0;
        histogram.add(&expected, &actual);
        assert_eq!(histogram.total(), 100);
        assert!((histogram.mean() - 0.5).abs() < 1e-12);
        assert_eq!(histogram.percentile(0.98), 0);
        assert_eq!(histogram.percentile(0.99), 10);
        assert_eq!(histogram.percentile(1.0), 40);
        assert_eq!(ErrorHistogram::default().mean(), 0.0);
    }

    #[test]
    fn enough_sheets_is_the_first_within_reach_of_the_best() {
        let errors = [
            (8, 6.0),
            (16, 3.0),
            (32, 1.5),
            (48, 1.08),
            (64, 1.0),
            (96, 1.02),
        ];
        assert_eq!(enough_sheets(&errors), Some(48));
        assert_eq!(enough_sheets(&[(8, 2.0)]), Some(8));
        assert_eq!(enough_sheets(&[]), None);
    }
}

//! Where a render's time went, stage by stage, and which stage bounds it (`render --stats`,
//! `render --json`'s `stats`).
//!
//! The frame pipeline overlaps its stages: the main thread steps the world, records frames
//! for the GPU and hands finished ones on, the GPU renders up to
//! [`crate::gpu::FRAMES_IN_FLIGHT`] frames behind it, and the writer pool encodes and writes
//! files on threads of its own. A stage's **share** is its busy seconds divided by the threads
//! it runs on and by the run's wall time: the share of the stage that bounds the run is near 1,
//! and making any other stage faster does not make the run faster. Waits (the main thread
//! blocked on the GPU, in `Queue::submit` (a CPU adapter such as lavapipe blocks there while
//! earlier frames render), or on a full encoder queue) are listed too but are symptoms, not
//! stages: they never bound a run.
//!
//! GPU pass times come from timestamp queries where the adapter has them
//! ([`crate::gpu::timing`]). Without them the `gpu` stage is the CPU-side time spent submitting
//! frames and waiting for them, an upper bound, and [`RenderStats::gpu_timing`] says so.
//!
//! All of it is wall-clock and GPU-clock time, for reports only: no output depends on it.

use super::Setup;
use crate::gpu::GpuTimes;
use serde::Serialize;

/// Whether a stage does work or waits for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StageKind {
    /// The stage's own work; the busiest one bounds the run.
    Work,
    /// A thread blocked on another stage (a symptom of the bound elsewhere).
    Wait,
}

/// One stage's time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageTime {
    /// `simulate`, `gpu_record`, `gpu`, `readback_copy`, `video`, `encode`, `write`,
    /// `gpu_submit`, `readback_wait` or `queue_wait`.
    pub stage: &'static str,
    /// Work or wait.
    pub kind: StageKind,
    /// Busy seconds, summed over the stage's threads.
    pub seconds: f64,
    /// Threads the stage runs on (the GPU counts as one).
    pub threads: usize,
    /// Milliseconds per rendered frame, summed over threads: what one frame costs.
    pub ms_per_frame: f64,
    /// `seconds / threads / wall`: near 1 for the stage that bounds the run.
    pub share: f64,
}

/// One GPU pass's time, measured with timestamp queries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassTime {
    /// The pass: `shadow`, `scene`, `reflection`, `fog` or `fog_compute` (or `raymarch`),
    /// `fog_layer`, `flame`, `bolt`, `rain`, `weather_layer`, `overlay`, `encode`, or
    /// `readback` (the copies into the staging buffers).
    pub pass: &'static str,
    /// GPU seconds over the timed frames.
    pub seconds: f64,
    /// GPU milliseconds per timed frame.
    pub ms_per_frame: f64,
}

/// Per-stage times of a render, the stage that bounds it, and its frame rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenderStats {
    /// Frames rendered.
    pub frames: usize,
    /// Wall-clock seconds of the frame loop, the GPU's opening (`render`) and the renderer's
    /// build included.
    pub wall_s: f64,
    /// Frames rendered per wall-clock second.
    pub frames_per_s: f64,
    /// The GPU's opening and the renderer's build at the start, and the frames the world
    /// stepped meanwhile.
    pub setup: Setup,
    /// How the `gpu` stage was measured: `timestamp queries`, or `cpu submit + wait` on an
    /// adapter without them.
    pub gpu_timing: &'static str,
    /// Every stage, work first, in pipeline order.
    pub stages: Vec<StageTime>,
    /// GPU time per pass, in pass order; empty without timestamp queries.
    pub gpu_passes: Vec<PassTime>,
    /// The work stage with the largest share: the one to make faster.
    pub bound: &'static str,
}

/// What the pipeline measured, for [`RenderStats::new`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measured {
    /// Frames rendered.
    pub frames: usize,
    /// Wall-clock seconds of the frame loop.
    pub wall_s: f64,
    /// The renderer's build at the start.
    pub setup: Setup,
    /// Seconds stepping the world.
    pub simulate_s: f64,
    /// What the renderer measured.
    pub gpu: GpuTimes,
    /// Seconds pushing frames into the video sink (main thread).
    pub video_s: f64,
    /// Encoder threads' seconds encoding, summed.
    pub encode_s: f64,
    /// Encoder threads' seconds writing files, summed.
    pub write_s: f64,
    /// Encoder threads.
    pub encoder_threads: usize,
    /// Seconds the main thread was blocked on a full encoder queue.
    pub queue_wait_s: f64,
}

/// `timestamp queries` or the fallback, as [`RenderStats::gpu_timing`] says it.
pub const GPU_TIMESTAMPS: &str = "timestamp queries";
/// The `gpu` stage measured on the CPU: no timestamp queries on the adapter.
pub const GPU_CPU_FALLBACK: &str =
    "cpu record + submit + wait (the adapter has no timestamp queries; an upper bound)";

impl RenderStats {
    /// The stages of `measured`, their shares and the bound.
    pub fn new(measured: &Measured) -> RenderStats {
        let m = measured;
        let wall_s = m.wall_s.max(1e-9);
        let frames = m.frames.max(1) as f64;
        let gpu = &m.gpu;
        let (gpu_s, gpu_timing) = if gpu.timestamps && gpu.timed_frames > 0 {
            // Frames not timed (none normally) are counted at the timed frames' mean.
            let scale = m.frames.max(1) as f64 / f64::from(gpu.timed_frames);
            (gpu.gpu_s() * scale, GPU_TIMESTAMPS)
        } else {
            (
                gpu.record_s + gpu.submit_s + gpu.readback_wait_s,
                GPU_CPU_FALLBACK,
            )
        };
        let threads = m.encoder_threads.max(1);
        let stage = |stage, kind, seconds: f64, threads: usize| {
            let seconds = seconds.max(0.0);
            StageTime {
                stage,
                kind,
                seconds,
                threads,
                ms_per_frame: seconds / frames * 1e3,
                share: seconds / threads as f64 / wall_s,
            }
        };
        use StageKind::{Wait, Work};
        let stages = vec![
            stage("simulate", Work, m.simulate_s, 1),
            stage("gpu_record", Work, gpu.record_s, 1),
            stage("gpu", Work, gpu_s, 1),
            stage("readback_copy", Work, gpu.readback_copy_s, 1),
            stage("video", Work, m.video_s, 1),
            stage("encode", Work, m.encode_s, threads),
            stage("write", Work, m.write_s, threads),
            stage("gpu_submit", Wait, gpu.submit_s, 1),
            stage("readback_wait", Wait, gpu.readback_wait_s, 1),
            stage("queue_wait", Wait, m.queue_wait_s, 1),
        ];
        let bound = stages
            .iter()
            .filter(|s| s.kind == Work)
            .fold(None::<&StageTime>, |best, s| match best {
                Some(b) if b.share >= s.share => Some(b),
                _ => Some(s),
            })
            .map_or("simulate", |s| s.stage);
        let timed = f64::from(gpu.timed_frames.max(1));
        let gpu_passes = gpu
            .passes
            .iter()
            .map(|&(pass, seconds)| PassTime {
                pass,
                seconds,
                ms_per_frame: seconds / timed * 1e3,
            })
            .collect();
        RenderStats {
            frames: m.frames,
            wall_s: m.wall_s,
            frames_per_s: m.frames as f64 / wall_s,
            setup: m.setup,
            gpu_timing,
            stages,
            gpu_passes,
            bound,
        }
    }

    /// The stages as a table for people (`render --stats` prints it on stderr).
    pub fn table(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, text: String| {
            out.push_str(&text);
            out.push('\n');
        };
        line(
            &mut out,
            format!(
                "{} frames in {:.2} s: {:.2} frames/s, bound by {}",
                self.frames, self.wall_s, self.frames_per_s, self.bound
            ),
        );
        line(
            &mut out,
            format!(
                "set-up: the GPU ready in {:.2} s, {} frames stepped meanwhile",
                self.setup.renderer_s, self.setup.frames_stepped
            ),
        );
        line(
            &mut out,
            format!(
                "{:<15} {:>10} {:>8} {:>12} {:>7}",
                "stage", "seconds", "threads", "ms/frame", "share"
            ),
        );
        for s in &self.stages {
            let name = match s.kind {
                StageKind::Work => s.stage.to_string(),
                StageKind::Wait => format!("({})", s.stage),
            };
            let marker = if s.stage == self.bound {
                "  ◀ bound"
            } else {
                ""
            };
            line(
                &mut out,
                format!(
                    "{name:<15} {:>10.3} {:>8} {:>12.3} {:>6.0}%{marker}",
                    s.seconds,
                    s.threads,
                    s.ms_per_frame,
                    s.share * 100.0
                ),
            );
        }
        line(&mut out, format!("gpu timing: {}", self.gpu_timing));
        if !self.gpu_passes.is_empty() {
            let passes: Vec<String> = self
                .gpu_passes
                .iter()
                .map(|p| format!("{} {:.3}", p.pass, p.ms_per_frame))
                .collect();
            line(
                &mut out,
                format!("gpu passes, ms/frame: {}", passes.join(", ")),
            );
        }
        line(
            &mut out,
            "(in brackets: the frame loop's thread blocked on the GPU or on the encoders)".into(),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured() -> Measured {
        Measured {
            frames: 10,
            wall_s: 2.0,
            setup: Setup {
                renderer_s: 0.25,
                frames_stepped: 7,
            },
            simulate_s: 0.5,
            gpu: GpuTimes {
                record_s: 0.15,
                submit_s: 0.05,
                readback_wait_s: 0.3,
                readback_copy_s: 0.1,
                passes: vec![("scene", 0.2), ("fog_compute", 1.2), ("encode", 0.1)],
                timed_frames: 10,
                timestamps: true,
                ..GpuTimes::default()
            },
            video_s: 0.0,
            encode_s: 3.0,
            write_s: 0.2,
            encoder_threads: 2,
            queue_wait_s: 0.05,
        }
    }

    #[test]
    fn the_busiest_work_stage_per_thread_bounds_the_run() {
        let stats = RenderStats::new(&measured());
        // encode: 3.0 s on 2 threads over 2 s = 75 %; gpu: 1.5 s on one over 2 s = 75 %.
        let share = |name: &str| stats.stages.iter().find(|s| s.stage == name).unwrap().share;
        assert!((share("encode") - 0.75).abs() < 1e-12);
        assert!((share("gpu") - 0.75).abs() < 1e-12);
        assert_eq!(stats.gpu_timing, GPU_TIMESTAMPS);
        let mut slower_gpu = measured();
        slower_gpu.gpu.passes[1].1 = 1.5;
        assert_eq!(RenderStats::new(&slower_gpu).bound, "gpu");
        let mut slower_encode = measured();
        slower_encode.encode_s = 3.5;
        assert_eq!(RenderStats::new(&slower_encode).bound, "encode");
        assert!((stats.frames_per_s - 5.0).abs() < 1e-12);
        assert_eq!(stats.gpu_passes[1].pass, "fog_compute");
        assert!((stats.gpu_passes[1].ms_per_frame - 120.0).abs() < 1e-9);
    }

    #[test]
    fn waits_never_bound_and_the_cpu_fallback_says_so() {
        let mut m = measured();
        m.gpu.timestamps = false;
        m.gpu.passes.clear();
        m.gpu.timed_frames = 0;
        m.gpu.readback_wait_s = 1.9;
        m.encode_s = 0.1;
        let stats = RenderStats::new(&m);
        assert_eq!(stats.gpu_timing, GPU_CPU_FALLBACK);
        // gpu = record + submit + wait = 2.1 s: the bound, not the wait itself.
        assert_eq!(stats.bound, "gpu");
        assert!(stats.gpu_passes.is_empty());
        assert!(stats.table().contains("bound by gpu"));
        assert!(stats.table().contains("no timestamp queries"));
    }

    #[test]
    fn the_table_says_how_long_the_gpu_took_to_be_ready() {
        let table = RenderStats::new(&measured()).table();
        let setup = table.lines().nth(1).unwrap();
        assert_eq!(
            setup,
            "set-up: the GPU ready in 0.25 s, 7 frames stepped meanwhile"
        );
    }
}

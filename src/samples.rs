//! The sample schedule: where each of a frame's sub-samples falls inside its pixel and between
//! the fog's sheets.
//!
//! With `output.samples: N` (`--samples N`) the renderer draws every frame N times and
//! averages the pictures in linear light. Sample `i` of N shifts the camera by a sub-pixel
//! offset and moves the fog's sampling along each ray by a fraction of a step (the sheets'
//! heights, the raymarch's start). So geometry edges become coverage and the fog's slab
//! steps become noise, and both average away as N grows. With a shutter
//! (`output.shutter`, `--shutter`) each sample also sees the world at its own moment of the
//! shutter's interval: motion blur (see `Playback::motion_samples`).
//!
//! Each dimension has a low-discrepancy sequence of its own, all seeded at the fixed 0.5:
//!
//! - the sub-pixel offset: the R₂ sequence (Roberts, "The unreasonable effectiveness of
//!   quasirandom sequences", 2018), `frac(0.5 + i · (1/g, 1/g²))` with g ≈ 1.3247 the plastic
//!   number, the real root of `x³ = x + 1`; any prefix covers the pixel evenly;
//! - the fog's phase: the golden-ratio sequence, `frac(0.5 + i/φ)`;
//! - the moment in the shutter: `frac(0.5 + v(i))`, with `v` the base-2 van der Corput
//!   sequence, so 2ᵏ samples split the shutter's interval into equal parts.
//!
//! Each is computed in `f64` from the index alone and rounded to `f32` once: the same offsets
//! on every run, machine and thread count. The seed makes sample 0 the pixel's centre at the
//! middle of a step and of the shutter: with one sample the picture is the single-sample one,
//! byte for byte.
//!
//! Reconstruction is a box filter one pixel wide: every sample weighs 1/N. The offsets span
//! `[-0.5, 0.5)` of a pixel on each axis, so the average is the pixel's mean over its own
//! square.
//!
//! With `output.edge_samples: N` (`--edge-samples N`, [`Sampling::Edges`]) sample 0 is drawn
//! over the whole picture. A pixel whose colour stands out from a neighbour's (a silhouette, a
//! streak of rain, a flame's rim) is marked, and only the marked pixels draw samples 1 to N − 1
//! of the same schedule. A marked pixel is the mean of all N; every other pixel is sample 0,
//! byte for byte. So edges get samples and flat fog costs little (`gpu/passes/edges.rs`).

/// Samples at an edge of a frame whose scene names neither `output.samples` nor
/// `output.edge_samples`: the anti-aliased default. Eight bring the edge error against a
/// supersampled picture to about a quarter of one sample's (`tests/samples.rs`).
pub const DEFAULT_EDGE_SAMPLES: u32 = 8;

/// The most samples a pixel a scene may ask for (`output.samples`).
pub const MAX_SAMPLES: u32 = 256;

/// How each frame is sampled (`output.samples`, `output.edge_samples`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// N samples on every pixel (`--samples N`; 1 is the single-sample picture).
    Every(u32),
    /// One sample a pixel, and N on the pixels at an edge of the first (`--edge-samples N`).
    Edges(u32),
}

impl Sampling {
    /// The sampling of `samples` a pixel and `edge_samples` at an edge: more than one at the
    /// edges is [`Sampling::Edges`] (scene validation refuses it with more than one sample
    /// everywhere).
    pub fn new(samples: u32, edge_samples: u32) -> Sampling {
        match edge_samples {
            0 | 1 => Sampling::Every(samples),
            count => Sampling::Edges(count),
        }
    }

    /// The schedule the renderer draws: N samples, of which the edges draw all.
    pub fn schedule(self) -> SampleSchedule {
        SampleSchedule::new(self.max_samples())
    }

    /// Whether a shutter can spread the samples over its interval: every pixel has at least
    /// two.
    pub fn spreads_over_shutter(self) -> bool {
        matches!(self, Sampling::Every(count) if count >= 2)
    }

    /// The most samples any pixel gets.
    pub fn max_samples(self) -> u32 {
        match self {
            Sampling::Every(count) | Sampling::Edges(count) => count.max(1),
        }
    }
}

/// The plastic number, the real root of `x³ = x + 1`: the R₂ sequence's φ for two dimensions.
const PLASTIC: f64 = 1.324_717_957_244_746;
/// The golden ratio: the R₁ sequence's φ.
const GOLDEN: f64 = 1.618_033_988_749_895;

/// The base-2 van der Corput radical inverse of `i`: its bits mirrored about the point.
fn van_der_corput(i: u32) -> f64 {
    f64::from(i.reverse_bits()) / 4_294_967_296.0
}

/// Where one sample falls: its offset inside the pixel and its phase between the fog's steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleOffset {
    /// Sub-pixel offset in pixels, x right and y down, each in `[-0.5, 0.5)`.
    pub pixel_px: [f32; 2],
    /// Where the fog is sampled between two of its steps, in `[0, 1)`: a sheet stands at
    /// this fraction of its slab (0.5, the middle, for a single sample), and the raymarch
    /// starts this fraction of a step further along (0.5 adds nothing).
    pub depth_phase: f32,
    /// When the sample sees the world, as a fraction of the shutter's interval in `[0, 1)`:
    /// 0.5 is the frame's own moment.
    pub time_phase: f32,
}

impl SampleOffset {
    /// The single sample: the pixel's centre, the middle of each step.
    pub const CENTRE: SampleOffset = SampleOffset {
        pixel_px: [0.0, 0.0],
        depth_phase: 0.5,
        time_phase: 0.5,
    };

    /// Whether this is [`SampleOffset::CENTRE`], the picture without sub-samples.
    pub fn is_centre(&self) -> bool {
        *self == SampleOffset::CENTRE
    }
}

impl Default for SampleOffset {
    fn default() -> Self {
        SampleOffset::CENTRE
    }
}

/// The N samples of every frame, in the order they are drawn and summed.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleSchedule {
    offsets: Vec<SampleOffset>,
}

impl SampleSchedule {
    /// The schedule for `count` samples a pixel (at least one: 0 is taken as 1).
    pub fn new(count: u32) -> SampleSchedule {
        let count = count.max(1);
        let step = [1.0 / PLASTIC, 1.0 / (PLASTIC * PLASTIC), 1.0 / GOLDEN];
        let offsets = (0..count)
            .map(|i| {
                let [x, y, depth] = step.map(|a| (0.5 + f64::from(i) * a).fract());
                SampleOffset {
                    pixel_px: [(x - 0.5) as f32, (y - 0.5) as f32],
                    depth_phase: depth as f32,
                    time_phase: (0.5 + van_der_corput(i)).fract() as f32,
                }
            })
            .collect();
        SampleSchedule { offsets }
    }

    /// How many samples a pixel.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Never empty: a schedule has at least one sample.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The samples, in the order they are drawn.
    pub fn offsets(&self) -> &[SampleOffset] {
        &self.offsets
    }

    /// The weight of each sample in the box filter: 1/N.
    pub fn weight(&self) -> f32 {
        1.0 / self.offsets.len() as f32
    }

    /// Each sample's moment relative to the frame's, in seconds, for a shutter open
    /// `shutter` of a frame interval at `fps`, centred on the frame: `(time_phase − 0.5) ×
    /// shutter / fps`. All zero for a shutter of 0; sample 0's is always zero.
    pub fn time_offsets_s(&self, shutter: f32, fps: u32) -> Vec<f64> {
        let open_s = f64::from(shutter) / f64::from(fps.max(1));
        self.offsets
            .iter()
            .map(|o| (f64::from(o.time_phase) - 0.5) * open_s)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sample_is_the_centre() {
        let schedule = SampleSchedule::new(1);
        assert_eq!(schedule.offsets(), [SampleOffset::CENTRE]);
        assert_eq!(SampleSchedule::new(0), schedule);
        assert_eq!(schedule.weight(), 1.0);
    }

    /// The schedule is part of every sampled picture's bytes: a change to it is a change to
    /// the pictures, made on purpose.
    #[test]
    fn the_schedule_is_pinned() {
        let schedule = SampleSchedule::new(4);
        let bits: Vec<[u32; 4]> = schedule
            .offsets()
            .iter()
            .map(|o| [o.pixel_px[0], o.pixel_px[1], o.depth_phase, o.time_phase].map(f32::to_bits))
            .collect();
        // [x, y, depth phase, time phase] as f32 bits.
        let expected: [[u32; 4]; 4] = [
            [0x00000000, 0x00000000, 0x3f000000, 0x3f000000],
            [0xbe7b0159, 0xbedc3de5, 0x3df1bbce, 0x00000000],
            [0xbefb0159, 0x3e0f086d, 0x3f3c6ef3, 0x3f400000],
            [0x3e877dfa, 0xbe94b9ae, 0x3eb54cda, 0x3e800000],
        ];
        assert_eq!(bits, expected, "{:?}", schedule.offsets());
        // A prefix of a longer schedule is the shorter one.
        assert_eq!(&SampleSchedule::new(16).offsets()[..4], schedule.offsets());
    }

    #[test]
    fn offsets_stay_inside_the_pixel_and_cover_it_evenly() {
        let schedule = SampleSchedule::new(64);
        let mut quadrants = [0u32; 4];
        let mut phase_halves = [0u32; 2];
        for o in schedule.offsets() {
            for v in o.pixel_px {
                assert!((-0.5..0.5).contains(&v), "{o:?}");
            }
            assert!((0.0..1.0).contains(&o.depth_phase), "{o:?}");
            assert!((0.0..1.0).contains(&o.time_phase), "{o:?}");
            let q = usize::from(o.pixel_px[0] >= 0.0) + 2 * usize::from(o.pixel_px[1] >= 0.0);
            quadrants[q] += 1;
            phase_halves[usize::from(o.depth_phase >= 0.5)] += 1;
        }
        // A low-discrepancy set: each quadrant (16 expected) and each half (32) near even.
        for count in quadrants {
            assert!((13..=19).contains(&count), "{quadrants:?}");
        }
        for count in phase_halves {
            assert!((29..=35).contains(&count), "{phase_halves:?}");
        }
        assert_eq!(schedule.weight(), 1.0 / 64.0);
    }

    #[test]
    fn the_shutter_spreads_the_samples_round_the_frame() {
        let schedule = SampleSchedule::new(16);
        assert!(schedule.time_offsets_s(0.0, 30).iter().all(|&t| t == 0.0));
        let offsets = schedule.time_offsets_s(0.5, 30);
        assert_eq!(offsets[0], 0.0);
        let half_open_s = 0.5 / 30.0 / 2.0;
        assert!(
            offsets.iter().all(|t| t.abs() <= half_open_s),
            "{offsets:?}"
        );
        let mean = offsets.iter().sum::<f64>() / 16.0;
        assert!(mean.abs() < 0.1 * half_open_s, "mean {mean}");
    }
}

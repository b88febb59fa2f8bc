//! The sample schedule: where each of a frame's sub-samples falls inside its pixel and between
//! the fog's sheets.
//!
//! With `output.samples: N` (`--samples N`) the renderer draws every frame N times and
//! averages the pictures in linear light. Sample `i` of N shifts the camera by a sub-pixel
//! offset and moves the fog's sampling along each ray by a fraction of a step (the sheets'
//! heights, the raymarch's start). So geometry edges become coverage and the fog's slab
//! steps become noise, and both average away as N grows.
//!
//! The offsets follow the R₃ low-discrepancy sequence (Roberts, "The unreasonable
//! effectiveness of quasirandom sequences", 2018): point `i` is
//! `frac(0.5 + i · (1/φ, 1/φ², 1/φ³))`, where φ ≈ 1.2207 is the real root of `x⁴ = x + 1`.
//! Any prefix of it covers the unit cube evenly, so every N is well spread. The sequence is
//! computed in `f64` from the index alone and rounded to `f32` once: the same offsets on every
//! run, machine and thread count. Its seed is the fixed 0.5, which makes sample 0 the pixel's
//! centre at the middle of a step: with one sample the picture is the single-sample one,
//! byte for byte.
//!
//! Reconstruction is a box filter one pixel wide: every sample weighs 1/N. The offsets span
//! `[-0.5, 0.5)` of a pixel on each axis, so the average is the pixel's mean over its own
//! square.

/// The most samples a pixel a scene may ask for (`output.samples`).
pub const MAX_SAMPLES: u32 = 256;

/// φ for three dimensions: the real root of `x⁴ = x + 1`.
const PHI_3: f64 = 1.220_744_084_605_759_5;

/// Where one sample falls: its offset inside the pixel and its phase between the fog's steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleOffset {
    /// Sub-pixel offset in pixels, x right and y down, each in `[-0.5, 0.5)`.
    pub pixel_px: [f32; 2],
    /// Where the fog is sampled between two of its steps, in `[0, 1)`: a sheet stands at
    /// this fraction of its slab (0.5, the middle, for a single sample), and the raymarch
    /// starts this fraction of a step further along (0.5 adds nothing).
    pub depth_phase: f32,
}

impl SampleOffset {
    /// The single sample: the pixel's centre, the middle of each step.
    pub const CENTRE: SampleOffset = SampleOffset {
        pixel_px: [0.0, 0.0],
        depth_phase: 0.5,
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
        let alpha = [
            1.0 / PHI_3,
            1.0 / (PHI_3 * PHI_3),
            1.0 / (PHI_3 * PHI_3 * PHI_3),
        ];
        let offsets = (0..count)
            .map(|i| {
                let point = alpha.map(|a| (0.5 + f64::from(i) * a).fract());
                SampleOffset {
                    pixel_px: [(point[0] - 0.5) as f32, (point[1] - 0.5) as f32],
                    depth_phase: point[2] as f32,
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
        let bits: Vec<[u32; 3]> = schedule
            .offsets()
            .iter()
            .map(|o| [o.pixel_px[0], o.pixel_px[1], o.depth_phase].map(f32::to_bits))
            .collect();
        // [x, y, depth phase] as f32 bits.
        let expected: [[u32; 3]; 4] = [
            [0x00000000, 0x00000000, 0x3f000000],
            [0xbe392ad7, 0xbea86cf9, 0x3d4b92ba],
            [0xbeb92ad7, 0x3eaf260e, 0x3f197257],
            [0x3eea3fbd, 0x3c5722a7, 0x3e18ae0c],
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
            let q = usize::from(o.pixel_px[0] >= 0.0) + 2 * usize::from(o.pixel_px[1] >= 0.0);
            quadrants[q] += 1;
            phase_halves[usize::from(o.depth_phase >= 0.5)] += 1;
        }
        // A low-discrepancy set: each quadrant and each half within a few points of even.
        for count in quadrants {
            assert!((13..=19).contains(&count), "{quadrants:?}");
        }
        for count in phase_halves {
            assert!((29..=35).contains(&count), "{phase_halves:?}");
        }
        assert_eq!(schedule.weight(), 1.0 / 64.0);
    }
}

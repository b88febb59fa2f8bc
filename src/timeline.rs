//! Output frames and simulation steps: which 60 Hz step each frame shows, and frame ranges.
//!
//! The ball and the fluid step at exactly 1/60 s whatever the output rate. Frame N is the
//! picture at time N / fps, which is the state after floor(N · 60 / fps) steps, computed in
//! integers so 24 or 30 fps never drift from 60.

use std::fmt;

/// Simulation steps per second.
pub const STEPS_PER_SECOND: u32 = 60;

/// Length of one simulation step in seconds.
pub const STEP_S: f32 = 1.0 / STEPS_PER_SECOND as f32;

/// Maps output frames to simulation steps for one frame rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeline {
    /// Output frames per second.
    pub fps: u32,
    /// Number of frames in the clip.
    pub frame_count: u32,
}

impl Timeline {
    /// Number of simulation steps taken before frame `frame` is shown.
    pub fn steps_before(&self, frame: u32) -> u64 {
        u64::from(frame) * u64::from(STEPS_PER_SECOND) / u64::from(self.fps)
    }

    /// Time of frame `frame` in seconds.
    pub fn frame_time_s(&self, frame: u32) -> f64 {
        f64::from(frame) / f64::from(self.fps)
    }

    /// Every frame of the clip.
    pub fn all_frames(&self) -> FrameSet {
        FrameSet::from_sorted((0..self.frame_count).collect())
    }
}

/// A sorted set of output frames, as chosen by `--frames`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameSet {
    frames: Vec<u32>,
}

/// A `--frames` value that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--frames {text}: {reason}")]
pub struct RangeError {
    /// The text given.
    pub text: String,
    /// What is wrong and how to write it.
    pub reason: String,
}

impl FrameSet {
    fn from_sorted(frames: Vec<u32>) -> Self {
        FrameSet { frames }
    }

    /// The set of `frames`, in any order, repeats dropped.
    pub fn from_list(frames: impl IntoIterator<Item = u32>) -> FrameSet {
        let mut frames: Vec<u32> = frames.into_iter().collect();
        frames.sort_unstable();
        frames.dedup();
        FrameSet::from_sorted(frames)
    }

    /// Parses `A..B` (B excluded), `A..=B` or `A-B` (both included), a single `N`, or a
    /// comma-separated list of those.
    pub fn parse(text: &str) -> Result<FrameSet, RangeError> {
        let fail = |reason: String| RangeError {
            text: text.to_string(),
            reason,
        };
        let number = |s: &str| -> Result<u32, RangeError> {
            s.trim().parse::<u32>().map_err(|_| {
                fail(format!(
                    "`{}` is not a frame number; write ranges as A..B, A..=B, A-B or a list like 0,10,20..30",
                    s.trim()
                ))
            })
        };
        let mut frames = Vec::new();
        for part in text.split(',') {
            let part = part.trim();
            if part.is_empty() {
                return Err(fail("empty item in the list".into()));
            }
            let (first, last_included) = if let Some((a, b)) = part.split_once("..=") {
                (number(a)?, number(b)?)
            } else if let Some((a, b)) = part.split_once("..") {
                let (a, b) = (number(a)?, number(b)?);
                if b <= a {
                    return Err(fail(format!("`{part}` is empty: the end is excluded")));
                }
                (a, b - 1)
            } else if let Some((a, b)) = part.split_once('-') {
                (number(a)?, number(b)?)
            } else {
                let n = number(part)?;
                (n, n)
            };
            if last_included < first {
                return Err(fail(format!("`{part}` runs backwards")));
            }
            frames.extend(first..=last_included);
        }
        frames.sort_unstable();
        frames.dedup();
        Ok(FrameSet::from_sorted(frames))
    }

    /// The frames in increasing order.
    pub fn frames(&self) -> &[u32] {
        &self.frames
    }

    /// The last frame, if any.
    pub fn last(&self) -> Option<u32> {
        self.frames.last().copied()
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// True when no frame is chosen.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The `index`-th (from 0) of `count` contiguous slices of these frames, as `--chunk I/N`
    /// renders: slice k starts at floor(k·len/count), so the slices cover every frame exactly
    /// once, in order, and their sizes differ by at most one. A slice is empty when `count`
    /// exceeds the number of frames.
    pub fn chunk(&self, chunk: Chunk) -> FrameSet {
        // `Chunk` holds index < count, so both boundaries lie in 0..=len.
        let (len, count) = (self.frames.len() as u64, u64::from(chunk.count));
        let boundary = |k: u32| (u64::from(k) * len / count) as usize;
        let (start, end) = (boundary(chunk.index), boundary(chunk.index + 1));
        FrameSet::from_sorted(self.frames[start..end].to_vec())
    }
}

/// One slice of a frame set for a render farm (`--chunk I/N`): slice `index` (from 0) of
/// `count`, with `index < count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    index: u32,
    count: u32,
}

impl Chunk {
    /// Slice `index` of `count`; `None` unless `index < count`.
    pub fn new(index: u32, count: u32) -> Option<Chunk> {
        (index < count).then_some(Chunk { index, count })
    }

    /// The slice's number, from 0.
    pub fn index(self) -> u32 {
        self.index
    }

    /// The number of slices.
    pub fn count(self) -> u32 {
        self.count
    }
}

impl fmt::Display for Chunk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl fmt::Display for FrameSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.frames.first(), self.frames.last()) {
            (Some(a), Some(b)) => write!(f, "{} frames ({a}..={b})", self.frames.len()),
            _ => write!(f, "no frames"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_integer_exact_for_common_rates() {
        let t60 = Timeline {
            fps: 60,
            frame_count: 600,
        };
        let t30 = Timeline {
            fps: 30,
            frame_count: 300,
        };
        let t24 = Timeline {
            fps: 24,
            frame_count: 240,
        };
        for n in 0..300 {
            assert_eq!(t30.steps_before(n), t60.steps_before(2 * n));
        }
        // 24 fps: 2.5 steps a frame, no drift after ten minutes.
        assert_eq!(t24.steps_before(24 * 600), 60 * 600);
        assert_eq!(t24.steps_before(1), 2);
        assert_eq!(t24.steps_before(2), 5);
    }

    #[test]
    fn parses_every_range_form() {
        assert_eq!(FrameSet::parse("0..3").unwrap().frames(), &[0, 1, 2]);
        assert_eq!(FrameSet::parse("2..=4").unwrap().frames(), &[2, 3, 4]);
        assert_eq!(FrameSet::parse("5-7").unwrap().frames(), &[5, 6, 7]);
        assert_eq!(FrameSet::parse("9").unwrap().frames(), &[9]);
        assert_eq!(
            FrameSet::parse("10, 0..2,1,20-21").unwrap().frames(),
            &[0, 1, 10, 20, 21]
        );
    }

    #[test]
    fn chunks_cover_every_frame_once_in_contiguous_near_equal_slices() {
        for frames in [
            FrameSet::parse("0..12").unwrap(),
            FrameSet::parse("3,5,9..20,40").unwrap(),
        ] {
            let len = frames.len();
            for count in 1..=(len as u32 + 3) {
                let slices: Vec<FrameSet> = (0..count)
                    .map(|i| frames.chunk(Chunk::new(i, count).unwrap()))
                    .collect();
                let joined: Vec<u32> = slices.iter().flat_map(|s| s.frames().to_vec()).collect();
                assert_eq!(joined, frames.frames(), "{count} chunks");
                let sizes: Vec<usize> = slices.iter().map(FrameSet::len).collect();
                let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(max - min <= 1, "{count} chunks: sizes {sizes:?}");
                if count as usize > len {
                    assert!(slices.iter().any(FrameSet::is_empty));
                }
            }
        }
        let twelve = FrameSet::parse("0..12").unwrap();
        assert_eq!(
            twelve.chunk(Chunk::new(1, 3).unwrap()).frames(),
            &[4, 5, 6, 7]
        );
        assert_eq!(
            twelve.chunk(Chunk::new(4, 5).unwrap()).frames(),
            &[9, 10, 11]
        );
        assert!(Chunk::new(0, 0).is_none());
        assert!(Chunk::new(4, 4).is_none());
    }

    #[test]
    fn rejects_bad_ranges_with_a_reason() {
        for bad in ["", "a..b", "3..3", "5-2", "1,,2", "-1", "1..=x"] {
            let err = FrameSet::parse(bad).unwrap_err();
            assert!(err.to_string().starts_with("--frames"), "{err}");
        }
    }
}

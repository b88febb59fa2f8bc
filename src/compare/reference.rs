//! The files of a golden folder: the references' format ([`GoldenFormat`], PNG or EXR), their
//! names, the failure pictures beside them, and the reference files no checked frame used.
//!
//! A folder holds one format, which `golden.json` records. References are
//! `frame_NNNN.png` (8-bit sRGB) or `frame_NNNN.exr` (linear half float). A failing frame gets
//! `frame_NNNN.actual.png` or `.actual.exr` (what `--accept` takes), and always the PNG heat
//! map `frame_NNNN.diff.png` and strip `frame_NNNN.strip.png`, which any viewer shows.

use crate::output::maps::{FLUID_MAP, LIFT_MAP};
use crate::timeline::FrameSet;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The kind of file a golden folder's references are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GoldenFormat {
    /// `frame_NNNN.png`: 8-bit sRGB, as `render` writes by default.
    #[default]
    Png,
    /// `frame_NNNN.exr`: linear half-float light, as `render --format exr` writes.
    Exr,
}

impl GoldenFormat {
    /// The name on the command line and in `golden.json`: `png` or `exr`.
    pub fn name(self) -> &'static str {
        match self {
            GoldenFormat::Png => "png",
            GoldenFormat::Exr => "exr",
        }
    }

    /// Whether this is PNG, the format a `golden.json` without the field means.
    pub fn is_png(&self) -> bool {
        *self == GoldenFormat::Png
    }

    /// The reference file name of `frame`: `frame_0042.png` or `frame_0042.exr`.
    pub fn reference_name(self, frame: u32) -> String {
        format!("frame_{frame:04}.{}", self.name())
    }
}

/// Files written beside a reference when its frame fails: the actual picture (in the
/// references' format), the heat map and the strip.
pub fn artifact_paths(golden_dir: &Path, frame: u32, format: GoldenFormat) -> [PathBuf; 3] {
    let stem = format!("frame_{frame:04}");
    [
        golden_dir.join(format!("{stem}.actual.{}", format.name())),
        golden_dir.join(format!("{stem}.diff.png")),
        golden_dir.join(format!("{stem}.strip.png")),
    ]
}

/// Removes the failure pictures of a frame that now passes or was blessed, in either format.
pub(super) fn remove_stale(golden_dir: &Path, frame: u32) {
    let [png, diff, strip] = artifact_paths(golden_dir, frame, GoldenFormat::Png);
    let [exr, ..] = artifact_paths(golden_dir, frame, GoldenFormat::Exr);
    for stale in [png, exr, diff, strip] {
        // Absent is the usual case; a file that cannot be removed is only stale clutter.
        let _ = std::fs::remove_file(stale);
    }
}

/// The reference files in `golden` (and `golden/maps` when `maps`) whose frame was not
/// checked, sorted by name. In a folder of `format`, a reference of the other format is never
/// used.
pub(super) fn unused_references(
    golden: &Path,
    frames: &FrameSet,
    maps: bool,
    format: GoldenFormat,
) -> Vec<PathBuf> {
    let numbered = |n: &str| n.len() >= 4 && n.parse::<u32>().is_ok();
    let unchecked = |n: &str| numbered(n) && n.parse().is_ok_and(|f| !frames.frames().contains(&f));
    let frame_unused = |name: &str| {
        let Some(rest) = name.strip_prefix("frame_") else {
            return false;
        };
        [GoldenFormat::Png, GoldenFormat::Exr].iter().any(|&kind| {
            rest.strip_suffix(&format!(".{}", kind.name()))
                .is_some_and(|n| numbered(n) && (kind != format || unchecked(n)))
        })
    };
    // Maps are PNG data whatever the frames' format.
    let map_unused = |name: &str| {
        [FLUID_MAP, LIFT_MAP].iter().any(|prefix| {
            name.strip_prefix(prefix)
                .and_then(|n| n.strip_prefix('_'))
                .and_then(|n| n.strip_suffix(".png"))
                .is_some_and(unchecked)
        })
    };
    let mut unused = scan(golden, frame_unused);
    if maps {
        unused.extend(scan(&golden.join("maps"), map_unused));
    }
    unused.sort();
    unused
}

/// The files in `dir` whose name `unused` picks; none when it cannot be read.
fn scan(dir: &Path, unused: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| unused(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_are_unchecked_frames_and_references_of_the_other_format() {
        let dir = std::env::temp_dir().join(format!("fogbank-reference-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("maps")).unwrap();
        for name in [
            "frame_0001.exr",
            "frame_0002.exr",
            "frame_0001.png",
            "frame_0001.actual.exr",
            "frame_0001.diff.png",
            "frame_7.exr",
            "golden.json",
            "maps/fluid_0001.png",
            "maps/lift_0002.png",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let frames = FrameSet::from_list([1]);
        let names = |paths: Vec<PathBuf>| -> Vec<String> {
            let strip = |p: &PathBuf| p.strip_prefix(&dir).unwrap().display().to_string();
            paths.iter().map(strip).collect()
        };
        assert_eq!(
            names(unused_references(&dir, &frames, true, GoldenFormat::Exr)),
            ["frame_0001.png", "frame_0002.exr", "maps/lift_0002.png"]
        );
        assert_eq!(
            names(unused_references(&dir, &frames, false, GoldenFormat::Png)),
            ["frame_0001.exr", "frame_0002.exr"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(GoldenFormat::Exr.reference_name(42), "frame_0042.exr");
        let [actual, diff, _] = artifact_paths(Path::new("g"), 3, GoldenFormat::Exr);
        assert_eq!(actual, Path::new("g/frame_0003.actual.exr"));
        assert_eq!(diff, Path::new("g/frame_0003.diff.png"));
    }
}

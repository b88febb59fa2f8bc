//! Atomic file writes: bytes go to a hidden temporary file beside the target, then a rename.
//!
//! A reader (ffmpeg, Blender, a farm's checker) therefore sees either no file or a whole one,
//! and an interrupted run leaves no truncated PNG behind. Temporary names start with `.` and
//! end with `.tmp` so they are easy to recognise and to sweep.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The hidden temporary path used while `target` is being written.
pub fn temp_path_for(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    target.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Writes `bytes` to `target` atomically: temporary file, flush and sync, then rename.
/// On any failure the temporary file is removed and `target` is untouched.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_path_for(target);
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("fogbank-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("frame_0000.png");
        write_atomic(&target, b"first").unwrap();
        write_atomic(&target, b"second, longer").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"second, longer");
        let leftovers: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failure_leaves_target_untouched() {
        let target = Path::new("/nonexistent-fogbank-dir/frame_0000.png");
        assert!(write_atomic(target, b"x").is_err());
        assert!(!target.exists());
    }
}

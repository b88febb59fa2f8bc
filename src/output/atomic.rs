//! Atomic file writes: bytes go to a hidden temporary file beside the target, then a rename.
//!
//! A reader (ffmpeg, Blender, a farm's checker) therefore sees either no file or a whole one,
//! and an interrupted run leaves no truncated PNG behind. Temporary names are
//! `.NAME.PID.tmp` (a leading `.`, the process id, `.tmp` at the end) so they are easy to
//! recognise and to sweep.
//!
//! The temporary file is created exclusively (`create_new`): fogbank never writes into a file
//! it did not create. A file of that name already there can only be left over from a dead
//! process that had the same id (in a container fogbank is often process 1 on every run): it is
//! removed and the creation retried once. After the rename the folder itself is synced (on
//! Unix), so the new name survives a power cut as well as the bytes do.

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

/// Creates the temporary file `temp` exclusively; a stale file of that name (left by a dead
/// process with the same id) is removed and the creation retried once.
pub fn create_temp(temp: &Path) -> io::Result<fs::File> {
    let create = || {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(temp)
    };
    match create() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            fs::remove_file(temp)?;
            create()
        }
        result => result,
    }
}

/// Syncs the folder holding `path`, so a rename into it is durable. A no-op where folders
/// cannot be opened or synced (not Unix, or a file system that does not support it).
pub fn sync_parent_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        match fs::File::open(parent).and_then(|dir| dir.sync_all()) {
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::InvalidInput | io::ErrorKind::Unsupported
                ) =>
            {
                Ok(())
            }
            result => result,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// Writes `bytes` to `target` atomically: exclusive temporary file, write, sync, rename, then
/// sync the folder. On any failure before the rename the temporary file is removed and
/// `target` is untouched.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_path_for(target);
    let result = (|| {
        let mut file = create_temp(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result?;
    sync_parent_dir(target)
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
    fn a_stale_temporary_file_of_the_same_name_does_not_break_a_write() {
        let dir = std::env::temp_dir().join(format!("fogbank-atomic-stale-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("frame_0001.png");
        // Left by a dead process that had our id, longer than what we write.
        fs::write(temp_path_for(&target), b"stale bytes from an earlier run").unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert!(!temp_path_for(&target).exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_relative_target_in_the_current_folder_is_written() {
        // The folder sync opens "." for a bare file name.
        assert!(sync_parent_dir(Path::new("frame_0000.png")).is_ok());
    }

    #[test]
    fn failure_leaves_target_untouched() {
        let target = Path::new("/nonexistent-fogbank-dir/frame_0000.png");
        assert!(write_atomic(target, b"x").is_err());
        assert!(!target.exists());
    }
}

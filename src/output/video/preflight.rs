//! Finding ffmpeg before any frame is rendered: `$FOGBANK_FFMPEG` or the first `ffmpeg` on
//! `PATH`, and whether it has the encoder the format needs, so a missing ffmpeg or encoder
//! is reported at once, with how to install it.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{VideoError, VideoFormat, VideoSettings};

/// Environment variable naming the ffmpeg executable to use instead of searching `PATH`.
pub const FFMPEG_ENV: &str = "FOGBANK_FFMPEG";

/// Checks everything that can be checked before rendering: the settings, and for MP4 and WebM
/// that ffmpeg is there and has the encoder. Returns the ffmpeg that will be used, if any.
pub fn preflight(
    format: VideoFormat,
    settings: &VideoSettings,
) -> Result<Option<PathBuf>, VideoError> {
    settings.validate(format)?;
    let Some(encoder) = format.encoder() else {
        return Ok(None);
    };
    let ffmpeg = find_ffmpeg()?;
    check_encoder(&ffmpeg, encoder, format)?;
    Ok(Some(ffmpeg))
}

/// The ffmpeg to use: `$FOGBANK_FFMPEG` if set, else the first `ffmpeg` on `PATH`.
pub fn find_ffmpeg() -> Result<PathBuf, VideoError> {
    if let Some(path) = std::env::var_os(FFMPEG_ENV).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(path);
        return if is_executable(&path) {
            Ok(path)
        } else {
            Err(VideoError::FfmpegEnvInvalid { path })
        };
    }
    find_ffmpeg_in(std::env::var_os("PATH").as_deref())
}

/// The first `ffmpeg` in the directories of `path_var` (a `PATH`-style list).
pub fn find_ffmpeg_in(path_var: Option<&OsStr>) -> Result<PathBuf, VideoError> {
    find_program_in("ffmpeg", path_var).ok_or(VideoError::FfmpegNotFound)
}

/// The first executable called `name` in the directories of `path_var`.
pub fn find_program_in(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    std::env::split_paths(path_var)
        .filter(|dir| !dir.as_os_str().is_empty())
        .flat_map(|dir| {
            let plain = dir.join(name);
            let exe = dir.join(format!("{name}.exe"));
            [plain, exe]
        })
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        metadata.is_file()
    }
}

/// Asks `ffmpeg` whether it has `encoder` (`ffmpeg -h encoder=NAME`).
pub fn check_encoder(
    ffmpeg: &Path,
    encoder: &'static str,
    format: VideoFormat,
) -> Result<(), VideoError> {
    let output = Command::new(ffmpeg)
        .args(["-hide_banner", "-h"])
        .arg(format!("encoder={encoder}"))
        .stdin(Stdio::null())
        .output()
        .map_err(|source| VideoError::FfmpegStart {
            ffmpeg: ffmpeg.to_path_buf(),
            source,
        })?;
    let text = String::from_utf8_lossy(&output.stdout);
    if text.contains(&format!("Encoder {encoder} ")) {
        Ok(())
    } else {
        Err(VideoError::EncoderMissing {
            ffmpeg: ffmpeg.to_path_buf(),
            encoder,
            format: format.name(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use crate::output::video::test_support::fake_ffmpeg;
    use crate::output::video::test_support::temp_dir;
    use std::ffi::OsString;

    #[test]
    fn missing_ffmpeg_gives_the_install_hint() {
        let empty = OsString::new();
        let err = find_ffmpeg_in(Some(&empty)).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("sudo apt-get install ffmpeg"), "{text}");
        assert!(text.contains(".gif") && text.contains(FFMPEG_ENV), "{text}");
        assert!(find_ffmpeg_in(None).is_err());
        let dir = temp_dir("nopath");
        let joined = std::env::join_paths([dir.clone()]).unwrap();
        assert!(find_ffmpeg_in(Some(&joined)).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn finds_an_executable_on_a_given_path() {
        let dir = temp_dir("find");
        let tools = dir.join("tools");
        fs::create_dir_all(&tools).unwrap();
        fs::write(dir.join("ffmpeg"), "not executable").unwrap();
        let fake = fake_ffmpeg(&tools, "exit 0");
        let path_var = std::env::join_paths([dir.clone(), tools.clone()]).unwrap();
        assert_eq!(find_ffmpeg_in(Some(&path_var)).unwrap(), fake);
        fs::remove_dir_all(&dir).unwrap();
    }
}

//! The discipline every video sink follows on disk: write to the hidden temporary path of
//! [`temp_path_for`], rename into place only when the encode succeeded, and delete the
//! temporary file when the sink is dropped unfinished, so no truncated video is ever left
//! under the requested name. Also the check every pushed frame passes.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use super::{EncoderError, VideoError};
use crate::frame::Frame;
use crate::output::atomic::{create_temp, sync_parent_dir, temp_path_for};

/// A file being made: the target, its hidden temporary path, and whether it was committed.
/// Dropping it uncommitted deletes the temporary file.
pub(crate) struct PendingFile {
    target: PathBuf,
    temp: PathBuf,
    committed: bool,
}

impl PendingFile {
    pub(crate) fn new(target: &Path) -> Self {
        PendingFile {
            target: target.to_path_buf(),
            temp: temp_path_for(target),
            committed: false,
        }
    }

    pub(crate) fn target(&self) -> &Path {
        &self.target
    }

    pub(crate) fn temp(&self) -> &Path {
        &self.temp
    }

    /// Creates the temporary file exclusively (see [`create_temp`]).
    pub(crate) fn create(&self) -> Result<File, VideoError> {
        create_temp(&self.temp).map_err(|source| self.io_error("create", source))
    }

    pub(crate) fn io_error(&self, action: &'static str, source: io::Error) -> VideoError {
        VideoError::Io {
            action,
            path: self.target.clone(),
            source,
        }
    }

    /// The error for a failure of the `gif` encoder, I/O failures as
    /// [`VideoError::Io`], the rest as [`VideoError::Encode`].
    pub(crate) fn gif_error(&self, error: gif::EncodingError) -> VideoError {
        match error {
            gif::EncodingError::Io(source) => self.io_error("write", source),
            other => self.encoder_error(EncoderError::Gif(other)),
        }
    }

    fn encoder_error(&self, source: EncoderError) -> VideoError {
        VideoError::Encode {
            path: self.target.clone(),
            source,
        }
    }

    /// Flushes the finished temporary file to disk, renames it to the target, and returns the
    /// target and its size in bytes.
    pub(crate) fn sync_and_commit(&mut self) -> Result<(PathBuf, u64), VideoError> {
        let bytes = File::open(&self.temp)
            .and_then(|file| {
                file.sync_all()?;
                Ok(file.metadata()?.len())
            })
            .map_err(|source| self.io_error("write", source))?;
        Ok((self.commit()?, bytes))
    }

    /// Renames the finished temporary file to the target.
    pub(crate) fn commit(&mut self) -> Result<PathBuf, VideoError> {
        fs::rename(&self.temp, &self.target)
            .map_err(|source| self.io_error("rename into place", source))?;
        self.committed = true;
        sync_parent_dir(&self.target)
            .map_err(|source| self.io_error("sync the folder of", source))?;
        Ok(self.target.clone())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Checks that `frame` has the video's size and a whole pixel buffer.
pub(crate) fn check_frame(frame: &Frame, width: u32, height: u32) -> Result<(), VideoError> {
    let whole = frame.rgba8.len() as u64 == frame.width as u64 * frame.height as u64 * 4;
    if frame.width != width || frame.height != height || !whole {
        return Err(VideoError::FrameSize {
            frame_index: frame.frame_index,
            frame_width: frame.width,
            frame_height: frame.height,
            width,
            height,
        });
    }
    Ok(())
}

//! Frames coming back from a [`Renderer`]: the oldest in flight, all of them, or one frame
//! rendered and waited for.

use super::Renderer;
use crate::frame::{Frame, FrameInputs};
use crate::gpu::GpuError;

impl Renderer {
    /// Waits for the oldest frame in flight and returns it (with its pass times added to
    /// [`Renderer::times`]); `None` when nothing is in flight.
    pub(super) fn wait_oldest(&mut self) -> Result<Option<Frame>, GpuError> {
        let frame = self.readback.wait_oldest()?;
        if frame.is_some()
            && let Some(timer) = self.timer.as_mut()
        {
            timer.collect_oldest(&self.device, &mut self.times)?;
        }
        Ok(frame)
    }

    /// Waits for every frame in flight and returns them in submission order.
    pub fn finish(&mut self) -> Result<Vec<Frame>, GpuError> {
        let mut frames = Vec::with_capacity(self.readback.in_flight());
        while let Some(frame) = self.wait_oldest()? {
            frames.push(frame);
        }
        self.errors.take("frame readback")?;
        Ok(frames)
    }

    /// Renders one frame and waits for it. Needs no frames in flight (call
    /// [`Renderer::finish`] first), so none is silently dropped.
    pub fn render_one(&mut self, inputs: &FrameInputs<'_>) -> Result<Frame, GpuError> {
        let count = self.readback.in_flight();
        if count > 0 {
            return Err(GpuError::FramesInFlight { count });
        }
        let early = self.submit(inputs)?;
        let mut frames = self.finish()?;
        frames.extend(early);
        frames.pop().ok_or(GpuError::Readback {
            frame_index: inputs.frame_index,
            message: "no frame came back".into(),
        })
    }
}

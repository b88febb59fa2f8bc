//! The caption strip (`--stamp`, `--caption`): what a frame shows, burnt into its 8-bit picture
//! for dailies and documentation, as Blender's render stamp does.
//!
//! One strip along the bottom or the top edge: the picture darkened behind lines of text in
//! the bundled face ([`super::text`]). The text is the free caption first, then the scene's
//! name, the frame, its time, the view, the compositor, the samples a pixel and the world's
//! state hash, laid out word-group by word-group into as many lines as the strip holds.
//! Everything scales with the picture's height: the letters are an 18th of it (at least 10
//! pixels), and the strip is at most a fifth of it (at 320×180: two lines of 12 pixels, 30
//! rows). A
//! group that does not fit ends the last line with `…`. The strip's height depends only on the
//! picture's size, the scene's name and the caption, never on the frame, so a clip's strip
//! does not jump.
//!
//! Only the 8-bit picture carries it: EXR frames and layers are the render itself.

use super::text::{Canvas, TextStyle, darken_rows, draw_text};
use crate::frame::View;
use crate::gpu::Compositor;
use crate::scene::output::MAX_CAPTION_CHARS;
use crate::scene::{Scene, StampPlace};

/// The strip's backing keeps this many 255ths of the picture's brightness.
const BACKING_KEEP: u8 = 70;
/// The text's colour, 8-bit sRGB.
const TEXT_COLOR: [u8; 3] = [240, 240, 240];
/// Letters' em size as a share of the picture's height: 10 pixels at 180 rows.
const SIZE_PER_HEIGHT: f32 = 1.0 / 18.0;
/// The smallest em size, pixels: below it digits start to look alike.
const MIN_SIZE_PX: f32 = 10.0;
/// The strip's largest share of the picture's height.
const MAX_STRIP_SHARE: u32 = 5;
/// Space between two groups on a line.
const GAP: &str = "  ";

/// Whether `text` can be a caption: one line of at most [`MAX_CAPTION_CHARS`] characters, none
/// of them control characters. The error says what is wrong, to follow the field's name.
pub fn check_text(text: &str) -> Result<(), String> {
    let count = text.chars().count();
    if count > MAX_CAPTION_CHARS {
        return Err(format!(
            "is {count} characters long, at most {MAX_CAPTION_CHARS} fit in a caption"
        ));
    }
    if let Some(ch) = text.chars().find(|c| c.is_control()) {
        return Err(format!(
            "holds the control character {ch:?}; a caption is one line"
        ));
    }
    Ok(())
}

/// What the strip says about one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameFacts {
    /// The output frame.
    pub frame: u32,
    /// Its time, seconds.
    pub time_s: f64,
    /// What it shows.
    pub view: View,
    /// How the fog was put over the scene.
    pub compositor: Compositor,
    /// Samples a pixel.
    pub samples: u32,
    /// The world's state hash at the frame.
    pub state_hash: u64,
}

/// A scene's caption strip: where it goes and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caption {
    /// Top or bottom.
    top: bool,
    /// Whether the frame's facts are on it (`--stamp`), or only the free text.
    facts: bool,
    /// The free text (`--caption`).
    text: Option<String>,
    /// The scene's name.
    name: String,
}

/// Where the strip's lines go on a picture of one size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StripLayout {
    /// The letters.
    pub style: TextStyle,
    /// Padding round the text, pixels.
    pub pad_px: i32,
    /// Lines the strip holds.
    pub lines: usize,
    /// First row of the strip.
    pub top_row: u32,
    /// Row after the strip's last.
    pub bottom_row: u32,
}

impl Caption {
    /// The scene's strip (`output.stamp`, `output.caption`); `None` when it has neither, so
    /// the picture is left as rendered.
    pub fn for_scene(scene: &Scene) -> Option<Caption> {
        let output = &scene.output;
        let text = output.caption.clone().filter(|t| !t.trim().is_empty());
        if output.stamp == StampPlace::Off && text.is_none() {
            return None;
        }
        Some(Caption {
            top: output.stamp == StampPlace::Top,
            facts: output.stamp != StampPlace::Off,
            text,
            name: scene.name.clone(),
        })
    }

    /// The groups of text on the strip, in order.
    fn groups(&self, facts: &FrameFacts) -> Vec<String> {
        let mut groups: Vec<String> = self.text.iter().cloned().collect();
        if self.facts {
            let samples = match facts.samples {
                1 => "1 sample".to_string(),
                n => format!("{n} samples"),
            };
            groups.extend([
                self.name.clone(),
                format!("frame {}", facts.frame),
                format!("{:.3} s", facts.time_s),
                facts.view.name().to_string(),
                facts.compositor.name().to_string(),
                samples,
                format!("hash {:016x}", facts.state_hash),
            ]);
        }
        groups
    }

    /// Where the strip goes on a `width`×`height` picture.
    pub fn layout(&self, width: u32, height: u32) -> StripLayout {
        let style = TextStyle::new((height as f32 * SIZE_PER_HEIGHT).round().max(MIN_SIZE_PX));
        let pad_px = (style.size_px * 0.25).ceil() as i32;
        let line_px = style.line_px();
        let room = (height / MAX_STRIP_SHARE) as i32 - 2 * pad_px;
        let max_lines = (room / line_px).max(1) as usize;
        // The widest facts any frame can have, so the strip's height never changes in a clip.
        let widest = FrameFacts {
            frame: 9_999_999,
            time_s: 99_999.999,
            view: View::Sheets,
            compositor: Compositor::Raymarch { steps: 0 },
            samples: 256,
            state_hash: 0,
        };
        let needed = wrap(
            &self.groups(&widest),
            style.chars_in(width as f32 - 2.0 * pad_px as f32),
        )
        .len();
        let lines = needed.clamp(1, max_lines);
        let strip = (lines as i32 * line_px + 2 * pad_px).min(height as i32) as u32;
        let (top_row, bottom_row) = if self.top {
            (0, strip)
        } else {
            (height - strip, height)
        };
        StripLayout {
            style,
            pad_px,
            lines,
            top_row,
            bottom_row,
        }
    }

    /// Burns the strip for `facts` into `rgba8`, a `width`×`height` 8-bit sRGB RGBA picture.
    /// Only the strip's rows change.
    pub fn stamp(&self, rgba8: &mut [u8], width: u32, height: u32, facts: &FrameFacts) {
        let layout = self.layout(width, height);
        let mut canvas = Canvas {
            rgba8,
            width,
            height,
        };
        darken_rows(&mut canvas, layout.top_row, layout.bottom_row, BACKING_KEEP);
        let chars = layout
            .style
            .chars_in(width as f32 - 2.0 * layout.pad_px as f32);
        let mut lines = wrap(&self.groups(facts), chars);
        if lines.len() > layout.lines {
            lines.truncate(layout.lines);
            if let Some(last) = lines.last_mut() {
                *last = ellipsis(last, chars);
            }
        }
        let line_px = layout.style.line_px();
        let mut baseline = layout.top_row as i32 + layout.pad_px + layout.style.ascent_px();
        for line in &lines {
            draw_text(
                &mut canvas,
                layout.style,
                layout.pad_px,
                baseline,
                line,
                TEXT_COLOR,
            );
            baseline += line_px;
        }
    }
}

/// `groups` laid into lines of at most `chars` characters, a group never split unless it is
/// longer than a line (then it is cut, ending in `…`).
fn wrap(groups: &[String], chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for group in groups {
        let group = if group.chars().count() > chars {
            ellipsis(group, chars)
        } else {
            group.clone()
        };
        let joined = line.chars().count() + GAP.len() + group.chars().count();
        if line.is_empty() {
            line = group;
        } else if joined <= chars {
            line.push_str(GAP);
            line.push_str(&group);
        } else {
            lines.push(std::mem::replace(&mut line, group));
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` cut to `chars` characters with `…` as the last, marking that more did not fit.
fn ellipsis(text: &str, chars: usize) -> String {
    let kept: String = text.chars().take(chars.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

#[cfg(test)]
mod tests;

//! Small line charts drawn into an RGBA8 picture, for reports such as `fogbank quality`: a
//! panel with a title, axes, category ticks along x (one per measured setting, evenly spaced),
//! a linear y axis from 0 to a rounded maximum, and one polyline with dots per series. Text is
//! the 5×7 font of [`crate::output::font`]; lines are drawn pixel by pixel (Bresenham), so the
//! bytes are the same on every machine.

use crate::output::font::{Canvas, text_height_px, text_width_px};

/// Background of the chart: near white.
const BACKGROUND: [u8; 4] = [250, 250, 250, 255];
/// Axes, ticks and text: dark grey.
const INK: [u8; 4] = [40, 40, 40, 255];
/// Light grid lines.
const GRID: [u8; 4] = [222, 222, 222, 255];
/// Font scale of every label.
const TEXT_SCALE: u32 = 2;
/// Margins round a panel's plot area, pixels: left (y labels), right, top (title), bottom
/// (x labels and the x axis's name).
const MARGIN_PX: [i64; 4] = [64, 16, 40, 48];

/// One line of a panel: its name in the legend, its colour and a y value per category
/// (`None` where it has no value).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Opaque RGBA colour.
    pub colour: [u8; 4],
    /// One value per category of the panel, in order.
    pub values: Vec<Option<f64>>,
    /// Drawn as a horizontal dashed line at its first value instead (a reference level).
    pub level: bool,
}

/// One chart: a title, the names of the x categories and of the x axis, and its lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Drawn above the plot.
    pub title: String,
    /// The x axis's name, drawn under the category labels.
    pub x_name: String,
    /// One label per category, left to right.
    pub categories: Vec<String>,
    /// The lines.
    pub series: Vec<Series>,
}

/// Draws `panels` side by side, each `panel_width_px` × `height_px`, and returns the RGBA8
/// bytes of the whole picture (`panels.len() × panel_width_px` wide).
pub fn draw_panels(panels: &[Panel], panel_width_px: u32, height_px: u32) -> (u32, u32, Vec<u8>) {
    let width_px = panel_width_px * panels.len().max(1) as u32;
    let mut rgba8 = BACKGROUND.repeat(width_px as usize * height_px as usize);
    let mut canvas = Canvas {
        width: width_px,
        height: height_px,
        rgba8: &mut rgba8,
    };
    for (index, panel) in panels.iter().enumerate() {
        let left = index as i64 * panel_width_px as i64;
        draw_panel(
            &mut canvas,
            panel,
            left,
            panel_width_px as i64,
            height_px as i64,
        );
    }
    (width_px, height_px, rgba8)
}

/// The smallest "nice" number (1, 2 or 5 times a power of ten) at or above `value`; 1 for 0
/// or anything not finite and positive.
pub fn nice_ceiling(value: f64) -> f64 {
    if !(value.is_finite() && value > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(value.log10().floor());
    for step in [1.0, 2.0, 5.0, 10.0] {
        if step * power >= value {
            return step * power;
        }
    }
    10.0 * power
}

/// A y-axis label: whole numbers from 100 up, else two decimals without trailing zeros.
fn y_label(value: f64) -> String {
    if value >= 100.0 {
        return format!("{value:.0}");
    }
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn draw_panel(canvas: &mut Canvas<'_>, panel: &Panel, left: i64, width: i64, height: i64) {
    let [margin_left, margin_right, margin_top, margin_bottom] = MARGIN_PX;
    let plot_x0 = left + margin_left;
    let plot_x1 = left + width - margin_right;
    let plot_y0 = margin_top;
    let plot_y1 = height - margin_bottom;
    let text_h = text_height_px(TEXT_SCALE) as i64;

    canvas.draw_text(plot_x0, 10, &panel.title, TEXT_SCALE, INK);
    let max = panel
        .series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .fold(0.0f64, |m, &v| if v.is_finite() { m.max(v) } else { m });
    let top = nice_ceiling(max);
    let y_of = |v: f64| plot_y1 - ((v / top).clamp(0.0, 1.0) * (plot_y1 - plot_y0) as f64) as i64;

    // Grid and y labels at 0, ¼, ½, ¾ and the top.
    for quarter in 0..=4 {
        let value = top * quarter as f64 / 4.0;
        let y = y_of(value);
        canvas.fill_rect(plot_x0, y, plot_x1 - plot_x0, 1, GRID);
        let label = y_label(value);
        let label_w = text_width_px(&label, TEXT_SCALE) as i64;
        canvas.draw_text(
            plot_x0 - 6 - label_w,
            y - text_h / 2,
            &label,
            TEXT_SCALE,
            INK,
        );
    }
    // Axes.
    canvas.fill_rect(plot_x0, plot_y0, 1, plot_y1 - plot_y0 + 1, INK);
    canvas.fill_rect(plot_x0, plot_y1, plot_x1 - plot_x0, 1, INK);

    let count = panel.categories.len().max(1) as i64;
    let x_of = |i: usize| plot_x0 + (plot_x1 - plot_x0) * (2 * i as i64 + 1) / (2 * count);
    for (i, label) in panel.categories.iter().enumerate() {
        let x = x_of(i);
        canvas.fill_rect(x, plot_y1, 1, 5, INK);
        let label_w = text_width_px(label, TEXT_SCALE) as i64;
        canvas.draw_text(x - label_w / 2, plot_y1 + 8, label, TEXT_SCALE, INK);
    }
    let name_w = text_width_px(&panel.x_name, TEXT_SCALE) as i64;
    let name_x = (plot_x0 + plot_x1) / 2 - name_w / 2;
    canvas.draw_text(
        name_x,
        plot_y1 + 14 + text_h,
        &panel.x_name,
        TEXT_SCALE,
        INK,
    );

    for series in &panel.series {
        if series.level {
            if let Some(Some(value)) = series.values.first() {
                let y = y_of(*value);
                let mut x = plot_x0;
                while x < plot_x1 {
                    canvas.fill_rect(x, y - 1, 6.min(plot_x1 - x), 2, series.colour);
                    x += 10;
                }
            }
        } else {
            let points: Vec<Option<(i64, i64)>> = series
                .values
                .iter()
                .enumerate()
                .map(|(i, v)| v.filter(|v| v.is_finite()).map(|v| (x_of(i), y_of(v))))
                .collect();
            for pair in points.windows(2) {
                if let [Some(a), Some(b)] = pair {
                    draw_line(canvas, *a, *b, series.colour);
                }
            }
            for (x, y) in points.into_iter().flatten() {
                canvas.fill_rect(x - 3, y - 3, 7, 7, series.colour);
            }
        }
    }
    // Legend, top right of the plot, one line per series, over a patch of background so no
    // line runs through it.
    for (index, series) in panel.series.iter().enumerate() {
        let legend_y = plot_y0 + 4 + index as i64 * (text_h + 6);
        let legend_w = text_width_px(&series.name, TEXT_SCALE) as i64;
        let legend_x = plot_x1 - legend_w - 4;
        canvas.fill_rect(
            legend_x - 22,
            legend_y - 3,
            legend_w + 26,
            text_h + 6,
            BACKGROUND,
        );
        canvas.fill_rect(
            legend_x - 18,
            legend_y + text_h / 2 - 2,
            12,
            4,
            series.colour,
        );
        canvas.draw_text(legend_x, legend_y, &series.name, TEXT_SCALE, INK);
    }
}

/// A line two pixels thick from `a` to `b` (Bresenham).
fn draw_line(canvas: &mut Canvas<'_>, a: (i64, i64), b: (i64, i64), colour: [u8; 4]) {
    let (mut x, mut y) = a;
    let dx = (b.0 - a.0).abs();
    let dy = -(b.1 - a.1).abs();
    let sx = if a.0 < b.0 { 1 } else { -1 };
    let sy = if a.1 < b.1 { 1 } else { -1 };
    let mut err = dx + dy;
    loop {
        canvas.fill_rect(x, y, 2, 2, colour);
        if (x, y) == b {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn y_labels() {
        assert_eq!(y_label(0.0), "0");
        assert_eq!(y_label(1.25), "1.25");
        assert_eq!(y_label(2.5), "2.5");
        assert_eq!(y_label(12.5), "12.5");
        assert_eq!(y_label(1250.0), "1250");
    }

    #[test]
    fn nice_ceilings() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(f64::NAN), 1.0);
        assert_eq!(nice_ceiling(0.7), 1.0);
        assert_eq!(nice_ceiling(1.3), 2.0);
        assert_eq!(nice_ceiling(3.0), 5.0);
        assert_eq!(nice_ceiling(7.2), 10.0);
        assert_eq!(nice_ceiling(120.0), 200.0);
    }

    #[test]
    fn draws_lines_in_their_colour_and_the_same_bytes_twice() {
        let red = [200, 0, 0, 255];
        let panel = Panel {
            title: "error".into(),
            x_name: "sheets".into(),
            categories: vec!["8".into(), "16".into(), "32".into()],
            series: vec![Series {
                name: "raster".into(),
                colour: red,
                values: vec![Some(4.0), Some(2.0), None],
                level: false,
            }],
        };
        let (w, h, a) = draw_panels(std::slice::from_ref(&panel), 300, 200);
        assert_eq!((w, h), (300, 200));
        let red_pixels = a.chunks_exact(4).filter(|p| *p == red).count();
        // Two dots of 7×7 and a line between them, plus the legend's swatch.
        assert!(red_pixels > 2 * 49, "{red_pixels}");
        let (_, _, b) = draw_panels(&[panel], 300, 200);
        assert_eq!(a, b);
    }
}

//! Small line charts drawn into an RGBA8 picture, for reports such as `fogbank quality`: a
//! panel with a title, axes with a grid, category ticks along x (one per measured setting,
//! evenly spaced), a y axis from 0 to a rounded maximum (or logarithmic, when the values span
//! more than [`LOG_SPAN`] times), one polyline with dots per series, and a legend. Drawn by
//! `plotters` on its bitmap backend, lettered by `ab_glyph` in the bundled DejaVu face (the
//! sheets' and captions'); its arithmetic is plain `f64` in a fixed order, so the bytes are the
//! same on every run.

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};
use std::sync::Once;

/// Background of the chart: near white.
const BACKGROUND: [u8; 4] = [250, 250, 250, 255];
/// Axes, ticks and text: dark grey.
const INK: [u8; 4] = [40, 40, 40, 255];
/// Grid lines at the labelled values.
const GRID: [u8; 4] = [222, 222, 222, 255];
/// Grid lines between them.
const FINE_GRID: [u8; 4] = [242, 242, 242, 255];
/// The family name the bundled face is registered under for `plotters`.
const FAMILY: &str = "fogbank-mono";
/// The y axis turns logarithmic when its largest value is more than this many times its
/// smallest positive one (frame times from a few to hundreds of milliseconds).
pub const LOG_SPAN: f64 = 30.0;

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
    register_face();
    let width_px = panel_width_px * panels.len().max(1) as u32;
    let mut rgb8 = vec![0u8; width_px as usize * height_px as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb8, (width_px, height_px)).into_drawing_area();
        let [r, g, b, _] = BACKGROUND;
        // Drawing into memory cannot fail but for a bug in plotters: the page stays as far as
        // it got.
        let _ = root.fill(&RGBColor(r, g, b));
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (panel, area) in panels.iter().zip(&areas) {
            let _ = draw_panel(area, panel);
        }
        let _ = root.present();
    }
    let rgba8 = rgb8
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    (width_px, height_px, rgba8)
}

/// Registers the bundled face with `plotters`, once.
fn register_face() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The face is compiled in and parses (see `text.rs`'s tests).
        let _ = register_font(FAMILY, FontStyle::Normal, crate::output::text::FACE_TTF);
    });
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

/// The panel's values: the largest and the smallest positive.
fn value_span(panel: &Panel) -> (f64, f64) {
    let values = panel
        .series
        .iter()
        .flat_map(|s| s.values.iter().flatten().copied())
        .filter(|v| v.is_finite() && *v > 0.0);
    values.fold((0.0, f64::INFINITY), |(max, min), v| {
        (max.max(v), min.min(v))
    })
}

fn rgb([r, g, b, _]: [u8; 4]) -> RGBColor {
    RGBColor(r, g, b)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;
type DrawError<'a> = DrawingAreaErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

fn draw_panel<'a>(area: &Area<'a>, panel: &Panel) -> Result<(), DrawError<'a>> {
    let (max, min) = value_span(panel);
    let count = panel.categories.len().max(1);
    let x_range = -0.5..count as f64 - 0.5;
    let ink = rgb(INK);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&panel.title, (FAMILY, 16).into_font().color(&ink))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56);
    if min.is_finite() && max / min > LOG_SPAN {
        let low = 10f64.powf(min.log10().floor());
        let high = nice_ceiling(max);
        let chart = builder.build_cartesian_2d(x_range, (low..high).log_scale())?;
        finish(chart, panel, low)
    } else {
        let chart = builder.build_cartesian_2d(x_range, 0.0..nice_ceiling(max))?;
        finish(chart, panel, 0.0)
    }
}

/// Axes, grid, lines and legend of a built chart whose y axis starts at `floor`.
fn finish<'a, Y>(
    mut chart: ChartContext<'a, BitMapBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    panel: &Panel,
    floor: f64,
) -> Result<(), DrawError<'a>>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let ink = rgb(INK);
    let label_font = (FAMILY, 13).into_font().color(&ink);
    let categories = &panel.categories;
    let x_label = |x: &f64| {
        let index = x.round();
        let near = (x - index).abs() < 1e-6 && index >= 0.0;
        near.then(|| categories.get(index as usize).cloned())
            .flatten()
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .x_labels(categories.len().max(1))
        .x_label_formatter(&x_label)
        .y_label_formatter(&|y: &f64| y_label(*y))
        .x_desc(&panel.x_name)
        .label_style(label_font.clone())
        .axis_desc_style(label_font.clone())
        .axis_style(ink)
        .light_line_style(rgb(FINE_GRID))
        .bold_line_style(rgb(GRID))
        .draw()?;
    let last = categories.len().saturating_sub(1) as f64;
    for series in &panel.series {
        let colour = rgb(series.colour);
        let style = ShapeStyle::from(&colour).stroke_width(2);
        let points: Vec<(f64, f64)> = if series.level {
            let level = series
                .values
                .iter()
                .flatten()
                .next()
                .copied()
                .unwrap_or(floor);
            vec![(-0.5, level), (last + 0.5, level)]
        } else {
            (0..)
                .zip(&series.values)
                .filter_map(|(i, v)| v.map(|v| (f64::from(i), v.max(floor))))
                .collect()
        };
        let drawn = if series.level {
            chart.draw_series(DashedLineSeries::new(points.clone(), 6, 4, style))?
        } else {
            chart.draw_series(LineSeries::new(points.clone(), style))?
        };
        drawn
            .label(&series.name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 3), (x + 14, y + 3)], colour.filled()));
        if !series.level {
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(rgb(BACKGROUND).mix(0.9))
        .border_style(ink)
        .label_font(label_font)
        .draw()?;
    Ok(())
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
        // Two dots, a line between them and the legend's swatch.
        assert!(red_pixels > 2 * 25, "{red_pixels}");
        let ink = a.chunks_exact(4).filter(|p| p[..3] == INK[..3]).count();
        assert!(ink > 200, "axes and lettering: {ink} pixels");
        let (_, _, b) = draw_panels(&[panel], 300, 200);
        assert_eq!(a, b);
    }

    #[test]
    fn a_wide_span_of_values_gets_a_logarithmic_axis() {
        let series = |values: Vec<f64>| Panel {
            title: "time".into(),
            x_name: "sheets".into(),
            categories: vec!["8".into(), "128".into()],
            series: vec![Series {
                name: "raster".into(),
                colour: [0, 0, 200, 255],
                values: values.into_iter().map(Some).collect(),
                level: false,
            }],
        };
        assert_eq!(value_span(&series(vec![2.0, 500.0])), (500.0, 2.0));
        let (_, _, linear) = draw_panels(&[series(vec![2.0, 20.0])], 300, 200);
        let (_, _, log) = draw_panels(&[series(vec![2.0, 500.0])], 300, 200);
        assert_ne!(linear, log);
    }
}

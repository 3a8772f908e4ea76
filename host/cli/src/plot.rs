//! PNG line plots for the benchmarks: panels side by side, one line with markers per
//! series.
//!
//! The font (DejaVu Sans, see `assets/LICENSE-DejaVu.txt`) is compiled into the binary
//! and drawn with ab_glyph, so plotting works on a machine without fontconfig or any
//! system font.

use std::path::Path;
use std::sync::Once;

use anyhow::{anyhow, bail, Context, Result};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

/// One curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// (x, y) points, drawn in the order given.
    pub points: Vec<(f64, f64)>,
}

/// One chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Title above the chart.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Logarithmic x axis (points with x <= 0 are left out).
    pub log_x: bool,
    /// Logarithmic y axis (points with y <= 0 are left out).
    pub log_y: bool,
    /// The curves.
    pub series: Vec<Series>,
}

/// Width and height of one panel, pixels.
const PANEL_W: u32 = 720;
const PANEL_H: u32 = 520;

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Line colours, cycled (Tableau 10: distinguishable, also in grey print).
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn register_font() -> Result<()> {
    static ONCE: Once = Once::new();
    let mut res = Ok(());
    ONCE.call_once(|| {
        res = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .map_err(|_| anyhow!("the embedded plot font is not a valid TrueType font"));
    });
    res
}

/// Draws `panels` side by side into a PNG file at `path`.
pub fn draw_png(path: &Path, panels: &[Panel]) -> Result<()> {
    if panels.is_empty() {
        bail!("nothing to plot");
    }
    register_font()?;
    let w = PANEL_W * panels.len() as u32;
    let root = BitMapBackend::new(path, (w, PANEL_H)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((1, panels.len()));
    for (panel, area) in panels.iter().zip(&areas) {
        draw_panel(area, panel).with_context(|| format!("plotting '{}'", panel.title))?;
    }
    root.present()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// One group of bars: one bar per series, side by side above `label`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Text under the group.
    pub label: String,
    /// One value per series, in the order of the series names.
    pub values: Vec<f64>,
}

/// Draws grouped bars (one colour per series, legend with `series`) into a PNG file.
pub fn draw_bars_png(
    path: &Path,
    title: &str,
    y_label: &str,
    series: &[&str],
    bars: &[Bar],
) -> Result<()> {
    if bars.is_empty() || series.is_empty() {
        bail!("nothing to plot");
    }
    register_font()?;
    let n = bars.len();
    let w = (PANEL_W)
        .max(140 + 48 * (n * series.len()) as u32)
        .min(4000);
    let root = BitMapBackend::new(path, (w, PANEL_H)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = bars
        .iter()
        .flat_map(|b| b.values.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let ymax = if top > 0.0 { top * 1.3 } else { 1.0 };
    let mut c = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..ymax)?;
    let label_of = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
            bars[i as usize].label.clone()
        } else {
            String::new()
        }
    };
    c.configure_mesh()
        .disable_x_mesh()
        .x_labels(n.min(40))
        .x_label_formatter(&label_of)
        .y_desc(y_label)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    // Each group fills 0.8 of its unit slot, split evenly between the series.
    let bw = 0.8 / series.len() as f64;
    for (k, name) in series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let x0 = |i: usize| i as f64 - 0.4 + k as f64 * bw;
        c.draw_series(bars.iter().enumerate().filter_map(|(i, b)| {
            let v = *b.values.get(k)?;
            v.is_finite()
                .then(|| Rectangle::new([(x0(i), 0.0), (x0(i) + bw, v)], color.filled()))
        }))?
        .label(*name)
        .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], color.filled()));
    }
    c.configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// The range of the kept values, padded so no point sits on the frame.
fn axis_range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (lo / 1.3, hi * 1.3)
    } else {
        let pad = if hi > lo {
            (hi - lo) * 0.05
        } else {
            hi.abs().max(1.0) * 0.1
        };
        // Axes of non-negative data start at 0, as readers expect of load and latency.
        let lo = if lo >= 0.0 { 0.0 } else { lo - pad };
        (lo, hi + pad)
    }
}

fn draw_panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    p: &Panel,
) -> Result<()> {
    let keep = |&(x, y): &(f64, f64)| {
        x.is_finite() && y.is_finite() && (!p.log_x || x > 0.0) && (!p.log_y || y > 0.0)
    };
    let pts = || {
        p.series
            .iter()
            .flat_map(|s| s.points.iter().copied().filter(keep))
    };
    let (x0, x1) = axis_range(pts().map(|q| q.0), p.log_x);
    let (y0, y1) = axis_range(pts().map(|q| q.1), p.log_y);
    let norm = |v: f64, lo: f64, hi: f64, log: bool| {
        if log {
            (v.ln() - lo.ln()) / (hi.ln() - lo.ln())
        } else {
            (v - lo) / (hi - lo)
        }
    };
    let legend =
        quiet_corner(pts().map(|(x, y)| (norm(x, x0, x1, p.log_x), norm(y, y0, y1, p.log_y))));
    match (p.log_x, p.log_y) {
        (false, false) => chart(area, p, x0..x1, y0..y1, &keep, legend),
        (true, false) => chart(area, p, (x0..x1).log_scale(), y0..y1, &keep, legend),
        (false, true) => chart(area, p, x0..x1, (y0..y1).log_scale(), &keep, legend),
        (true, true) => chart(
            area,
            p,
            (x0..x1).log_scale(),
            (y0..y1).log_scale(),
            &keep,
            legend,
        ),
    }
}

/// The corner of the plot area (points in 0..1 on both axes) with the fewest points, so
/// the legend hides as little as possible; upper left on a tie.
fn quiet_corner(points: impl Iterator<Item = (f64, f64)>) -> SeriesLabelPosition {
    // [upper left, upper right, lower left, lower right]; a legend covers about this
    // much of each axis.
    let mut n = [0usize; 4];
    for (x, y) in points {
        let (left, right) = (x < 0.45, x > 0.55);
        let (upper, lower) = (y > 0.55, y < 0.45);
        n[0] += usize::from(left && upper);
        n[1] += usize::from(right && upper);
        n[2] += usize::from(left && lower);
        n[3] += usize::from(right && lower);
    }
    let best = (0..4).min_by_key(|&i| (n[i], i)).unwrap_or(0);
    [
        SeriesLabelPosition::UpperLeft,
        SeriesLabelPosition::UpperRight,
        SeriesLabelPosition::LowerLeft,
        SeriesLabelPosition::LowerRight,
    ][best]
        .clone()
}

fn chart<X, Y>(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    p: &Panel,
    xr: X,
    yr: Y,
    keep: &dyn Fn(&(f64, f64)) -> bool,
    legend: SeriesLabelPosition,
) -> Result<()>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut c = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(xr, yr)?;
    c.configure_mesh()
        .x_desc(&p.x_label)
        .y_desc(&p.y_label)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (i, s) in p.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(keep).collect();
        c.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
            .label(&s.label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        c.draw_series(pts.iter().map(|&q| Circle::new(q, 3, color.filled())))?;
    }
    if p.series.iter().any(|s| !s.label.is_empty()) {
        c.configure_series_labels()
            .position(legend)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 15))
            .draw()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_goes_to_the_emptiest_corner() {
        let at = |pts: &[(f64, f64)]| format!("{:?}", quiet_corner(pts.iter().copied()));
        // Curves along the top (saturation plots): the legend goes below them.
        assert_eq!(at(&[(0.0, 0.9), (0.5, 0.95), (1.0, 0.9)]), "LowerLeft");
        // Rising curves (latency vs load): upper left stays free.
        assert_eq!(at(&[(0.0, 0.1), (0.5, 0.2), (1.0, 0.9)]), "UpperLeft");
        assert_eq!(at(&[(0.0, 0.9), (0.2, 0.1), (1.0, 0.1)]), "UpperRight");
        assert_eq!(at(&[]), "UpperLeft");
    }

    #[test]
    fn draws_a_png_with_linear_and_log_panels() {
        let dir = std::env::temp_dir().join(format!("fasthsl-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.png");
        let s = |label: &str, k: f64| Series {
            label: label.into(),
            points: (1..=10)
                .map(|i| (f64::from(i) / 10.0, k * f64::from(i)))
                .collect(),
        };
        let panels = [
            Panel {
                title: "linear".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                log_x: false,
                log_y: false,
                series: vec![s("a", 1.0), s("b", 2.0)],
            },
            Panel {
                title: "log".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                log_x: true,
                log_y: true,
                series: vec![s("a", 1.0)],
            },
        ];
        draw_png(&path, &panels).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // Width in the IHDR chunk: two panels side by side.
        let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        assert_eq!(w, 2 * PANEL_W);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(draw_png(&path, &[]).is_err());
    }

    #[test]
    fn draws_grouped_bars() {
        let dir = std::env::temp_dir().join(format!("fasthsl-bars-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.png");
        let bars: Vec<Bar> = (0..3)
            .map(|i| Bar {
                label: format!("f{i}"),
                values: vec![1.0 + f64::from(i), 1.5],
            })
            .collect();
        draw_bars_png(&path, "t", "penalty", &["measured", "fair"], &bars).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        assert_eq!(w, PANEL_W);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(draw_bars_png(&path, "t", "y", &["a"], &[]).is_err());
    }
}

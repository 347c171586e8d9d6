//! Small SVG charts for the experiments' pictures: a line chart (optionally with a
//! logarithmic y axis) and a grouped bar chart. Hand-written SVG keeps the dependency list
//! short; the output opens in any browser.

use std::fmt::Write as _;

/// One named series of (x, y) points.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 180.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;
const COLOURS: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

fn header(title: &str, x_label: &str, y_label: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
<text x="{}" y="{}" text-anchor="middle">{}</text>
<text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{}</text>
"#,
        (LEFT + WIDTH - RIGHT) / 2.0,
        escape(title),
        (LEFT + WIDTH - RIGHT) / 2.0,
        HEIGHT - 12.0,
        escape(x_label),
        (TOP + HEIGHT - BOTTOM) / 2.0,
        (TOP + HEIGHT - BOTTOM) / 2.0,
        escape(y_label)
    );
    s
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn legend(s: &mut String, names: &[&str]) {
    for (i, name) in names.iter().enumerate() {
        let y = TOP + 10.0 + 18.0 * i as f64;
        let x = WIDTH - RIGHT + 15.0;
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            y - 10.0,
            COLOURS[i % COLOURS.len()],
            x + 18.0,
            y,
            escape(name)
        );
    }
}

/// A line chart; with `log_y` the y axis is logarithmic (non-positive values are skipped).
pub fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_y: bool,
) -> String {
    let ty = |y: f64| if log_y { y.max(1e-9).log10() } else { y };
    let points = series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| !log_y || p.1 > 0.0);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(ty(y));
        y1 = y1.max(ty(y));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if log_y {
        y0 = y0.floor();
        y1 = y1.ceil().max(y0 + 1.0);
    } else {
        y0 = y0.min(0.0);
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT);
    let py = |y: f64| HEIGHT - BOTTOM - (ty(y) - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM);
    let mut s = header(title, x_label, y_label);
    axes(&mut s);
    // y ticks: decades on a log axis, five steps otherwise.
    let ticks: Vec<f64> = if log_y {
        (y0 as i32..=y1 as i32).map(|e| 10f64.powi(e)).collect()
    } else {
        (0..=5)
            .map(|i| y0 + (y1 - y0) * f64::from(i) / 5.0)
            .collect()
    };
    for t in ticks {
        let y = py(t);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{y}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}</text>"##,
            WIDTH - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            format_tick(t)
        );
    }
    let step = ((x1 - x0) / 12.0).ceil().max(1.0);
    let mut x = x0.ceil();
    while x <= x1 {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            px(x),
            HEIGHT - BOTTOM + 18.0,
            format_tick(x)
        );
        x += step;
    }
    for (i, series) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        // Identical series (rollout-ab and alpha-beta, say) must stay visible: vary dashes
        // and widths so the later line does not hide the earlier.
        let dash = ["", "7 4", "2 3", "10 3 2 3"][i % 4];
        let width = 3.5 - 0.4 * (i % 5) as f64;
        let path: Vec<String> = series
            .points
            .iter()
            .filter(|p| !log_y || p.1 > 0.0)
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="{width:.1}" stroke-dasharray="{dash}" points="{}"/>"#,
            path.join(" ")
        );
    }
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    legend(&mut s, &names);
    s.push_str("</svg>\n");
    s
}

/// A grouped bar chart: one group per category, one bar per series (values at the
/// categories' positions, in order).
pub fn bar_chart(title: &str, y_label: &str, categories: &[String], series: &[Series]) -> String {
    let y1 = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.1;
    let plot_w = WIDTH - LEFT - RIGHT;
    let group = plot_w / categories.len().max(1) as f64;
    let bar = group * 0.8 / series.len().max(1) as f64;
    let py = |y: f64| HEIGHT - BOTTOM - y / y1 * (HEIGHT - TOP - BOTTOM);
    let mut s = header(title, "", y_label);
    axes(&mut s);
    for i in 0..=5 {
        let t = y1 * f64::from(i) / 5.0;
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{y}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}</text>"##,
            WIDTH - RIGHT,
            LEFT - 6.0,
            py(t) + 4.0,
            format_tick(t),
            y = py(t)
        );
    }
    for (c, name) in categories.iter().enumerate() {
        let gx = LEFT + group * c as f64 + group * 0.1;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            gx + group * 0.4,
            HEIGHT - BOTTOM + 18.0,
            escape(name)
        );
        for (i, series) in series.iter().enumerate() {
            let Some(&(_, v)) = series.points.get(c) else {
                continue;
            };
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"#,
                gx + bar * i as f64,
                py(v),
                bar * 0.95,
                (HEIGHT - BOTTOM - py(v)).max(0.0),
                COLOURS[i % COLOURS.len()]
            );
        }
    }
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    legend(&mut s, &names);
    s.push_str("</svg>\n");
    s
}

fn axes(s: &mut String) {
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{b}" stroke="black"/><line x1="{LEFT}" y1="{b}" x2="{r}" y2="{b}" stroke="black"/>"#,
        b = HEIGHT - BOTTOM,
        r = WIDTH - RIGHT
    );
}

fn format_tick(v: f64) -> String {
    if v.abs() >= 1e5 {
        format!("{v:.0e}")
    } else if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// Least-squares fit of `y = a * base^x` (a line through `ln y`); `None` with fewer than two
/// positive points. Returns (a, base, r²) with r² on the log scale.
pub fn exponential_fit(points: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.1 > 0.0)
        .map(|&(x, y)| (x, y.ln()))
        .collect();
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let r2 = if syy == 0.0 {
        1.0
    } else {
        sxy * sxy / (sxx * syy)
    };
    Some((intercept.exp(), slope.exp(), r2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_an_exponential() {
        let pts: Vec<(f64, f64)> = (1..10).map(|h| (h as f64, 1.7 * 1.65f64.powi(h))).collect();
        let (a, base, r2) = exponential_fit(&pts).unwrap();
        assert!((a - 1.7).abs() < 1e-6 && (base - 1.65).abs() < 1e-9 && r2 > 0.999_999);
    }

    #[test]
    fn charts_are_svg() {
        let s = vec![Series {
            name: "a<b".into(),
            points: vec![(1.0, 10.0), (2.0, 100.0)],
        }];
        let svg = line_chart("t", "x", "y", &s, true);
        assert!(svg.starts_with("<svg") && svg.contains("a&lt;b") && svg.ends_with("</svg>\n"));
        let bars = bar_chart("t", "y", &["odd".into(), "even".into()], &s);
        assert_eq!(bars.matches("<rect x=").count(), 2 + 1);
    }
}

//! The traps of a PGN file as one self-contained HTML page (`traps --pgn FILE --html OUT`):
//! the summary, and per game a chart of the trap moves at each ply and, for every fall, a
//! board drawn here as SVG with the trap move and the refuting line marked. No scripts,
//! fonts or images from elsewhere: the page opens offline.

use std::fmt::Write as _;

use shakmaty::{Move, Position as _, Role, Square};

use super::games::{GameReport, PlyReport, Summary};
use crate::board::Position;

/// What the page keeps of a game: the trap count per analysed ply and the falls.
#[derive(Debug, Clone)]
pub struct GameSketch {
    pub title: String,
    /// `(ply, trap moves, a fall)` for each analysed position.
    pub plies: Vec<(usize, usize, bool)>,
    pub falls: Vec<Fall>,
}

/// A position where the move played walked into a trap.
#[derive(Debug, Clone)]
pub struct Fall {
    pub ply: usize,
    pub position: Position,
    pub played: Move,
    pub played_san: String,
    pub level: u8,
    /// The opponent's mate against the longest resistance, in SAN and as moves.
    pub line: Vec<String>,
    pub line_moves: Vec<Move>,
    pub punished: bool,
    pub traps: usize,
    pub legal_moves: usize,
    /// The backends (`--check-backends`) that chose a trap move here.
    pub backends: Vec<String>,
}

impl GameSketch {
    /// The sketch of a game; `backends(ply)` names the backends that chose a trap there.
    pub fn of(game: &GameReport, backends: impl Fn(usize) -> Vec<String>) -> Self {
        let fall = |p: &PlyReport| {
            let position = p.position.clone();
            let trap = p.played_trap()?;
            Some(Fall {
                ply: p.ply,
                played: trap.mv,
                played_san: p.played_san.clone(),
                level: trap.level,
                line: trap.line.clone(),
                line_moves: trap.line_moves.clone(),
                punished: p.punished == Some(true),
                traps: p.analysis.traps.len(),
                legal_moves: p.analysis.legal_moves,
                backends: backends(p.ply),
                position,
            })
        };
        let falls: Vec<Fall> = game.falls().filter_map(fall).collect();
        GameSketch {
            title: format!(
                "Game {}: {} – {} ({})",
                game.number, game.white, game.black, game.result
            ),
            plies: game
                .plies
                .iter()
                .map(|p| {
                    (
                        p.ply,
                        p.analysis.traps.len(),
                        falls.iter().any(|f| f.ply == p.ply),
                    )
                })
                .collect(),
            falls,
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The figurine of a piece (filled glyphs for both colours, told apart by fill).
fn glyph(role: Role) -> char {
    match role {
        Role::King => '♚',
        Role::Queen => '♛',
        Role::Rook => '♜',
        Role::Bishop => '♝',
        Role::Knight => '♞',
        Role::Pawn => '♟',
    }
}

const SQUARE: i32 = 40;
const MARGIN: i32 = 16;

/// The centre of a square's drawing, White at the bottom.
fn centre(sq: Square) -> (i32, i32) {
    let file = i32::from(sq.file() as u8);
    let rank = i32::from(sq.rank() as u8);
    (
        MARGIN + file * SQUARE + SQUARE / 2,
        MARGIN + (7 - rank) * SQUARE + SQUARE / 2,
    )
}

/// An arrow from one square to another, its head drawn as a triangle (no marker ids, so
/// any number of boards can share a page), with an optional number at its tail.
fn arrow(s: &mut String, from: Square, to: Square, colour: &str, label: Option<usize>) {
    let (x1, y1) = centre(from);
    let (x2, y2) = centre(to);
    let (dx, dy) = (f64::from(x2 - x1), f64::from(y2 - y1));
    let len = dx.hypot(dy).max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let head = 12.0;
    let (bx, by) = (f64::from(x2) - ux * head, f64::from(y2) - uy * head);
    let _ = write!(
        s,
        r#"<g class="arrow" opacity="0.8"><line x1="{x1}" y1="{y1}" x2="{bx:.1}" y2="{by:.1}" stroke="{colour}" stroke-width="6"/><polygon points="{x2},{y2} {:.1},{:.1} {:.1},{:.1}" fill="{colour}"/>"#,
        bx - uy * 8.0,
        by + ux * 8.0,
        bx + uy * 8.0,
        by - ux * 8.0,
    );
    if let Some(n) = label {
        let _ = write!(
            s,
            r#"<circle cx="{x1}" cy="{y1}" r="8" fill="{colour}"/><text x="{x1}" y="{}" font-size="11" text-anchor="middle" fill="white">{n}</text>"#,
            y1 + 4
        );
    }
    s.push_str("</g>");
}

/// A board as SVG: 64 squares, the pieces as figurines (`data-piece` holds the FEN letter),
/// coordinates, the trap move as a red arrow and the refuting line as numbered blue ones.
pub fn board_svg(pos: &Position, trap: Option<Move>, line: &[Move]) -> String {
    let size = 2 * MARGIN + 8 * SQUARE;
    let mut s = format!(
        r#"<svg class="board" xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" data-fen="{}">"#,
        escape(&pos.fen())
    );
    for sq in Square::ALL {
        let (cx, cy) = centre(sq);
        let light = (sq.file() as u8 + sq.rank() as u8) % 2 == 1;
        let _ = write!(
            s,
            r#"<rect class="sq" x="{}" y="{}" width="{SQUARE}" height="{SQUARE}" fill="{}"/>"#,
            cx - SQUARE / 2,
            cy - SQUARE / 2,
            if light { "#f0d9b5" } else { "#b58863" }
        );
    }
    for i in 0..8u8 {
        let x = MARGIN + i32::from(i) * SQUARE + SQUARE / 2;
        let y = MARGIN + i32::from(i) * SQUARE + SQUARE / 2 + 4;
        let _ = write!(
            s,
            r#"<text x="{x}" y="{}" font-size="11" text-anchor="middle">{}</text><text x="{}" y="{y}" font-size="11" text-anchor="middle">{}</text>"#,
            size - 3,
            char::from(b'a' + i),
            MARGIN / 2,
            8 - i
        );
    }
    let board = pos.chess().board();
    for sq in Square::ALL {
        if let Some(piece) = board.piece_at(sq) {
            let (cx, cy) = centre(sq);
            let (fill, stroke) = if piece.color.is_white() {
                ("#ffffff", "#000000")
            } else {
                ("#000000", "#ffffff")
            };
            let _ = write!(
                s,
                r#"<text class="piece" data-piece="{}" x="{cx}" y="{}" font-size="34" text-anchor="middle" fill="{fill}" stroke="{stroke}" stroke-width="1" font-family="DejaVu Sans, Noto Sans Symbols2, Segoe UI Symbol, sans-serif">{}</text>"#,
                piece.char(),
                cy + 12,
                glyph(piece.role)
            );
        }
    }
    if let Some(from) = trap.and_then(|m| m.from()).zip(trap.map(|m| m.to())) {
        arrow(&mut s, from.0, from.1, "#d62728", None);
    }
    for (i, m) in line.iter().enumerate() {
        if let Some(from) = m.from() {
            arrow(&mut s, from, m.to(), "#1f5fbf", Some(i + 1));
        }
    }
    s.push_str("</svg>");
    s
}

/// The chart of a game: a bar per analysed ply, as high as its number of trap moves, red
/// where the move played was one.
fn chart_svg(plies: &[(usize, usize, bool)]) -> String {
    let last = plies.iter().map(|p| p.0).max().unwrap_or(1).max(1);
    let top = plies.iter().map(|p| p.1).max().unwrap_or(0).max(1);
    let (w, h, left, bottom) = (640.0, 140.0, 36.0, 24.0);
    let bar = (w - left - 8.0) / last as f64;
    let mut s = format!(
        r#"<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}"><line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="black"/><text x="4" y="14" font-size="11">{top}</text><text x="4" y="{}" font-size="11">0</text><text x="{}" y="{}" font-size="11" text-anchor="end">ply</text>"#,
        h - bottom,
        w - 4.0,
        h - bottom,
        h - bottom,
        w - 4.0,
        h - 4.0
    );
    for &(ply, traps, fall) in plies {
        let height = (h - bottom - 8.0) * traps as f64 / top as f64;
        let x = left + (ply - 1) as f64 * bar;
        let _ = write!(
            s,
            r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{height:.1}" fill="{}"><title>ply {ply}: {traps} trap moves{}</title></rect>"#,
            h - bottom - height,
            (bar - 1.0).max(1.0),
            if fall { "#d62728" } else { "#7f7f7f" },
            if fall {
                ", the move played was one"
            } else {
                ""
            }
        );
    }
    for ply in (10..=last).step_by(10) {
        let x = left + (ply as f64 - 0.5) * bar;
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{}" font-size="10" text-anchor="middle">{ply}</text>"#,
            h - bottom + 14.0
        );
    }
    s.push_str("</svg>");
    s
}

fn fall_html(f: &Fall, checked: &[String]) -> String {
    let backends = match (checked.is_empty(), f.backends.is_empty()) {
        (true, _) => String::new(),
        (false, true) => format!(
            "<br>Of {}, none chose a trap move here.",
            escape(&checked.join(", "))
        ),
        (false, false) => format!(
            "<br>Of {}, these chose a trap move here too: <b>{}</b>.",
            escape(&checked.join(", ")),
            escape(&f.backends.join(", "))
        ),
    };
    format!(
        r#"<figure class="fall">{}<figcaption>Ply {}: <b>{}</b> walks into a level-{} trap ({} of {} moves are traps); the refutation: {} — {}.{backends}</figcaption></figure>"#,
        board_svg(&f.position, Some(f.played), &f.line_moves),
        f.ply,
        escape(&f.played_san),
        f.level,
        f.traps,
        f.legal_moves,
        escape(&f.line.join(" ")),
        if f.punished {
            "the opponent found it"
        } else {
            "the opponent missed it"
        }
    )
}

/// The whole page; `checked` are the backends `--check-backends` ran on every fall.
pub fn page(title: &str, summary: &Summary, games: &[GameSketch], checked: &[String]) -> String {
    let mut s = format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{t}</title>
<style>body{{font-family:DejaVu Sans,sans-serif;margin:2em;max-width:60em}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:2px 8px;text-align:right}}figure.fall{{display:inline-block;margin:0 1em 1em 0;vertical-align:top;max-width:360px}}figcaption{{font-size:13px}}</style>
</head><body><h1>{t}</h1>
"#,
        t = escape(title)
    );
    let _ = writeln!(
        s,
        "<h2>Summary</h2><table><tr><th>plies</th><th>positions</th>"
    );
    for k in summary.levels() {
        let _ = write!(s, "<th>at risk, level ≤ {k}</th>");
    }
    s.push_str("</tr>\n");
    for b in summary.buckets.iter().filter(|b| b.positions > 0) {
        let _ = write!(
            s,
            "<tr><td>{}–{}</td><td>{}</td>",
            b.first_ply, b.last_ply, b.positions
        );
        for cell in b.cells() {
            let _ = write!(s, "<td>{cell}</td>");
        }
        s.push_str("</tr>\n");
    }
    let _ = writeln!(
        s,
        "</table><p>{} games, {} positions; a player walked into a trap in {} games; {} trap moves played, {} punished.</p>",
        summary.games,
        summary.positions,
        summary.games_with_a_fall,
        summary.falls,
        summary.punished
    );
    for g in games {
        let _ = writeln!(
            s,
            r#"<section class="game"><h2>{}</h2>{}"#,
            escape(&g.title),
            chart_svg(&g.plies)
        );
        if g.falls.is_empty() {
            s.push_str("<p>No move played walked into a trap.</p>");
        }
        for f in &g.falls {
            s.push_str(&fall_html(f, checked));
        }
        s.push_str("</section>\n");
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::pgn::read_games;
    use crate::traps::games::analyse_game;

    /// Checks that every tag is closed in order (void `meta` and `br`, self-closing `/>`), and
    /// returns the tags' opening texts.
    fn balanced(html: &str) -> Vec<String> {
        let mut stack: Vec<String> = Vec::new();
        let mut tags = Vec::new();
        let mut rest = html;
        while let Some(start) = rest.find('<') {
            let end = start + rest[start..].find('>').expect("an unclosed tag");
            let tag = &rest[start + 1..end];
            rest = &rest[end + 1..];
            if tag.starts_with('!') {
                continue;
            }
            let name: String = tag
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            if let Some(closing) = tag.strip_prefix('/') {
                let open = stack.pop().expect("a closing tag without an opening one");
                assert_eq!(open, closing.trim(), "misnested");
            } else if !tag.ends_with('/') && !matches!(name.as_str(), "meta" | "br") {
                stack.push(name);
            }
            tags.push(tag.to_string());
        }
        assert!(stack.is_empty(), "left open: {stack:?}");
        tags
    }

    #[test]
    fn the_page_parses_and_every_board_has_64_squares_and_the_pieces_of_its_fen() {
        let games = read_games(
            "[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
             [White \"c<d\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n",
        )
        .unwrap();
        let mut summary = Summary::default();
        let mut sketches = Vec::new();
        for g in &games {
            let report = analyse_game(g, 1, |_| true);
            summary.add(&report, 1);
            sketches.push(GameSketch::of(&report, |_| vec!["uct".to_string()]));
        }
        let html = page("t", &summary, &sketches, &["uct".to_string()]);
        balanced(&html);
        assert!(html.contains("c&lt;d"), "names are escaped");
        // Self-contained: no scripts, nothing fetched (the SVG namespace is a name only).
        assert!(!html.contains("<script") && !html.contains("src="));
        assert!(
            !html
                .replace("http://www.w3.org/2000/svg", "")
                .contains("http")
        );
        let boards: Vec<&str> = html.split("<svg class=\"board\"").skip(1).collect();
        // Fool's mate's g4 and Black's 3... Nf6 (allowing Qxf7#) are the falls.
        assert_eq!(boards.len(), 2, "{html}");
        for board in boards {
            let svg = &board[..board.find("</svg>").unwrap()];
            assert_eq!(svg.matches("<rect class=\"sq\"").count(), 64);
            let fen = svg
                .split("data-fen=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let mut want: Vec<char> = fen
                .split(' ')
                .next()
                .unwrap()
                .chars()
                .filter(|c| c.is_ascii_alphabetic())
                .collect();
            let mut drawn: Vec<char> = svg
                .split("data-piece=\"")
                .skip(1)
                .map(|p| p.chars().next().unwrap())
                .collect();
            want.sort_unstable();
            drawn.sort_unstable();
            assert_eq!(drawn, want, "{fen}");
            assert!(svg.contains("class=\"arrow\""), "the trap move is drawn");
        }
        assert!(html.contains("these chose a trap move here too: <b>uct</b>"));
        assert_eq!(html.matches("<svg class=\"chart\"").count(), 2);
    }
}

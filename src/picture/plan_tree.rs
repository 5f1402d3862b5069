//! Physical plans drawn as trees (`sqlchess explain --format svg`): each operator a box
//! with its one-line display (as the indented EXPLAIN text writes it, without metrics),
//! its inputs below it, an edge from each input up to the operator that reads it; after a
//! run (`--analyze`) each box also shows the operator's output rows and DataFusion
//! `elapsed_compute`. Several stages' trees are stacked top to bottom in one SVG, each under
//! its stage's heading ([`explanation_svg`], from the plans [`crate::profile::explain_plans`]
//! collected; [`plans_svg`] for trees of [`PlanNode`]s made otherwise).
//!
//! # Geometry
//!
//! In the drawing's units (CSS pixels at zoom 1: `width` and `height` equal the
//! `viewBox`): boxes [`NODE_WIDTH`] wide, [`NODE_HEIGHT`] high ([`NODE_HEIGHT_METRICS`]
//! in a tree read with metrics: a second line); [`H_GAP`] between neighbouring boxes,
//! [`V_GAP`] between levels. Leaves take consecutive columns left to right in the plan's
//! order, an operator is centred over its first and last input. A stage's block is a
//! heading of [`HEADING_HEIGHT`], then its tree; blocks are [`STAGE_GAP`] apart, the whole
//! [`MARGIN`] from the edges and at least [`MIN_WIDTH`] wide.
//!
//! An operator's text longer than [`BOX_CHARS`] characters is cut to `BOX_CHARS - 1` and
//! `…`; the box's `<title>` (a tooltip) holds it whole, with the figures. Each operator is
//! one `<g class="operator">` (its title, one `<rect>`, its text lines), so a drawing holds
//! as many of them as its plans have operators; each edge is a `<path class="edge">`. The
//! output depends on its input alone.

use std::fmt::Write as _;

use svg::Document;
use svg::node::element::{Group, Path, Rectangle, Title};

use super::profile_chart::thousands;
use super::shapes::{round, text};
use crate::profile::{Explanation, PlanNode, StagePlans, format_bytes};

/// A box's width, in drawing units.
pub const NODE_WIDTH: f64 = 320.0;
/// A box's height in a tree without metrics (one line of text).
pub const NODE_HEIGHT: f64 = 24.0;
/// A box's height in a tree read with metrics (a second line: rows and compute time).
pub const NODE_HEIGHT_METRICS: f64 = 38.0;
/// The space between neighbouring boxes of a level.
pub const H_GAP: f64 = 16.0;
/// The space between levels, where the edges run.
pub const V_GAP: f64 = 26.0;
/// The margin around the drawing.
pub const MARGIN: f64 = 16.0;
/// A stage's heading above its tree (two lines: the stage, its profile).
pub const HEADING_HEIGHT: f64 = 42.0;
/// The space between one stage's tree and the next stage's heading.
pub const STAGE_GAP: f64 = 28.0;
/// The height of a note line at the top (what ran before the plans were read).
pub const NOTE_HEIGHT: f64 = 16.0;
/// The drawing's least width.
pub const MIN_WIDTH: f64 = 640.0;
/// The most characters of an operator's text a box shows (with the `…` of a cut text).
pub const BOX_CHARS: usize = 45;
/// The boxes' fill colour.
pub const NODE_FILL: &str = "#eef3fa";
/// The boxes' outline colour.
pub const NODE_STROKE: &str = "#2f6fb5";
/// The edges' colour.
pub const EDGE_COLOR: &str = "#8a8a8a";
const INK: &str = "#1d1d1d";
const MUTED: &str = "#555555";
const FONT: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";

/// One tree to draw: a heading (the stage), a line under it (its profile, or empty) and the
/// plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanPicture {
    /// The heading: `stage legal_moves · physical plan with metrics (last run)`.
    pub heading: String,
    /// The line under the heading (may be empty).
    pub subheading: String,
    /// The plan's root operator.
    pub root: PlanNode,
}

impl PlanPicture {
    /// The picture of one stage's collected plans: its heading and physical plan note, its
    /// profile's figures when it ran, its physical plan's tree.
    #[must_use]
    pub fn of_stage(st: &StagePlans) -> PlanPicture {
        let subheading = match &st.profile {
            Some(p) => format!(
                "{} runs, {} rows, plan {:.1} ms, exec {:.1} ms, compute {:.1} ms, peak mem {}",
                thousands(p.runs),
                thousands(p.rows),
                p.planning.as_secs_f64() * 1e3,
                p.execution.as_secs_f64() * 1e3,
                p.compute.as_secs_f64() * 1e3,
                p.peak_memory.map_or_else(|| "-".to_string(), format_bytes)
            ),
            None => String::new(),
        };
        PlanPicture {
            heading: format!("{} · physical plan{}", st.heading, st.physical_note),
            subheading,
            root: st.tree(),
        }
    }
}

/// `text` cut to at most `chars` characters, the last of them `…` when it was longer.
#[must_use]
pub fn truncate(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let mut out: String = text.chars().take(chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The figures line of an operator read with metrics: `rows 32,869 · compute 1.23 ms`
/// (`-` for a figure it does not report).
#[must_use]
pub fn metrics_line(node: &PlanNode) -> String {
    format!(
        "rows {} · compute {}",
        node.output_rows.map_or_else(|| "-".to_string(), thousands),
        node.elapsed_compute.map_or_else(
            || "-".to_string(),
            |d| format!("{:.2} ms", d.as_secs_f64() * 1e3)
        )
    )
}

/// The drawing of every stage of `explanation` (see the module's docs): a title line, the
/// explanation's notes, then each stage's tree under its heading.
#[must_use]
pub fn explanation_svg(explanation: &Explanation) -> String {
    let pictures: Vec<PlanPicture> = explanation
        .stages
        .iter()
        .map(PlanPicture::of_stage)
        .collect();
    let mut notes = vec![format!(
        "sqlchess explain · pipeline {}",
        explanation.pipeline
    )];
    notes.extend(explanation.notes.iter().cloned());
    plans_svg(&notes, &pictures)
}

/// An edge: from a point (an operator's bottom centre) to a point (an input's top centre).
type Edge = ((f64, f64), (f64, f64));

/// A box placed: its top left corner and the node.
struct Placed<'a> {
    x: f64,
    y: f64,
    node: &'a PlanNode,
}

/// Places `node` and its inputs (leaves in columns from `next_leaf`, levels from `top`),
/// appending to `boxes` and `edges` (parent centre bottom → child centre top); returns the
/// node's left x.
fn place<'a>(
    node: &'a PlanNode,
    depth: usize,
    top: f64,
    node_height: f64,
    next_leaf: &mut usize,
    boxes: &mut Vec<Placed<'a>>,
    edges: &mut Vec<Edge>,
) -> f64 {
    let y = top + depth as f64 * (node_height + V_GAP);
    let x = if node.children.is_empty() {
        let x = MARGIN + *next_leaf as f64 * (NODE_WIDTH + H_GAP);
        *next_leaf += 1;
        x
    } else {
        let xs: Vec<f64> = node
            .children
            .iter()
            .map(|c| place(c, depth + 1, top, node_height, next_leaf, boxes, edges))
            .collect();
        let x = (xs[0] + xs[xs.len() - 1]) / 2.0;
        let child_y = y + node_height + V_GAP;
        for cx in xs {
            edges.push((
                (x + NODE_WIDTH / 2.0, y + node_height),
                (cx + NODE_WIDTH / 2.0, child_y),
            ));
        }
        x
    };
    boxes.push(Placed { x, y, node });
    x
}

/// Whether any operator of the tree was read with metrics.
fn has_metrics(node: &PlanNode) -> bool {
    node.with_metrics || node.children.iter().any(has_metrics)
}

/// The drawing of `pictures` stacked top to bottom, under `notes` (one line each, the first
/// bold), as an SVG document (see the module's docs for the geometry).
#[must_use]
pub fn plans_svg(notes: &[String], pictures: &[PlanPicture]) -> String {
    let mut y = MARGIN + notes.len() as f64 * NOTE_HEIGHT;
    let mut width = MIN_WIDTH;
    let mut body = Group::new();
    for picture in pictures {
        if y > MARGIN {
            y += STAGE_GAP / 2.0;
        }
        let node_height = if has_metrics(&picture.root) {
            NODE_HEIGHT_METRICS
        } else {
            NODE_HEIGHT
        };
        body = body
            .add(text(MARGIN, y + 16.0, 14.0, picture.heading.as_str()).set("font-weight", "bold"));
        if !picture.subheading.is_empty() {
            body = body
                .add(text(MARGIN, y + 32.0, 11.0, picture.subheading.as_str()).set("fill", MUTED));
        }
        let top = y + HEADING_HEIGHT;
        let (mut boxes, mut edges) = (vec![], vec![]);
        let mut leaves = 0;
        place(
            &picture.root,
            0,
            top,
            node_height,
            &mut leaves,
            &mut boxes,
            &mut edges,
        );
        let mut d = String::new();
        for ((x1, y1), (x2, y2)) in &edges {
            let mid = round((y1 + y2) / 2.0);
            let _ = write!(
                d,
                "M{} {}V{mid}H{}V{}",
                round(*x1),
                round(*y1),
                round(*x2),
                round(*y2)
            );
        }
        if !d.is_empty() {
            body = body.add(
                Path::new()
                    .set("class", "edge")
                    .set("d", d)
                    .set("fill", "none")
                    .set("stroke", EDGE_COLOR)
                    .set("stroke-width", 1.2),
            );
        }
        // boxes level by level, left to right
        let mut ordered: Vec<&Placed> = boxes.iter().collect();
        ordered.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
        for b in ordered {
            body = body.add(operator_box(b, node_height));
        }
        width = width.max(2.0 * MARGIN + leaves as f64 * (NODE_WIDTH + H_GAP) - H_GAP);
        let depth = picture.root.depth() as f64;
        y = top + depth * node_height + (depth - 1.0) * V_GAP + STAGE_GAP / 2.0;
    }
    let height = y + MARGIN;
    let mut doc = Document::new()
        .set("viewBox", (0, 0, round(width), round(height)))
        .set("width", round(width))
        .set("height", round(height))
        .set("font-family", FONT)
        .set("fill", INK)
        .add(
            Rectangle::new()
                .set("width", round(width))
                .set("height", round(height))
                .set("fill", "#ffffff"),
        );
    for (i, note) in notes.iter().enumerate() {
        let mut t = text(
            MARGIN,
            MARGIN + (i + 1) as f64 * NOTE_HEIGHT - 4.0,
            12.0,
            note.as_str(),
        );
        t = if i == 0 {
            t.set("font-weight", "bold")
        } else {
            t.set("fill", MUTED)
        };
        doc = doc.add(t);
    }
    doc.add(body).to_string()
}

/// One operator's box: tooltip, rectangle, text (and figures).
fn operator_box(b: &Placed<'_>, node_height: f64) -> Group {
    let node = b.node;
    let mut tip = node.operator.clone();
    if node.with_metrics {
        tip.push('\n');
        tip.push_str(&metrics_line(node));
    }
    let mut g = Group::new()
        .set("class", "operator")
        .add(Title::new(tip))
        .add(
            Rectangle::new()
                .set("x", round(b.x))
                .set("y", round(b.y))
                .set("width", NODE_WIDTH)
                .set("height", node_height)
                .set("rx", 3)
                .set("fill", NODE_FILL)
                .set("stroke", NODE_STROKE),
        )
        .add(text(
            b.x + 6.0,
            b.y + 16.0,
            11.0,
            truncate(&node.operator, BOX_CHARS),
        ));
    if node.with_metrics {
        g = g.add(text(b.x + 6.0, b.y + 31.0, 10.0, metrics_line(node)).set("fill", MUTED));
    }
    g
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn leaf(op: &str) -> PlanNode {
        PlanNode {
            operator: op.into(),
            output_rows: None,
            elapsed_compute: None,
            with_metrics: false,
            children: vec![],
        }
    }

    fn join() -> PlanNode {
        PlanNode {
            operator: "HashJoinExec: mode=CollectLeft, join_type=Inner, on=[(position_id@0, \
                       position_id@0)]"
                .into(),
            output_rows: None,
            elapsed_compute: None,
            with_metrics: false,
            children: vec![
                leaf("DataSourceExec: partitions=1, partition_sizes=[1]"),
                PlanNode {
                    operator: "FilterExec: own@5".into(),
                    children: vec![leaf("DataSourceExec: partitions=1, partition_sizes=[2]")],
                    ..leaf("")
                },
            ],
        }
    }

    #[test]
    fn truncation_keeps_whole_characters() {
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("abcd", 3), "ab…");
        assert_eq!(truncate("é€ab", 3), "é€…");
        assert_eq!(truncate("", 0), "");
    }

    #[test]
    fn one_box_per_operator_edges_and_tooltips() {
        let tree = join();
        assert_eq!(tree.count(), 4);
        let svg = plans_svg(
            &["sqlchess explain".into()],
            &[PlanPicture {
                heading: "stage x".into(),
                subheading: String::new(),
                root: tree.clone(),
            }],
        );
        resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).expect("parses");
        assert_eq!(svg.matches(r#"class="operator""#).count(), 4);
        assert_eq!(svg.matches("<rect ").count(), 4 + 1); // and the background
        // three edges in one path
        assert_eq!(svg.matches(r#"class="edge""#).count(), 1);
        let d = svg.split(r#" d=""#).nth(1).expect("edge path");
        let d = &d[..d.find('"').expect("end of d")];
        assert_eq!(d.matches('M').count(), 3, "{d}");
        // the long join text cut in its box, whole in its tooltip
        assert!(svg.contains(&truncate(&tree.operator, BOX_CHARS)));
        assert!(svg.contains("on=[(position_id@0, position_id@0)]</title>"));
        // deterministic
        assert_eq!(
            svg,
            plans_svg(
                &["sqlchess explain".into()],
                &[PlanPicture {
                    heading: "stage x".into(),
                    subheading: String::new(),
                    root: tree,
                }],
            )
        );
    }

    #[test]
    fn metrics_make_two_lines_and_trees_stack() {
        let mut tree = join();
        tree.with_metrics = true;
        tree.output_rows = Some(32_869);
        tree.elapsed_compute = Some(Duration::from_micros(1234));
        let lone = leaf("EmptyExec");
        let svg = plans_svg(
            &[],
            &[
                PlanPicture {
                    heading: "stage a".into(),
                    subheading: "1 runs".into(),
                    root: tree,
                },
                PlanPicture {
                    heading: "stage b".into(),
                    subheading: String::new(),
                    root: lone,
                },
            ],
        );
        resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).expect("parses");
        assert!(svg.contains("rows 32,869 · compute 1.23 ms"));
        assert!(svg.contains(&format!(r#"height="{NODE_HEIGHT_METRICS}""#)));
        assert!(svg.contains(&format!(r#"height="{NODE_HEIGHT}""#)));
        assert_eq!(svg.matches(r#"class="operator""#).count(), 5);
        // the svg crate writes a <text>'s content on a line of its own
        let a = svg.find(">\nstage a\n</text>").expect("a");
        let b = svg.find(">\nstage b\n</text>").expect("b");
        assert!(a < b);
        // two leaves: the first tree sets the width
        assert!(svg.contains(&format!(
            r#"width="{}""#,
            MIN_WIDTH.max(2.0 * MARGIN + 2.0 * NODE_WIDTH + H_GAP)
        )));
    }
}

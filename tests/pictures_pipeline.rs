//! Charts of the pipeline (issue 36): `profile --out`, `validate --profile-out` (the profile
//! chart as SVG or HTML, `sqlchess::picture::profile_chart`) and `explain --format svg` (the
//! physical plans as trees, `sqlchess::picture::plan_tree`), through the binary; bad output
//! names refused before anything runs, no file left behind.

use std::path::Path;

use sqlchess::picture::profile_chart::RuleGroup;
use sqlchess::profile::{self, PipelineKind};
use sqlchess::stages::Stage;

use crate::common::cli::{path, show, sqlchess};
use crate::common::scratch;

/// How a `<text>` element holding `s` is written (the `svg` crate puts the content on a line
/// of its own).
fn shown(s: &str) -> String {
    format!(">\n{s}\n</text>")
}

/// How a `<text>` element whose content starts with `s` starts.
fn shown_start(s: &str) -> String {
    format!(">\n{s}")
}

/// The first 40 positions of data/positions.fen, as a FEN file in `dir`.
fn fens(dir: &Path) -> std::path::PathBuf {
    let all = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/positions.fen"))
        .expect("positions.fen");
    let file = dir.join("forty.fen");
    let lines: Vec<&str> = all
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(40)
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").expect("write fens");
    file
}

/// The stage names of a profile table (`to_table`): the rows between the header and the
/// `total` line.
fn table_stages(table: &str) -> Vec<String> {
    table
        .lines()
        .skip_while(|l| !l.starts_with("stage "))
        .skip(1)
        .take_while(|l| !l.starts_with("total "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Checks a profile chart's SVG: it parses, and it holds, in this order, each group's
/// heading followed by its stages (groups in the order of their first stage in `stages`,
/// the report's order; stages of a group in that order), each stage once.
fn check_chart(svg: &str, pipeline: PipelineKind, stages: &[String]) {
    resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
        .unwrap_or_else(|e| panic!("the chart does not parse: {e}"));
    assert!(!stages.is_empty());
    let mut groups: Vec<(RuleGroup, Vec<&str>)> = vec![];
    for st in stages {
        let g = RuleGroup::of(pipeline, st);
        assert_ne!(g, RuleGroup::Other, "{st}");
        match groups.iter_mut().find(|(h, _)| *h == g) {
            Some((_, v)) => v.push(st),
            None => groups.push((g, vec![st])),
        }
    }
    if pipeline == PipelineKind::Seed {
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].0, RuleGroup::Seed);
    }
    let mut at = 0;
    let mut find = |what: String| {
        let found = svg[at..]
            .find(&what)
            .unwrap_or_else(|| panic!("{what:?} not found after byte {at}"));
        at += found + what.len();
    };
    for (g, sts) in &groups {
        find(shown(g.heading()));
        for st in sts {
            find(format!("data-stage=\"{st}\""));
            find(shown(st));
        }
    }
    assert_eq!(svg.matches("class=\"stage\"").count(), stages.len());
    assert_eq!(svg.matches("class=\"group\"").count(), groups.len());
}

#[test]
fn profile_out_draws_both_pipelines_as_svg_and_html() {
    let dir = scratch("profile-chart");
    let fens = fens(&dir);
    for (pipeline, kind, file) in [
        ("fide", PipelineKind::Fide, "fide.svg"),
        ("seed", PipelineKind::Seed, "seed.html"),
    ] {
        let chart = dir.join(file);
        let out = sqlchess(&[
            "profile",
            "--pipeline",
            pipeline,
            "--fens",
            path(&fens),
            "--out",
            path(&chart),
        ]);
        assert!(out.status.success(), "{}", show(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        // the table is printed as before
        assert!(
            stdout.starts_with(&format!("pipeline {pipeline}: 40 positions")),
            "{stdout}"
        );
        let stages = table_stages(&stdout);
        let text = std::fs::read_to_string(&chart).expect("chart written");
        let svg = if file.ends_with(".html") {
            assert!(text.starts_with("<!DOCTYPE html>"), "{text}");
            assert!(!text.contains("<script"));
            // the page's table: every stage a row
            for st in &stages {
                assert!(text.contains(&format!("<tr><td>{st}</td>")), "{st}");
            }
            let start = text.find("<svg").expect("svg in the page");
            let end = text.find("</svg>").expect("end of the svg") + "</svg>".len();
            text[start..end].to_string()
        } else {
            text
        };
        check_chart(&svg, kind, &stages);
        assert!(svg.contains(&format!("pipeline {pipeline}")));
    }
    // only the two charts and the FEN file: no temporary file left
    let mut names: Vec<String> = std::fs::read_dir(&*dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["fide.svg", "forty.fen", "seed.html"]);
}

#[test]
fn validate_profile_out_implies_profile() {
    let dir = scratch("validate-chart");
    let chart = dir.join("profile.html");
    let out = sqlchess(&["validate", "--profile-out", path(&chart)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // the table on stderr, as with --profile
    let stages = table_stages(&stderr);
    assert!(stages.iter().any(|s| s == "replay_moves"), "{stderr}");
    let html = std::fs::read_to_string(&chart).expect("chart written");
    let start = html.find("<svg").expect("svg in the page");
    let end = html.find("</svg>").expect("end of the svg") + "</svg>".len();
    check_chart(&html[start..end], PipelineKind::Fide, &stages);
    assert!(html.contains(RuleGroup::Replay.heading()));

    let svg = dir.join("profile.svg");
    let out = sqlchess(&["validate", "--profile", "--profile-out", path(&svg)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stages = table_stages(&String::from_utf8_lossy(&out.stderr));
    check_chart(
        &std::fs::read_to_string(&svg).expect("chart written"),
        PipelineKind::Fide,
        &stages,
    );
}

/// Operators of a physical plan, counted on the plan itself.
fn operators(plan: &dyn datafusion::physical_plan::ExecutionPlan) -> usize {
    1 + plan
        .children()
        .into_iter()
        .map(|c| operators(c.as_ref()))
        .sum::<usize>()
}

#[test]
fn explain_svg_draws_a_box_per_operator() {
    let dir = scratch("explain-svg");
    // the plan as the library collects it, its operators counted on the ExecutionPlan
    let rt = crate::common::rt();
    let want = rt.block_on(async {
        let engine = crate::common::engine().await;
        let plans = profile::explain_plans(&engine, PipelineKind::Fide, Some("legal_moves"), None)
            .await
            .expect("explain");
        assert_eq!(plans.stages.len(), 1);
        let st = &plans.stages[0];
        let n = operators(st.physical.as_ref());
        assert_eq!(st.tree().count(), n);
        // the text is the same plans
        assert_eq!(
            plans.to_text(),
            profile::explain(&engine, PipelineKind::Fide, Some("legal_moves"), None)
                .await
                .expect("explain text")
        );
        n
    });
    assert!(want > 3, "{want}");

    let svg_path = dir.join("legal.svg");
    let out = sqlchess(&[
        "explain",
        "legal_moves",
        "--format",
        "svg",
        "--out",
        path(&svg_path),
    ]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(out.stdout, b"", "written to --out only");
    let svg = std::fs::read_to_string(&svg_path).expect("svg written");
    resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).expect("parses");
    assert_eq!(svg.matches("class=\"operator\"").count(), want, "{svg}");
    assert!(
        svg.contains(&shown("stage legal_moves · physical plan")),
        "{svg}"
    );

    // the text's physical plan: one line per operator, the same count
    let out = sqlchess(&["explain", "legal_moves"]);
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let physical = text
        .split("-- physical plan\n")
        .nth(1)
        .expect("physical plan");
    assert_eq!(
        physical.lines().filter(|l| !l.trim().is_empty()).count(),
        want,
        "{text}"
    );

    // .svg chooses the format; standard output without --out
    let out = sqlchess(&[
        "explain",
        "legal_moves",
        "--out",
        path(&dir.join("by-name.svg")),
    ]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("by-name.svg")).expect("written"),
        svg
    );
    let out = sqlchess(&["explain", "legal_moves", "--format", "svg"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), svg);

    // every stage: one tree each, in order
    let out = sqlchess(&["explain", "--format", "svg"]);
    assert!(out.status.success(), "{}", show(&out));
    let all = String::from_utf8_lossy(&out.stdout);
    resvg::usvg::Tree::from_str(&all, &resvg::usvg::Options::default()).expect("parses");
    let mut at = 0;
    for st in Stage::ALL {
        let heading = shown(&format!("stage {} · physical plan", st.name()));
        at += all[at..]
            .find(&heading)
            .unwrap_or_else(|| panic!("no tree for {st} after byte {at}"));
    }
    assert_eq!(
        all.matches(&shown_start("stage ")).count(),
        Stage::ALL.len()
    );
}

#[test]
fn explain_svg_with_analyze_shows_rows_and_compute() {
    let out = sqlchess(&["explain", "--analyze", "legal_moves", "--format", "svg"]);
    assert!(out.status.success(), "{}", show(&out));
    let svg = String::from_utf8_lossy(&out.stdout);
    resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).expect("parses");
    assert!(
        svg.contains("physical plan with metrics (last run)"),
        "{svg}"
    );
    assert!(svg.contains(&shown_start("analyzed: ")), "{svg}");
    let boxes = svg.matches("class=\"operator\"").count();
    // every box a figures line; the root's rows are the stage's last run's
    assert_eq!(svg.matches(&shown_start("rows ")).count(), boxes, "{svg}");
    assert!(svg.contains(" · compute "), "{svg}");
}

#[test]
fn bad_chart_names_and_stages_fail_before_running_and_leave_no_file() {
    let dir = scratch("chart-errors");
    let empty = |what: &str| {
        let left: Vec<_> = std::fs::read_dir(&*dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert!(left.is_empty(), "{what}: left {left:?}");
    };
    for (args, name) in [
        (vec!["profile", "--out"], "p.png"),
        (vec!["profile", "--out"], "p"),
        (vec!["validate", "--profile-out"], "p.txt"),
        (vec!["validate", "--profile", "--profile-out"], "p.svg.gz"),
    ] {
        let file = dir.join(name);
        let mut args: Vec<&str> = args.to_vec();
        args.push(path(&file));
        let out = sqlchess(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(path(&file)), "{args:?}: {err}");
        assert!(err.contains(".svg") && err.contains(".html"), "{err}");
        assert_eq!(out.stdout, b"", "{args:?} ran: {}", show(&out));
        empty(name);
    }
    // a folder that does not exist: refused before the run too
    let out = sqlchess(&["profile", "--out", "/no/such/dir/p.svg"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/dir/p.svg"));
    assert_eq!(out.stdout, b"", "the profile ran: {}", show(&out));

    // an unknown stage: the message lists the stages, nothing written
    let file = dir.join("plan.svg");
    for pipeline in ["fide", "seed"] {
        let out = sqlchess(&[
            "explain",
            "--pipeline",
            pipeline,
            "nosuchstage",
            "--format",
            "svg",
            "--out",
            path(&file),
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("unknown stage \"nosuchstage\""),
            "{}",
            show(&out)
        );
        empty("explain nosuchstage");
    }
}

//! The chess stages: every SQL file of `plans/` (one folder per workflow), in dependency
//! order, and the workflows that run them; [`tables`] holds the input tables' schemas.

pub mod tables;

/// A stage: its name (the table it fills) and its SQL text from `plans/`.
pub struct StageSql {
    /// Stage name, the file name in `plans/` without `.sql`.
    pub name: &'static str,
    /// The SQL text.
    pub sql: &'static str,
}

macro_rules! stage {
    ($group:literal, $name:literal) => {
        StageSql {
            name: $name,
            sql: include_str!(concat!("../../plans/", $group, "/", $name, ".sql")),
        }
    };
}

/// Static tables, built once, in dependency order.
pub const STATIC_TABLES: &[StageSql] = &[
    stage!("static", "squares"),
    stage!("static", "castling_loss"),
    stage!("static", "piece_rays"),
    stage!("static", "aligned"),
    stage!("static", "lines"),
    stage!("static", "castling_path"),
    stage!("static", "castling_rules"),
    stage!("static", "promotions"),
    stage!("static", "square_masks"),
];

/// Pipeline stages, in dependency order (a stage reads only tables listed before it).
pub const STAGES: &[StageSql] = &[
    stage!("legal", "placed"),
    stage!("legal", "boards"),
    stage!("legal", "pseudo_moves"),
    stage!("legal", "threats"),
    stage!("legal", "castling"),
    stage!("legal", "legal_moves"),
    stage!("notation", "king_lines"),
    stage!("notation", "move_checks"),
    stage!("notation", "checking_moves"),
    stage!("perft", "perft_moves"),
    stage!("notation", "reply_counts"),
    stage!("notation", "move_flags"),
    stage!("notation", "san"),
    stage!("status", "position_keys"),
    stage!("status", "position_status"),
    stage!("tokens", "token_matches"),
    stage!("tokens", "token_verdicts"),
    stage!("tokens", "token_moves"),
    stage!("status", "flipped_positions"),
    stage!("status", "setup_checks"),
    stage!("apply", "next_positions"),
    stage!("apply", "next_pieces"),
    stage!("perft", "perft_children"),
    stage!("perft", "perft_merge"),
    stage!("perft", "perft_counts"),
    stage!("replay", "replay_moves"),
    stage!("replay", "replay_verdicts"),
    stage!("replay", "replay_next"),
];

/// The stages that turn `positions` + `pieces` into `legal_moves`.
pub const LEGAL: &[&str] = &[
    "placed",
    "boards",
    "pseudo_moves",
    "threats",
    "castling",
    "legal_moves",
];

/// The stages that apply `chosen_moves` to `positions` + `pieces`.
pub const APPLY: &[&str] = &["next_positions", "next_pieces"];

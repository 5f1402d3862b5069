//! The chess stages: every SQL file of `plans/` named by type ([`Stage`], [`StaticTable`],
//! and the input tables [`InputTable`]), the workflows that run them ([`Workflow`]), and the
//! chess [`Pipeline`] on the generic [`crate::session::Session`]; [`tables`] holds the input
//! tables' schemas and their conversions from and to [`crate::Setup`]s.
//!
//! A stage's SQL is the file `plans/<workflow>/<name>.sql` ([`Stage::path`]), with the rule
//! fragments of `plans/rules/` it names put in place ([`fragments`]).

use std::str::FromStr;

use crate::error::Error;

pub mod fragments;
pub mod pipeline;
pub(crate) mod rows;
pub mod tables;

pub use pipeline::Pipeline;

/// Declares a name enum: its variants, their names and their SQL files under `plans/`.
macro_rules! sql_names {
    (
        $(#[$m:meta])* $enum:ident {
            $($(#[$vm:meta])* $variant:ident = $folder:literal / $name:literal),* $(,)?
        }
    ) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $enum {
            $($(#[$vm])* $variant),*
        }

        impl $enum {
            /// Every one, in dependency order (each reads only the ones before it).
            pub const ALL: &'static [$enum] = &[$($enum::$variant),*];

            /// Its name: the table it fills, the SQL file's name without `.sql`.
            pub const fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name),*
                }
            }

            /// The folder of `plans/` its SQL file is in (its workflow).
            pub const fn folder(self) -> &'static str {
                match self {
                    $($enum::$variant => $folder),*
                }
            }

            /// Its SQL file, relative to the crate root: `plans/<folder>/<name>.sql`.
            pub const fn path(self) -> &'static str {
                match self {
                    $($enum::$variant => concat!("plans/", $folder, "/", $name, ".sql")),*
                }
            }

            /// Its SQL file's text as written (compiled in; rule fragments not in place).
            pub const fn file_sql(self) -> &'static str {
                match self {
                    $($enum::$variant => include_str!(concat!("../../plans/", $folder, "/", $name, ".sql"))),*
                }
            }

            /// Its SQL text: the file with its rule fragments of `plans/rules/` in place
            /// ([`fragments::expand`]), what is planned.
            pub fn sql(self) -> &'static str {
                static TEXTS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
                    $enum::ALL
                        .iter()
                        .map(|v| $crate::stages::fragments::expand(v.file_sql()))
                        .collect()
                });
                &TEXTS[self as usize]
            }
        }

        impl FromStr for $enum {
            type Err = Error;

            /// By name. Errors: [`Error::UnknownStage`].
            fn from_str(s: &str) -> Result<Self, Error> {
                $enum::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name() == s)
                    .ok_or_else(|| Error::UnknownStage(s.to_string()))
            }
        }

        impl std::fmt::Display for $enum {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

sql_names! {
    /// The static tables, built once per pipeline by plans over coordinate cross joins (the
    /// seed's "baby monster"), in dependency order.
    StaticTable {
        /// `squares`: the 64 squares (a1 = 0), file, rank and name.
        Squares = "static" / "squares",
        /// `castling_loss`: per square, the castling rights lost when a move leaves or
        /// reaches it (FIDE art. 3.8.2.1).
        CastlingLoss = "static" / "castling_loss",
        /// `piece_rays`: every move of a single piece on an otherwise empty board, by ray.
        PieceRays = "static" / "piece_rays",
        /// `aligned`: ordered pairs of distinct squares on one rank, file or diagonal.
        Aligned = "static" / "aligned",
        /// `lines`: for every pair in `aligned`, the squares strictly between them.
        Lines = "static" / "lines",
        /// `castling_path`: per castling right, the squares that must be empty or not attacked.
        CastlingPath = "static" / "castling_path",
        /// `castling_rules`: the four castlings: king and rook squares, masks.
        CastlingRules = "static" / "castling_rules",
        /// `promotions`: what a pawn move becomes (FIDE art. 3.7.5.1).
        Promotions = "static" / "promotions",
        /// `square_masks`: per square, where the pieces that could attack it stand.
        SquareMasks = "static" / "square_masks",
    }
}

sql_names! {
    /// The pipeline stages, in dependency order (a stage reads only tables listed before
    /// it). Each is the file `plans/<folder>/<name>.sql`.
    Stage {
        /// `placed`.
        Placed = "legal" / "placed",
        /// `boards`.
        Boards = "legal" / "boards",
        /// `pseudo_moves`.
        PseudoMoves = "legal" / "pseudo_moves",
        /// `threats`.
        Threats = "legal" / "threats",
        /// `castling`.
        Castling = "legal" / "castling",
        /// `legal_moves`.
        LegalMoves = "legal" / "legal_moves",
        /// `king_lines`.
        KingLines = "notation" / "king_lines",
        /// `move_checks`.
        MoveChecks = "notation" / "move_checks",
        /// `checking_moves`.
        CheckingMoves = "notation" / "checking_moves",
        /// `perft_moves`.
        PerftMoves = "perft" / "perft_moves",
        /// `reply_counts`.
        ReplyCounts = "notation" / "reply_counts",
        /// `move_flags`.
        MoveFlags = "notation" / "move_flags",
        /// `san`.
        San = "notation" / "san",
        /// `position_keys`.
        PositionKeys = "status" / "position_keys",
        /// `position_status`.
        PositionStatus = "status" / "position_status",
        /// `token_matches`.
        TokenMatches = "tokens" / "token_matches",
        /// `token_verdicts`.
        TokenVerdicts = "tokens" / "token_verdicts",
        /// `token_moves`.
        TokenMoves = "tokens" / "token_moves",
        /// `flipped_positions`.
        FlippedPositions = "status" / "flipped_positions",
        /// `setup_checks`.
        SetupChecks = "status" / "setup_checks",
        /// `next_positions`.
        NextPositions = "apply" / "next_positions",
        /// `next_pieces`.
        NextPieces = "apply" / "next_pieces",
        /// `perft_children`.
        PerftChildren = "perft" / "perft_children",
        /// `perft_frontier`.
        PerftFrontier = "perft" / "perft_frontier",
        /// `perft_merge`.
        PerftMerge = "perft" / "perft_merge",
        /// `perft_counts`.
        PerftCounts = "perft" / "perft_counts",
        /// `replay_moves`.
        ReplayMoves = "replay" / "replay_moves",
        /// `replay_verdicts`.
        ReplayVerdicts = "replay" / "replay_verdicts",
        /// `replay_next`.
        ReplayNext = "replay" / "replay_next",
        /// `replay_plies`.
        ReplayPlies = "replay" / "replay_plies",
        /// `piece_attacks`.
        PieceAttacks = "position" / "piece_attacks",
        /// `pins`.
        Pins = "position" / "pins",
        /// `checkers`.
        Checkers = "position" / "checkers",
        /// `hanging`.
        Hanging = "position" / "hanging",
        /// `subfen_matches`.
        SubfenMatches = "position" / "subfen_matches",
        /// `material_counts`.
        MaterialCounts = "position" / "material_counts",
        /// `imbalances`.
        Imbalances = "position" / "imbalances",
        /// `material_matches`.
        MaterialMatches = "position" / "material_matches",
    }
}

/// The input tables, filled by the caller (schemas in [`tables`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InputTable {
    /// `positions`: one row per position ([`tables::positions_schema`]).
    Positions,
    /// `pieces`: one row per piece ([`tables::pieces_schema`]).
    Pieces,
    /// `chosen_moves`: moves to apply ([`tables::chosen_moves_schema`]).
    ChosenMoves,
    /// `tokens`: one lexed move token per position ([`tables::tokens_schema`]).
    Tokens,
    /// `perft_nodes`: the nodes of a perft level being expanded or counted
    /// ([`tables::perft_nodes_schema`]).
    PerftNodes,
    /// `perft_bucket`: one bucket of a perft level's nodes, transpositions not yet merged
    /// ([`tables::perft_bucket_schema`]).
    PerftBucket,
    /// `replay_states`: one row per game being replayed ([`tables::replay_states_schema`]).
    ReplayStates,
    /// `replay_tokens`: one row per game being replayed that has a token to replay, its state
    /// and its token ([`tables::replay_tokens_schema`]).
    ReplayTokens,
    /// `subfen_patterns`: the board patterns of `matches_subfen` ([`tables::subfen_patterns_schema`]).
    SubfenPatterns,
    /// `material_patterns`: the material descriptions of `material_matches`
    /// ([`tables::material_patterns_schema`]).
    MaterialPatterns,
}

impl InputTable {
    /// Every input table.
    pub const ALL: &'static [InputTable] = &[
        InputTable::Positions,
        InputTable::Pieces,
        InputTable::ChosenMoves,
        InputTable::Tokens,
        InputTable::PerftNodes,
        InputTable::PerftBucket,
        InputTable::ReplayStates,
        InputTable::ReplayTokens,
        InputTable::SubfenPatterns,
        InputTable::MaterialPatterns,
    ];

    /// Its name.
    pub const fn name(self) -> &'static str {
        match self {
            InputTable::Positions => "positions",
            InputTable::Pieces => "pieces",
            InputTable::ChosenMoves => "chosen_moves",
            InputTable::Tokens => "tokens",
            InputTable::PerftNodes => "perft_nodes",
            InputTable::PerftBucket => "perft_bucket",
            InputTable::ReplayStates => "replay_states",
            InputTable::ReplayTokens => "replay_tokens",
            InputTable::SubfenPatterns => "subfen_patterns",
            InputTable::MaterialPatterns => "material_patterns",
        }
    }

    /// Its Arrow schema.
    pub fn schema(self) -> datafusion::arrow::datatypes::SchemaRef {
        match self {
            InputTable::Positions => tables::positions_schema(),
            InputTable::Pieces => tables::pieces_schema(),
            InputTable::ChosenMoves => tables::chosen_moves_schema(),
            InputTable::Tokens => tables::tokens_schema(),
            InputTable::PerftNodes => tables::perft_nodes_schema(),
            InputTable::PerftBucket => tables::perft_bucket_schema(),
            InputTable::ReplayStates => tables::replay_states_schema(),
            InputTable::ReplayTokens => tables::replay_tokens_schema(),
            InputTable::SubfenPatterns => tables::subfen_patterns_schema(),
            InputTable::MaterialPatterns => tables::material_patterns_schema(),
        }
    }
}

/// Any table of the pipeline: an input table, a static table or a stage's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    /// An input table.
    Input(InputTable),
    /// A static table.
    Static(StaticTable),
    /// A stage's table.
    Stage(Stage),
}

impl Table {
    /// Its name.
    pub const fn name(self) -> &'static str {
        match self {
            Table::Input(t) => t.name(),
            Table::Static(t) => t.name(),
            Table::Stage(t) => t.name(),
        }
    }
}

impl From<InputTable> for Table {
    fn from(t: InputTable) -> Table {
        Table::Input(t)
    }
}

impl From<StaticTable> for Table {
    fn from(t: StaticTable) -> Table {
        Table::Static(t)
    }
}

impl From<Stage> for Table {
    fn from(t: Stage) -> Table {
        Table::Stage(t)
    }
}

impl FromStr for Table {
    type Err = Error;

    /// By name. Errors: [`Error::UnknownStage`].
    fn from_str(s: &str) -> Result<Self, Error> {
        if let Some(t) = InputTable::ALL.iter().find(|t| t.name() == s) {
            return Ok(Table::Input(*t));
        }
        if let Ok(t) = s.parse::<StaticTable>() {
            return Ok(Table::Static(t));
        }
        Ok(Table::Stage(s.parse::<Stage>()?))
    }
}

/// A workflow: a named list of stages run in that order, after the workflows it needs
/// (whose stages' tables it reads). Checked when a [`Pipeline`] starts: each stage reads
/// only input tables, static tables, stages of the workflows in `after` and earlier stages
/// of its own list ([`Pipeline::check`]).
#[derive(Clone, Copy, Debug)]
pub struct Workflow {
    /// Its name (the `plans/` folder of its stages).
    pub name: &'static str,
    /// The workflows whose tables it reads, run before it.
    pub after: &'static [Workflow],
    /// Its stages, in the order they run.
    pub stages: &'static [Stage],
}

impl Workflow {
    /// The stages of the workflows in `after` (depth first, each once), then its own: the
    /// order in which the tables its stages read are produced.
    pub fn sequence(&self) -> Vec<Stage> {
        let mut out: Vec<Stage> = vec![];
        for w in self.after {
            for s in w.sequence() {
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        for s in self.stages {
            if !out.contains(s) {
                out.push(*s);
            }
        }
        out
    }
}

/// The stages that turn `positions` + `pieces` into `legal_moves` (FIDE Laws art. 3).
pub const LEGAL: Workflow = Workflow {
    name: "legal",
    after: &[],
    stages: &[
        Stage::Placed,
        Stage::Boards,
        Stage::PseudoMoves,
        Stage::Threats,
        Stage::Castling,
        Stage::LegalMoves,
    ],
};

/// The stages that apply `chosen_moves` to `positions` + `pieces`.
pub const APPLY: Workflow = Workflow {
    name: "apply",
    after: &[],
    stages: &[Stage::NextPositions, Stage::NextPieces],
};

/// SAN with check and mate: the checking moves, their positions' replies (after
/// [`APPLY`] and [`LEGAL`] again), the flags and the notation.
pub const NOTATION: Workflow = Workflow {
    name: "notation",
    after: &[LEGAL, APPLY],
    stages: &[
        Stage::KingLines,
        Stage::MoveChecks,
        Stage::CheckingMoves,
        Stage::ReplyCounts,
        Stage::MoveFlags,
        Stage::San,
    ],
};

/// Position keys and status (check, legal moves, material), the side-flipped positions and
/// the set-up checks.
pub const STATUS: Workflow = Workflow {
    name: "status",
    after: &[LEGAL],
    stages: &[
        Stage::PositionKeys,
        Stage::PositionStatus,
        Stage::FlippedPositions,
        Stage::SetupChecks,
    ],
};

/// Resolving move tokens among the legal moves.
pub const TOKENS: Workflow = Workflow {
    name: "tokens",
    after: &[LEGAL],
    stages: &[Stage::TokenMatches, Stage::TokenVerdicts, Stage::TokenMoves],
};

/// One perft level: the moves, the children as nodes of the next level (after [`APPLY`] and
/// `position_keys`), a bucket of nodes merged by position key, and the leaf counts.
pub const PERFT: Workflow = Workflow {
    name: "perft",
    after: &[LEGAL, APPLY, STATUS],
    stages: &[
        Stage::PerftMoves,
        Stage::PerftChildren,
        Stage::PerftFrontier,
        Stage::PerftMerge,
        Stage::PerftCounts,
    ],
};

/// One ply of replay: the token's moves, their verdicts, the states after them and (for the
/// per-ply table only) the accepted moves' notation and checks.
pub const REPLAY: Workflow = Workflow {
    name: "replay",
    after: &[],
    stages: &[
        Stage::ReplayMoves,
        Stage::ReplayVerdicts,
        Stage::ReplayNext,
        Stage::ReplayPlies,
    ],
};

/// Position queries of the SQL functions `attacks`, `pins`, `checkers`, `hanging` (from
/// `placed` and `boards` of [`LEGAL`], without its move generation) and `matches_subfen`,
/// `imbalance`, `material_matches` (from `replay_states` alone).
pub const POSITION: Workflow = Workflow {
    name: "position",
    after: &[LEGAL],
    stages: &[
        Stage::PieceAttacks,
        Stage::Pins,
        Stage::Checkers,
        Stage::Hanging,
        Stage::SubfenMatches,
        Stage::MaterialCounts,
        Stage::Imbalances,
        Stage::MaterialMatches,
    ],
};

/// The stages fused into their one reader: each is registered as a view
/// ([`crate::session::StageKind::View`]), so that DataFusion plans it inside the plan of the
/// stage that reads it: one stage run instead of two, and no table between them. Each keeps
/// its SQL file and its `.slt` (run on its own by name, [`Pipeline::run`]: its rows are
/// returned, not kept); workflows skip it ([`Pipeline::run_stages`]), and the profile names
/// it beside its reader (`legal_moves+castling`, [`crate::session::StageProfile::fused`]).
/// - `castling` in `legal_moves`: on a position in check (the mate test's replies, FIDE art.
///   3.8.2.2) its joins find no row;
/// - `king_lines` in `move_checks`.
pub const FUSED: &[Stage] = &[Stage::Castling, Stage::KingLines];

/// Every workflow; each stage is in exactly one.
pub const WORKFLOWS: &[Workflow] = &[
    LEGAL, APPLY, NOTATION, STATUS, TOKENS, PERFT, REPLAY, POSITION,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_is_in_one_workflow_of_its_folder() {
        for s in Stage::ALL {
            let of: Vec<&Workflow> = WORKFLOWS.iter().filter(|w| w.stages.contains(s)).collect();
            assert_eq!(of.len(), 1, "{s}");
            assert_eq!(of[0].name, s.folder(), "{s}");
        }
    }

    #[test]
    fn names_round_trip() {
        for s in Stage::ALL {
            assert_eq!(s.name().parse::<Stage>().ok(), Some(*s));
            assert_eq!(s.path(), format!("plans/{}/{}.sql", s.folder(), s.name()));
        }
        for t in InputTable::ALL {
            assert_eq!(t.name().parse::<Table>().ok(), Some(Table::Input(*t)));
        }
        assert_eq!(
            "squares".parse::<Table>().ok(),
            Some(StaticTable::Squares.into())
        );
        assert_eq!("san".parse::<Table>().ok(), Some(Stage::San.into()));
        assert!(matches!(
            "no_such_stage".parse::<Stage>(),
            Err(Error::UnknownStage(s)) if s == "no_such_stage"
        ));
    }

    #[test]
    fn sequence_puts_needed_workflows_first() {
        let seq = PERFT.sequence();
        assert_eq!(&seq[..6], LEGAL.stages);
        assert_eq!(&seq[6..8], APPLY.stages);
        assert_eq!(seq.last(), Some(&Stage::PerftCounts));
        assert_eq!(seq.len(), 6 + 2 + 4 + 5);
    }
}

//! What the PGN reader reports of a game's text that breaks the import format: the kinds of
//! structural fault ([`PgnFaultKind`]) and the first fault of a game ([`PgnFault`]).

use std::fmt;

/// The kinds of structural fault the reader detects (see [`PgnFault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PgnFaultKind {
    /// End of input inside a `{` comment. By the grammar the comment runs to the end of the
    /// input, so nothing after the `{` is read (later games are comment text).
    UnterminatedComment,
    /// A `(` still open when the game ends. The main line is the moves before the `(`.
    UnclosedVariation,
    /// A `)` without matching `(`; it is ignored and the main line goes on after it.
    UnmatchedCloseParen,
    /// A `(` before the first main-line move (a variation must follow a move). The variation is
    /// skipped; the main line is what follows it.
    VariationBeforeFirstMove,
    /// A malformed tag pair: no name, no quoted value, an unterminated value string (the tag is
    /// dropped) or a missing `]` (the tag is kept).
    BadTag,
    /// End of input inside a tag pair.
    TruncatedTag,
    /// A control byte (NUL, other C0 controls except whitespace, DEL) outside comments and tag
    /// values. No further main-line tokens of the game are collected after it.
    BinaryData,
    /// A `}` outside a comment (comments do not nest). It is ignored.
    StrayCloseBrace,
    /// A `]` outside a tag pair. It is ignored.
    StrayCloseBracket,
    /// Text after the end of a game where one game was expected: a second game in one
    /// movetext value ([`super::movetext::read_movetext`]; [`PgnReader`] itself reports
    /// each game separately and never gives this fault).
    TextAfterGame,
}

impl PgnFaultKind {
    /// The `snake_case` name of the fault, e.g. `"unterminated_comment"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PgnFaultKind::UnterminatedComment => "unterminated_comment",
            PgnFaultKind::UnclosedVariation => "unclosed_variation",
            PgnFaultKind::UnmatchedCloseParen => "unmatched_close_paren",
            PgnFaultKind::VariationBeforeFirstMove => "variation_before_first_move",
            PgnFaultKind::BadTag => "bad_tag",
            PgnFaultKind::TruncatedTag => "truncated_tag",
            PgnFaultKind::BinaryData => "binary_data",
            PgnFaultKind::StrayCloseBrace => "stray_close_brace",
            PgnFaultKind::StrayCloseBracket => "stray_close_bracket",
            PgnFaultKind::TextAfterGame => "text_after_game",
        }
    }
}

impl fmt::Display for PgnFaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            PgnFaultKind::UnterminatedComment => "unterminated comment",
            PgnFaultKind::UnclosedVariation => "unclosed variation",
            PgnFaultKind::UnmatchedCloseParen => "unmatched )",
            PgnFaultKind::VariationBeforeFirstMove => "variation before first move",
            PgnFaultKind::BadTag => "malformed tag pair",
            PgnFaultKind::TruncatedTag => "truncated tag pair",
            PgnFaultKind::BinaryData => "binary data in movetext",
            PgnFaultKind::StrayCloseBrace => "unmatched }",
            PgnFaultKind::StrayCloseBracket => "unmatched ]",
            PgnFaultKind::TextAfterGame => "text after the end of the game",
        };
        f.write_str(text)
    }
}

/// A structural fault in one game's PGN text (the first one found in that game).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PgnFault {
    /// What is wrong.
    pub kind: PgnFaultKind,
    /// Number of main-line moves read before the fault (0 for faults in the tag section).
    pub ply: u32,
    /// A human-readable description (names the tag for tag faults).
    pub message: String,
}

impl fmt::Display for PgnFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} after {} plies: {}",
            self.kind, self.ply, self.message
        )
    }
}

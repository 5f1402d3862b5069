//! Functions of one position: `position_key`, `material` (the board only) and
//! `position_status`, `epd`, `fen_error` (the pipeline's stages).

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, StringArray, StringBuilder, StructArray, UInt8Builder, UInt64Array,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::Result;

use super::{check_fens, distinct, loaded_statuses, parsed};
use crate::chess::bitboards::Bitboards;
use crate::chess::color::Color;
use crate::chess::outcome::FinalStatus;
use crate::chess::polyglot::polyglot_key;
use crate::chess::role::Role;
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::sql::openings::Book;
use crate::stages::rows::PositionStatus;

/// The roles of the material columns, in column order, with their plural names
/// (`white_pawns` … `black_kings`).
pub(crate) const MATERIAL_ROLES: [(Role, &str); 6] = [
    (Role::Pawn, "pawns"),
    (Role::Knight, "knights"),
    (Role::Bishop, "bishops"),
    (Role::Rook, "rooks"),
    (Role::Queen, "queens"),
    (Role::King, "kings"),
];

/// Pieces of each colour (white, black) and role (index as in [`MATERIAL_ROLES`]).
#[must_use]
pub(crate) fn material_counts(setup: &Setup) -> [[u8; 6]; 2] {
    material_counts_of(&Bitboards::from(setup))
}

/// [`material_counts`] of a position held as bitboards (counted by set bits).
#[must_use]
pub(crate) fn material_counts_of(b: &Bitboards) -> [[u8; 6]; 2] {
    let count = |color: Color, role: Role| {
        u8::try_from((b.color_set(color) & b.role_set(role)).count_ones()).unwrap_or(u8::MAX)
    };
    [Color::White, Color::Black].map(|c| MATERIAL_ROLES.map(|(role, _)| count(c, role)))
}

/// The material signature: white's pieces then `v` then black's, each as K, Q, R, B, N, P
/// letters repeated by count (`KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP` at the start).
fn signature(counts: &[[u8; 6]; 2]) -> String {
    const ORDER: [(usize, char); 6] = [(5, 'K'), (4, 'Q'), (3, 'R'), (2, 'B'), (1, 'N'), (0, 'P')];
    let side = |c: &[u8; 6]| -> String {
        ORDER
            .iter()
            .flat_map(|(i, l)| std::iter::repeat_n(*l, usize::from(c[*i])))
            .collect()
    };
    format!("{}v{}", side(&counts[0]), side(&counts[1]))
}

fn material_fields() -> Fields {
    let mut fields = vec![];
    for color in ["white", "black"] {
        for (_, name) in MATERIAL_ROLES {
            fields.push(Field::new(format!("{color}_{name}"), DataType::UInt8, true));
        }
    }
    fields.push(Field::new("signature", DataType::Utf8, true));
    fields.into()
}

/// The type of `material(fen)`: Struct of `white_pawns`, `white_knights`, `white_bishops`,
/// `white_rooks`, `white_queens`, `white_kings`, `black_pawns` … `black_kings` (UInt8) and
/// `signature` (Utf8).
pub(super) fn material_type() -> DataType {
    DataType::Struct(material_fields())
}

/// `position_key(fen)`: the Polyglot key.
pub(super) fn position_keys(fens: &StringArray) -> ArrayRef {
    Arc::new(
        parsed(fens)
            .iter()
            .map(|s| s.as_ref().map(polyglot_key))
            .collect::<UInt64Array>(),
    )
}

/// `epd(fen)`: placement, side to move, castling and the en passant square only when an
/// en passant capture is legal (python-chess `board.epd()`), that square read from stage
/// `position_status` (`ep_key`, the rule `ep_legal`); NULL for a bad FEN.
pub(super) async fn epds(engine: &Engine, fens: &StringArray) -> crate::Result<ArrayRef> {
    let (rows, epd) = per_status(engine, fens, |s, st| {
        let mut s = *s;
        s.ep_square = st.ep_legal_sq;
        s.to_fen()
            .splitn(5, ' ')
            .take(4)
            .collect::<Vec<_>>()
            .join(" ")
    })
    .await?;
    Ok(Arc::new(
        rows.iter()
            .map(|r| r.and_then(|i| epd[i].as_deref()))
            .collect::<StringArray>(),
    ))
}

/// `opening(fen)` from the `epd(fen)` of each row ([`epds`]): the name of the opening of
/// `book` at that EPD; NULL for a NULL EPD (a bad FEN) and a position no opening names.
pub(super) fn openings_of(book: &Book, epds: &ArrayRef) -> ArrayRef {
    let text = epds.as_string_opt::<i32>();
    Arc::new(
        (0..epds.len())
            .map(|i| {
                let epd = text.filter(|e| e.is_valid(i)).map(|e| e.value(i))?;
                book.named(epd).map(|o| o.name.as_str())
            })
            .collect::<StringArray>(),
    )
}

/// `f` of each distinct good FEN of `fens` and its row of stage `position_status` (NULL for
/// a bad FEN), with each row's index into that list ([`distinct`]): the positions are
/// loaded once, position id = rank among the good ones.
async fn per_status<T>(
    engine: &Engine,
    fens: &StringArray,
    f: impl Fn(&Setup, &PositionStatus) -> T,
) -> crate::Result<(Vec<Option<usize>>, Vec<Option<T>>)> {
    let (rows, unique) = distinct(fens);
    let checked = check_fens(engine, &unique).await?;
    let mut out: Vec<Option<T>> = (0..unique.len()).map(|_| None).collect();
    let good: Vec<(usize, &Setup)> = checked
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().ok().map(|s| (i, s)))
        .collect();
    if !good.is_empty() {
        let by_id = loaded_statuses(engine).await?;
        for (id, (i, s)) in good.iter().enumerate() {
            if let Some(st) = by_id.get(&(id as u64)) {
                out[*i] = Some(f(s, st));
            }
        }
    }
    Ok((rows, out))
}

/// `material(fen)`: the counts and the signature.
pub(super) fn materials(fens: &StringArray) -> Result<ArrayRef> {
    let setups = parsed(fens);
    let mut counts: Vec<UInt8Builder> = (0..12).map(|_| UInt8Builder::new()).collect();
    let mut signatures = StringBuilder::new();
    for s in &setups {
        match s {
            Some(s) => {
                let c = material_counts(s);
                for (i, b) in counts.iter_mut().enumerate() {
                    b.append_value(c[i / 6][i % 6]);
                }
                signatures.append_value(signature(&c));
            }
            None => {
                counts.iter_mut().for_each(|b| b.append_null());
                signatures.append_null();
            }
        }
    }
    let mut columns: Vec<ArrayRef> = counts
        .iter_mut()
        .map(|b| Arc::new(b.finish()) as ArrayRef)
        .collect();
    columns.push(Arc::new(signatures.finish()));
    let nulls = NullBuffer::from(setups.iter().map(Option::is_some).collect::<Vec<_>>());
    Ok(Arc::new(StructArray::try_new(
        material_fields(),
        columns,
        Some(nulls),
    )?))
}

/// `position_status(fen)`: [`FinalStatus::of`] the position with no history (one
/// occurrence), from stages `setup_checks`, `position_keys`, `position_status`.
pub(super) async fn statuses(engine: &Engine, fens: &StringArray) -> crate::Result<ArrayRef> {
    let (rows, status) = per_status(engine, fens, |s, st| {
        FinalStatus::of(
            st.n_legal > 0,
            st.in_check,
            st.insufficient,
            s.halfmove_clock,
            1,
        )
        .as_str()
    })
    .await?;
    Ok(Arc::new(
        rows.iter()
            .map(|r| r.and_then(|i| status[i]))
            .collect::<StringArray>(),
    ))
}

/// `fen_error(fen)`: `field: message` of a bad FEN, NULL for a good one.
pub(super) async fn fen_errors(engine: &Engine, fens: &StringArray) -> crate::Result<ArrayRef> {
    let (rows, unique) = distinct(fens);
    let checked = check_fens(engine, &unique).await?;
    let messages: Vec<Option<String>> = checked
        .iter()
        .map(|r| r.as_ref().err().map(|e| e.to_string()))
        .collect();
    Ok(Arc::new(
        rows.iter()
            .map(|r| r.and_then(|i| messages[i].as_deref()))
            .collect::<StringArray>(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_of_the_start_position() {
        let c = material_counts(&Setup::standard());
        assert_eq!(c, [[8, 2, 2, 2, 1, 1], [8, 2, 2, 2, 1, 1]]);
        assert_eq!(signature(&c), "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP");
    }
}

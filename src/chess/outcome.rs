//! Game outcome: the repetition history of a game (FIDE Laws art. 9.2 and 9.6).

/// Position key for repetitions (python-chess `_transposition_key`): the stage
/// `position_keys` sets (occupied, white, three bits of the piece code), side to move,
/// castling rights (rook squares), and the en passant square when a capture there is legal (else -1).
pub type Key = (u64, u64, u64, u64, u64, String, u64, i32);

/// The positions of a game so far, for repetitions (FIDE art. 9.2).
#[derive(Debug, Clone, Default)]
pub struct History {
    keys: Vec<Key>,
    /// irreversible[j]: the move played from position j cannot be undone (python-chess
    /// `is_irreversible`: zeroing, castling rights lost, or a legal en passant existed).
    irreversible: Vec<bool>,
}

impl History {
    /// Records the position reached; the move that reached it was irreversible too if it
    /// changed the castling rights.
    pub fn push_position(&mut self, key: Key) {
        if let (Some(before), Some(last)) = (self.keys.last(), self.irreversible.last_mut()) {
            *last |= before.6 != key.6;
        }
        self.keys.push(key);
    }

    /// Records the move played from the last position: whether it was zeroing or the
    /// position had a legal en passant capture.
    pub fn push_move(&mut self, irreversible: bool) {
        self.irreversible.push(irreversible);
    }

    /// How often the last position has occurred since the last irreversible move
    /// (python-chess `Board.is_repetition`).
    pub fn repetitions(&self) -> usize {
        let Some(current) = self.keys.last() else {
            return 0;
        };
        let mut count = 1;
        for j in (0..self.keys.len() - 1).rev() {
            if self.irreversible.get(j).copied().unwrap_or(true) {
                break;
            }
            if &self.keys[j] == current {
                count += 1;
            }
        }
        count
    }
}

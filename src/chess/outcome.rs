//! Game outcome: the repetition history of a game (FIDE Laws art. 9.2 and 9.6).

/// Position key for repetitions (FIDE art. 9.2.3, python-chess `_transposition_key`): the
/// columns of stage `position_keys` (the same as `replay_states`'), with the en passant
/// square only when a capture there is legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The board as square sets (bit n = square n, a1 = 0): white, black, pawns, knights,
    /// bishops, rooks, queens, kings.
    pub sets: [u64; 8],
    /// `'w'` or `'b'`.
    pub side_to_move: String,
    /// Castling rights in FEN order: `K`, `Q`, `k`, `q`.
    pub castling: [bool; 4],
    /// The en passant square (0..63) when an en passant capture is legal, else -1.
    pub ep_square: i32,
}

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
            *last |= before.castling != key.castling;
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


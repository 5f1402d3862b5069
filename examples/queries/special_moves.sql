-- Counts of en passant captures, underpromotions and castling on each side.
SELECT sum(CASE WHEN is_en_passant THEN 1 ELSE 0 END) AS en_passant,
       sum(CASE WHEN promotion IN ('N', 'B', 'R') THEN 1 ELSE 0 END) AS underpromotions,
       sum(CASE WHEN is_castling AND to_square IN ('g1', 'g8') THEN 1 ELSE 0 END) AS castles_kingside,
       sum(CASE WHEN is_castling AND to_square IN ('c1', 'c8') THEN 1 ELSE 0 END) AS castles_queenside
FROM read_plies('tests/data/pgn/queries.pgn');

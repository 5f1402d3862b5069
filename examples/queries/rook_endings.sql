-- Material signature search: games that reached a rook ending (each side a king, one rook
-- and any pawns: the signature without its pawns is KRvKR), the first ply there, the
-- signature then, and how many plies of the game were played in it.
SELECT game_index, min(ply) AS first_ply, first_value(sig ORDER BY ply) AS signature,
       count(*) AS plies_in_ending
FROM (
  SELECT game_index, ply, get_field(material(fen_after), 'signature') AS sig
  FROM read_plies('tests/data/pgn/queries.pgn')
) t
WHERE replace(sig, 'P', '') = 'KRvKR'
GROUP BY game_index
ORDER BY game_index;

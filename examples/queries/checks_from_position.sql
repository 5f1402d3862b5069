-- The legal moves that give check in a position (legal_moves), with their SAN.
SELECT uci, san, is_mate
FROM legal_moves('r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4')
WHERE is_check
ORDER BY uci;

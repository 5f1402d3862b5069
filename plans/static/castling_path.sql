-- Static table `castling_path`: per castling right, the squares that must be empty
-- (`need` = 'empty': every square between king and rook) and the squares that must not be
-- attacked (`need` = 'safe': the king's square, the square it crosses, its destination),
-- FIDE art. 3.8.2.1-3.8.2.2.
SELECT column1 AS castling_right, CAST(column2 AS INT) AS path_sq, column3 AS need
FROM (VALUES
  ('K', 5, 'empty'), ('K', 6, 'empty'), ('K', 4, 'safe'), ('K', 5, 'safe'), ('K', 6, 'safe'),
  ('Q', 1, 'empty'), ('Q', 2, 'empty'), ('Q', 3, 'empty'), ('Q', 4, 'safe'), ('Q', 3, 'safe'), ('Q', 2, 'safe'),
  ('k', 61, 'empty'), ('k', 62, 'empty'), ('k', 60, 'safe'), ('k', 61, 'safe'), ('k', 62, 'safe'),
  ('q', 57, 'empty'), ('q', 58, 'empty'), ('q', 59, 'empty'), ('q', 60, 'safe'), ('q', 59, 'safe'), ('q', 58, 'safe'))

-- Seed 002 (shared/seeds/002_*.txt, "CODE VS 2.1 in SQL", part 6): choosing the blocks to
-- clear. From every block (a number below 10) the recursive CTE walks in four directions
-- (direction4: right, up, up-right, down-right), adding the numbers it meets, the k-th step
-- of a walk landing on origin + offset * k; a walk stops once the sum would pass 10. The
-- blocks cleared are those on a walk whose sum is exactly 10 (the origin counts once per
-- walk, so a block on two walks is selected twice, as the seed says).
--
-- As in the seed the board and the offsets are tables joined in the recursive term; unlike
-- the seed (which crosses every step with all four directions) a walk keeps the direction
-- of its first step (`cb.angle = 0 OR dr.angle = cb.angle`); on this board both give the
-- same selection.
--
-- The board (row 0 at the bottom, numbers of 10 and more are obstacles):
--
--   row 2:  3 11  2
--   row 1:  5 11  4
--   row 0:  1  5  5
--           c0 c1 c2
--
-- Worked out by hand (sums along each walk, stopping when the next number passes 10):
--   (0,0)=1: right 1+5=6, +5=11 stop; up 1+5=6, +3=9, end; up-right +11 stop; down-right none
--   (0,1)=5: right 5+5=10 (selected); up +11 stop; up-right 5+4=9, end; down-right none
--   (0,2)=5: up 5+4=9, +2=11 stop; others leave the board
--   (1,0)=5: right +11 stop; up 5+3=8, end; up-right +11 stop; down-right 5+5=10 (selected)
--   (1,2)=4: up 4+2=6, end;  (2,0)=3: right +11 stop, down-right +11 stop;  (2,2)=2: none
-- Selected (origin, angle, block): (0,1) angle 0 block (0,1)=5; (0,1) right (0,2)=5;
-- (1,0) angle 0 block (1,0)=5; (1,0) down-right (0,1)=5: four rows, the 5 at (0,1) twice.
WITH RECURSIVE
board (row_no, col_no, num) AS (
  VALUES (0, 0, 1), (0, 1, 5), (0, 2, 5),
         (1, 0, 5), (1, 1, 11), (1, 2, 4),
         (2, 0, 3), (2, 1, 11), (2, 2, 2)
),
direction4 (angle, row_offset, col_offset, memo) AS (
  VALUES (1, 0, 1, 'right'), (2, 1, 0, 'up'), (3, 1, 1, 'up-right'), (4, -1, 1, 'down-right')
),
cb (origin_row, origin_col, erow, ecol, num, amount, cnt, angle) AS (
  SELECT row_no AS origin_row, col_no AS origin_col, row_no AS erow, col_no AS ecol, num,
         num AS amount, 1 AS cnt, 0 AS angle
  FROM board
  WHERE num < 10
  UNION ALL
  SELECT cb.origin_row, cb.origin_col, bd.row_no, bd.col_no, bd.num, cb.amount + bd.num,
         cb.cnt + 1, dr.angle
  FROM cb
  JOIN direction4 dr ON cb.angle = 0 OR dr.angle = cb.angle
  JOIN board bd ON bd.row_no = cb.origin_row + dr.row_offset * cb.cnt
               AND bd.col_no = cb.origin_col + dr.col_offset * cb.cnt
  WHERE cb.amount + bd.num <= 10
),
eb AS (
  SELECT bd.*
  FROM cb bd
  WHERE EXISTS (
    SELECT 1 FROM cb
    WHERE bd.origin_row = cb.origin_row AND bd.origin_col = cb.origin_col
      AND (bd.angle = 0 OR bd.angle = cb.angle)
      AND cb.amount = 10
  )
)
SELECT origin_row, origin_col, angle, erow, ecol, num
FROM eb
ORDER BY origin_row, origin_col, angle, erow, ecol;

// Cutting a sprite sheet (one picture holding many card faces in a grid) into cards: the maths
// alone, pure and node-tested (test/deckdesign.test.mjs). The deck designer draws each cell on a
// canvas and uploads it as its own PNG, as any picture card is uploaded: the server's image checks
// (sniffed type, size, sha256 naming, 64 images a room) stay exactly as they are.

export interface Cell {
  x: number;
  y: number;
  w: number;
  h: number;
}

const MAX_GRID = 20; // rows or columns

/** The cells of a `rows` x `cols` grid over a `width` x `height` picture, row by row, the first
 *  `count` of them (a partial last row: count < rows x cols). Whole pixels: a cell's edges are
 *  rounded so that neighbours share them and the cells cover the picture exactly. Throws a
 *  message a person can act on when the numbers do not make a grid. */
export function gridCells(width: number, height: number, rows: number, cols: number, count = rows * cols): Cell[] {
  const whole = (n: number) => Number.isInteger(n) && n >= 1;
  if (!whole(rows) || !whole(cols) || rows > MAX_GRID || cols > MAX_GRID)
    throw new Error(`Rows and columns are whole numbers from 1 to ${MAX_GRID}.`);
  if (!whole(count) || count > rows * cols) throw new Error(`The card count is a whole number from 1 to ${rows * cols} (rows × columns).`);
  if (count <= (rows - 1) * cols) throw new Error(`${count} cards fill fewer than ${rows} rows: use fewer rows.`);
  if (width < cols || height < rows) throw new Error("The picture is smaller than the grid.");
  const edge = (i: number, n: number, size: number) => Math.round((i * size) / n);
  const cells: Cell[] = [];
  for (let i = 0; i < count; i++) {
    const r = Math.floor(i / cols);
    const c = i % cols;
    const x = edge(c, cols, width);
    const y = edge(r, rows, height);
    cells.push({ x, y, w: edge(c + 1, cols, width) - x, h: edge(r + 1, rows, height) - y });
  }
  return cells;
}

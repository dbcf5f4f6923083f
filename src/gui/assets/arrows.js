// Drawings on the board, as on lichess: a right-button drag from square to
// square draws an arrow, a right click on one square a circle, drawing the
// same again takes it away, and a left click on the board clears them all.
// While the engine analyses, its best move stands as a blue arrow. They are
// SVG over the board, placed from the squares' own boxes (so flipping and
// every board size need nothing more).
"use strict";

const shapes = {
  drawn: [], // {from, to}: to === from for a circle
  start: null, // the square a right-button press began on
};

function squareUnder(x, y) {
  const under = document.elementFromPoint(x, y);
  const square = under && under.closest("#board .sq");
  return square ? square.dataset.square : null;
}

function onShapeDown(event) {
  if (event.button === 2) {
    cancelPremove();
    shapes.start = squareUnder(event.clientX, event.clientY);
    if (shapes.start) event.preventDefault();
  } else if (event.button === 0 && event.target.closest("#board") && shapes.drawn.length) {
    shapes.drawn = [];
    renderShapes();
  }
}

function onShapeUp(event) {
  if (event.button !== 2 || !shapes.start) return;
  const from = shapes.start;
  shapes.start = null;
  const to = squareUnder(event.clientX, event.clientY) || from;
  const at = shapes.drawn.findIndex((s) => s.from === from && s.to === to);
  if (at >= 0) shapes.drawn.splice(at, 1);
  else shapes.drawn.push({ from, to });
  renderShapes();
}

/** The centre of square `name` in the board's own pixels, or null. */
function squareCentre(name) {
  const el = document.querySelector(`#board [data-square="${name}"]`);
  return el ? { x: el.offsetLeft + el.offsetWidth / 2, y: el.offsetTop + el.offsetHeight / 2 } : null;
}

function arrowSvg(from, to, kind, size) {
  const a = squareCentre(from);
  const b = squareCentre(to);
  if (!a || !b) return "";
  if (from === to) {
    return `<circle class="circle ${kind}" data-square="${from}" cx="${a.x}" cy="${a.y}" r="${(size * 0.44).toFixed(1)}" stroke-width="${(size * 0.07).toFixed(1)}"/>`;
  }
  // The head (three line widths long) ends at the target's centre.
  const width = size * (kind === "best" ? 0.13 : 0.16);
  const length = Math.hypot(b.x - a.x, b.y - a.y);
  const cut = (3 * width) / length;
  const end = { x: b.x - (b.x - a.x) * cut, y: b.y - (b.y - a.y) * cut };
  return `<line class="arrow ${kind}" data-from="${from}" data-to="${to}" x1="${a.x}" y1="${a.y}" x2="${end.x.toFixed(1)}" y2="${end.y.toFixed(1)}" stroke-width="${width.toFixed(1)}" marker-end="url(#head-${kind})"/>`;
}

/** The engine's best move while it analyses: [from, to], or null. */
function bestMoveSquares() {
  const line = ui.lines.get(1);
  if (!ui.state || ui.state.analysing === null || !line || !line.pv || !line.pv.length) return null;
  const squares = squaresOf(line.pv[0]);
  if (squares.length === 0) return null;
  return squares.length === 1 ? [squares[0], squares[0]] : [squares[0], squares[1]];
}

function renderShapes() {
  const board = $("board");
  const svg = $("shapes");
  if (!ui.state || !board || !svg) return;
  const size = board.querySelector(".sq") ? board.querySelector(".sq").offsetWidth : 48;
  svg.setAttribute("width", board.offsetWidth);
  svg.setAttribute("height", board.offsetHeight);
  const marker = (kind) =>
    `<marker id="head-${kind}" class="${kind}" viewBox="0 0 4 4" refX="1" refY="2" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L4,2 L0,4 Z"/></marker>`;
  const best = bestMoveSquares();
  const parts = shapes.drawn.map((s) => arrowSvg(s.from, s.to, "user", size));
  if (best) parts.unshift(arrowSvg(best[0], best[1], "best", size));
  svg.innerHTML = `<defs>${marker("user")}${marker("best")}</defs><g>${parts.join("")}</g>`;
}

/** A new position: the person's drawings belong to the old one. */
function clearShapes() {
  shapes.drawn = [];
}

function bindShapes() {
  const wrap = $("board-wrap");
  wrap.addEventListener("pointerdown", onShapeDown);
  document.addEventListener("pointerup", onShapeUp);
  wrap.addEventListener("contextmenu", (event) => {
    event.preventDefault();
    cancelPremove();
  });
}

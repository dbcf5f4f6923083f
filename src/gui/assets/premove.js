// Premoves against the engine, as on lichess: while the engine thinks, the
// person may pick a move for their own side by clicks or drag and drop. It
// is shown on the board and played as soon as the engine's move arrives, if
// it is legal then; otherwise it is dropped without a word. A click on an
// empty square or a right click cancels it. The page does not know the
// person's moves before the engine has moved, so any square may be chosen.
"use strict";

const premove = {
  chosen: null, // {from: square} or {hand: letter}, with {to: square}
  picked: null, // the first click of a premove: {square} or {hand: letter}
};

/** True while the person may premove: against the engine, at the engine's turn. */
function premoveTime() {
  return ui.mode !== "none" && engineToMove();
}

/** True when `letter` (as on the board: upper case White) is the person's own man. */
function ownMan(letter) {
  return !!letter && (ui.mode === "white" ? letter === letter.toUpperCase() : letter === letter.toLowerCase());
}

function cancelPremove() {
  if (!premove.chosen && !premove.picked) return;
  premove.chosen = premove.picked = null;
  if (ui.state) render();
}

function setPremove(from, to) {
  // `at`: the moves of the game when it was chosen; it is played after the engine's one move more.
  premove.chosen = { ...from, to, at: ui.state.moves.length };
  premove.picked = null;
  render();
}

/** The extra classes of square `name`: the premove's squares, the picked man. */
function premoveClasses(name) {
  const p = premove.chosen;
  if (p && (p.from === name || p.to === name)) return ["premove"];
  if (premove.picked && premove.picked.square === name) return ["premove", "sel"];
  return [];
}

/** A click on the board while the engine thinks. */
function premoveBoardClick(name, letter) {
  const picked = premove.picked;
  if (picked && picked.square === name) {
    premove.picked = null;
    return render();
  }
  if (ownMan(letter) && !(picked && picked.hand)) {
    // A man of one's own: picked (again), the old premove forgotten.
    premove.chosen = null;
    premove.picked = { square: name };
    return render();
  }
  if (picked) return setPremove(picked.square ? { from: picked.square } : { hand: picked.hand }, name);
  cancelPremove();
}

/** A click on a man in hand while the engine thinks. */
function premoveHandClick(held) {
  if (held.dataset.hand !== ui.mode) return cancelPremove();
  const letter = held.dataset.piece;
  premove.chosen = null;
  premove.picked = premove.picked && premove.picked.hand === letter ? null : { hand: letter };
  render();
}

/** The drag source of a press while the engine thinks: a man of one's own. */
function premoveDragSource(target) {
  const square = target.closest("#board .sq");
  if (square && ownMan(square.dataset.piece)) return { square: square.dataset.square, letter: square.dataset.piece, premove: true };
  const held = target.closest(".held");
  if (held && held.dataset.hand === ui.mode) {
    const letter = ui.mode === "white" ? held.dataset.piece : held.dataset.piece.toLowerCase();
    return { hand: held.dataset.piece, letter, premove: true };
  }
  return null;
}

/** A premove dragged to `square` (an element, or null off the board). */
function premoveDrop(source, square) {
  const to = square && square.dataset.square;
  if (!to || to === source.square) {
    premove.picked = null;
    return render();
  }
  setPremove(source.square ? { from: source.square } : { hand: source.hand }, to);
}

/** Called with each new state: at the person's turn the premove is played
 * if it is legal (a promotion takes the most valuable man), else dropped.
 * True when it was played. */
function playPremove() {
  const p = premove.chosen;
  const s = ui.state;
  if (!p && !premove.picked) return false;
  if (ui.mode === "none" || !s || s.result || !atEnd()) {
    premove.chosen = premove.picked = null;
    return false;
  }
  if (s.side !== ui.mode) return false;
  premove.chosen = premove.picked = null;
  if (!p || s.moves.length !== p.at + 1) return false;
  const fits = s.legal.filter((m) => m.to === p.to && (p.hand ? m.kind === "drop" && m.piece === p.hand : m.from === p.from));
  if (fits.length === 0) {
    render();
    return false;
  }
  const value = (m) => {
    const def = m.piece && m.kind !== "drop" && ui.variant && ui.variant.pieces.find((d) => d.letter === m.piece.toUpperCase());
    return def ? def.value : 0;
  };
  const best = fits.reduce((a, b) => (value(b) > value(a) ? b : a));
  play(best.uci);
  return true;
}

// The game in the page's address, so a reload finds it and a copied link
// opens it anywhere: `?variant=clash5&fen=...&moves=e2e4,e7e5&ply=1` (the
// start FEN only when it is not the variant's own, the viewed move only
// when it is not the last). Opening such an address replays the game on the
// board's server unless it already holds it; `?fen=` alone opens a position
// of the current variant.
"use strict";

/** The game an address names: {variant, fen, moves, ply}, or null. */
function linkedGame(search) {
  const p = new URLSearchParams(search);
  if (!p.has("variant") && !p.has("fen") && !p.has("moves")) return null;
  const ply = parseInt(p.get("ply"), 10);
  return {
    variant: p.get("variant"),
    fen: p.get("fen"),
    moves: (p.get("moves") || "").split(",").filter(Boolean),
    ply: Number.isNaN(ply) ? null : ply,
  };
}

/** The address of the state's game. */
function gameLink(state) {
  const p = new URLSearchParams();
  p.set("variant", state.variant);
  if (!state.standard_start) p.set("fen", state.start_fen);
  if (state.moves.length) p.set("moves", state.moves.map((m) => m.uci).join(","));
  if (state.ply !== state.moves.length) p.set("ply", String(state.ply));
  return `${location.pathname}?${p.toString().replace(/%2C/g, ",").replace(/%2F/g, "/").replace(/%40/g, "@")}`;
}

/** True when the server's game is the linked one (the viewed move aside). */
function holdsGame(state, game) {
  return (
    state.variant === (game.variant || state.variant) &&
    (game.fen ? state.start_fen === game.fen : state.standard_start) &&
    state.moves.length === game.moves.length &&
    state.moves.every((m, i) => m.uci === game.moves[i])
  );
}

/** Sets the server's game to the linked one; the state after it, or null (the error shown). */
async function openLinkedGame(state, game) {
  if (!holdsGame(state, game)) {
    const body = { variant: game.variant || state.variant };
    if (game.fen) body.fen = game.fen;
    state = await call("POST", "/api/new", body);
    for (const uci of game.moves) {
      if (!state) return null;
      state = await call("POST", "/api/move", { move: uci, truncate: false });
    }
  }
  if (state && game.ply !== null && game.ply !== state.ply) state = await call("POST", "/api/view", { ply: game.ply });
  return state;
}

/** Keeps the address on the game shown (no new history entry per move). */
function writeGameLink(state) {
  const link = gameLink(state);
  if (location.pathname + location.search !== link) history.replaceState(null, "", link);
}

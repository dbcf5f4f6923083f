// menagerie's board page: draws the server's state, turns clicks into moves
// from the engine's legal-move list, and follows the server-sent events.
"use strict";

const ui = {
  variants: [],
  variant: null, // the current variant's description
  state: null,
  selected: null, // {square} or {hand: letter}
  flipped: false,
  mode: "none", // which colour the person plays against the engine
  engineBusy: false,
  lines: new Map(),
};

const $ = (id) => document.getElementById(id);

async function api(method, path, body) {
  // JSON bodies only: the server refuses other types from anything but GET.
  const options = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) options.body = JSON.stringify(body);
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(message) {
  $("error").textContent = message || "";
}

async function call(method, path, body) {
  try {
    const data = await api(method, path, body);
    showError("");
    return data;
  } catch (e) {
    showError(e.message);
    return null;
  }
}

function pieceInfo(letter) {
  const upper = letter.toUpperCase();
  const def = ui.variant && ui.variant.pieces.find((p) => p.letter === upper);
  return { name: def ? def.name : "?", white: letter === upper };
}

function pieceHtml(letter, white) {
  const info = pieceInfo(letter);
  return pieceSvg(info.name, letter, white === undefined ? info.white : white);
}

/** Square name of a file and rank index (0-based). */
function squareName(file, rank) {
  return String.fromCharCode(97 + file) + (rank + 1);
}

function squaresOf(uci) {
  return uci ? uci.match(/[a-z](10|[1-9])/g) || [] : [];
}

function setState(state) {
  // Answers may arrive out of order; the game's version only grows.
  if (!state || (ui.state && state.version < ui.state.version)) return;
  if (ui.state && state.version === ui.state.version) {
    // The same game: keep the selection, take the engine's switches.
    ui.state.analysing = state.analysing;
    ui.state.thinking = state.thinking;
    $("analyse").checked = state.analysing !== null;
    renderStatus();
    return;
  }
  const variantChanged = !ui.state || ui.state.variant !== state.variant;
  ui.state = state;
  if (variantChanged) {
    ui.variant = ui.variants.find((v) => v.name === state.variant) || null;
    $("variant").value = state.variant;
    ui.lines.clear();
  }
  if (ui.linesVersion !== state.version) {
    ui.lines.clear();
    ui.linesVersion = state.version;
  }
  ui.selected = null;
  $("fen").value = state.fen;
  $("analyse").checked = state.analysing !== null;
  render();
  maybeEngineMove();
}

function render() {
  renderBoard();
  renderHands();
  renderStatus();
  renderMoves();
  renderLines();
}

function boardSize() {
  const s = ui.state;
  const room = Math.min(window.innerWidth - 420, window.innerHeight - 220);
  return Math.max(36, Math.min(72, Math.floor(room / Math.max(s.files, s.ranks))));
}

function targetsOf(selected) {
  if (!selected) return [];
  return ui.state.legal.filter((m) =>
    selected.hand ? m.kind === "drop" && m.piece === selected.hand : m.from === selected.square && m.to
  );
}

function renderBoard() {
  const s = ui.state;
  const board = $("board");
  board.style.setProperty("--size", boardSize() + "px");
  document.documentElement.style.setProperty("--size", boardSize() + "px");
  board.style.gridTemplateColumns = `repeat(${s.files}, var(--size))`;
  const targets = targetsOf(ui.selected);
  const last = squaresOf(s.last);
  const html = [];
  for (let row = 0; row < s.ranks; row++) {
    for (let col = 0; col < s.files; col++) {
      const rank = ui.flipped ? row : s.ranks - 1 - row;
      const file = ui.flipped ? s.files - 1 - col : col;
      const name = squareName(file, rank);
      const letter = s.board[s.ranks - 1 - rank][file];
      const classes = ["sq", (file + rank) % 2 === 0 ? "dark" : "light"];
      if (last.includes(name)) classes.push("last");
      if (ui.selected && ui.selected.square === name) classes.push("sel");
      if (s.check === name) classes.push("check");
      const here = targets.filter((m) => m.to === name);
      if (here.length) {
        classes.push("target");
        if (letter) classes.push("occupied");
        if (here.some((m) => m.kind === "swap" || m.kind === "castle")) classes.push("swap");
      }
      let inner = letter ? pieceHtml(letter) : "";
      if (col === 0) inner += `<span class="coord rank">${rank + 1}</span>`;
      if (row === s.ranks - 1) inner += `<span class="coord file">${String.fromCharCode(97 + file)}</span>`;
      html.push(`<div class="${classes.join(" ")}" data-square="${name}" data-piece="${letter}">${inner}</div>`);
    }
  }
  board.innerHTML = html.join("");
  const setup = s.setup && s.legal.some((m) => m.kind === "pass" || m.kind === "swap");
  $("setup-bar").hidden = !setup;
  $("keep").hidden = !s.legal.some((m) => m.kind === "pass");
}

function renderHands() {
  const s = ui.state;
  const hasHands = ui.variant && ui.variant.hands;
  const top = ui.flipped ? "white" : "black";
  const bottom = ui.flipped ? "black" : "white";
  for (const [id, color] of [["hand-top", top], ["hand-bottom", bottom]]) {
    const el = $(id);
    el.hidden = !hasHands;
    el.dataset.color = color;
    const held = s.hands[color]
      .map((h) => {
        const letter = color === "white" ? h.piece : h.piece.toLowerCase();
        const sel = ui.selected && ui.selected.hand === h.piece && s.side === color ? " sel" : "";
        return `<div class="held${sel}" data-hand="${color}" data-piece="${h.piece}" title="${pieceInfo(h.piece).name}">${pieceHtml(letter)}<span class="count">${h.count}</span></div>`;
      })
      .join("");
    el.innerHTML = `<span class="label">${color}</span>${held}`;
  }
}

function renderStatus() {
  const s = ui.state;
  let text;
  if (s.result) text = `${s.result.result}: ${s.result.reason}`;
  else {
    text = `${s.side === "white" ? "White" : "Black"} to move`;
    if (s.setup) text += " (setup: swap or keep)";
    if (s.check) text += ", in check";
    if (s.thinking || ui.engineBusy) text += " - the engine is thinking";
  }
  $("status").textContent = text;
}

function renderMoves() {
  const items = [];
  let current = null;
  for (const m of ui.state.moves) {
    if (m.white || !current || current.number !== m.number || current.black !== null) {
      current = { number: m.number, white: m.white ? m.san : "...", black: null };
      items.push(current);
      if (m.white) continue;
    }
    current.black = m.san;
  }
  $("moves").innerHTML = items
    .map((i) => `<li value="${i.number}"><span>${i.white}</span><span>${i.black || ""}</span></li>`)
    .join("");
  $("moves").scrollTop = $("moves").scrollHeight;
}

function scoreText(score) {
  if (!score) return "";
  if (score.mate !== undefined) return (score.mate > 0 ? "#" : "#-") + Math.abs(score.mate);
  return (score.cp >= 0 ? "+" : "") + (score.cp / 100).toFixed(2);
}

function renderLines() {
  const rows = [...ui.lines.values()].sort((a, b) => a.multipv - b.multipv);
  $("lines").querySelector("tbody").innerHTML = rows
    .map(
      (l) =>
        `<tr><td>${scoreText(l.white_score)}</td><td>${l.depth}/${l.seldepth}</td><td>${l.nodes}</td><td class="pv">${l.san.join(" ")}</td></tr>`
    )
    .join("");
}

// ---- clicks ----

function onBoardClick(event) {
  const square = event.target.closest(".sq");
  if (!square || !ui.state || ui.state.result || engineToMove()) return;
  const name = square.dataset.square;
  const chosen = targetsOf(ui.selected).filter((m) => m.to === name);
  if (chosen.length === 1) return play(chosen[0].uci);
  if (chosen.length > 1) return choosePromotion(chosen);
  const own = ui.state.legal.some((m) => m.from === name && m.to);
  ui.selected = own && !(ui.selected && ui.selected.square === name) ? { square: name } : null;
  render();
}

function onHandClick(event) {
  const held = event.target.closest(".held");
  if (!held || !ui.state || ui.state.result || engineToMove()) return;
  const letter = held.dataset.piece;
  const canDrop = held.dataset.hand === ui.state.side && ui.state.legal.some((m) => m.kind === "drop" && m.piece === letter);
  ui.selected = canDrop && !(ui.selected && ui.selected.hand === letter) ? { hand: letter } : null;
  render();
}

function choosePromotion(moves) {
  const box = $("promotion");
  const white = ui.state.side === "white";
  box.innerHTML = moves
    .map((m) => {
      const letter = m.piece ? (white ? m.piece : m.piece.toLowerCase()) : null;
      const face = letter ? pieceHtml(letter) : "no promotion";
      return `<button data-uci="${m.uci}" title="${m.san}">${face}</button>`;
    })
    .join("");
  box.hidden = false;
}

async function play(uci) {
  $("promotion").hidden = true;
  ui.selected = null;
  const state = await call("POST", "/api/move", { move: uci });
  if (state) setState(state);
  else render();
}

// ---- the engine ----

function engineToMove() {
  const s = ui.state;
  return ui.mode !== "none" && s && !s.result && s.side !== ui.mode;
}

async function engineMove() {
  if (ui.engineBusy || !ui.state || ui.state.result) return;
  ui.engineBusy = true;
  renderStatus();
  const movetime = Math.max(1, Math.min(600000, parseInt($("movetime").value, 10) || 1000));
  const reply = await call("POST", "/api/go", { movetime, play: true });
  ui.engineBusy = false;
  if (reply) setState(reply.state);
  else renderStatus();
}

function maybeEngineMove() {
  if (engineToMove() && !ui.engineBusy) setTimeout(engineMove, 50);
}

// ---- events ----

function listen() {
  const events = new EventSource("/api/events");
  events.addEventListener("state", async (e) => {
    const { version } = JSON.parse(e.data);
    if (ui.state && version < ui.state.version) return;
    if (!ui.engineBusy) setState(await call("GET", "/api/state"));
  });
  events.addEventListener("info", (e) => {
    const info = JSON.parse(e.data);
    if (!ui.state || info.version !== ui.state.version) return;
    ui.lines.set(info.multipv, info);
    renderLines();
  });
}

// ---- controls ----

async function newGame(fen) {
  const body = { variant: $("variant").value };
  if (fen) body.fen = fen;
  const names = { none: ["?", "?"], white: ["Human", "menagerie"], black: ["menagerie", "Human"] }[ui.mode];
  body.white = names[0];
  body.black = names[1];
  const state = await call("POST", "/api/new", body);
  if (state) setState(state);
}

function bind() {
  $("board").addEventListener("click", onBoardClick);
  $("hand-top").addEventListener("click", onHandClick);
  $("hand-bottom").addEventListener("click", onHandClick);
  $("promotion").addEventListener("click", (e) => {
    const button = e.target.closest("button");
    if (button) play(button.dataset.uci);
  });
  $("new").addEventListener("click", () => newGame(null));
  $("variant").addEventListener("change", () => newGame(null));
  $("set-fen").addEventListener("click", () => newGame($("fen").value.trim() || null));
  $("fen").addEventListener("keydown", (e) => {
    if (e.key === "Enter") newGame($("fen").value.trim() || null);
  });
  $("keep").addEventListener("click", () => {
    const pass = ui.state.legal.find((m) => m.kind === "pass");
    if (pass) play(pass.uci);
  });
  $("flip").addEventListener("click", () => {
    ui.flipped = !ui.flipped;
    render();
  });
  $("undo").addEventListener("click", async () => {
    // Against the engine, take back to the person's own turn.
    const s = ui.state;
    let plies = 1;
    if (ui.mode !== "none" && s.side === ui.mode && s.moves.length >= 2) plies = 2;
    if (s.moves.length === 0) return showError("no move to take back");
    const state = await call("POST", "/api/undo", { plies });
    if (state) setState(state);
  });
  $("engine-move").addEventListener("click", () => {
    if (ui.engineBusy || (ui.state && ui.state.thinking)) call("POST", "/api/stop");
    else engineMove();
  });
  for (const radio of document.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener("change", () => {
      ui.mode = radio.value;
      if (ui.mode !== "none") {
        ui.flipped = ui.mode === "black";
        if (ui.state && ui.state.analysing !== null) call("POST", "/api/stop");
      }
      render();
      maybeEngineMove();
    });
  }
  $("analyse").addEventListener("change", async () => {
    const on = $("analyse").checked;
    const state = on ? await call("POST", "/api/analyse", { multipv: parseInt($("multipv").value, 10) }) : await call("POST", "/api/stop");
    if (state) setState(state);
  });
  $("multipv").addEventListener("change", async () => {
    ui.lines.clear();
    if ($("analyse").checked) {
      const state = await call("POST", "/api/analyse", { multipv: parseInt($("multipv").value, 10) });
      if (state) setState(state);
    }
  });
  $("export").addEventListener("click", async () => {
    const reply = await call("GET", "/api/pgn");
    if (!reply) return;
    $("pgn").value = reply.pgn;
    const link = $("download");
    link.href = URL.createObjectURL(new Blob([reply.pgn], { type: "application/x-chess-pgn" }));
    link.hidden = false;
  });
  $("import").addEventListener("click", async () => {
    const state = await call("POST", "/api/pgn", { pgn: $("pgn").value });
    if (state) setState(state);
  });
  window.addEventListener("resize", () => ui.state && render());
}

async function start() {
  // The server keeps the token of the address printed at start in a cookie,
  // which every request of this page carries: keep it out of the address bar.
  if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);
  bind();
  ui.variants = (await call("GET", "/api/variants")) || [];
  $("variant").innerHTML = ui.variants.map((v) => `<option value="${v.name}" title="${v.description}">${v.name}</option>`).join("");
  setState(await call("GET", "/api/state"));
  listen();
}

start();

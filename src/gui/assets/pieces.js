// Piece drawings for menagerie's board, drawn for this project (SVG, 100x100).
// The six orthodox men are silhouettes; fairy men are silhouettes built from
// them or emblems with their letter; Clockwork's non-capturing twins are
// their originals with a dashed outline and a "no capture" badge.
"use strict";

const PIECE_SHAPES = (() => {
  const base = "M24 84 h52 a4 4 0 0 1 4 4 v2 a2 2 0 0 1 -2 2 H22 a2 2 0 0 1 -2 -2 v-2 a4 4 0 0 1 4 -4 Z";
  const pawn = base + " M36 84 C36 70 42 62 44 56 H56 C58 62 64 70 64 84 Z M50 22 a13 13 0 1 1 -0.01 0 Z M40 52 h20 a3 3 0 0 1 0 6 h-20 a3 3 0 0 1 0 -6 Z";
  const rook = base + " M30 84 L34 46 H66 L70 84 Z M28 20 h10 v8 h6 v-8 h12 v8 h6 v-8 h10 v20 l-6 6 H34 l-6 -6 Z";
  const bishop = base + " M36 84 C38 74 42 68 42 62 H58 C58 68 62 74 64 84 Z M50 18 C64 28 68 44 60 58 H40 C32 44 36 28 50 18 Z M50 6 a6 6 0 1 1 -0.01 0 Z";
  const bishopSlit = "M52 28 L46 42";
  const knight = base + " M32 84 C32 70 40 62 42 54 C34 56 26 58 22 52 C18 46 26 38 34 34 C38 26 44 20 50 18 L52 8 L58 18 C72 24 78 42 74 60 C72 70 70 78 70 84 Z";
  const knightEye = "M46 30 a3 3 0 1 1 -0.01 0 Z";
  const queen = base + " M28 84 L24 40 L38 60 L42 30 L50 58 L58 30 L62 60 L76 40 L72 84 Z M24 30 a5 5 0 1 1 -0.01 0 Z M42 20 a5 5 0 1 1 -0.01 0 Z M58 20 a5 5 0 1 1 -0.01 0 Z M76 30 a5 5 0 1 1 -0.01 0 Z";
  const king = base + " M28 84 C22 66 24 48 38 48 C44 48 48 54 50 58 C52 54 56 48 62 48 C76 48 78 66 72 84 Z M47 10 h6 v10 h8 v6 h-8 v18 h-6 v-18 h-8 v-6 h8 Z";
  const drawn = { pawn: [pawn], rook: [rook], bishop: [bishop, bishopSlit], knight: [knight, knightEye], queen: [queen], king: [king] };
  // Fairy men: a silhouette of the pieces they combine, or an emblem.
  const emblems = {
    archbishop: { shape: "mitre", mark: "N" },
    chancellor: { shape: "tower", mark: "N" },
    maharaja: { shape: "crown", mark: "N" },
    unicorn: { shape: "horse", mark: "horn" },
    fil: { shape: "elephant" },
    cannon: { shape: "cannon" },
    giraffe: { shape: "giraffe" },
    leo: { shape: "crown", mark: "hop" },
    monk: { shape: "mitre", mark: "hop" },
    joker: { shape: "joker" },
    "special-pawn": { shape: "pawn", mark: "star" },
  };
  return { drawn, emblems };
})();

/** SVG text of piece `name` (letter `letter`) for `white`. */
function pieceSvg(name, letter, white) {
  const fill = white ? "#fbfbf6" : "#2c2c2c";
  const line = white ? "#2c2c2c" : "#f0f0ea";
  let twin = false;
  if (name.startsWith("nc-")) {
    twin = true;
    name = name.slice(3);
  }
  const stroke = `stroke="${line}" stroke-width="3" stroke-linejoin="round"${twin ? ' stroke-dasharray="6 4"' : ""}`;
  const body = (d) => `<path d="${d}" fill="${fill}" ${stroke}/>`;
  const detail = (d) => `<path d="${d}" fill="none" stroke="${line}" stroke-width="3" stroke-linecap="round"/>`;
  const dot = (d) => `<path d="${d}" fill="${line}"/>`;
  const label = (text, y, size) =>
    `<text x="50" y="${y}" text-anchor="middle" font-family="DejaVu Sans, Verdana, sans-serif" font-weight="bold" font-size="${size}" fill="${line}">${text}</text>`;
  let inner = "";
  const drawn = PIECE_SHAPES.drawn[name];
  const emblem = PIECE_SHAPES.emblems[name];
  if (drawn) {
    inner = body(drawn[0]);
    if (name === "bishop") inner += detail(drawn[1]);
    if (name === "knight") inner += dot(drawn[1]);
  } else if (emblem) {
    inner = emblemSvg(emblem, body, detail, dot, label, line, fill);
  } else {
    // A piece of a user's variant: a disc with its letter.
    inner = body("M50 10 a40 40 0 1 1 -0.01 0 Z") + label(letter.toUpperCase(), 64, 40);
  }
  if (twin) {
    // No-capture badge: a small crossed circle.
    inner += `<g><circle cx="82" cy="18" r="11" fill="${fill}" stroke="${line}" stroke-width="3"/><path d="M75 25 L89 11" stroke="${line}" stroke-width="3"/></g>`;
  }
  return `<svg class="piece" viewBox="0 0 100 100" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${white ? "white" : "black"} ${name}">${inner}</svg>`;
}

function emblemSvg(emblem, body, detail, dot, label, line, fill) {
  const d = PIECE_SHAPES.drawn;
  const smallKnight = `<g transform="translate(56 46) scale(0.4)">${body(d.knight[0])}</g>`;
  switch (emblem.shape) {
    case "mitre": {
      let s = body(d.bishop[0]);
      if (emblem.mark === "N") s += smallKnight;
      else s += detail("M42 40 h16 M50 32 v16");
      return s;
    }
    case "tower":
      return body(d.rook[0]) + smallKnight;
    case "crown": {
      let s = body(d.queen[0]);
      if (emblem.mark === "N") s += smallKnight;
      else s += `<circle cx="50" cy="70" r="7" fill="${line}"/>`;
      return s;
    }
    case "horse":
      return body(d.knight[0]) + dot(d.knight[1]) + detail("M52 10 L62 -2");
    case "pawn":
      return body(d.pawn[0]) + `<path d="M50 26 l3 6 h6 l-5 4 l2 6 l-6 -4 l-6 4 l2 -6 l-5 -4 h6 Z" fill="${line}"/>`;
    case "elephant":
      return (
        body("M18 84 C16 56 26 36 50 36 C74 36 84 52 82 72 L82 84 H70 V72 H58 V84 Z") +
        body("M28 46 C16 52 14 70 20 80 L26 80 C24 70 26 60 34 56 Z") +
        `<circle cx="42" cy="48" r="3.5" fill="${line}"/>` +
        detail("M60 40 C70 42 76 50 74 60")
      );
    case "cannon":
      return (
        body("M14 56 L74 36 L80 52 L20 72 Z") +
        `<circle cx="40" cy="74" r="14" fill="${fill}" stroke="${line}" stroke-width="3"/>` +
        `<circle cx="40" cy="74" r="4" fill="${line}"/>` +
        body("M18 88 h64 v4 H18 Z")
      );
    case "giraffe":
      return (
        body("M30 86 V60 C30 52 36 48 44 48 H54 V20 C54 14 58 10 64 10 H74 C78 10 80 14 78 18 L72 22 H66 V48 C72 50 74 56 74 62 V86 H64 V66 H40 V86 Z") +
        `<circle cx="66" cy="15" r="2.5" fill="${line}"/>` +
        detail("M58 28 h4 M58 36 h4 M38 56 h6 M52 58 h6")
      );
    case "joker":
      return (
        body("M50 8 C70 8 86 24 86 46 C86 70 70 88 50 88 C30 88 14 70 14 46 C14 24 30 8 50 8 Z") +
        `<path d="M50 22 l6 13 h14 l-11 9 l4 14 l-13 -8 l-13 8 l4 -14 l-11 -9 h14 Z" fill="${line}"/>` +
        label("J", 82, 18)
      );
    default:
      return body("M50 10 a40 40 0 1 1 -0.01 0 Z");
  }
}

window.pieceSvg = pieceSvg;

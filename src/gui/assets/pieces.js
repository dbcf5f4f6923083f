// Piece drawings for menagerie's board, drawn for this project (SVG, 100x100).
// The six orthodox men are silhouettes; a compound man stands as its two
// parts side by side, each whole and outlined (archbishop: bishop and
// knight; chancellor: rook and knight; maharaja: queen and knight); other
// fairy men are drawings of their own (an elephant for the fil, a jester for
// the joker, a cannon, a giraffe), and a man of a user's variant is a disc
// with its letter. Clockwork's non-capturing twins are their originals with a
// dashed outline and a "no capture" badge.
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

/** Two whole men side by side, the second in front: a compound piece. */
function pairSvg(left, right, fill, line) {
  const part = (d, extra) => `<path d="${d}" fill="${fill}" stroke="${line}" stroke-width="4" stroke-linejoin="round"/>${extra || ""}`;
  const eye = `<path d="${PIECE_SHAPES.drawn.knight[1]}" fill="${line}"/>`;
  return (
    `<g transform="translate(-10 18) scale(0.8)">${part(left[0], left[1] ? `<path d="${left[1]}" fill="none" stroke="${line}" stroke-width="4" stroke-linecap="round"/>` : "")}</g>` +
    `<g transform="translate(28 18) scale(0.8)">${part(PIECE_SHAPES.drawn.knight[0], eye)}</g>` +
    (right ? `<g>${right}</g>` : "")
  );
}

function emblemSvg(emblem, body, detail, dot, label, line, fill) {
  const d = PIECE_SHAPES.drawn;
  switch (emblem.shape) {
    case "mitre": {
      if (emblem.mark === "N") return pairSvg([d.bishop[0], d.bishop[1]], null, fill, line);
      return body(d.bishop[0]) + detail("M42 40 h16 M50 32 v16");
    }
    case "tower":
      return pairSvg([d.rook[0]], null, fill, line);
    case "crown": {
      if (emblem.mark === "N") return pairSvg([d.queen[0]], null, fill, line);
      return body(d.queen[0]) + `<circle cx="50" cy="70" r="7" fill="${line}"/>`;
    }
    case "horse":
      return body(d.knight[0]) + dot(d.knight[1]) + `<path d="M50 19 L60 2 L57 21 Z" fill="${line}" stroke="${line}" stroke-width="2" stroke-linejoin="round"/>`;
    case "pawn":
      return body(d.pawn[0]) + `<path d="M50 26 l3 6 h6 l-5 4 l2 6 l-6 -4 l-6 4 l2 -6 l-5 -4 h6 Z" fill="${line}"/>`;
    case "elephant":
      return (
        body("M18 84 h68 a3 3 0 0 1 3 3 v3 H15 v-3 a3 3 0 0 1 3 -3 Z") +
        // Body with four legs.
        body("M36 42 C44 32 60 30 72 34 C84 38 88 50 86 62 L86 84 H76 V70 H70 V84 H60 V70 H50 V84 H40 V66 C36 60 34 50 36 42 Z") +
        // Head and trunk curling forward.
        body("M40 34 C32 26 20 28 16 38 C13 46 14 56 16 64 C17 72 14 78 10 80 C8 82 10 86 14 85 C22 83 26 74 25 64 C25 58 27 55 32 56 C40 57 46 50 44 42 Z") +
        // The ear.
        body("M38 36 C46 30 58 34 58 46 C58 56 50 62 42 58 C40 52 40 42 38 36 Z") +
        // Tusk and eye.
        `<path d="M24 58 C22 66 26 70 33 68" fill="none" stroke="${line}" stroke-width="3.5" stroke-linecap="round"/>` +
        `<circle cx="26" cy="40" r="3" fill="${line}"/>`
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
      // A jester: a three-pointed cap with bells over a face, on a collar.
      return (
        body("M24 84 h52 a4 4 0 0 1 4 4 v2 a2 2 0 0 1 -2 2 H22 a2 2 0 0 1 -2 -2 v-2 a4 4 0 0 1 4 -4 Z") +
        body("M26 84 C28 74 36 70 50 70 C64 70 72 74 74 84 Z") +
        body("M30 74 L38 66 L44 74 L50 66 L56 74 L62 66 L70 74 Z") +
        `<circle cx="50" cy="54" r="14" fill="${fill}" stroke="${line}" stroke-width="3"/>` +
        `<circle cx="45" cy="52" r="2" fill="${line}"/><circle cx="55" cy="52" r="2" fill="${line}"/>` +
        `<path d="M44 59 Q50 64 56 59" fill="none" stroke="${line}" stroke-width="2.5" stroke-linecap="round"/>` +
        body("M34 44 C30 32 22 26 12 26 C20 18 34 20 42 32 C43 22 46 14 50 8 C54 14 57 22 58 32 C66 20 80 18 88 26 C78 26 70 32 66 44 Z") +
        `<circle cx="11" cy="26" r="5" fill="${line}"/><circle cx="50" cy="8" r="5" fill="${line}"/><circle cx="89" cy="26" r="5" fill="${line}"/>`
      );
    default:
      return body("M50 10 a40 40 0 1 1 -0.01 0 Z");
  }
}

window.pieceSvg = pieceSvg;

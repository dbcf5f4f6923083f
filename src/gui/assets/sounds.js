// The board's sounds, made by the page itself with the Web Audio API
// (nothing is fetched): a move, a capture, a check and the end of the game,
// each a few short tones. The mute switch is kept in localStorage.
"use strict";

const sounds = {
  context: null,
  muted: false,
  last: null, // the last sound asked for (muted or not), for the tests
};

/** Tones of each sound: [frequency Hz, start s, length s, loudness]. */
const SOUND_TONES = {
  move: [[520, 0, 0.07, 0.25]],
  capture: [[330, 0, 0.06, 0.3], [220, 0.05, 0.09, 0.3]],
  check: [[880, 0, 0.08, 0.2], [660, 0.09, 0.1, 0.2]],
  end: [[523, 0, 0.15, 0.2], [659, 0.15, 0.15, 0.2], [784, 0.3, 0.3, 0.2]],
};

function loadMute() {
  try {
    sounds.muted = localStorage.getItem("menagerie-muted") === "1";
  } catch (e) {
    sounds.muted = false;
  }
  $("mute").checked = sounds.muted;
}

function setMute(muted) {
  sounds.muted = muted;
  try {
    localStorage.setItem("menagerie-muted", muted ? "1" : "0");
  } catch (e) {
    // A page without storage still mutes until it is closed.
  }
}

/** Browsers let a page sound only after a click: the context starts on the first one. */
function unlockAudio() {
  if (sounds.context || sounds.muted) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (Context) sounds.context = new Context();
}

function playSound(kind) {
  sounds.last = kind;
  if (sounds.muted || !SOUND_TONES[kind]) return;
  unlockAudio();
  const ctx = sounds.context;
  if (!ctx) return;
  if (ctx.state === "suspended") ctx.resume();
  const now = ctx.currentTime;
  for (const [frequency, start, length, loudness] of SOUND_TONES[kind]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "triangle";
    osc.frequency.value = frequency;
    // A quick rise and a fall, so the tone does not click.
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(loudness, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
  }
}

/** The sound of going from state `before` to `after`: a move forward by one, or the game's end. */
function soundOf(before, after) {
  if (!before || before.variant !== after.variant) return null;
  const ended = after.game_result && !before.game_result;
  if (ended) return "end";
  if (after.ply !== before.ply + 1 || after.moves.length < after.ply) return null;
  if (after.result) return "end";
  if (after.check) return "check";
  const san = after.moves[after.ply - 1].san;
  return san.includes("x") ? "capture" : "move";
}

function bindSounds() {
  loadMute();
  $("mute").addEventListener("change", () => setMute($("mute").checked));
  document.addEventListener("pointerdown", unlockAudio);
}
